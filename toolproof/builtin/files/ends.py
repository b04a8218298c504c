"""Where the line ends (``\\n``) of a block of bytes are: counted, found by rank, and the longest line between them.

The scanner (``lines.py``) asks these of every chunk it reads. The ``bytes``
methods count at ~2-3 GB/s; in a vectorised pass numpy compares a chunk with
``\\n`` once (into a scratch array when it can) and counts with
``count_nonzero``, ~5x faster on 256 KiB chunks, and measures a window's lines
with ``flatnonzero`` over the window's bytes alone. A line is found by rank with
the ``bytes`` methods either way (counting 4 KiB at a time, then ``index``),
which beats listing every line end of a chunk.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Final

__all__ = ["VECTOR_CHUNK", "Counter", "Ends", "count_ends", "nth_end", "numpy_module"]

VECTOR_CHUNK: Final = 8 * 1024
"""Shortest stretch numpy searches: below it, its per-call cost exceeds that of the ``bytes`` methods."""


_MISSING: list[bool] = []
"""Holds one entry once numpy was looked for and is not installed: it is looked for once a process."""


def numpy_module() -> ModuleType | None:
    """numpy, imported now if no one has yet; None where it is not installed (the ``bytes`` methods count then).

    numpy is optional (the ``fast`` extra): the answers are the same without it, large first reads slower.
    """
    if _MISSING:
        return None
    try:
        import numpy  # imported on the first large pass only (see ``lines.VECTOR_MIN``)
    except ImportError:
        _MISSING.append(True)
        return None
    return numpy


def count_ends(data: bytes, start: int, end: int, vector: bool) -> int:
    """How many ``\\n`` lie in ``data[start:end]``, counted by numpy when ``vector`` and the stretch is long."""
    np = numpy_module() if vector and end - start >= VECTOR_CHUNK else None
    if np is not None:
        return int(np.count_nonzero(np.frombuffer(data, np.uint8, end - start, start) == 0x0A))
    return data.count(b"\n", start, end)


def nth_end(chunk: bytes | bytearray, start: int, n: int) -> int:
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


class Counter:
    """Counts the ``\\n`` at the start of one buffer, in place: numpy compares into a scratch array it keeps."""

    __slots__ = ("_buffer", "_flat", "_np", "_scratch")

    def __init__(self, buffer: bytearray, vector: bool) -> None:
        self._buffer = buffer
        self._np = numpy_module() if vector and len(buffer) >= VECTOR_CHUNK else None
        if self._np is not None:
            self._flat = self._np.frombuffer(buffer, self._np.uint8)
            self._scratch = self._np.empty(len(buffer), self._np.bool_)

    def count(self, length: int) -> int:
        """How many ``\\n`` the first ``length`` bytes of the buffer hold."""
        np = self._np
        if np is None or length < VECTOR_CHUNK:
            return self._buffer.count(b"\n", 0, length)
        return int(np.count_nonzero(np.equal(self._flat[:length], 0x0A, out=self._scratch[:length])))


class Ends:
    """The ``\\n`` of one normalised chunk: counted, found by rank, and the longest line between them.

    In a chunk of ``VECTOR_CHUNK`` bytes or more of a vectorised pass, numpy
    compares the chunk once, counts there, and measures a window's lines;
    otherwise the ``bytes`` methods count and measure.
    """

    __slots__ = ("_chunk", "_hits", "_np")

    def __init__(self, chunk: bytes | bytearray, vector: bool) -> None:
        self._chunk = chunk
        self._np = numpy_module() if vector and len(chunk) >= VECTOR_CHUNK else None
        self._hits: Any = None

    def _eq(self) -> Any:
        """Where the chunk holds ``\\n`` (numpy only), compared once."""
        if self._hits is None:
            assert self._np is not None
            self._hits = self._np.frombuffer(self._chunk, self._np.uint8) == 0x0A
        return self._hits

    def count(self, start: int, end: int | None = None) -> int:
        """How many ``\\n`` lie in ``chunk[start:end]``."""
        if self._np is None:
            return self._chunk.count(b"\n", start, end)
        return int(self._np.count_nonzero(self._eq()[start:end]))

    def nth_end(self, start: int, n: int) -> int:
        """The offset just past the ``n``-th ``\\n`` at or after ``start`` (n >= 1, known to exist)."""
        return nth_end(self._chunk, start, n)

    def run(self, start: int, n: int, limit: int, *, last: bool = False) -> tuple[int, int]:
        """(end, longest) of the ``n`` whole lines from ``start`` (n >= 1, known to exist).

        ``end`` is just past the last one's ``\\n``; no line is longer than
        ``longest`` bytes: exactly the longest's length when the lines span more
        than ``limit`` bytes, else their span. ``last``: these are all the lines
        the chunk ends from ``start`` on (the last ``\\n`` ends them).
        """
        end = self._chunk.rfind(b"\n") + 1 if last else nth_end(self._chunk, start, n)
        if end - 1 - start <= limit:  # no line can be longer: the bound will do
            return end, end - 1 - start
        np = self._np
        if np is None:
            return end, max(map(len, bytes(self._chunk[start : end - 1]).split(b"\n")))
        inner = np.flatnonzero(self._eq()[start : end - 1])  # the ends of all but the last line, from ``start``
        bounds = np.concatenate(([-1], inner, [end - 1 - start]))
        return end, int(np.diff(bounds).max()) - 1
