"""Every window ``read_lines`` returns is numbered as a plain ``splitlines`` reading of the whole file numbers it.

The files mix CRLF, lone CR and LF (also one style in the head and another
after it), long lines, BOMs, multi-byte characters, ``%`` (which the numbering
template must escape), files without a final line end and empty files. Chunks
and the head sample are made a few bytes long, so their boundaries fall inside
lines, between the CR and LF of a CRLF and inside multi-byte characters. The
fast paths are held to the same reference: numbering in one ``%`` format,
decoding a window's invalid bytes as one block, and windows read again (or
paged through) from the marks the line index keeps.
"""

from __future__ import annotations

import codecs
import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolproof.builtin.files import ends as ends_module
from toolproof.builtin.files import lines as lines_module
from toolproof.builtin.files import reading as reading_module
from toolproof.builtin.files.access import Directory
from toolproof.builtin.files.lines import clear_index_cache
from toolproof.builtin.files.numbering import numbered
from toolproof.builtin.files.reading import read_lines
from toolproof.runtime.context import ToolContext

MAX_LINE_CHARS = 6
_names = itertools.count()

TOKENS = st.sampled_from(
    ["a", "word", "é", "我", "😀", "\r\n", "\r", "\n", "\r\r\n", "x" * 13, "é" * 9, "\t ", "%", "%d"]
)
FILES = st.tuples(st.booleans(), st.lists(TOKENS, max_size=40)).map(
    lambda bom_tokens: (codecs.BOM_UTF8 if bom_tokens[0] else b"") + "".join(bom_tokens[1]).encode("utf-8")
)


def _reference(data: bytes, start: int, limit: int) -> tuple[list[str], int, bool, frozenset[int]]:
    """(window, total, more, cut) by the plainest reading: strip the BOM, ``splitlines``, cut by characters."""
    every = [line.decode("utf-8") for line in data.removeprefix(codecs.BOM_UTF8).splitlines()]
    window = every[start - 1 : start - 1 + limit]
    cut = frozenset(i for i, line in enumerate(window) if len(line) > MAX_LINE_CHARS)
    return [line[:MAX_LINE_CHARS] for line in window], len(every), start - 1 + len(window) < len(every), cut


@pytest.fixture(params=["bytes.count", "numpy"])
def tiny_chunks(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[None]:
    """Chunks of 2, then 7 bytes, a 5-byte head; newlines counted by CPython or, forced at any size, by numpy."""
    monkeypatch.setattr(lines_module, "CHUNK", 7)
    monkeypatch.setattr(lines_module, "FIRST_CHUNK", 2)
    monkeypatch.setattr(reading_module, "_HEAD", 5)
    if request.param == "numpy":
        monkeypatch.setattr(lines_module, "VECTOR_MIN", 0)
        monkeypatch.setattr(ends_module, "VECTOR_CHUNK", 1)
    yield
    clear_index_cache()


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=FILES, start=st.integers(1, 15), limit=st.integers(1, 8), utf8_only=st.booleans())
@example(data=b"", start=1, limit=3, utf8_only=True)
@example(data=b"one\rtwo\rthree\nfour\nfive\n", start=1, limit=8, utf8_only=True)  # CR in the head, LF after
@example(data=b"one\ntwo\rthree\r\nfour", start=2, limit=2, utf8_only=False)
@example(data=codecs.BOM_UTF8 + "é😀😀😀😀😀".encode(), start=1, limit=1, utf8_only=True)  # 6 characters, BOM aside
def test_every_window_is_numbered_as_splitlines_numbers_the_whole_file(
    tiny_chunks: None, tmp_path: Path, data: bytes, start: int, limit: int, utf8_only: bool
) -> None:
    name = f"f{next(_names)}.txt"  # a fresh file each time: the line index is cached by identity
    (tmp_path / name).write_bytes(data)
    expected_lines, expected_total, expected_more, expected_cut = _reference(data, start, limit)

    with Directory.open(tmp_path) as root:
        window = read_lines(
            ToolContext("test"),
            root,
            name,
            start=start,
            limit=limit,
            max_bytes=1 << 20,
            max_line_chars=MAX_LINE_CHARS,
            utf8_only=utf8_only,
        )

    assert window.lines == expected_lines
    assert window.total == expected_total
    assert window.more == expected_more
    assert window.cut == expected_cut
    assert window.bom == data.startswith(codecs.BOM_UTF8)
    assert (window.count, window.text) == (len(expected_lines), "\n".join(expected_lines))
    assert window.numbered("\t") == _numbered(expected_lines, start)
    assert window.numbered(" | ", align=True) == _aligned(expected_lines, start)


def _numbered(lines: list[str], start: int) -> str:
    """The gateway read_file's ``N<TAB>line``, a line at a time."""
    return "\n".join(f"{number}\t{line}" for number, line in enumerate(lines, start))


def _aligned(lines: list[str], start: int) -> str:
    """file-read's right-aligned ``N | line``, a line at a time."""
    width = len(str(start + len(lines) - 1))
    return "\n".join(f"{number:>{width}} | {line}" for number, line in enumerate(lines, start))


@given(
    lines=st.lists(st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n")), max_size=30),
    first=st.sampled_from([1, 7, 9, 95, 99_990, 10**9]),
    separator=st.sampled_from(["\t", " | ", "%", "%d:"]),
)
def test_numbering_in_one_format_is_numbering_a_line_at_a_time(lines: list[str], first: int, separator: str) -> None:
    data = "\n".join(lines).encode("utf-8")

    plain = numbered(data, len(lines), first, separator)
    aligned = numbered(data, len(lines), first, separator, align=True)

    assert plain == "\n".join(f"{n}{separator}{line}" for n, line in enumerate(lines, first))
    width = len(str(first + len(lines) - 1))
    assert aligned == "\n".join(f"{n:>{width}}{separator}{line}" for n, line in enumerate(lines, first))


INVALID = st.sampled_from(
    [b"a", b"\n", b"\r\n", b"\xff", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xed\xa0\x80", b"\xc3\xa9"]
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(tail=st.lists(INVALID, max_size=40).map(b"".join), start=st.integers(1, 15), limit=st.integers(1, 8))
def test_invalid_bytes_past_the_head_are_replaced_as_line_by_line_decoding_replaces_them(
    tiny_chunks: None, tmp_path: Path, tail: bytes, start: int, limit: int
) -> None:
    data = b"valid\n" + tail  # the head (5 bytes here) is UTF-8: the window is scanned in place
    name = f"f{next(_names)}.txt"
    (tmp_path / name).write_bytes(data)
    every = [line.decode("utf-8", errors="replace") for line in data.splitlines()]
    expected = every[start - 1 : start - 1 + limit]

    with Directory.open(tmp_path) as root:
        window = read_lines(
            ToolContext("test"), root, name, start=start, limit=limit, max_bytes=1 << 20, max_line_chars=1000
        )

    assert (window.lines, window.total) == (expected, len(every))
    assert window.numbered("\t") == _numbered(expected, start)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=FILES, starts=st.lists(st.integers(1, 15), min_size=2, max_size=6))
def test_windows_read_again_through_the_cached_index_are_numbered_the_same(
    tiny_chunks: None, tmp_path: Path, data: bytes, starts: list[int]
) -> None:
    name = f"f{next(_names)}.txt"
    (tmp_path / name).write_bytes(data)

    with Directory.open(tmp_path) as root:
        for start in starts:
            window = read_lines(
                ToolContext("test"), root, name, start=start, limit=3, max_bytes=1 << 20, max_line_chars=MAX_LINE_CHARS
            )
            assert (window.lines, window.total, window.more, window.cut) == _reference(data, start, 3)
            assert window.numbered("\t") == _numbered(window.lines, start)


LF_FILES = st.lists(st.sampled_from(["a", "word", "é", "😀", "\n", "\n\n", "x" * 13, "%"]), max_size=60).map(
    lambda tokens: "".join(tokens).encode("utf-8")
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.one_of(LF_FILES, FILES), limit=st.integers(1, 5), passes=st.integers(1, 3))
def test_paging_through_a_file_again_and_again_gives_the_windows_a_first_read_gives(
    tiny_chunks: None, tmp_path: Path, data: bytes, limit: int, passes: int
) -> None:
    name = f"f{next(_names)}.txt"
    (tmp_path / name).write_bytes(data)
    total = _reference(data, 1, 1)[1]

    with Directory.open(tmp_path) as root:
        for _ in range(passes + 1):  # a first pass marks where each page begins; the next ones read from the marks
            for start in range(1, total + 2, limit):
                window = read_lines(
                    ToolContext("test"),
                    root,
                    name,
                    start=start,
                    limit=limit,
                    max_bytes=1 << 20,
                    max_line_chars=MAX_LINE_CHARS,
                )
                assert (window.lines, window.total, window.more, window.cut) == _reference(data, start, limit)


def test_pages_read_again_come_from_the_marks_the_index_keeps(
    tiny_chunks: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = "".join(f"line {i} é\n" for i in range(60)).encode("utf-8")
    (tmp_path / "f.txt").write_bytes(data)
    found: list[object] = []
    known = lines_module._known_window

    def spy(*args: Any) -> object:
        result = known(*args)
        found.append(result)
        return result

    monkeypatch.setattr(lines_module, "_known_window", spy)

    with Directory.open(tmp_path) as root:
        for start in [*range(1, 61, 7), *range(1, 61, 7)]:
            window = read_lines(
                ToolContext("test"), root, "f.txt", start=start, limit=7, max_bytes=1 << 20, max_line_chars=6
            )
            assert (window.lines, window.total, window.more, window.cut) == _reference(data, start, 7)

    kinds = [
        "window" if isinstance(r, lines_module.Window) else "start" if isinstance(r, int) else "scan" for r in found
    ]
    # A first pass scans page 1, then starts each page where the last ended; the last page ends at the end of the file.
    assert kinds == ["scan", *["start"] * 7, "window", "scan", *["window"] * 8]
