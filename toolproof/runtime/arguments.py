"""A call's arguments read as a value every validator and handler can take.

Arguments come as JSON text (from an LLM API) or already parsed (from a
transport). Either way they must be text throughout: a lone surrogate (text
UTF-8 cannot carry), valid JSON beyond what the reader holds (an integer of
more than 4300 digits, a number beyond a float's range, nesting deeper than
1024; see ``json_reader.json_value``) and nesting deeper than
``MAX_ARGUMENT_DEPTH`` are refused with a ``BadArguments`` naming where, which
the dispatcher answers with ``invalid_arguments``. So is what an already parsed
mapping holds that JSON cannot: a property name that is not a string, NaN or
an infinity, a value of any other Python type (a set, bytes, a date, a UUID).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import orjson

from toolproof.runtime.json_paths import key_step, shown_path
from toolproof.runtime.json_reader import JsonBeyondLimits, Unreadable, json_value
from toolproof.runtime.lazy import LazyPattern
from toolproof.runtime.printable import printable

__all__ = ["MAX_ARGUMENT_BYTES", "MAX_ARGUMENT_DEPTH", "BadArguments", "parse_arguments"]

MAX_ARGUMENT_BYTES = 1 << 20
"""Argument strings longer than this are refused before parsing (1 MiB)."""
MAX_ARGUMENT_DEPTH = 512
"""Arguments nested deeper are refused: validators (and their explanations) recurse, and would fail at ~1000."""

_SURROGATE = LazyPattern("[\ud800-\udfff]")


class BadArguments(Exception):
    """The arguments of a call cannot be taken; ``detail`` says why and where (``$.path: ...``)."""

    def __init__(self, detail: str) -> None:
        self.detail = detail


def _unwritable(value: Any) -> str | None:
    """Where in ``value`` a string (or a property name) holds a lone surrogate, or JSON too large was, as a message.

    None if nowhere. An ``Unreadable`` is what a transport's reader put in place of valid JSON beyond its
    bounds (``toolproof.runtime.json_reader``): a number too long or too large, nesting too deep. Nesting deeper
    than ``MAX_ARGUMENT_DEPTH`` is refused too, and what no JSON holds: a property name that is not a string,
    NaN or an infinity, a value of a type JSON has not. A loop, not a recursion: a transport reads nesting 1024 deep.
    """
    # (value, its depth, its path, its path's first step, the property name it is under or None), in document order
    todo: list[tuple[Any, int, str, str, Any]] = [(value, 0, "$", "$", None)]
    while todo:
        item, depth, path, top, key = todo.pop()
        shown = shown_path(path, top)
        if depth > MAX_ARGUMENT_DEPTH:
            return f"{top}: nested more than {MAX_ARGUMENT_DEPTH} levels deep"
        if isinstance(key, str) and _SURROGATE.search(key) is not None:
            return f"{shown}: the property name holds a lone surrogate, which is not text; send valid Unicode text"
        if key is not None and not isinstance(key, str):
            return f"{shown}: the property name is a Python {type(key).__name__}; JSON property names are strings"
        if item is None or isinstance(item, bool | int):
            continue
        if isinstance(item, float):
            if not math.isfinite(item):
                return f"{shown}: {item} is not a JSON number; send a finite number"
        elif isinstance(item, str):
            found = _SURROGATE.search(item)
            if found is not None:
                where = f"{printable(found.group())} at character {found.start()}"
                return f"{shown}: holds a lone surrogate ({where}), which is not text; send valid Unicode text"
        elif isinstance(item, Unreadable):
            return f"{shown}: {item.what}"
        elif isinstance(item, Mapping):
            steps = [(v, path + key_step(str(k)), k) for k, v in item.items()]
            todo.extend((v, depth + 1, inner, inner if path == "$" else top, k) for v, inner, k in reversed(steps))
        elif isinstance(item, list | tuple):
            steps = [(v, f"{path}[{index}]", None) for index, v in enumerate(item)]
            todo.extend((v, depth + 1, inner, inner if path == "$" else top, k) for v, inner, k in reversed(steps))
        else:
            return f"{shown}: {_kind(item)} is not a JSON value; send a string, number, boolean, null, array or object"
    return None


def _text_only(value: Any) -> Any:
    """``value`` unchanged, after making sure no string in it holds a lone surrogate, and nothing is ``Unreadable``.

    Raises:
        BadArguments: one does; the message names where.
    """
    try:
        # fast, and refuses lone surrogates, big integers, non-string keys and most non-JSON types; reading it back
        # finds what orjson writes in another form (NaN as null, a UUID, an enum or a date as a string, a tuple)
        if orjson.loads(orjson.dumps(value)) == value:
            return value
    except orjson.JSONEncodeError:
        pass
    problem = _unwritable(value)
    if problem is not None:
        raise BadArguments(problem)
    return value


_JSON_KINDS = ((bool, "boolean"), (int, "integer"), (float, "number"), (list | tuple, "array"))


def _kind(value: object) -> str:
    """What ``value`` is, named as a JSON type where it is one (as the validator names it), else by its Python type."""
    for kind, name in _JSON_KINDS:
        if isinstance(value, kind):
            return name
    return f"a Python {type(value).__name__}"


def parse_arguments(arguments: str | bytes | Mapping[str, Any] | None, limit: int) -> Any:
    """The arguments as a value holding only text, parsed first when they are JSON text.

    The two usual forms, a dict (from a transport that parsed the request) and
    a str (from an LLM API), are told by their exact type, which is cheaper
    than the ``Mapping`` check that only the others reach.

    Raises:
        BadArguments: too long, not JSON, nested too deeply or holding a lone surrogate; or neither text nor a
            mapping (a list or a number passed as the arguments themselves).
    """
    if type(arguments) is dict:
        return _text_only(arguments)
    if type(arguments) is not str:
        if arguments is None:
            return {}
        if isinstance(arguments, Mapping):
            return _text_only(arguments)
        given: object = arguments  # an untyped caller's list or number: parsing it would raise a TypeError, logged
        if not isinstance(given, str | bytes):
            raise BadArguments(f"$: expected object, got {_kind(given)}")
    if len(arguments) > limit:
        raise BadArguments(f"$: arguments are {len(arguments)} bytes long; the limit is {limit}")
    try:
        parsed = json_value(arguments)
    except JsonBeyondLimits as exc:  # valid JSON, a number too large or nesting too deep: _text_only names where
        parsed = exc.value
    except ValueError as exc:
        raise BadArguments(f"$: arguments are not valid JSON ({exc})") from None
    return _text_only(parsed)
