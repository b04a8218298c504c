"""The file layer: open beneath a root in one step, decode bytes, stream line windows.

Every handler that touches a user path goes through here: ``Directory`` walks and
opens beneath an allowed folder with no check-then-open gap (and a bounded number
of descriptors), ``read_text`` and ``read_lines`` decode and window what it opened,
under the contract's ``symlinks`` and ``hardlinks`` policies, and write the audit
record first. A window numbers its own lines (``LineWindow.numbered``), and a
long read tells a ``Progress`` callback how far it got.

The names below are imported from their module on first use: a host answers
``tools/list`` having imported ``access`` alone, and the reading, windowing and
auditing modules (~5 ms of start-up) wait for the first read.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from toolproof.runtime.lazy import lazy_names

if TYPE_CHECKING:
    from toolproof.builtin.files.access import (
        Directory,
        FileAccessError,
        HardlinkPolicy,
        NotRegularKind,
        OpenFile,
        Reason,
        SymlinkPolicy,
        names_folder,
        split_user_path,
    )
    from toolproof.builtin.files.decoding import Decoded, DecodeError, decode
    from toolproof.builtin.files.progress import Progress
    from toolproof.builtin.files.reading import (
        LineWindow,
        TextFile,
        hardlink_policy,
        read_lines,
        read_text,
        window_from_text,
    )

__all__ = [
    "DecodeError",
    "Decoded",
    "Directory",
    "FileAccessError",
    "HardlinkPolicy",
    "LineWindow",
    "NotRegularKind",
    "OpenFile",
    "Progress",
    "Reason",
    "SymlinkPolicy",
    "TextFile",
    "decode",
    "hardlink_policy",
    "names_folder",
    "read_lines",
    "read_text",
    "split_user_path",
    "window_from_text",
]

_HOMES = {
    **dict.fromkeys(
        (
            "Directory",
            "FileAccessError",
            "HardlinkPolicy",
            "NotRegularKind",
            "OpenFile",
            "Reason",
            "SymlinkPolicy",
            "names_folder",
            "split_user_path",
        ),
        "access",
    ),
    **dict.fromkeys(("Decoded", "DecodeError", "decode"), "decoding"),
    "Progress": "progress",
    **dict.fromkeys(
        ("LineWindow", "TextFile", "hardlink_policy", "read_lines", "read_text", "window_from_text"), "reading"
    ),
}
"""The module each public name lives in."""


__getattr__ = lazy_names(__name__, _HOMES, globals())
"""Each public name, imported from its module on first use (then kept here)."""
