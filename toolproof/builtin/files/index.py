"""The line index of a file: where its chunks start and on which line, cached while the file is unchanged.

Each scan records, per chunk, the line number at the chunk's first byte. That
index is cached by the file's identity (device, inode, size, mtime) and its
ctime, so a later window of the same unchanged file starts reading near its
first line, and a total counted once is known again for free. A file rewritten
in place to the same size within one timestamp tick keeps all four (the
kernel's clock for file times is coarse, a few milliseconds), so a cached index
is trusted only while a fingerprint still matches: a hash of the file's first
and last 4 KiB, checked on every lookup, and a hash of the first 4 KiB of the
chunk the window starts in, checked before its checkpoint is used. A window
also marks the exact offsets where it began and where the next window would
begin, so reading it again, or the next page, is one ``pread`` from that
checkpoint: the bytes read must hold exactly the lines expected before the
window and in it, or the window is scanned as before (see ``lines.py``). A change
that none of these sees (same size, same tick, bytes only between them) can
still leave a line count stale; the bytes returned are always read afresh.
"""

from __future__ import annotations

import bisect
import os
import threading
from _blake2 import blake2b  # hashlib's own blake2b, without hashlib's import of OpenSSL (~3 ms of every start-up)
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Final

__all__ = ["PROBE", "LineIndex", "clear_index_cache", "index_for"]

_CACHE_SIZE: Final = 128
_MAX_STARTS: Final = 1024
"""Exact line starts one index keeps at most (two per window read)."""
PROBE: Final = 4096
"""Bytes hashed at each end of the file, and at the start of a checkpoint's chunk."""


def _digest(data: bytes | bytearray | memoryview) -> bytes:
    return blake2b(data, digest_size=16).digest()


def _ctime_ns(fd: int) -> int:
    """The file's status-change time: any write or ``utime`` moves it, though only by the clock's tick."""
    return os.fstat(fd).st_ctime_ns


def _fingerprint(fd: int, size: int) -> bytes:
    """A hash of the first and last ``PROBE`` bytes of the file (the whole of a small one)."""
    head = os.pread(fd, min(PROBE, size), 0)
    tail = os.pread(fd, min(PROBE, size), max(size - PROBE, 0))
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
    """A hash of the first ``PROBE`` bytes at each checkpoint (the first is covered by ``stamp``)."""
    starts: dict[int, int] = field(default_factory=dict)
    """Where lines begin, exactly, that a window began at or that the next window would: line -> offset."""
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def seek(self, line: int, fd: int | None = None) -> tuple[int, int]:
        """The furthest known checkpoint from which ``line``'s start lies ahead: (offset, line there).

        With ``fd``, the checkpoint's chunk is hashed again first; if it changed,
        the index forgets every checkpoint and its total, and the scan starts over.
        """
        with self._lock:
            i = max(bisect.bisect_left(self.lines, line) - 1, 0)
            position, there, digest = self.positions[i], self.lines[i], self.digests[i]
        if i and fd is not None and _digest(os.pread(fd, PROBE, position)) != digest:
            self.forget()
            return 0, 1
        return position, there

    def forget(self) -> None:
        """Drop every checkpoint, mark and the total: the file is not what they describe."""
        with self._lock:
            del self.positions[1:], self.lines[1:], self.digests[1:]
            self.starts.clear()
            self.total = None

    def record(self, position: int, line: int, chunk: bytes | bytearray, fd: int) -> None:
        """Remember a checkpoint past the last one (positions only grow), with a hash of the ``PROBE`` bytes there.

        ``chunk`` holds the file's bytes from ``position`` on; when it holds fewer
        than ``PROBE``, they are read from ``fd``, so the hash is of what ``seek`` reads.
        """
        if position <= self.positions[-1]:  # known already (read without the lock: it only grows)
            return
        probe = memoryview(chunk)[:PROBE] if len(chunk) >= PROBE else os.pread(fd, PROBE, position)
        digest = _digest(probe)
        with self._lock:
            if position > self.positions[-1]:
                self.positions.append(position)
                self.lines.append(line)
                self.digests.append(digest)

    def start_of(self, line: int) -> int | None:
        """The offset of ``line``'s first byte, if a window began or ended there; None if unknown.

        Unchecked: a reader must find a line end just before it, as many lines as
        it expects between it and the checkpoint ``seek`` gives, and trust it only then.
        """
        if line == 1:
            return 0
        with self._lock:
            return self.starts.get(line)

    def mark(self, line: int, offset: int) -> None:
        """Remember that ``line`` starts at ``offset``."""
        with self._lock:
            if len(self.starts) >= _MAX_STARTS:
                self.starts.clear()  # a bound on memory; the windows read most recently mark them again
            self.starts[line] = offset


_cache: OrderedDict[tuple[int, ...], LineIndex] = OrderedDict()
_lock = threading.Lock()


def index_for(fd: int, size: int, identity: tuple[int, int, int, int] | None) -> LineIndex:
    """The cached index of the file open as ``fd``, or a fresh one if its ctime or fingerprint changed.

    Args:
        fd: the open file.
        size: its size from ``fstat``.
        identity: (device, inode, size, mtime_ns) to cache the index under; None for a fresh, uncached one.
    """
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
