"""The line-window scanner agrees with ``bytes.splitlines``, for any content, line ends and chunking."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolproof.builtin.files import ends as ends_module
from toolproof.builtin.files import index as index_module
from toolproof.builtin.files import lines as lines_module
from toolproof.builtin.files.lines import clear_index_cache, read_window
from toolproof.builtin.files.progress import PROGRESS_MIN


def _reference(
    data: bytes, start: int, limit: int, max_line_bytes: int, count_total: bool
) -> tuple[list[bytes], list[int], int]:
    parts = data.splitlines()
    out: list[bytes] = []
    cut: list[int] = []
    for raw in parts[start - 1 : start - 1 + limit]:
        if len(raw) > max_line_bytes:
            cut.append(len(out))
            out.append(raw[:max_line_bytes])
            if not count_total:
                break
        else:
            out.append(raw)
    return out, cut, len(parts)


@pytest.fixture(params=["bytes.count", "numpy"])
def small_chunks(monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> Iterator[None]:
    """Chunks of 2, then 7 bytes; newlines counted by CPython or, forced at any size, by numpy."""
    monkeypatch.setattr(lines_module, "CHUNK", 7)
    monkeypatch.setattr(lines_module, "FIRST_CHUNK", 2)
    if request.param == "numpy":
        monkeypatch.setattr(lines_module, "VECTOR_MIN", 0)
        monkeypatch.setattr(ends_module, "VECTOR_CHUNK", 1)
    yield
    clear_index_cache()


def _window(path: Path, **kw: object) -> lines_module.Window:
    fd = os.open(path, os.O_RDONLY)
    try:
        return read_window(fd, size=os.fstat(fd).st_size, **kw)  # type: ignore[arg-type]
    finally:
        os.close(fd)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.lists(st.sampled_from([b"a", b"bc", b"\n", b"\r", b"\r\n", b"\xc3\xa9", b"xxxxxxxxxx"]), max_size=40).map(
        b"".join
    ),
    start=st.integers(1, 12),
    limit=st.integers(1, 6),
    max_line_bytes=st.integers(1, 12),
    count_total=st.booleans(),
)
def test_window_matches_splitlines_for_any_mix_of_line_ends(
    small_chunks: None,
    tmp_path: Path,
    data: bytes,
    start: int,
    limit: int,
    max_line_bytes: int,
    count_total: bool,
) -> None:
    path = tmp_path / "f"
    path.write_bytes(data)
    expected, cut, total = _reference(data, start, limit, max_line_bytes, count_total)

    window = _window(path, start=start, limit=limit, max_line_bytes=max_line_bytes, count_total=count_total)

    assert window.lines == expected
    assert window.cut == cut
    if count_total:
        assert window.total == total
        assert window.more == (start + len(expected) - 1 < total)
    elif window.more is not None:
        assert window.more == (start + len(expected) - 1 < total)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    data=st.lists(st.sampled_from([b"line", b"\n", b"long line here", b"\r\n", b"\r"]), max_size=60).map(b"".join),
    starts=st.lists(st.integers(1, 20), min_size=1, max_size=5),
)
def test_cached_index_gives_the_same_windows_even_between_the_bytes_of_a_crlf(
    small_chunks: None, tmp_path: Path, data: bytes, starts: list[int]
) -> None:
    path = tmp_path / "f"
    path.write_bytes(data)
    st_ = path.stat()
    identity = (st_.st_dev, st_.st_ino, st_.st_size, st_.st_mtime_ns)
    clear_index_cache()
    every = data.splitlines()

    for start in starts:
        cached = _window(path, start=start, limit=3, max_line_bytes=100, count_total=True, identity=identity)
        plain = _window(path, start=start, limit=3, max_line_bytes=100, count_total=True)
        window = every[start - 1 : start + 2]
        expected = (window, len(every), start - 1 + len(window) < len(every))
        assert (cached.lines, cached.total, cached.more) == (plain.lines, plain.total, plain.more) == expected


@pytest.mark.parametrize("data", [b"a\r\n", b"abcdefgh\r\n", b"a\rbcdefg\r\n"])  # chunks of 2, then 7 bytes
def test_a_full_window_ending_at_a_crlf_cut_by_a_chunk_says_no_more_lines(
    small_chunks: None, tmp_path: Path, data: bytes
) -> None:
    path = tmp_path / "f"
    path.write_bytes(data)
    lines = data.splitlines()

    window = _window(path, start=1, limit=len(lines), max_line_bytes=100, count_total=False)

    assert (window.lines, window.more) == (lines, False)


def test_a_window_stops_reading_once_full(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"x" * 50 + b"\n" + b"y\n" * 1_000_000)

    window = _window(path, start=1, limit=2, max_line_bytes=100, count_total=False)

    assert window.lines == [b"x" * 50, b"y"]
    assert window.more is True
    assert window.bytes_read <= lines_module.CHUNK


def test_a_huge_single_line_costs_only_its_window(tmp_path: Path) -> None:
    path = tmp_path / "one-line"
    path.write_bytes(b"z" * (10 * 1024 * 1024))

    window = _window(path, start=1, limit=2000, max_line_bytes=2000, count_total=False)

    assert window.lines == [b"z" * 2000]
    assert window.cut == [0]
    assert window.bytes_read <= lines_module.CHUNK


def test_the_total_is_counted_past_the_window(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"a\nb\nc\nd")

    window = _window(path, start=2, limit=1, max_line_bytes=10, count_total=True)

    assert (window.lines, window.total, window.more) == ([b"b"], 4, True)


def test_an_empty_file_has_no_lines(tmp_path: Path) -> None:
    path = tmp_path / "empty"
    path.write_bytes(b"")

    window = _window(path, start=1, limit=10, max_line_bytes=10, count_total=True)

    assert (window.lines, window.total, window.more) == ([], 0, False)


def test_a_repeat_of_a_known_file_skips_to_its_checkpoint(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"".join(b"line %d\n" % i for i in range(200_000)))
    st_ = path.stat()
    identity = (st_.st_dev, st_.st_ino, st_.st_size, st_.st_mtime_ns)
    clear_index_cache()

    first = _window(path, start=150_000, limit=10, max_line_bytes=100, count_total=True, identity=identity)
    again = _window(path, start=150_000, limit=10, max_line_bytes=100, count_total=True, identity=identity)

    assert first.lines == again.lines == [b"line %d" % i for i in range(149_999, 150_009)]
    assert first.total == again.total == 200_000
    assert again.bytes_read < first.bytes_read


def test_threads_sharing_one_cached_index_read_the_same_windows(tmp_path: Path) -> None:
    import threading

    path = tmp_path / "shared"
    path.write_bytes(b"".join(b"line %d\n" % i for i in range(300_000)))
    st_ = path.stat()
    identity = (st_.st_dev, st_.st_ino, st_.st_size, st_.st_mtime_ns)
    clear_index_cache()
    wrong: list[int] = []

    def reader(seed: int) -> None:
        for k in range(15):
            start = 1 + (seed * 7919 + k * 104_729) % 299_000
            window = _window(path, start=start, limit=3, max_line_bytes=100, count_total=k % 2 == 0, identity=identity)
            if window.lines != [b"line %d" % (start - 1 + j) for j in range(3)]:
                wrong.append(start)

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert wrong == []


@pytest.mark.parametrize("numpy_installed", [True, False])
@pytest.mark.parametrize("start", [1, 40_000, 119_990])
def test_a_large_file_is_numbered_as_splitlines_numbers_it_with_numpy_or_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, start: int, numpy_installed: bool
) -> None:
    if not numpy_installed:  # numpy is an optional extra: as if it were not installed
        monkeypatch.setitem(sys.modules, "numpy", None)
        monkeypatch.setattr(ends_module, "_MISSING", [])
    path = tmp_path / "large"
    ends = [b"\n", b"\r\n", b"\r"]
    data = b"".join(b"line %d \xc3\xa9" % i + b"." * (i % 97) + ends[i % 3] for i in range(120_000))
    path.write_bytes(data)
    assert len(data) > lines_module.VECTOR_MIN
    every = data.splitlines()

    window = _window(path, start=start, limit=2000, max_line_bytes=80, count_total=True)

    expected = [line[:80] for line in every[start - 1 : start + 1999]]
    assert (window.lines, window.total) == (expected, len(every))
    assert window.cut == [i for i, line in enumerate(every[start - 1 : start + 1999]) if len(line) > 80]


def _identity(path: Path) -> tuple[int, int, int, int]:
    st = path.stat()
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _rewrite_in_place(path: Path, data: bytes, mtime_ns: int) -> None:
    """Overwrite ``path`` (same inode, same size) and put its mtime back, as a same-tick rewrite leaves it."""
    with path.open("r+b") as f:
        f.write(data)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_a_file_rewritten_in_place_to_the_same_size_and_mtime_is_read_afresh(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    old = b"".join(b"old %04d\n" % i for i in range(3000))
    new = b"".join(b"n%02d\n" % (i % 100) for i in range(len(old) // 4))
    assert len(new) == len(old)
    path.write_bytes(old)
    mtime = path.stat().st_mtime_ns
    first = _window(path, start=2000, limit=2, max_line_bytes=100, count_total=True, identity=_identity(path))
    assert first.lines == [b"old 1999", b"old 2000"]

    _rewrite_in_place(path, new, mtime)
    assert _identity(path)[2:] == (len(old), mtime)
    window = _window(path, start=2000, limit=2, max_line_bytes=100, count_total=True, identity=_identity(path))

    assert (window.lines, window.total) == (new.splitlines()[1999:2001], len(new.splitlines()))


@pytest.fixture
def same_ctime(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every file keeps one ctime, as two writes within one tick of the kernel's coarse clock do."""
    monkeypatch.setattr(index_module, "_ctime_ns", lambda fd: 1)
    yield
    clear_index_cache()


@pytest.mark.usefixtures("same_ctime")
def test_a_same_tick_rewrite_of_the_head_is_caught_by_the_fingerprint(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    old = b"".join(b"line %06d\n" % i for i in range(60_000))
    path.write_bytes(old)
    mtime = path.stat().st_mtime_ns
    _window(path, start=50_000, limit=1, max_line_bytes=100, count_total=True, identity=_identity(path))
    new = b"\n" * 100 + old[100:]  # ten lines become a hundred empty ones: every later line number moves

    _rewrite_in_place(path, new, mtime)
    window = _window(path, start=50_000, limit=1, max_line_bytes=100, count_total=True, identity=_identity(path))

    assert (window.lines, window.total) == ([new.splitlines()[49_999]], len(new.splitlines()))


@pytest.mark.usefixtures("same_ctime")
def test_a_same_tick_rewrite_of_the_chunk_a_window_starts_in_is_caught_before_its_checkpoint_is_used(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.txt"
    old = b"".join(b"line %06d\n" % i for i in range(60_000))
    path.write_bytes(old)
    mtime = path.stat().st_mtime_ns
    identity = _identity(path)
    _window(path, start=50_000, limit=1, max_line_bytes=100, count_total=True, identity=identity)
    checkpoint = lines_module.CHUNK + 4 * lines_module.FIRST_CHUNK + lines_module.FIRST_CHUNK  # the third chunk
    assert checkpoint < 49_999 * 12 < len(old) - 4096
    new = old[:checkpoint] + b"\n" * 120 + old[checkpoint + 120 :]  # more lines after the checkpoint

    _rewrite_in_place(path, new, mtime)
    window = _window(path, start=50_000, limit=1, max_line_bytes=100, count_total=True, identity=identity)

    assert (window.lines, window.total) == ([new.splitlines()[49_999]], len(new.splitlines()))


def test_a_window_read_again_is_one_read_from_its_checkpoint_and_the_same(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"".join(b"line %d\n" % i for i in range(200_000)))
    identity = _identity(path)
    clear_index_cache()

    first = _window(path, start=150_000, limit=2000, max_line_bytes=100, count_total=True, identity=identity)
    again = _window(path, start=150_000, limit=2000, max_line_bytes=100, count_total=True, identity=identity)

    assert first.lines == again.lines == [b"line %d" % i for i in range(149_999, 151_999)]
    assert (again.total, again.more, again.cut, again.longest) == (200_000, True, [], len(b"line 150000"))
    assert again.bytes_read <= lines_module.CHUNK + len(again.data) + 1  # from the checkpoint, nothing past the window


def test_the_next_page_is_read_from_where_the_last_one_ended(tmp_path: Path) -> None:
    path = tmp_path / "f"
    data = b"".join(b"line %d\n" % i for i in range(100_000))
    path.write_bytes(data)
    identity = _identity(path)
    clear_index_cache()
    every = data.splitlines()

    pages = [
        _window(path, start=start, limit=3000, max_line_bytes=100, count_total=True, identity=identity)
        for start in range(1, 100_001, 3000)
    ]

    assert [line for page in pages for line in page.lines] == every
    assert all(page.total == 100_000 for page in pages)
    assert all(page.bytes_read <= lines_module.CHUNK + len(page.data) + 1 for page in pages[1:])


@pytest.mark.usefixtures("same_ctime")
def test_a_same_tick_rewrite_between_the_checkpoint_and_a_known_window_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    old = b"".join(b"line %06d\n" % i for i in range(60_000))
    path.write_bytes(old)
    mtime = path.stat().st_mtime_ns
    identity = _identity(path)
    _window(path, start=50_000, limit=3, max_line_bytes=100, count_total=True, identity=identity)
    window_at = 49_999 * 12
    changed = window_at - 12_000  # after the checkpoint's first 4 KiB, before the window
    new = old[:changed] + b"\n" * 120 + old[changed + 120 :]  # ten lines become a hundred and twenty

    _rewrite_in_place(path, new, mtime)
    window = _window(path, start=50_000, limit=3, max_line_bytes=100, count_total=True, identity=identity)

    assert (window.lines, window.total) == (new.splitlines()[49_999:50_002], len(new.splitlines()))


@pytest.mark.usefixtures("same_ctime")
def test_a_same_tick_rewrite_inside_a_known_window_is_caught_and_the_file_counted_again(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    old = b"".join(b"line %06d\n" % i for i in range(60_000))
    path.write_bytes(old)
    mtime = path.stat().st_mtime_ns
    identity = _identity(path)
    _window(path, start=50_000, limit=100, max_line_bytes=100, count_total=True, identity=identity)
    inside = 50_010 * 12
    new = old[:inside] + b"\n" * 24 + old[inside + 24 :]  # two lines of the window become twenty-four

    _rewrite_in_place(path, new, mtime)
    window = _window(path, start=50_000, limit=100, max_line_bytes=100, count_total=True, identity=identity)

    assert (window.lines, window.total) == (new.splitlines()[49_999:50_099], len(new.splitlines()))


def test_a_window_known_to_the_index_with_a_line_too_long_is_cut_as_a_scan_cuts_it(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"short\n" + b"x" * 500 + b"\nshort\n")
    identity = _identity(path)
    clear_index_cache()

    first = _window(path, start=1, limit=3, max_line_bytes=1000, count_total=True, identity=identity)
    cut = _window(path, start=1, limit=3, max_line_bytes=100, count_total=True, identity=identity)

    assert first.lines == [b"short", b"x" * 500, b"short"]
    assert (cut.lines, cut.cut) == ([b"short", b"x" * 100, b"short"], [1])


class _Reports:
    """A fake progress callback: every ``(offset, size)`` it is told."""

    def __init__(self) -> None:
        self.seen: list[tuple[int, int]] = []

    def __call__(self, offset: int, size: int) -> None:
        self.seen.append((offset, size))


def test_a_long_scan_reports_how_far_it_got_ascending_bounded_and_ending_at_the_size(tmp_path: Path) -> None:
    path = tmp_path / "big"
    path.write_bytes(b"".join(b"line %07d\n" % i for i in range(10 * 1024 * 1024 // 13)))
    size = path.stat().st_size
    reports = _Reports()
    clear_index_cache()

    fd = os.open(path, os.O_RDONLY)
    try:
        read_window(
            fd,
            size=size,
            start=5,
            limit=10,
            max_line_bytes=100,
            count_total=True,
            identity=_identity(path),
            progress=reports,
        )
        again = _Reports()
        read_window(
            fd,
            size=size,
            start=5,
            limit=10,
            max_line_bytes=100,
            count_total=True,
            identity=_identity(path),
            progress=again,
        )
    finally:
        os.close(fd)

    offsets = [offset for offset, _ in reports.seen]
    assert 2 <= len(offsets) <= 16
    assert offsets == sorted(set(offsets))
    assert offsets[0] >= PROGRESS_MIN
    assert reports.seen[-1] == (size, size)
    assert {total for _, total in reports.seen} == {size}
    assert again.seen == []  # the index knew the total: a short read, nothing to report


def test_a_scan_of_a_small_file_reports_nothing(tmp_path: Path) -> None:
    path = tmp_path / "small"
    path.write_bytes(b"line\n" * 100_000)
    reports = _Reports()

    _window(path, start=1, limit=10, max_line_bytes=100, count_total=True, progress=reports)

    assert reports.seen == []
