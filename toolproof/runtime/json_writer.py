"""Values written as JSON, and their size as JSON counted without writing them.

``json_bytes`` writes JSON the way every transport must: orjson for speed, the
standard library for the integers beyond 64 bits orjson will not write, and no
NaN or infinity. ``json_size`` says how long ``json_bytes`` would be, a string a
slice at a time, so an output too large to send costs no memory to refuse.
"""

from __future__ import annotations

import json
from operator import length_hint
from typing import Any, Final

import orjson

__all__ = ["json_bytes", "json_size"]


def json_bytes(value: Any) -> bytes:
    """``value`` as compact UTF-8 JSON, integers of any size kept exact.

    orjson writes almost every message; it refuses integers beyond 64 bits
    (and nesting deeper than 254), which the standard library writes instead,
    digit for digit.

    Raises:
        ValueError: ``value`` cannot be JSON: a lone surrogate, a type JSON has
            no form for, or a NaN or infinity that orjson did not handle.
    """
    try:
        return orjson.dumps(value)
    except orjson.JSONEncodeError:
        pass
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")
    except (TypeError, RecursionError) as exc:
        raise ValueError(f"not JSON: {exc}") from None


_SHORT_ESCAPES: Final = b'"\\\n\r\t\x08\x0c'
"""Bytes JSON writes as two (``\\"``, ``\\n``, ...)."""
_LONG_ESCAPES: Final = bytes(c for c in range(0x20) if c not in b"\n\r\t\x08\x0c")
"""Bytes JSON writes as six (``\\u001f``)."""
_SLICE: Final = 1 << 16
"""Characters of a string encoded at once when sizing it: at most 256 KiB held, whatever its length."""
_SHORT: Final = 4096
"""Strings up to this long are sized by writing them (24 KiB at most): faster than counting."""
_MAX_DEPTH: Final = 200
"""Nesting past which sizing gives up (orjson refuses past 254, and the standard library writes it)."""
_INT_RANGE: Final = range(-(1 << 63), 1 << 64)
"""The integers orjson writes; others go to the standard library."""


class _NotExact(Exception):
    """The value is one ``json_size`` cannot size without writing it."""


def _str_size(text: str) -> int:
    """The length of ``text`` as a JSON string in UTF-8, quotes and escapes included, a slice at a time.

    Raises:
        UnicodeEncodeError: ``text`` holds a lone surrogate.
    """
    if len(text) <= _SHORT:
        return len(orjson.dumps(text))  # raises (a ValueError) for a lone surrogate, as encode does
    size = 2
    for i in range(0, len(text), _SLICE):
        data = text[i : i + _SLICE].encode("utf-8")
        n = len(data)
        size += n + (n - len(data.translate(None, _SHORT_ESCAPES))) + 5 * (n - len(data.translate(None, _LONG_ESCAPES)))
    return size


_NUMBERS: Final = frozenset({int, float, bool, type(None)})
_LEAVES: Final = _NUMBERS | {str}
_NUMBER_BOUND: Final = 25
"""The longest an int orjson writes (20 characters) or a float (24) can be."""
_CONTAINERS: Final = frozenset({dict, list, tuple})


def _leaves_bound(items: Any, n: int) -> int | None:
    """An upper bound of the JSON size of ``n`` leaves (strings and numbers) with a comma each; None if any is not.

    Each string counts ``6 * len + 3`` (every character escaped as ``\\uXXXX``,
    quotes, comma), each number ``_NUMBER_BOUND + 1``; all summed in C loops
    (``length_hint`` is a string's length and 0 for a number).
    """
    kinds = list(map(type, items))
    if not _LEAVES.issuperset(kinds):
        return None
    strings = kinds.count(str)
    return 6 * sum(map(length_hint, items)) + 3 * strings + (_NUMBER_BOUND + 1) * (n - strings)


def _leaf_size(value: Any, kind: type) -> int:
    """The JSON size of a string or a number.

    Raises:
        _NotExact: ``value`` is neither, or an integer beyond 64 bits.
    """
    if kind is str:
        return _str_size(value)
    if value is None or value is True:
        return 4
    if value is False:
        return 5
    if kind is int:
        if value not in _INT_RANGE:
            raise _NotExact
        return len(str(value))
    if kind is float:
        return len(orjson.dumps(value))
    raise _NotExact


def _size(value: Any, budget: int, depth: int) -> int:
    """The JSON size of ``value``, or, once past ``budget``, the bytes counted so far (more than ``budget``).

    Raises:
        _NotExact: see ``json_size``.
    """
    kind = type(value)
    if kind not in _CONTAINERS:
        return _leaf_size(value, kind)
    if depth >= _MAX_DEPTH:
        raise _NotExact
    is_dict = kind is dict
    n = len(value)
    items = value.values() if is_dict else value
    if n:  # most outputs are a few small leaves: bound them with C loops and write them at once
        bound = _leaves_bound(items, n)
        if bound is not None and is_dict:
            keys_are_str = set(map(type, value)) == {str}
            bound = bound + 6 * sum(map(len, value)) + 3 * n if keys_are_str else None
        if bound is not None and bound <= max(budget, _SHORT):
            return len(orjson.dumps(value))  # small leaves only: writing it is faster than counting
    size = 2 + max(n - 1, 0) + (n if is_dict else 0)  # brackets, commas, colons
    if is_dict:
        if not set(map(type, value)) <= {str}:
            raise _NotExact
        size += sum(map(_str_size, value))
        if size > budget:
            return size
    for item in items:
        item_kind = type(item)
        if item_kind in _CONTAINERS:
            size += _size(item, budget - size, depth + 1)
        else:
            size += _leaf_size(item, item_kind)
        if size > budget:
            return size
    return size


def _small_size(value: Any) -> int | None:
    """The JSON size of a dict of short strings and numbers with string keys, written at once; None for others.

    Most tool outputs are a few short fields: one loop bounds their size as
    JSON (each character escaped as ``\\uXXXX``), and writing them is then
    faster than counting. Where this gives a size, ``_size`` would give the
    same: its own bound, never above this one, sends such a dict to orjson too.
    """
    if type(value) is not dict or len(value) > _SHORT // 32:
        return None
    chars = 0
    for key, item in value.items():
        if type(key) is not str:
            return None
        kind = type(item)
        if kind is str:
            chars += len(item)
        elif kind not in _NUMBERS:
            return None
        chars += len(key)
    if 6 * chars + 32 * len(value) > _SHORT:  # 32 a field: quotes, colon, comma and a number's 25
        return None
    try:
        return len(orjson.dumps(value))
    except orjson.JSONEncodeError:  # a lone surrogate: _size says so
        return None


def json_size(value: Any, limit: int) -> int | None:
    """``len(json_bytes(value))`` counted without writing the JSON, and no further than ``limit``.

    Strings are sized a slice at a time, so a 10 MiB string of control bytes
    (60 MiB as JSON) is measured holding a few hundred KiB.

    Returns:
        The exact size when it is at most ``limit``; past it, the bytes counted
        so far (more than ``limit``, less than the whole); None when the value
        cannot be sized without writing it: a lone surrogate, an integer beyond
        64 bits, a key that is not a string, nesting deeper than 200, or a type
        other than dict, list, tuple, str, int, float, bool and None (their
        subclasses included).
    """
    size = _small_size(value)
    if size is not None:
        return size
    try:
        return _size(value, limit, 0)
    except (_NotExact, UnicodeEncodeError, orjson.JSONEncodeError):
        return None
