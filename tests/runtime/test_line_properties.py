"""Every window ``read_lines`` returns is numbered as a plain ``splitlines`` reading of the whole file numbers it.

The files mix CRLF, lone CR and LF (also one style in the head and another
after it), long lines, BOMs, multi-byte characters, files without a final line
end and empty files. Chunks and the head sample are made a few bytes long, so
their boundaries fall inside lines, between the CR and LF of a CRLF and inside
multi-byte characters.
"""

from __future__ import annotations

import codecs
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from toolproof.runtime.context import ToolContext
from toolproof.runtime.files import lines as lines_module
from toolproof.runtime.files import reading as reading_module
from toolproof.runtime.files.access import Directory
from toolproof.runtime.files.lines import clear_index_cache
from toolproof.runtime.files.reading import read_lines

MAX_LINE_CHARS = 6
_names = itertools.count()

TOKENS = st.sampled_from(["a", "word", "é", "我", "😀", "\r\n", "\r", "\n", "\r\r\n", "x" * 13, "é" * 9, "\t "])
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
        monkeypatch.setattr(lines_module, "VECTOR_CHUNK", 1)
    yield
    clear_index_cache()


@settings(
    max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=FILES, start=st.integers(1, 15), limit=st.integers(1, 8), utf8_only=st.booleans())
@example(data=b"", start=1, limit=3, utf8_only=True)
@example(data=b"one\rtwo\rthree\nfour\nfive\n", start=1, limit=8, utf8_only=True)  # CR in the head, LF after
@example(data=b"one\ntwo\rthree\r\nfour", start=2, limit=2, utf8_only=False)
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
