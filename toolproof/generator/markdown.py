"""Contract text in generated Markdown: as prose (``md_text``) or as inline code (``md_code``), never as markup.

A docs page puts contract text in table cells, headings and paragraphs. Written as it is, a ``|``
splits a table row, a newline ends it, a backtick opens code that swallows the rest of the line and
``<script>`` is HTML a docs site may render. Both functions give one line that shows the text as written.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["md_code", "md_text"]

_INLINE: Final = re.compile(r"([\\`*_\[\]|~])")
"""The punctuation that makes markup anywhere in a line: escapes, code, emphasis, links, table cells, strikethrough."""
_BLOCK: Final = re.compile(r"^(?=[#>+=-])|^\d+(?=[.)])")
"""What makes markup at the start of a line only (a heading, a quote, a list item, a setext underline)."""


def _one_line(text: object) -> str:
    """Whitespace (newlines, U+2028 included) collapsed; any other unprintable character shown as ``\\uXXXX``."""
    line = " ".join(str(text).split())
    return "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in line)


def md_text(text: object, *, block: bool = False) -> str:
    """``text`` as one line of Markdown prose that renders as written: no markup, no HTML, no table cell break.

    The punctuation that makes markup is backslash-escaped (at the start of the line too, what starts a
    block), ``&`` and ``<`` are entities (an escaped ``<`` still opens HTML in some renderers), so ``|``,
    backticks, ``*``, ``<script>`` and ``&amp;`` show as typed.

    Args:
        text: any text.
        block: the text starts a line (a paragraph), where ``#``, ``-``, ``>`` or ``1.`` would start a block.
    """
    line = _INLINE.sub(r"\\\1", _one_line(text).replace("&", "&amp;").replace("<", "&lt;"))
    return _BLOCK.sub(lambda m: m.group(0) + "\\", line, count=1) if block else line


def md_code(text: object, *, table: bool = False) -> str:
    """``text`` as one inline code span: fenced by one backtick more than its longest run of them.

    Args:
        text: any text.
        table: the span stands in a table cell, where GitHub's Markdown splits the row at any ``|``
            not escaped, inside code too; it shows ``\\|`` as ``|`` there.
    """
    line = _one_line(text)
    if table:
        line = line.replace("|", "\\|")
    fence = "`" * (max((len(run) for run in re.findall(r"`+", line)), default=0) + 1)
    pad = " " if line.startswith(("`", " ")) or line.endswith(("`", " ")) else ""
    return f"{fence}{pad}{line}{pad}{fence}"
