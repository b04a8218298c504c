"""The JSON-path grammar every message that names a place in a value speaks.

A path starts at ``$``; a property is ``.name`` when the name is plain
(``PLAIN_KEY``) and ``['odd name']`` otherwise (printable, ``'`` escaped); an
item is ``[3]``. A path longer than ``LONG_PATH`` is named by its first step
only: nesting 1000 deep is not worth spelling out. Refused arguments
(``dispatch.py``) and JSON beyond the reader's bounds (``json_reader.py``) name
places this way, as validation messages do.
"""

from __future__ import annotations

from typing import Final

from toolproof.runtime.lazy import LazyPattern
from toolproof.runtime.printable import printable

__all__ = ["LONG_PATH", "PLAIN_KEY", "key_step", "shown_path"]

PLAIN_KEY: Final = LazyPattern("[a-zA-Z][a-zA-Z0-9_]*")
"""A property name written ``.name``; any other is written ``['name']``."""
LONG_PATH: Final = 200
"""A path longer than this is named by its first step in a message."""


def key_step(key: str) -> str:
    """One property step: ``.key``, or ``['odd key']`` for a name that is not plain."""
    if PLAIN_KEY.fullmatch(key):
        return f".{key}"
    quoted = printable(key).replace("'", "\\'")
    return f"['{quoted}']"


def shown_path(path: str, first: str) -> str:
    """``path`` as a message names it: whole, or ``first`` (its first step) when longer than ``LONG_PATH``."""
    return path if len(path) <= LONG_PATH else first
