"""Lay down the files a contract example declares, before it runs.

Paths are relative to a test folder that holds ``skills/`` and ``workspace/``
(the roots the tools may read) and whatever the example puts beside them, such
as a secret that must stay out of reach. A fixture is a string (UTF-8 text) or
a mapping of one kind: ``text``, ``base64``, ``repeat`` + ``times`` (a large
generated file), ``symlink`` (its target, written as is), ``hardlink`` (another
name for a file laid down before it, given by its path in the test folder),
``fifo`` or ``dir``;
``mode`` (octal string) sets permissions; ``delete`` removes what is there
(for changes made after the host started).
"""

from __future__ import annotations

import base64
import os
import shutil
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

__all__ = ["ROOT_FOLDERS", "lay_fixtures"]

ROOT_FOLDERS = ("skills", "workspace")
"""Folders every example gets, whether or not it puts files in them."""


def _target(base: Path, rel: str) -> Path:
    parts = PurePosixPath(rel).parts
    if not parts or parts[0] == "/" or ".." in parts:
        raise ValueError(f"fixture path {rel!r} must stay inside the test folder")
    return base.joinpath(*parts)


def _delete(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)


def lay_fixtures(base: Path, files: Mapping[str, Any]) -> None:
    """Create the root folders and every fixture under ``base``, in declared order.

    An existing path is replaced; ``{delete: true}`` removes it.

    Raises:
        ValueError: a fixture path (or a hard link's file) leaves ``base``, or a fixture has no known kind.
    """
    for folder in ROOT_FOLDERS:
        (base / folder).mkdir(parents=True, exist_ok=True)
    modes: list[tuple[Path, int]] = []
    for rel, spec in files.items():
        path = _target(base, rel)
        if path.exists() or path.is_symlink():
            _delete(path)
        if isinstance(spec, Mapping) and spec.get("delete"):
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(spec, str):
            path.write_bytes(spec.encode("utf-8"))
            continue
        if "text" in spec:
            path.write_bytes(spec["text"].encode("utf-8"))
        elif "base64" in spec:
            path.write_bytes(base64.b64decode(spec["base64"], validate=True))
        elif "repeat" in spec:
            path.write_bytes(spec["repeat"].encode("utf-8") * spec["times"])
        elif "symlink" in spec:
            os.symlink(spec["symlink"], path)
        elif "hardlink" in spec:
            os.link(_target(base, spec["hardlink"]), path, follow_symlinks=False)
        elif spec.get("fifo"):
            os.mkfifo(path)
        elif spec.get("dir"):
            path.mkdir(exist_ok=True)
        else:
            raise ValueError(f"fixture {rel!r} has no known kind")
        if "mode" in spec:
            # Applied last, so a read-only folder can still receive its files.
            modes.append((path, int(spec["mode"], 8)))
    for path, mode in reversed(modes):
        path.chmod(mode)
