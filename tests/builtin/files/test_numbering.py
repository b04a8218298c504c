"""Numbering in blocks gives the per-line format's text, and its size is known before it is built."""

from __future__ import annotations

import pytest

from toolproof.builtin.files.numbering import BLOCK_LINES, numbered, numbered_size
from toolproof.builtin.files.reading import window_from_text

LINE_SETS = {
    "one block": [f"l{i}%" for i in range(100)],
    "a block and one line": ["é" * (i % 3) for i in range(BLOCK_LINES + 1)],
    "several blocks of empty lines": [""] * (3 * BLOCK_LINES + 7),
}


def _per_line(lines: list[str], first: int, separator: str, align: bool) -> str:
    width = len(str(first + len(lines) - 1))
    return "\n".join(
        f"{n:>{width}}{separator}{line}" if align else f"{n}{separator}{line}" for n, line in enumerate(lines, first)
    )


@pytest.mark.parametrize("name", LINE_SETS)
@pytest.mark.parametrize("first", [1, 9_990, 99_999 - BLOCK_LINES])
@pytest.mark.parametrize("align", [False, True])
def test_numbering_in_blocks_is_numbering_a_line_at_a_time_and_its_size_is_exact(
    name: str, first: int, align: bool
) -> None:
    lines = LINE_SETS[name]
    data = "\n".join(lines).encode("utf-8")

    text = numbered(data, len(lines), first, " | ", align=align)

    assert text == _per_line(lines, first, " | ", align)
    assert numbered_size(len(data), len(lines), first, " | ", align=align) == len(text.encode("utf-8"))


def test_numbering_more_blocks_than_the_data_holds_lines_is_a_type_error() -> None:
    data = b"\n" * BLOCK_LINES  # BLOCK_LINES + 1 lines

    with pytest.raises(TypeError, match="lines were promised"):
        numbered(data, BLOCK_LINES + 2, 1, "\t")


def test_nothing_numbered_is_empty_and_costs_nothing() -> None:
    assert numbered(b"", 0, 5, "\t") == ""
    assert numbered_size(0, 0, 5, "\t") == 0


@pytest.mark.parametrize(
    "text",
    ["", "\n", "a", "a\n", "a\n\n", "\n\nb", "a\r\nb\rc\nd", "a\r\n", "a\r", "\r\r\n\n", "x\ry\r\n\r\nz\n"],
)
def test_a_window_of_decoded_text_is_the_window_of_its_lines(text: str) -> None:
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if lines[-1] == "":
        lines.pop()
    for start in range(1, len(lines) + 3):
        for limit in (1, 2, 5):
            assert window_from_text(text, start, limit) == (lines[start - 1 : start - 1 + limit], len(lines))
