"""The workspace: the folders a host lets its file tools read (resource ``workspace``).

A folder may be named through a symbolic link (``/tmp`` is ``/private/tmp`` on
macOS): a model told the configured spelling writes paths in it, and a tool
that shows resolved paths teaches it the real one. Both name the root, so
``Workspace.locate`` accepts an absolute path in either spelling and hands back
what lies below it; the tools then open that beneath the root's pinned real
path (``Directory``), never through the configured spelling.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from toolproof.builtin.files.access import Directory, SymlinkPolicy
from toolproof.runtime.context import ToolContext

__all__ = ["Workspace", "symlink_policy"]


def _parts(path: str | Path) -> tuple[str, ...]:
    return tuple(part for part in os.fspath(path).split("/") if part)


@dataclass(frozen=True, slots=True)
class Workspace:
    """Resource ``workspace``: allowed folders, by their real paths, in the order the host gave them.

    Args:
        roots: each folder's real path (what is opened, and what a tool shows).
        spellings: for each root, the absolute paths that name it (its configured
            spelling and its real path); a root without an entry has only its own.
    """

    resource: ClassVar[str] = "workspace"
    roots: tuple[Path, ...]
    spellings: tuple[tuple[str, ...], ...] = ()

    @classmethod
    def of(cls, folders: Iterable[str | Path]) -> Workspace:
        """A workspace of ``folders``, each resolved and pinned where it is (``Directory.pin``).

        A folder named through a symbolic link keeps that spelling (made absolute,
        ``..`` and ``.`` removed as written) beside its real path, when the
        spelling so cleaned still names that folder.
        """
        roots: list[Path] = []
        spellings: list[tuple[str, ...]] = []
        for folder in folders:
            real = Path(folder).resolve()
            given = os.path.abspath(folder)
            Directory.pin(real)
            roots.append(real)
            same = given != str(real) and os.path.realpath(given) == str(real)
            spellings.append((str(real), given) if same else (str(real),))
        return cls(tuple(roots), tuple(spellings))

    def locate(self, parts: Sequence[str], *, first: int | None = None) -> tuple[Path, list[str]] | None:
        """The root an absolute path lies in, by any spelling of it, and the path's components below that.

        Components are compared whole (``/ws-evil`` is not inside ``/ws``); the
        longest matching spelling wins, so a root nested in another is found.
        Nothing is resolved: ``..`` below the root is left for the walk.

        Args:
            parts: the absolute path's components (``split_user_path``).
            first: consider only the first so many roots.

        Returns:
            (the root's real path, the components below it), or None when no root holds the path.
        """
        best: tuple[int, Path, list[str]] | None = None
        for index, root in enumerate(self.roots[:first]):
            names = self.spellings[index] if index < len(self.spellings) else (str(root),)
            for name in names:
                prefix = _parts(name)
                n = len(prefix)
                if tuple(parts[:n]) == prefix and (best is None or n > best[0]):
                    best = (n, root, list(parts[n:]))
        return None if best is None else best[1:]


def symlink_policy(ctx: ToolContext) -> SymlinkPolicy:
    """The contract's policy for symbolic links that stay inside an allowed folder (``symlinks:``)."""
    policy: SymlinkPolicy = ctx.setting("symlinks", "within_root")
    return policy
