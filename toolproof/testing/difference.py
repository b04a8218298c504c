"""What differs between the value an example expects and the value a tool gave, field by field.

A failing example names each difference by its JSON path, as validation errors
do (``$.owner.tags[1]``): a field whose value changed, one that is missing, one
that is there unasked, each with what was expected and what came. Values equal
as Python compares them (``1 == 1.0``) are not differences, so this reports
exactly where ``expected != got`` holds. Every difference is listed; only a long
value is cut, around where two long strings first differ.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = ["differences", "show"]

_SHOWN: Final = 120
"""Most characters of one value a difference shows."""
_PLAIN_KEY: Final = re.compile("[A-Za-z_][A-Za-z0-9_]*")


def show(value: object) -> str:
    """``value`` as compact JSON on one line, cut to ``_SHOWN`` characters."""
    text = json.dumps(value, ensure_ascii=False, default=repr)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _at(path: str, key: object) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if _PLAIN_KEY.fullmatch(str(key)) else f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def _strings(expected: str, got: str) -> tuple[str, str]:
    """Two long strings, each cut to the same window from a little before where they first differ."""
    first = next((i for i, (a, b) in enumerate(zip(expected, got, strict=False)) if a != b), None)
    if first is None:
        first = min(len(expected), len(got))
    start = max(first - 20, 0)

    def cut(text: str) -> str:
        part = json.dumps(text[start : start + _SHOWN - 10], ensure_ascii=False)
        return ("..." if start else "") + part + ("..." if start + _SHOWN - 10 < len(text) else "")

    return cut(expected), cut(got)


def _changed(path: str, expected: Any, got: Any) -> str:
    if isinstance(expected, str) and isinstance(got, str) and max(len(expected), len(got)) > _SHOWN - 10:
        want, have = _strings(expected, got)
    else:
        want, have = show(expected), show(got)
    return f"{path}: expected {want}, got {have}"


def differences(expected: Any, got: Any, path: str = "$") -> list[str]:
    """Each place where ``got`` differs from ``expected``, in the expected value's order; empty when equal.

    Args:
        expected: what the example expects (an output, an error's output).
        got: what the tool gave.
        path: the JSON path of both values.

    Returns:
        One line per difference: ``$.a.b: expected 1, got 2``, ``$.a.c: missing, expected "x"`` or
        ``$.a.d: not expected, got true``.
    """
    if isinstance(expected, Mapping) and isinstance(got, Mapping):
        found: list[str] = []
        for key, value in expected.items():
            if key not in got:
                found.append(f"{_at(path, key)}: missing, expected {show(value)}")
            else:
                found += differences(value, got[key], _at(path, key))
        found += [
            f"{_at(path, key)}: not expected, got {show(value)}" for key, value in got.items() if key not in expected
        ]
        return found
    if isinstance(expected, list) and isinstance(got, list):
        found = []
        for index, (want, have) in enumerate(zip(expected, got, strict=False)):
            found += differences(want, have, _at(path, index))
        found += [f"{_at(path, i)}: missing, expected {show(v)}" for i, v in enumerate(expected) if i >= len(got)]
        found += [f"{_at(path, i)}: not expected, got {show(v)}" for i, v in enumerate(got) if i >= len(expected)]
        return found
    return [] if expected == got else [_changed(path, expected, got)]
