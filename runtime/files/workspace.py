"""The workspace: the folders a host lets its file tools read (resource ``workspace``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from toolproof.runtime.context import ToolContext
from toolproof.runtime.files.access import Directory, SymlinkPolicy

__all__ = ["Workspace", "symlink_policy"]


@dataclass(frozen=True, slots=True)
class Workspace:
    """Resource ``workspace``: allowed folders, absolute, in the order the host gave them."""

    resource: ClassVar[str] = "workspace"
    roots: tuple[Path, ...]

    @classmethod
    def of(cls, folders: Iterable[str | Path]) -> Workspace:
        """A workspace of ``folders``, resolved to absolute paths, each pinned where it is (``Directory.pin``)."""
        roots = tuple(Path(p).resolve() for p in folders)
        for root in roots:
            Directory.pin(root)
        return cls(roots)


def symlink_policy(ctx: ToolContext) -> SymlinkPolicy:
    """The contract's policy for symbolic links that stay inside an allowed folder (``symlinks:``)."""
    policy: SymlinkPolicy = ctx.setting("symlinks", "within_root")
    return policy
