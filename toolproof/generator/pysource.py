"""Python source laid out as ``ruff format`` lays it out, for the templates, without ruff.

Every construct that may not fit the line is written in one of the two forms ruff leaves as they are:
on one line when it fits, else one item per line with a trailing comma (which ruff keeps exploded).
A string too long for its line is split at spaces into implicitly concatenated parts, each on its
own line (ruff joins them only when the whole would fit). Literals escape every character that is
not printable ASCII, so a line's width is its length and no confusable character reaches ``ruff check``.
"""

from __future__ import annotations

import ast
import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = [
    "Call",
    "Str",
    "annotated",
    "annotation",
    "comment",
    "comment_text",
    "docstring",
    "entry",
    "import_from",
    "layout",
    "pystr",
]

_ESCAPES = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(ch: str) -> str:
    """A character as it stands in a literal, quotes aside (``pystr`` escapes the one that delimits it)."""
    if ch in _ESCAPES:
        return _ESCAPES[ch]
    if " " <= ch <= "~":
        return ch
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _quote(value: str) -> str:
    # ruff's choice: double quotes, unless the text holds more of them than single ones.
    return "'" if value.count('"') > value.count("'") else '"'


def pystr(value: str) -> str:
    """A Python literal of ``value`` as ruff writes it: printable ASCII, everything else escaped."""
    quote = _quote(value)
    body = "".join(f"\\{ch}" if ch == quote else _escape(ch) for ch in value)
    return f"{quote}{body}{quote}"


@dataclass(frozen=True, slots=True)
class Str:
    """A string argument: one literal, or implicitly concatenated parts when it does not fit its line."""

    value: str


@dataclass(frozen=True, slots=True)
class Call:
    """Brackets around items: ``head`` ends with the opening bracket (``f(``, ``[``), ``close`` is its pair.

    Items are source text, ``Str`` or nested ``Call``; ``tail`` follows the closing bracket (``-> None:``).
    """

    head: str
    items: Sequence[str | Str | Call]
    close: str = ")"
    tail: str = ""
    tuple: bool = False
    """A tuple display: one item on one line keeps its comma."""
    magic: bool = True
    """Exploded, each item ends with a comma, which keeps it exploded; False for a subscript of one item,
    which ruff breaks without one (a comma would make it a tuple)."""


def _flat(item: str | Str | Call) -> str:
    if isinstance(item, Str):
        return pystr(item.value)
    if isinstance(item, Call):
        comma = "," if item.tuple and len(item.items) == 1 else ""
        return f"{item.head}{', '.join(map(_flat, item.items))}{comma}{item.close}{item.tail}"
    return item


def _parts(value: str, room: int) -> list[str]:
    """``value`` as literals of at most ``room`` characters each (quotes included), broken after spaces."""
    parts: list[str] = []
    start = 0
    while start < len(value):
        end, size, doubles, singles, space = start, 2, 0, 0, -1
        while end < len(value):
            ch = value[end]
            doubles, singles = doubles + (ch == '"'), singles + (ch == "'")
            grown = size + len(_escape(ch)) + min(doubles, singles) - min(doubles - (ch == '"'), singles - (ch == "'"))
            if grown > room and end > start:
                break
            size, end = grown, end + 1
            if ch == " ":
                space = end
        if end < len(value) and space > start:
            end = space
        parts.append(pystr(value[start:end]))
        start = end
    return parts


def _lines(item: str | Str | Call, indent: int, width: int, suffix: str, *, grouped: bool = False) -> list[str]:
    """Source lines of ``item``; ``grouped``: a string split inside a subscript, which takes parentheses (ISC004)."""
    pad = " " * indent
    flat = _flat(item)
    if indent + len(flat) + len(suffix) <= width or not isinstance(item, Str | Call):
        return [f"{pad}{flat}{suffix}"]
    if isinstance(item, Str) and grouped:
        parts = _parts(item.value, max(width - indent - 4, 20))
        return [f"{pad}(", *(f"{pad}    {part}" for part in parts), f"{pad}){suffix}"]
    if isinstance(item, Str):
        parts = _parts(item.value, max(width - indent - 1, 20))
        return [pad + p for p in parts[:-1]] + [f"{pad}{parts[-1]}{suffix}"]
    comma = "," if item.magic else ""
    subscript = item.head.endswith("[")
    inner = [line for sub in item.items for line in _lines(sub, indent + 4, width, comma, grouped=subscript)]
    return [f"{pad}{item.head}", *inner, f"{pad}{item.close}{item.tail}{suffix}"]


def annotation(text: str) -> str | Call:
    """A type annotation ruff can break: ``X[...]`` as a ``Call`` of its arguments, nested; anything else as it is."""
    if not text.endswith("]") or "[" not in text:
        return text
    head, _, inner = text[:-1].partition("[")
    if not head.replace(".", "").isidentifier():
        return text
    args: list[str] = []
    depth, start, quote, escaped = 0, 0, "", False
    for i, ch in enumerate(inner):
        if quote:  # inside a string literal (a Literal's value, a forward reference)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
            if depth < 0:
                return text  # X[a] | Y[b]: not one subscript
        elif ch == "," and depth == 0:
            args.append(inner[start:i].strip())
            start = i + 1
    args.append(inner[start:].strip())
    if depth != 0 or quote:
        return text
    return Call(f"{head}[", [_argument(arg) for arg in args], "]", magic=len(args) > 1)


def _argument(text: str) -> str | Str | Call:
    """One argument of a subscript: a string literal (a ``Literal`` value) as ``Str``, so a long one can be split."""
    if text[:1] in "\"'":
        value = ast.literal_eval(text)
        if isinstance(value, str):
            return Str(value)
    return annotation(text)


def annotated(prefix: str, text: str, indent: int, width: int, suffix: str = "") -> str:
    """``prefix`` then an annotation (``name: X[...]``), broken as ruff breaks it when it does not fit."""
    parsed = annotation(text)
    if isinstance(parsed, str):
        return f"{prefix}{parsed}{suffix}"
    return layout(Call(prefix + parsed.head, parsed.items, "]", magic=parsed.magic), indent, width, suffix)


def layout(item: str | Str | Call, indent: int, width: int, suffix: str = "") -> str:
    """``item`` then ``suffix`` as source lines at column ``indent`` (the first unindented: the template places it)."""
    return "\n".join(_lines(item, indent, width, suffix))[indent:]


def entry(key: str, value: str, indent: int, width: int) -> str:
    """A dict entry and its comma: on one line when it fits, else its value in parentheses below (ruff keeps them)."""
    line = f"{key}: {value},"
    if indent + len(line) <= width:
        return line
    pad = " " * indent
    return f"{key}: (\n{pad}    {value}\n{pad}),"


def _docstring_body(text: str) -> str:
    """``text`` escaped for a triple-quoted docstring: a ``"`` stays as it is, unless it could join the quotes.

    A quote is escaped at either end (it would run into the opening or the closing ones) and beside
    another quote (two of them beside a third make ``\"\"\"``); everything else as in ``pystr``.
    """
    last = len(text) - 1
    return "".join(
        ('\\"' if i in (0, last) or text[i - 1 : i] == '"' or text[i + 1 : i + 2] == '"' else ch)
        if ch == '"'
        else _escape(ch)
        for i, ch in enumerate(text)
    )


def docstring(text: str, indent: int, width: int) -> str:
    """A docstring with its quotes: one line when it fits, else wrapped with the closing quotes on their own line."""
    body = _docstring_body(" ".join(text.split()))
    if indent + len(body) + 6 <= width:
        return f'"""{body}"""'
    # Three short, so that a text ruff would put back on one line (one line of words) keeps its closing quotes.
    room = width - indent - 3
    lines = textwrap.wrap(body, room, initial_indent='"""', break_long_words=False, break_on_hyphens=False)
    lines[0] = lines[0].removeprefix('"""')
    if len(lines) == 1:
        return f'"""{body}"""'
    pad = " " * indent
    return '"""' + "\n".join([lines[0], *(pad + line for line in lines[1:]), pad + '"""'])


_DECLARATION = re.compile(r"coding([:=])")
"""What makes a comment on a file's first two lines a PEP 263 encoding declaration."""


def comment_text(text: str) -> str:
    """Text for a comment (a header's command, a contract's path): one line, printable ASCII, never a declaration.

    Every other character is escaped as in a literal (a newline would end the comment, U+2028 too for
    some readers), and ``coding:`` becomes ``coding\\:``, which no encoding declaration matches.
    """
    return _DECLARATION.sub(r"coding\\\1", "".join(_escape(ch) if ch != "\\" else ch for ch in text))


def comment(text: str, width: int, mark: str = "#") -> str:
    """A comment of one or more lines of at most ``width`` characters (a longer word keeps its own line)."""
    lines = textwrap.wrap(text, width - len(mark) - 1, break_long_words=False, break_on_hyphens=False)
    return "\n".join(f"{mark} {line}" for line in lines)


def import_from(module: str, names: Sequence[str], width: int) -> str:
    """``from module import names`` as ruff's isort writes it: one line, or one name a line in parentheses."""
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= width:
        return line
    return "\n".join([f"from {module} import (", *(f"    {name}," for name in names), ")"])
