"""Text that crosses a boundary, made safe to print: one place for every escape.

Names, paths and texts that come from a disk, a caller or a peer reach a
system prompt, a log line, an audit record or JSON. None of them may carry a
newline that starts a forged line, a control character that rewrites a
terminal, a bidi override that reorders what a reader sees, or a lone
surrogate that cannot be encoded. ``printable`` escapes all of those,
reversibly and visibly; ``one_line`` folds white space first (for prose such as
descriptions); ``encodable`` only repairs what UTF-8 cannot carry (for JSON
values that must stay as they are otherwise).
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["BIDI_CONTROLS", "encodable", "is_printable", "one_line", "printable"]

BIDI_CONTROLS: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Characters that reorder or isolate the text around them when displayed."""

_UNSAFE: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\\\\]"
)
_SPACES: Final = re.compile(r"[\s\u2028\u2029]+")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\\":
        return "\\\\"
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str) -> str:
    """``text`` with every control, line break, bidi control, lone surrogate and backslash escaped.

    The result is one line of encodable text; distinct inputs stay distinct.
    """
    return _UNSAFE.sub(_escape, text)


def is_printable(text: str) -> bool:
    """Whether ``printable`` would leave ``text`` unchanged."""
    return _UNSAFE.search(text) is None


def one_line(text: str) -> str:
    """Prose on one line: runs of white space (line breaks included) become one space, the rest as ``printable``."""
    return printable(_SPACES.sub(" ", text).strip())


def encodable(text: str) -> str:
    """``text`` with each lone surrogate (which UTF-8 cannot carry) replaced by U+FFFD, the rest untouched."""
    return _SURROGATE.sub("\ufffd", text)
