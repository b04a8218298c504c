"""A project made as a user makes one (`toolproof init`, `new`, `gen`) whose tool needs a resource.

Its ``notes`` tool needs ``notes_db``; the project's resource factory (``host.py``)
reads the database's path from ``$NOTES_DB``, else from the host's test folder
(``notes.json`` in it), else supplies nothing: a host given neither leaves the
tool out. ``word_count`` is ``init``'s own tool, which needs nothing.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

__all__ = ["TOOLPROOF", "make_resource_project", "toolproof"]

TOOLPROOF = [sys.executable, "-m", "toolproof"]
"""The command line as a user types it (`toolproof`), from this test run's environment."""

_HOST = '''\
"""The project's resources: the notes database, at $NOTES_DB or in the host's test folder."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import ClassVar

from toolproof.runtime import HostOptions


class NotesDb:
    resource: ClassVar[str] = "notes_db"

    def __init__(self, path: Path) -> None:
        self.path = path

    def read(self, key: str) -> str | None:
        notes = json.loads(self.path.read_text(encoding="utf-8"))
        return notes.get(key)


def resources(options: HostOptions) -> list[object]:
    path = os.environ.get("NOTES_DB") or (str(options.folder / "notes.json") if options.folder else None)
    return [NotesDb(Path(path))] if path else []
'''

NOTES_CONTRACT = """\
name: notes
version: 0.1.0
title: Notes
description: >-
  Read one note by its key. Use it when the user asks what a note says.
annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
needs: [notes_db]
input:
  type: object
  properties:
    key: {type: string, description: The note's key.}
  required: [key]
  additionalProperties: false
output:
  type: object
  properties:
    text: {type: string}
  required: [text]
  additionalProperties: false
errors:
  no_note:
    message: "No note '{key}'"
    hint: Ask the user for an existing key.
    status: 404
render:
  result: "{text}"
examples:
  - name: reads a note
    given: {files: {notes.json: '{"a": "hello"}'}}
    input: {key: a}
    expect: {output: {text: hello}, text: hello}
  - name: refuses an unknown key
    given: {files: {notes.json: '{}'}}
    input: {key: b}
    expect: {error: no_note, message: "No note 'b'"}
"""

_HANDLER = '''\
"""notes: read one note from the notes database."""

from __future__ import annotations

from generated import notes as contract
from host import NotesDb
from toolproof.runtime import ToolContext


def handle(args: contract.NotesInput, ctx: ToolContext) -> contract.NotesOutput:
    """The note of ``key``, or no_note."""
    text = ctx.need(NotesDb).read(args["key"])
    if text is None:
        raise contract.no_note(key=args["key"])
    return {"text": text}
'''


def _environment() -> dict[str, str]:
    """This run's environment without what would choose the project or the notes for the command."""
    return {k: v for k, v in os.environ.items() if k not in {"TOOLPROOF_PROJECT", "TOOLPROOF_TEST_FOLDER", "NOTES_DB"}}


def toolproof(
    *argv: str, cwd: Path, stdin: str = "", env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """Run `toolproof ARGV` in ``cwd`` as a user would, its output captured."""
    return subprocess.run(
        [*TOOLPROOF, *argv],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**_environment(), **(env or {})},
    )


def make_resource_project(folder: Path) -> Path:
    """Make the project in ``folder`` with `toolproof init`, `new notes` and `gen`; returns the folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for argv in (["init", "."], ["new", "notes"]):
        made = toolproof(*argv, cwd=folder)
        assert made.returncode == 0, made.stderr
    (folder / "host.py").write_text(_HOST, encoding="utf-8")
    (folder / "contracts" / "notes.yaml").write_text(NOTES_CONTRACT, encoding="utf-8")
    (folder / "handlers" / "notes.py").write_text(_HANDLER, encoding="utf-8")
    settings = folder / "pyproject.toml"
    text = settings.read_text(encoding="utf-8")
    commented = next(line for line in text.splitlines() if line.startswith("# resources = "))
    settings.write_text(text.replace(commented, 'resources = ["host:resources"]'), encoding="utf-8")
    generated = toolproof("gen", cwd=folder)
    assert generated.returncode == 0, generated.stderr
    return folder
