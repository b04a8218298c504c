"""The Jinja environment every template renders in, and the filters that write Python literals."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import jinja2
import orjson

from toolproof import __version__

__all__ = ["environment"]


def _pystr(value: str) -> str:
    # JSON string escapes are valid Python escapes, and JSON quotes with ".
    # orjson escapes a string as json.dumps(value, ensure_ascii=False) does; it refuses lone surrogates.
    if type(value) is str:
        try:
            return orjson.dumps(value).decode("utf-8")
        except TypeError:  # orjson.JSONEncodeError
            pass
    return json.dumps(value, ensure_ascii=False)


def _pytuple(values: Sequence[str]) -> str:
    inner = ", ".join(_pystr(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _docstring(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


@cache
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,
    )
    env.filters["pystr"] = _pystr
    env.filters["pytuple"] = _pytuple
    env.filters["docstring"] = _docstring
    env.globals["version"] = __version__
    return env
