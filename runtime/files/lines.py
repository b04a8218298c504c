"""Line windows over an open file, reading no more than the window needs.

A line ends at ``\\r\\n``, ``\\n`` or a lone ``\\r``, wherever they are and however
they mix (as ``bytes.splitlines`` and editors count them); a final line without
a terminator counts, and a trailing terminator does not add an empty line. A
chunk holding a ``\\r`` is normalised (every terminator made ``\\n``) before it is
scanned; a ``\\r\\n`` cut in two by a chunk boundary counts once. The scanner reads
the file in chunks with ``pread``: it *counts* terminators (at memory speed)
until the window's first line, collects the window, and then either stops or,
when the caller needs the total, keeps counting. Every line is cut at
``max_line_bytes``, and the rest of a long line is skipped without being kept,
so one 10 MiB line costs no more than its window.

Counting is a byte loop in CPython (``bytes.count``, ~2 GB/s). Once a pass has
``VECTOR_MIN`` bytes or more to scan, numpy counts instead (``frombuffer == 10``
and ``count_nonzero``, ~5x faster on 256 KiB chunks, measured in
``benchmarks/files.py``); it is imported then and only then, so a process that
reads small files never pays its ~0.1 s import.

Each pass records, per chunk, the line number at the chunk's first byte. That
index is cached by the file's identity (device, inode, size, mtime) and its
ctime, so a later window of the same unchanged file starts reading near its
first line, and a total counted once is known again for free. A file rewritten
in place to the same size within one timestamp tick keeps all four (the
kernel's clock for file times is coarse, a few milliseconds), so a cached index
is trusted only while a fingerprint still matches: a hash of the file's first
and last 4 KiB, checked on every lookup, and a hash of the first 4 KiB of the
chunk the window starts in, checked before its checkpoint is used. A change
that none of these sees (same size, same tick, bytes only between them) can
still leave a line count stale; the bytes returned are always read afresh.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import sys
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final

__all__ = ["CHUNK", "FIRST_CHUNK", "VECTOR_MIN", "LineIndex", "Window", "clear_index_cache", "read_window"]

CHUNK: Final = 256 * 1024
FIRST_CHUNK: Final = 16 * 1024
VECTOR_MIN: Final = 4 * 1024 * 1024
"""Bytes left to scan from which a pass counts with numpy (importing it if no one has)."""
VECTOR_CHUNK: Final = 8 * 1024
"""Shortest stretch numpy counts: below it, its per-call cost exceeds ``bytes.count``'s."""
_CACHE_SIZE: Final = 128
_PROBE: Final = 4096
"""Bytes hashed at each end of the file, and at the start of a checkpoint's chunk."""


def _digest(data: bytes | bytearray) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def _ctime_ns(fd: int) -> int:
    """The file's status-change time: any write or ``utime`` moves it, though only by the clock's tick."""
    return os.fstat(fd).st_ctime_ns


def _fingerprint(fd: int, size: int) -> bytes:
    """A hash of the first and last ``_PROBE`` bytes of the file (the whole of a small one)."""
    head = os.pread(fd, min(_PROBE, size), 0)
    tail = os.pread(fd, min(_PROBE, size), max(size - _PROBE, 0))
    return _digest(head + b"\x00" + tail)


@dataclass(slots=True)
class LineIndex:
    """Per-chunk checkpoints of one file: ``positions[i]`` starts inside line ``lines[i]``.

    Shared by every thread reading the same file (an HTTP host reads on
    several), so checkpoints are read and written under a lock.
    """

    positions: list[int] = field(default_factory=lambda: [0])
    lines: list[int] = field(default_factory=lambda: [1])
    total: int | None = None
    stamp: bytes = b""
    """The file's fingerprint when the index was begun (see the module's docstring)."""
    digests: list[bytes] = field(default_factory=lambda: [b""])
    """A hash of the first ``_PROBE`` bytes at each checkpoint (the first is covered by ``stamp``)."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def seek(self, line: int, fd: int | None = None) -> tuple[int, int]:
        """The furthest known checkpoint from which ``line``'s start lies ahead: (offset, line there).

        With ``fd``, the checkpoint's chunk is hashed again first; if it changed,
        the index forgets every checkpoint and its total, and the scan starts over.
        """
        with self._lock:
            i = max(bisect.bisect_left(self.lines, line) - 1, 0)
            position, there, digest = self.positions[i], self.lines[i], self.digests[i]
        if i and fd is not None and _digest(os.pread(fd, _PROBE, position)) != digest:
            with self._lock:
                del self.positions[1:], self.lines[1:], self.digests[1:]
                self.total = None
            return 0, 1
        return position, there

    def record(self, position: int, line: int, chunk: bytes | bytearray = b"") -> None:
        """Remember a checkpoint past the last one (positions only grow), with a hash of ``chunk``'s start."""
        with self._lock:
            if position > self.positions[-1]:
                self.positions.append(position)
                self.lines.append(line)
                self.digests.append(_digest(chunk[:_PROBE]))


_cache: OrderedDict[tuple[int, ...], LineIndex] = OrderedDict()
_lock = threading.Lock()


def _index_for(fd: int, size: int, identity: tuple[int, int, int, int] | None) -> LineIndex:
    """The cached index of the file open as ``fd``, or a fresh one if its ctime or fingerprint changed."""
    if identity is None:
        return LineIndex()
    key = (*identity, _ctime_ns(fd))
    stamp = _fingerprint(fd, size)
    with _lock:
        index = _cache.get(key)
        if index is None or index.stamp != stamp:
            index = _cache[key] = LineIndex(stamp=stamp)
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
        else:
            _cache.move_to_end(key)
        return index


def clear_index_cache() -> None:
    """Forget every cached line index (tests and benchmarks use it)."""
    with _lock:
        _cache.clear()


@dataclass(frozen=True, slots=True)
class Window:
    """Lines ``start`` .. ``start + len(lines) - 1`` of a file, as raw bytes without terminators."""

    start: int
    lines: list[bytes]
    cut: list[int]
    """Indexes (into ``lines``) of the lines that were longer than ``max_line_bytes`` and were cut."""
    total: int | None
    """Lines in the file, when the pass counted them (or the index knew)."""
    more: bool | None
    """Whether lines follow the window; None when the scan stopped before it could tell."""
    bytes_read: int


def _nth_end(chunk: bytes | bytearray, start: int, n: int) -> int:
    """The offset just past the ``n``-th ``\\n`` at or after ``start`` (n >= 1, known to exist)."""
    step = 4096
    pos = start
    while True:
        count = chunk.count(b"\n", pos, pos + step)
        if count >= n:
            break
        n -= count
        pos += step
    for _ in range(n):
        pos = chunk.index(b"\n", pos) + 1
    return pos


def _newlines(chunk: bytes | bytearray, start: int, vector: bool) -> int:
    """How many ``\\n`` lie in ``chunk[start:]``, counted by numpy when ``vector`` and the stretch is long."""
    if vector and len(chunk) - start >= VECTOR_CHUNK:
        import numpy as np  # imported on the first large pass only (see the module docstring)

        return int(np.count_nonzero(np.frombuffer(chunk, np.uint8, offset=start) == 0x0A))
    return chunk.count(b"\n", start)


def _normalised(raw: bytearray, after_cr: bool) -> bytes | bytearray:
    """``raw`` with every line end made ``\\n``, less a leading ``\\n`` that ends the ``\\r`` before it."""
    chunk: bytes | bytearray = raw
    if b"\r" in raw:
        chunk = bytes(raw).replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if after_cr and raw[:1] == b"\n":
        chunk = chunk[1:]
    return chunk


def _more_after(fd: int, end: int, size: int, after_cr: bool) -> bool:
    """Whether a line starts at or after ``end``, where the previous line has just ended."""
    if end >= size:
        return False
    # Past a CR, a last LF only completes the CRLF: no line starts after it.
    return not (after_cr and end + 1 == size and os.pread(fd, 1, end) == b"\n")


def read_window(
    fd: int,
    *,
    size: int,
    start: int,
    limit: int,
    max_line_bytes: int,
    count_total: bool,
    identity: tuple[int, int, int, int] | None = None,
) -> Window:
    """Read lines ``start`` .. ``start + limit - 1`` (1-based) from ``fd``.

    Without ``count_total`` the scan stops as soon as the window is full, or at
    the first line it had to cut (whose end it would otherwise have to find):
    then ``more`` is None when the scan cannot tell whether lines follow.

    Args:
        fd: an open regular file, read with ``pread`` (its offset is untouched).
        size: the file's size from ``fstat``; reading stops there.
        start: first line wanted, 1-based.
        limit: most lines wanted (at least 1).
        max_line_bytes: longest line kept; longer lines are cut and listed in ``cut``.
        count_total: keep counting to the end so ``total`` is exact.
        identity: (device, inode, size, mtime_ns) to cache the line index under (with the ctime and
            a fingerprint of the content, read here).
    """
    index = _index_for(fd, size, identity)
    pos, line = index.seek(start, fd)  # ``line`` is always the line holding the byte at ``pos``
    known_total = index.total  # read after seek: a stale checkpoint makes the index forget it
    stop_at_cut = not count_total
    if known_total is not None:
        if start > known_total:
            return Window(start, [], [], known_total, False, 0)
        count_total = False  # the index already knows it: stop after the window (but not before it is full)
    vector = size - pos >= VECTOR_MIN or "numpy" in sys.modules
    # A checkpoint may fall between the two bytes of a CRLF: its LF then ends no line.
    after_cr = pos > 0 and os.pread(fd, 1, pos - 1) == b"\r"
    lines: list[bytes] = []
    cut: list[int] = []
    partial = b""  # the kept start of a window line that runs on into the next chunk
    in_partial = False
    skipping = False  # inside a cut window line, looking for its end
    bytes_read = 0
    ends_with_terminator = True
    more: bool | None
    # One buffer for every chunk (a fresh 256 KiB bytes per read costs a fifth
    # more), starting small so a window near the start reads little.
    step = min(FIRST_CHUNK, CHUNK)
    buffer = bytearray(step)
    view = memoryview(buffer)
    while pos < size:
        if step < CHUNK and pos > 0:
            step = min(step * 4, CHUNK)
            view.release()
            buffer = bytearray(step)
            view = memoryview(buffer)
        got = os.preadv(fd, [view[: min(step, size - pos)]], pos)
        if got == 0:
            break
        raw = buffer if got == len(buffer) else buffer[:got]
        index.record(pos, line, raw)
        bytes_read += got
        chunk = _normalised(raw, after_cr)
        after_cr = raw[-1] == 0x0D
        n = len(chunk)
        if n == 0:  # the LF of a CRLF that the previous chunk ended in the middle of
            pos += got
            continue
        ends_with_terminator = chunk[-1] == 0x0A
        p = 0
        if skipping:
            q = chunk.find(b"\n")
            if q < 0:
                pos += got
                continue
            skipping = False
            line += 1
            p = q + 1
        elif line < start:
            terms = _newlines(chunk, 0, vector)
            if line + terms < start:
                line += terms
                pos += got
                continue
            p = _nth_end(chunk, 0, start - line)
            line = start
        while len(lines) < limit and p < n:
            if not in_partial:
                # The whole lines of this chunk that the window still needs, split in one go.
                take = min(_newlines(chunk, p, vector), limit - len(lines))
                if take:
                    e = _nth_end(chunk, p, take)
                    bulk = bytes(chunk[p : e - 1]).split(b"\n")
                    if max(map(len, bulk)) > max_line_bytes:
                        longs = [i for i, piece in enumerate(bulk) if len(piece) > max_line_bytes]
                        if stop_at_cut:  # keep up to the first cut line, and stop there
                            first = longs[0]
                            q = p + sum(map(len, bulk[: first + 1])) + first  # the LF ending that line
                            cut.append(len(lines) + first)
                            lines.extend(bulk[:first])
                            lines.append(bulk[first][:max_line_bytes])
                            more = q + 1 < n or _more_after(fd, pos + got, size, after_cr)
                            if known_total is not None:
                                more = start + len(lines) - 1 < known_total
                            return Window(start, lines, cut, index.total, more, bytes_read)
                        for i in longs:
                            cut.append(len(lines) + i)
                            bulk[i] = bulk[i][:max_line_bytes]
                    lines.extend(bulk)
                    line += take
                    p = e
                    continue
            # By hand, one line: the end of a line begun in an earlier chunk, or the start of one running on.
            q = chunk.find(b"\n", p)
            end = n if q < 0 else q
            room = max_line_bytes - len(partial)
            too_long = end - p > room
            piece = partial + bytes(chunk[p : p + min(end - p, room)])
            partial, in_partial = b"", False
            if too_long:
                cut.append(len(lines))
                lines.append(piece)
                if stop_at_cut:
                    if q < 0:
                        more = None if pos + got < size else False
                    else:
                        more = q + 1 < n or _more_after(fd, pos + got, size, after_cr)
                    if known_total is not None:
                        more = start + len(lines) - 1 < known_total
                    return Window(start, lines, cut, index.total, more, bytes_read)
                if q < 0:
                    skipping = True
                    p = n
                    break
            elif q < 0:
                partial, in_partial = piece, True
                p = n
                break
            else:
                lines.append(piece)
            line += 1
            p = q + 1
        if len(lines) >= limit and not skipping:
            if not count_total:
                more = p < n or _more_after(fd, pos + got, size, after_cr)
                return Window(start, lines, cut, index.total, more, bytes_read)
            line += _newlines(chunk, p, vector)
        pos += got
    if in_partial:  # the file ends inside a window line that has no terminator
        lines.append(partial)
    total = 0 if size == 0 else (line - 1 if ends_with_terminator else line)
    index.total = total
    return Window(start, lines, cut, total, start + len(lines) - 1 < total, bytes_read)
