"""Text that crosses a boundary, made safe to print: one place for every escape.

Names, paths and texts that come from a disk, a caller or a peer reach a
system prompt, a log line, an audit record or JSON. None of them may carry a
newline that starts a forged line, a control character that rewrites a
terminal, a bidi override that reorders what a reader sees, an invisible
character (zero-width, soft hyphen, Unicode tags) that hides text from a
reader, or a lone surrogate that cannot be encoded. ``printable`` escapes all of those,
reversibly and visibly; ``one_line`` folds white space first (for prose such as
descriptions); ``encodable`` only repairs what UTF-8 cannot carry (for JSON
values that must stay as they are otherwise), and ``encodable_json`` does so
through a whole JSON value. ``printable_field`` is one value of a
``key=value`` log line, quoted when a space could forge another field;
``printable_json`` is a value shown as one line of JSON; ``printable_block`` is
multi-line text shown on a terminal without any line passing for a line of its own.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

from toolproof.runtime.lazy import LazyPattern

__all__ = [
    "BIDI_CONTROLS",
    "INVISIBLE",
    "encodable",
    "encodable_json",
    "is_encodable",
    "is_printable",
    "one_line",
    "printable",
    "printable_block",
    "printable_field",
    "printable_json",
]

BIDI_CONTROLS: Final = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
"""Characters that reorder or isolate the text around them when displayed."""
INVISIBLE: Final = "\u00ad\u180e\u200b\u200c\u200d\u2060\u2061\u2062\u2063\u2064\ufeff"
"""Characters that display as nothing (plus the tag block U+E0000..U+E007F, "ASCII smuggling"): escaped too,
so a name or description cannot carry text a reader does not see."""

_UNSAFE: Final = LazyPattern(
    "[\x00-\x1f\x7f-\x9f\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff\U000e0000-\U000e007f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\\\\]"
)
_SPACES: Final = LazyPattern(r"[\s\u2028\u2029]+")
_SURROGATE: Final = LazyPattern("[\ud800-\udfff]")
# The next two are patterns, not compiled ones: only logs and --verbose lines use them, and ``re`` compiles
# each on first use (~0.5 ms apiece, which every start-up paid) and keeps it.
_RAW_IN_JSON: Final = (
    "[\x7f-\x9f\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff\U000e0000-\U000e007f"
    "\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
"""What ``json.dumps(..., ensure_ascii=False)`` leaves raw that a reader must not see raw."""
_UNSAFE_BUT_TAB: Final = (
    "[\x00-\x08\x0a-\x1f\x7f-\x9f"
    "\u00ad\u180e\u200b-\u200d\u2060-\u2064\ufeff\U000e0000-\U000e007f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\\\\]"
)
_LINE_BREAK: Final = LazyPattern("\r?\n")


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if char == "\\":
        return "\\\\"
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def printable(text: str) -> str:
    """``text`` with every control, line break, bidi control, lone surrogate and backslash escaped.

    The result is one line of encodable text; distinct inputs stay distinct.
    """
    if _printable_ascii(text):  # the usual case, without the pattern (whose compile costs ~0.5 ms)
        return text
    return _UNSAFE.sub(_escape, text)


def is_printable(text: str) -> bool:
    """Whether ``printable`` would leave ``text`` unchanged."""
    if text.isascii():
        return _printable_ascii(text)
    return _UNSAFE.search(text) is None


def _printable_ascii(text: str) -> bool:
    """Whether ``text`` is ASCII that ``_UNSAFE`` does not match: no C0 control, no DEL, no backslash."""
    return text.isascii() and text.isprintable() and "\\" not in text


def one_line(text: str) -> str:
    """Prose on one line: runs of white space (line breaks included) become one space, the rest as ``printable``."""
    return printable(_SPACES.sub(" ", text).strip())


def encodable(text: str) -> str:
    """``text`` with each lone surrogate (which UTF-8 cannot carry) replaced by U+FFFD, the rest untouched."""
    return _SURROGATE.sub("\ufffd", text)


def is_encodable(text: str) -> bool:
    """Whether ``text`` holds no lone surrogate, so UTF-8 (and so JSON) can carry it."""
    return text.isascii() or _SURROGATE.search(text) is None


def encodable_json(value: Any) -> Any:
    """A JSON value with ``encodable`` applied to every string in it, keys included.

    Containers are rebuilt only where a string changed, so a clean value comes
    back as the same object. Values that are not JSON pass through untouched.
    """
    if isinstance(value, str):
        return value if is_encodable(value) else encodable(value)
    if isinstance(value, dict):
        pairs = [(encodable_json(key), encodable_json(item)) for key, item in value.items()]
        changed = any(k is not key or v is not item for (k, v), (key, item) in zip(pairs, value.items(), strict=True))
        return dict(pairs) if changed else value
    if isinstance(value, list | tuple):
        items = [encodable_json(item) for item in value]
        return items if any(a is not b for a, b in zip(items, value, strict=True)) else value
    return value


def printable_field(text: str) -> str:
    """One value of a ``key=value`` line: ``printable``, double-quoted when a reader could split it.

    A value that is empty or holds a space, a quote or an ``=`` is quoted (quotes
    inside escaped as ``\\x22``), so it cannot forge the fields after it.
    """
    safe = printable(text)
    if safe and " " not in safe and '"' not in safe and "=" not in safe:
        return safe
    return '"' + safe.replace('"', "\\x22") + '"'


def printable_json(value: Any) -> str:
    """``value`` as JSON on one printable line: for a JSON value, still valid JSON of the same value.

    Anything else is shown by its ``repr``. ``json.dumps`` escapes quotes,
    backslashes and C0 controls; what it leaves raw (C1 controls, bidi controls,
    line separators, lone surrogates) is escaped here as ``\\uXXXX``, which JSON
    reads back as the same character.
    """
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return re.sub(_RAW_IN_JSON, lambda match: f"\\u{ord(match.group()):04x}", text)


def printable_block(text: str, indent: str = "    ") -> str:
    """Multi-line text for a terminal: each line as ``printable`` (tabs kept), every line after the first indented.

    Only ``\\n`` or ``\\r\\n`` breaks a line (a lone ``\\r`` and every other break is escaped), and no
    line but the first starts at the margin, so nothing in ``text`` can pass for
    a line a host printed on its own (a log record, a ``[Tool Result]`` line).
    """
    lines = [re.sub(_UNSAFE_BUT_TAB, _escape, line) for line in _LINE_BREAK.split(text)]
    return ("\n" + indent).join(lines)
