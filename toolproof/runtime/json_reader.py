"""JSON text read as a value, within bounds every transport can hold.

``json_value`` reads JSON the way every transport must: orjson for speed, the
standard library for what orjson gets wrong or refuses (integers beyond 64
bits, which orjson reads as floats), and no NaN or infinity.

Valid JSON can still hold what no reader here will hold: an integer of more
than ``MAX_INT_DIGITS`` digits (Python's bound for turning text into an int and
back), a number beyond the range of a float (``1e400``), nesting deeper than
``MAX_JSON_DEPTH``. ``json_value`` refuses such a text with
``JsonBeyondLimits``, which names where (``$.start_line: a number with more
than 4300 digits``) and carries the value read with an ``Unreadable`` in each
such place, so a transport can still answer the message by its id. Finding
that out is a slow, iterative reader of its own (linear in the text, no
recursion), used only after the fast ones failed, and only on texts up to
64 KiB: in a longer one the first such part is named, the text is read no
further and refused whole (its id unread), so no peer buys seconds of CPU.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any, Final

import orjson

from toolproof.runtime.json_paths import LONG_PATH, key_step, shown_path
from toolproof.runtime.lazy import LazyPattern

__all__ = ["MAX_INT_DIGITS", "MAX_JSON_DEPTH", "JsonBeyondLimits", "Unreadable", "json_value"]

MAX_INT_DIGITS: Final = 4300
"""Digits of the longest integer read or written exactly (Python's default bound for int and str)."""
MAX_JSON_DEPTH: Final = 1024
"""The deepest nesting read (orjson's bound): a value inside 1024 arrays or objects is read, one inside 1025 is not."""

_LONG_DIGITS: Final = LazyPattern(r"\d{19}")
_LONG_DIGITS_B: Final = LazyPattern(rb"\d{19}")
_DIGITS: Final = b"0123456789"


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not valid JSON")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Beyond(_TOO_LARGE)
    return value


def _long_digits(data: str | bytes) -> bool:
    """Whether ``data`` holds 19 digits in a row.

    Most texts hold fewer than 19 ASCII digits in all, which counting them
    shows at once (faster than a search); only the others are searched. A
    text that is not ASCII is always searched: there, ``\\d`` also matches other digits.
    """
    if isinstance(data, bytes):
        if len(data) - len(data.translate(None, _DIGITS)) < 19:
            return False
        return _LONG_DIGITS_B.search(data) is not None
    if isinstance(data, str) and data.isascii():
        ascii_data = data.encode("ascii")
        if len(ascii_data) - len(ascii_data.translate(None, _DIGITS)) < 19:
            return False
    return _LONG_DIGITS.search(data) is not None


class Unreadable:
    """What stands in a value ``json_value`` read for a part of valid JSON it will not hold.

    Not a dataclass: orjson writes those, and nothing may write this as if it were the value.
    """

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what
        """What the part is, for a message: ``a number with more than 4300 digits``."""

    def __repr__(self) -> str:
        return f"Unreadable({self.what!r})"


class JsonBeyondLimits(ValueError):
    """Valid JSON holding what the reader will not hold; ``str()`` says where and what.

    Attributes:
        value: the text read with an ``Unreadable`` in place of each such part.
    """

    def __init__(self, message: str, value: Any) -> None:
        super().__init__(message)
        self.value = value


def json_value(data: str | bytes) -> Any:
    """One JSON text as a value, integers of up to ``MAX_INT_DIGITS`` digits exact.

    orjson reads almost every text; one holding 19 digits in a row (an integer
    orjson would turn into a float) or one orjson refuses (a lone surrogate
    escape, which the runtime then refuses by name) goes to the standard library,
    which also says where invalid text goes wrong.

    Raises:
        JsonBeyondLimits: ``data`` is JSON, but holds an integer of more than ``MAX_INT_DIGITS``
            digits, a number beyond the range of a float or nesting deeper than ``MAX_JSON_DEPTH``.
        ValueError: ``data`` is not JSON (NaN and infinities included).
    """
    if not _long_digits(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(data, parse_constant=_reject_constant, parse_float=_finite, parse_int=_exact_int)
    except json.JSONDecodeError:
        raise  # not JSON: the standard library says where
    except RecursionError:
        pass
    except _Beyond as exc:  # a number beyond the bounds: read again, with an Unreadable for each
        if len(data) > _SLOW_READ_LIMIT:  # or, in a long text, name the first and read no further
            _refuse_if_surely_not_json(data)
            what = f"{exc} (in a text over {_SLOW_READ_LIMIT} bytes, read no further)"
            raise JsonBeyondLimits(f"$: {what}", Unreadable(what)) from None
        try:
            value = json.loads(data, parse_constant=_reject_constant, parse_float=_mark_float, parse_int=_mark_int)
        except RecursionError:
            pass
        else:
            raise JsonBeyondLimits(_first_mark(value), value)
    if len(data) > _SLOW_READ_LIMIT:  # ~2 s a MiB: a long text that deep is refused whole, by what it is
        _refuse_if_surely_not_json(data)
        raise JsonBeyondLimits(f"$: {_TOO_DEEP_TO_READ}", Unreadable(_TOO_DEEP_TO_READ))
    value, problem = _read_bounded(data)  # nested deeper than the standard library reads
    if problem is not None:
        raise JsonBeyondLimits(problem, value)
    return value  # within MAX_JSON_DEPTH after all


_EDGES: Final = b" \t\n\r\xef\xbb\xbf"
"""What may stand before or after a JSON text's value: JSON's whitespace, and a byte order mark before it."""


def _surely_not_json(data: str | bytes) -> bool:
    """Whether ``data`` is certainly not JSON: a string left open, or brackets that do not pair up.

    Never true for JSON: with its escaped backslashes and quotes dropped, its
    quotes come in pairs; with its strings dropped too, what is left is
    structure, whose brackets of each kind are as many open as closed, and
    whose last character closes the first. Some texts that are not JSON pass.
    Linear, in C (replacing, splitting, counting): it runs only on long texts
    the reader gives up on.
    """
    text = data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass")
    # Pairs of backslashes first, as a reader takes them: no backslash stands outside a string in JSON.
    parts = text.replace(b"\\\\", b"").replace(b'\\"', b"").split(b'"')
    if len(parts) % 2 == 0:  # an odd number of quotes: a string is left open
        return True
    bare = b"".join(parts[::2]).strip(_EDGES)  # what stands between the strings
    del parts
    for opening, closing in ((b"[", b"]"), (b"{", b"}")):
        if bare.count(opening) != bare.count(closing):
            return True
        if bare.startswith(opening) and not bare.endswith(closing):
            return True
    return False


def _refuse_if_surely_not_json(data: str | bytes) -> None:
    """Raise ValueError when a long text the reader gives up on is not JSON at all (truncated, unclosed).

    Else it would be refused as JSON holding too much, which sends a client
    looking for a bound when its text is simply cut short.
    """
    if _surely_not_json(data):
        raise ValueError("not JSON: its strings or brackets do not close")


_scanstring: Final[Callable[[str, int, bool], tuple[str, int]]] = json.decoder.scanstring  # type: ignore[attr-defined]
"""The standard library's reader of one JSON string (in C), from after its opening quote."""
_WHITE: Final = LazyPattern(r"[ \t\n\r]*")
_NUMBER: Final = LazyPattern(r"(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_TOO_DEEP: Final = f"nested more than {MAX_JSON_DEPTH} levels deep"
_TOO_LONG: Final = f"a number with more than {MAX_INT_DIGITS} digits"
_SLOW_READ_LIMIT: Final = 64 * 1024
"""Characters (or bytes) of the longest text ``_read_bounded`` reads: ~0.1 s; a peer may not buy seconds of CPU."""
_TOO_DEEP_TO_READ: Final = f"nested too deeply to read (1000 levels or so) in a text over {_SLOW_READ_LIMIT} bytes"
_TOO_LARGE: Final = "a number beyond the range of a float (about 1.8e308)"


_TOO_LONG_MARK: Final = Unreadable(_TOO_LONG)
_TOO_LARGE_MARK: Final = Unreadable(_TOO_LARGE)
_PLAIN: Final = frozenset({int, float, str, bool, type(None)})


def _too_long(digits: str) -> bool:
    """Whether an integer's text has more digits than Python turns into an int (its sign aside)."""
    return len(digits) - digits.startswith("-") > MAX_INT_DIGITS


def _mark_int(digits: str) -> int | Unreadable:
    return _TOO_LONG_MARK if _too_long(digits) else int(digits)


def _mark_float(text: str) -> float | Unreadable:
    value = float(text)
    return value if math.isfinite(value) else _TOO_LARGE_MARK


class _Beyond(ValueError):
    """Raised by the readers' hooks at the first number beyond the bounds; its text says what."""


def _exact_int(digits: str) -> int:
    if _too_long(digits):
        raise _Beyond(_TOO_LONG)
    return int(digits)


def _first_mark(value: Any) -> str:
    """Where the first ``Unreadable`` in ``value`` is, and what it is (``$.a[2]: ...``); a loop, not a recursion.

    Each value waiting to be looked at holds only its last step and a link to its parent's, so the walk
    takes memory in proportion to the value, whatever its depth; the path is spelled for the one found.
    """
    todo: list[tuple[Any, Any]] = [(value, None)]
    while todo:
        item, link = todo.pop()
        if isinstance(item, Unreadable):
            steps: list[str] = []
            while link is not None:
                step, link = link
                steps.append(step)
            path = "$" + "".join(reversed(steps))
            return f"{shown_path(path, '$')}: {item.what}"
        if isinstance(item, dict):
            if not _PLAIN.issuperset(map(type, item.values())):  # else leaves only, none unreadable (C loops)
                inner = [(k, v) for k, v in item.items() if type(v) not in _PLAIN]
                todo.extend((v, (_step(item, k), link)) for k, v in reversed(inner))
        elif isinstance(item, list) and not _PLAIN.issuperset(map(type, item)):
            found = [(i, v) for i, v in enumerate(item) if type(v) not in _PLAIN]
            todo.extend((v, (f"[{i}]", link)) for i, v in reversed(found))
    return "$: a value beyond the reader's bounds"  # not reached: the value holds a mark


def _step(container: Any, key: Any) -> str:
    """One step of a JSON path: ``.key``, ``['odd key']`` or ``[3]``."""
    if isinstance(container, list):
        return f"[{len(container)}]"
    return key_step(key)


def _read_bounded(data: str | bytes) -> tuple[Any, str | None]:
    """``data`` read as JSON with an ``Unreadable`` in place of what is beyond the bounds, and where the first is.

    A loop with its own stack, not a recursion. Each character is looked at a
    bounded number of times and only integers of at most ``MAX_INT_DIGITS``
    digits are converted, so the time is linear in the text. A container too
    deep is still read (the text must be JSON throughout), into one then dropped.

    Raises:
        ValueError: ``data`` is not JSON.
    """
    if isinstance(data, bytes):
        try:
            text = data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise ValueError(f"not UTF-8: {exc.reason} at byte {exc.start}") from None
    else:
        text = data
    white, number_at = _WHITE.compiled.match, _NUMBER.compiled.match  # compiled once, bound for the loop
    end = len(text)
    problem: str | None = None
    stack: list[list[Any]] = []
    """Each open container: ``[container, the key its next value goes under, whether it is dropped]``."""

    def mark(what: str, *, first_step: bool = False) -> Unreadable:
        nonlocal problem
        if problem is None:
            steps = [_step(container, key) for container, key, _ in stack]
            path = "$" + "".join(steps)
            if first_step or len(path) > LONG_PATH:
                path = "$" + "".join(steps[:1])
            problem = f"{path}: {what}"
        return Unreadable(what)

    def key_at(pos: int) -> tuple[str, int]:
        """The property name at ``pos`` and where its value starts."""
        if pos >= end or text[pos] != '"':
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
        key, pos = _scanstring(text, pos + 1, True)
        pos = white(text, pos).end()  # type: ignore[union-attr]
        if pos >= end or text[pos] != ":":
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        return key, white(text, pos + 1).end()  # type: ignore[union-attr]

    pos = white(text, 0).end()  # type: ignore[union-attr]
    while True:
        char = text[pos] if pos < end else ""  # a value starts here
        value: Any
        if char == "{" or char == "[":
            too_deep = len(stack) >= MAX_JSON_DEPTH
            container: Any = {} if char == "{" else []
            pos = white(text, pos + 1).end()  # type: ignore[union-attr]
            if pos < end and text[pos] == ("}" if char == "{" else "]"):
                pos += 1
                value = mark(_TOO_DEEP, first_step=True) if too_deep else container
            else:
                if too_deep:  # its parent holds an Unreadable now, and it is dropped when it closes
                    parent, key, _ = stack[-1]
                    marker = mark(_TOO_DEEP, first_step=True)
                    if isinstance(parent, list):
                        parent.append(marker)
                    else:
                        parent[key] = marker
                key = None
                if char == "{":
                    key, pos = key_at(pos)
                stack.append([container, key, too_deep])
                continue
        elif char == '"':
            value, pos = _scanstring(text, pos + 1, True)
        elif (number := number_at(text, pos)) is not None:
            whole, fraction, exponent = number.groups()
            pos = number.end()
            if fraction is not None or exponent is not None:
                value = float(number.group())
                if not math.isfinite(value):
                    value = mark(_TOO_LARGE)
            elif _too_long(whole):
                value = mark(_TOO_LONG)
            else:
                value = int(whole)
        elif text.startswith("true", pos):
            value, pos = True, pos + 4
        elif text.startswith("false", pos):
            value, pos = False, pos + 5
        elif text.startswith("null", pos):
            value, pos = None, pos + 4
        else:
            raise json.JSONDecodeError("Expecting value", text, pos)
        while True:  # the value is read: put it in its container, and close those that end here
            pos = white(text, pos).end()  # type: ignore[union-attr]
            if not stack:
                if pos != end:
                    raise json.JSONDecodeError("Extra data", text, pos)
                return value, problem
            frame = stack[-1]
            container = frame[0]
            is_list = isinstance(container, list)
            if value is not _DROPPED:
                if is_list:
                    container.append(value)
                else:
                    container[frame[1]] = value
            char = text[pos] if pos < end else ""
            if char == ",":
                pos = white(text, pos + 1).end()  # type: ignore[union-attr]
                if not is_list:
                    frame[1], pos = key_at(pos)
                break
            if char != ("]" if is_list else "}"):
                raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
            pos += 1
            stack.pop()
            value = _DROPPED if frame[2] else container


_DROPPED: Final = object()
"""A too-deep container just closed: its parent already holds an ``Unreadable`` for it."""
