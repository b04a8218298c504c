"""The file layer: open beneath a root in one step, decode bytes, stream line windows.

Every handler that touches a user path goes through here: ``Directory`` walks and
opens beneath an allowed folder with no check-then-open gap, ``read_text`` and
``read_lines`` decode and window what it opened and write the audit record first.
"""

from toolproof.runtime.files.access import Directory, FileAccessError, OpenFile, Reason, SymlinkPolicy, split_user_path
from toolproof.runtime.files.decoding import Decoded, DecodeError, decode
from toolproof.runtime.files.reading import LineWindow, TextFile, read_lines, read_text, window_from_text

__all__ = [
    "DecodeError",
    "Decoded",
    "Directory",
    "FileAccessError",
    "LineWindow",
    "OpenFile",
    "Reason",
    "SymlinkPolicy",
    "TextFile",
    "decode",
    "read_lines",
    "read_text",
    "split_user_path",
    "window_from_text",
]
