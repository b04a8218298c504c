"""What this fixture project's host hands its tools: the notes folder of ``delete_note``."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from toolproof.runtime import HostOptions


class Notes:
    """Resource ``notes``: the folder of notes (``notes/`` in the first workspace folder)."""

    resource: ClassVar[str] = "notes"

    def __init__(self, folder: Path) -> None:
        self.folder = folder


def resources(options: HostOptions) -> list[object]:
    """The notes folder when the host has a workspace (``--workspace``); without one, ``delete_note`` is left out."""
    return [Notes(options.workspace[0] / "notes")] if options.workspace else []
