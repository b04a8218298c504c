"""The Jinja environment every template renders in, and the filters that write contract text in each language.

Python: ``pystr`` (a literal), ``docstring``, ``comment_text`` (a header's comment); Markdown: ``md`` (prose),
``mdcode`` (inline code). TypeScript is built in ``typescript`` with its own ``tsstr`` and ``tsdoc``.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path

import jinja2

from toolproof import __version__
from toolproof.generator.markdown import md_code, md_text
from toolproof.generator.pysource import (
    Call,
    Str,
    annotated,
    comment,
    comment_text,
    docstring,
    entry,
    import_from,
    layout,
    pystr,
)

__all__ = ["environment"]


def _pytuple(values: Sequence[str]) -> str:
    inner = ", ".join(pystr(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


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
    env.filters["pystr"] = pystr
    env.filters["pytuple"] = _pytuple
    env.filters["docstring"] = docstring
    env.filters["comment"] = comment
    env.filters["comment_text"] = comment_text
    env.filters["md"] = md_text
    env.filters["mdcode"] = md_code
    env.globals["mdcode"] = md_code
    env.globals.update(Call=Call, Str=Str, py=layout, entry=entry, annotated=annotated, import_from=import_from)
    env.globals["version"] = __version__
    return env
