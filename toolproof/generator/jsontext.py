"""Deterministic JSON text for generated files: declared key order, two-space indent, LF, a trailing newline.

orjson writes it fast; the standard library takes over wherever the two would write different bytes.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

import orjson

__all__ = ["dump_json", "dump_json_stdlib"]

_ORJSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
# The end of a number with a fraction or an exponent: values end their line (a string ends with its quote).
_FLOAT_END = re.compile(rb"[0-9](?:\.[0-9]+(?:e[-+]?[0-9]+)?|e[-+]?[0-9]+),?\n")
# Every byte but those _FLOAT_END matches and the quote, which keeps a string's digits apart from what follows.
_NOT_FLOAT_END = bytes(sorted(set(range(256)) - set(b'0123456789.e-+,\n"')))


def _floats_differ(out: bytes) -> bool:
    """True when orjson wrote a float otherwise than ``repr`` (json's form): 1e16 for 1e+16, 0.00001 for 1e-05."""
    # Most files hold no float. A float's end is a run of the kept bytes, so if there is one, it is also in
    # what is left once the others are dropped (one C pass): the regex then reads a fifth of the text.
    if _FLOAT_END.search(out.translate(None, _NOT_FLOAT_END)) is None:
        return False
    for match in _FLOAT_END.finditer(out):
        token = out[out.rfind(b" ", 0, match.start()) + 1 : match.end()].rstrip(b",\n").decode("ascii")
        if repr(float(token)) != token:
            return True
    return False


def _has_non_finite(data: Any) -> bool:
    """True when ``data`` (which orjson could write) holds NaN or an infinity."""
    try:
        json.dumps(data, allow_nan=False, check_circular=False)  # the C encoder: one pass, no indent
    except ValueError:
        return True
    except TypeError:  # a type only orjson writes (UUID, enum...): look for the floats one by one
        return _walk_non_finite(data)
    return False


def _walk_non_finite(data: Any) -> bool:
    if isinstance(data, float):
        return not math.isfinite(data)
    if isinstance(data, Mapping):
        return any(_walk_non_finite(v) for v in data.values())
    if isinstance(data, list | tuple):
        return any(_walk_non_finite(v) for v in data)
    return False


def dump_json_stdlib(data: Any) -> str:
    """The reference form of :func:`dump_json`, by the standard library."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def dump_json(data: Any) -> str:
    """Deterministic JSON text: declared key order, indent 2, UTF-8, trailing newline.

    orjson writes it, byte for byte what :func:`dump_json_stdlib` writes, which takes over
    where the two differ: integers beyond 64 bits and keys that are not strings (orjson
    refuses them), floats orjson writes otherwise than ``repr``, NaN and infinities (orjson writes null).
    """
    if isinstance(data, float):  # a lone value ends no line: _floats_differ would not see it
        return dump_json_stdlib(data)
    try:
        out = orjson.dumps(data, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError
        return dump_json_stdlib(data)
    bare_null = b" null\n" in out or b" null,\n" in out  # NaN and infinities come out as a bare null
    if _floats_differ(out) or (bare_null and _has_non_finite(data)):
        return dump_json_stdlib(data)
    return out.decode("utf-8") + "\n"
