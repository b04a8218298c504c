"""A small tree of the built-in tools' folders and calls through them, shared by the handler and skill tests.

``tree`` (in ``tests/builtin/conftest.py``) lays ``ws/ten.txt``, ``sk/calc/SKILL.md`` and ``outside.txt``
beside them; ``runtime_over`` serves the built-in tools over it; ``call`` passes a ``read_file`` call the
gate's skillToken, as a model would.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Final

from toolproof.runtime import Runtime, ToolResult, builtin_runtime

SECRET: Final = b"review-test-secret-0123456789"


def skill(folder: Path, name: str, body: str = "Body.\n") -> Path:
    """``folder/name/SKILL.md`` with a frontmatter and ``body``."""
    (folder / name).mkdir(parents=True)
    (folder / name / "SKILL.md").write_text(f"---\nname: x\ndescription: A skill.\n---\n{body}", encoding="utf-8")
    return folder / name


def lay_tree(base: Path) -> Path:
    """ws/ten.txt, sk/calc/SKILL.md, and outside.txt beside them."""
    (base / "ws").mkdir()
    (base / "ws" / "ten.txt").write_text("".join(f"{i}\n" for i in range(1, 11)), encoding="utf-8")
    skill(base / "sk", "calc")
    (base / "outside.txt").write_text("S\n", encoding="utf-8")
    return base


def runtime_over(tree: Path) -> Runtime:
    """The built-in tools over the tree's workspace and skills folder."""
    return builtin_runtime(workspace=[tree / "ws"], skills=[tree / "sk"], gate_secret=SECRET)


def call(runtime: Runtime, tool: str, **args: Any) -> ToolResult:
    """Call ``tool``; a ``read_file`` call carries the skillToken a read of the gate's SKILL.md hands out."""
    if tool == "read_file":
        gate = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"})
        assert gate.output is not None
        args = {**args, "skillToken": gate.output["skillToken"]}
    return runtime.call(tool, args)


def error(result: ToolResult) -> tuple[str, str]:
    """The (code, message) of a result that must be an error."""
    assert result.error is not None, result.output
    return result.error.code, result.error.message


def lay_hostile(base: Path) -> None:
    """A workspace and a skills folder holding names that are not UTF-8, and links to them."""
    ws = base / "ws"
    ws.mkdir()
    (ws / "notes.txt").write_text("one\ntwo\nthree\n", encoding="utf-8")
    (ws / "lines.txt").write_text("".join(f"line {i}\n" for i in range(2000)), encoding="utf-8")
    (ws / "latin1.txt").write_bytes(b"caf\xe9\n")
    raw = os.fsencode(ws)
    with open(raw + b"/t\xff.txt", "wb") as out:
        out.write(b"target\n")
    os.symlink(b"t\xff.txt", raw + b"/to-non-utf8")
    os.symlink(b"gone\xff.txt", raw + b"/dangling-non-utf8")
    os.mkdir(raw + b"/d\xff")
    skill = base / "skills" / "calculator"
    (skill / "examples").mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: calculator\ndescription: Adds.\n---\n# Calc\n", encoding="utf-8")
    (skill / "examples" / "basic.py").write_text("x = 1\n", encoding="utf-8")
    examples = os.fsencode(skill / "examples")
    with open(examples + b"/t\xff.py", "wb") as out:
        out.write(b"y = 2\n")
    os.symlink(b"t\xff.py", examples + b"/link.py")
