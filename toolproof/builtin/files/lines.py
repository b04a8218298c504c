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
``VECTOR_MIN`` bytes or more to scan, numpy counts instead (``ends.py``, ~5x
faster on 256 KiB chunks, measured in ``benchmarks/files.py``); it is imported
then and only then, so a process that reads small files never pays its ~0.1 s
import. A window is kept as one block of bytes (its lines joined by ``\\n``),
never split into lines.

Where each chunk starts, and on which line, is kept in the file's line index
(``index.py``), so a later window of the same unchanged file starts reading near
its first line; a window also marks where it began and where the next one would
begin, so reading it again, or the next page, is one ``pread`` from the
checkpoint before it, checked line for line against the index
(``_known_window``). A scan that reads ``PROGRESS_MIN`` bytes or more reports
how far it got (``progress.py``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import Final

from toolproof.builtin.files.ends import Counter, Ends, count_ends
from toolproof.builtin.files.index import LineIndex, clear_index_cache, index_for
from toolproof.builtin.files.progress import PROGRESS_MIN, Progress, ProgressReport

__all__ = [
    "CHUNK",
    "FIRST_CHUNK",
    "VECTOR_MIN",
    "LineIndex",
    "Window",
    "clear_index_cache",
    "read_window",
]

CHUNK: Final = 256 * 1024
FIRST_CHUNK: Final = 16 * 1024
VECTOR_MIN: Final = 4 * 1024 * 1024
"""Bytes left to scan from which a pass counts with numpy (importing it if no one has)."""


@dataclass(frozen=True, slots=True)
class Window:
    """Lines ``start`` .. ``start + count - 1`` of a file, as raw bytes without terminators."""

    start: int
    data: bytes
    """The lines, each cut at ``max_line_bytes``, joined by ``\\n`` (whatever ended them in the file)."""
    count: int
    cut: list[int]
    """Indexes (into ``lines``) of the lines that were longer than ``max_line_bytes`` and were cut."""
    total: int | None
    """Lines in the file, when the pass counted them (or the index knew)."""
    more: bool | None
    """Whether lines follow the window; None when the scan stopped before it could tell."""
    bytes_read: int
    longest: int
    """No line of ``data`` is longer than this many bytes (the longest's length, or a bound on it)."""

    @property
    def lines(self) -> list[bytes]:
        """The lines, one ``bytes`` each."""
        return self.data.split(b"\n") if self.count else []


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


def _known_window(
    fd: int, index: LineIndex, size: int, start: int, limit: int, max_line_bytes: int, measure: int
) -> Window | int | None:
    """The window in one ``pread`` when the index knows the total and where the window begins and ends;
    where it begins when the index knows only that (the scan starts there); else None.

    The read runs from the checkpoint a scan would start at (its hash checked
    by ``seek``), and its bytes must bear the index out as a scan would: no CR,
    exactly ``start`` less the checkpoint's line LFs before the window (the last
    just before it), and exactly the window's lines in it, none longer than
    ``max_line_bytes`` (a scan cuts those). Otherwise None, and the scan reads the window.
    """
    total = index.total
    if total is None or start > total:
        return None
    begin = index.start_of(start)
    if not begin:  # unknown, or line 1, where a scan starts anyway
        return None
    after = start + limit  # the line after the window
    end = size if after > total else index.start_of(after)
    checkpoint, line = index.seek(start, fd)
    if index.total != total:  # the checkpoint's bytes changed: the index forgot everything
        return None
    if begin <= checkpoint:  # a mark behind its checkpoint: the index is not to be trusted
        index.forget()
        return None
    if end is None or end <= begin:
        end = begin  # read only up to the window, and scan it from there
    lead = 1 if checkpoint else 0  # the byte before the checkpoint, which must not be a CR
    data = os.pread(fd, end - checkpoint + lead, checkpoint - lead)
    if b"\r" in data:  # a CR before the window, in a chunk the marks do not cover: scan
        return None
    first = begin - checkpoint + lead  # where the window's bytes begin in ``data``
    vector = "numpy" in sys.modules
    stop = len(data)
    if end > begin and data.endswith(b"\n"):
        stop -= 1
    count = min(after, total + 1) - start
    if (
        len(data) != end - checkpoint + lead
        or data[first - 1] != 0x0A
        or count_ends(data, lead, first, vector) != start - line
        or (end > begin and stop == len(data) and end < size)
    ):
        index.forget()  # the file changed under the index: count it all again
        return None
    if end == begin:
        return begin
    lines = data[first:stop]
    ends = Ends(lines, vector)
    if ends.count(0) != count - 1:
        index.forget()
        return None
    longest = len(lines)
    if count > 1:
        last_end, longest = ends.run(0, count - 1, measure, last=True)
        longest = max(longest, len(lines) - last_end)
    if longest > max_line_bytes:
        return None
    return Window(start, lines, count, [], total, start + count - 1 < total, len(data), longest)


def read_window(
    fd: int,
    *,
    size: int,
    start: int,
    limit: int,
    max_line_bytes: int,
    count_total: bool,
    identity: tuple[int, int, int, int] | None = None,
    progress: Progress | None = None,
    exact_over: int | None = None,
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
        progress: told ``(offset, size)`` as a scan that reads ``PROGRESS_MIN`` bytes or more goes,
            at most 16 times, ascending, the last ``(size, size)``.
        exact_over: ``longest`` is exact whenever it is over this many bytes (``max_line_bytes`` if
            None); below it, ``longest`` may be a bound (measuring every line costs a pass).
    """
    measure = max_line_bytes if exact_over is None else min(exact_over, max_line_bytes)
    index = index_for(fd, size, identity)
    marking = identity is not None
    known = _known_window(fd, index, size, start, limit, max_line_bytes, measure) if marking else None
    if isinstance(known, Window):
        return known
    # ``line`` is always the line holding the byte at ``pos``
    pos, line = (known, start) if known is not None else index.seek(start, fd)
    known_total = index.total  # read after seek: a stale checkpoint makes the index forget it
    if known_total is not None and start > known_total:
        return Window(start, b"", 0, [], known_total, False, 0, 0)
    report = ProgressReport(progress, pos, size) if progress is not None and size - pos >= PROGRESS_MIN else None
    want = _Want(start, limit, max_line_bytes, measure, count_total)
    window = _Scan(fd, index, size, want, marking, report).run(pos, line)
    if report is not None:
        report.done()
    return window


@dataclass(frozen=True, slots=True)
class _Want:
    """What a scan is asked for: the window, how long a kept line may be, and whether to count every line."""

    start: int
    limit: int
    max_line_bytes: int
    measure: int
    """Lines longer than this are measured exactly (see ``read_window``'s ``exact_over``)."""
    count_total: bool


class _Scan:
    """One pass of ``read_window`` from a checkpoint, a chunk at a time: it counts the lines before the window,
    keeps the window's lines, and counts on to the end when the total is wanted.

    ``line`` is always the line holding the byte at ``pos``; ``pos`` is where the chunk being scanned starts.
    The window begins (and the next one would begin) where the index is told, when ``marking``.
    """

    __slots__ = (
        "after_cr",
        "bytes_read",
        "count",
        "count_total",
        "cut",
        "ends_with_terminator",
        "fd",
        "groups",
        "in_partial",
        "index",
        "known_total",
        "limit",
        "line",
        "longest",
        "marking",
        "max_line_bytes",
        "measure",
        "partial",
        "pos",
        "report",
        "size",
        "skipping",
        "start",
        "stop_at_cut",
        "vector",
    )

    def __init__(
        self, fd: int, index: LineIndex, size: int, want: _Want, marking: bool, report: ProgressReport | None
    ) -> None:
        self.fd, self.index, self.size, self.marking, self.report = fd, index, size, marking, report
        self.start, self.limit, self.max_line_bytes, self.measure = (
            want.start,
            want.limit,
            want.max_line_bytes,
            want.measure,
        )
        self.known_total = index.total
        self.stop_at_cut = not want.count_total
        # When the index already knows the total, stop after the window (but not before it is full).
        self.count_total = want.count_total and self.known_total is None
        self.groups: list[bytes] = []  # runs of whole window lines, each joined by LF
        self.count = 0  # window lines in ``groups``
        self.longest = 0
        self.cut: list[int] = []
        self.partial = b""  # the kept start of a window line that runs on into the next chunk
        self.in_partial = False
        self.skipping = False  # inside a cut window line, looking for its end
        self.bytes_read = 0
        self.ends_with_terminator = True
        self.pos = self.line = 0
        self.vector = self.after_cr = False

    def run(self, pos: int, line: int) -> Window:
        """The window, scanning from the checkpoint ``pos``, where line ``line`` is under way."""
        fd, size = self.fd, self.size
        self.pos, self.line = pos, line
        self.vector = size - pos >= VECTOR_MIN or "numpy" in sys.modules
        # A checkpoint may fall between the two bytes of a CRLF: its LF then ends no line.
        self.after_cr = pos > 0 and os.pread(fd, 1, pos - 1) == b"\r"
        # One buffer for every chunk (a fresh 256 KiB bytes per read costs a fifth
        # more), starting small so a window near the start reads little.
        step = min(FIRST_CHUNK, CHUNK)
        buffer = bytearray(step)
        view = memoryview(buffer)
        counter = Counter(buffer, self.vector)
        while pos < size:
            if step < CHUNK and pos > 0:
                step = min(step * 4, CHUNK)
                view.release()
                buffer = bytearray(step)
                view = memoryview(buffer)
                counter = Counter(buffer, self.vector)
            got = os.preadv(fd, [view[: min(step, size - pos)]], pos)
            if got == 0:
                break
            raw = buffer if got == len(buffer) else buffer[:got]
            self.index.record(pos, self.line, raw, fd)
            self.bytes_read += got
            if self.report is not None:
                self.report.at(pos + got)
            if not self._counted(raw, got, counter):
                window = self._chunk(raw, got)
                if window is not None:
                    return window
            pos = self.pos = pos + got
        return self._end()

    def _counted(self, raw: bytearray, got: int, counter: Counter) -> bool:
        """Whether the chunk only had to be counted (before the window, or after it for the total), and was.

        Only a chunk with no CR is counted in place, without the window's machinery.
        """
        if not (
            (self.line < self.start or (self.count >= self.limit and self.count_total and not self.skipping))
            and not self.after_cr
            and b"\r" not in raw
        ):
            return False
        terms = counter.count(got)
        if self.count >= self.limit or self.line + terms < self.start:
            self.line += terms
            self.ends_with_terminator = raw[-1] == 0x0A
            return True
        return False

    def _chunk(self, raw: bytearray, got: int) -> Window | None:
        """Scan the chunk read at ``pos``; the window when the scan ends here, else None."""
        chunk = _normalised(raw, self.after_cr)
        self.after_cr = raw[-1] == 0x0D
        n = len(chunk)
        if n == 0:  # the LF of a CRLF that the previous chunk ended in the middle of
            return None
        self.ends_with_terminator = chunk[-1] == 0x0A
        ends = Ends(chunk, self.vector)
        p = self._first(chunk, ends, chunk is raw)
        if p is None:
            return None
        kept = self._collect(chunk, ends, p, got)
        if isinstance(kept, Window):
            return kept
        if self.count >= self.limit and not self.skipping:
            if self.marking:
                if chunk is raw:
                    self.index.mark(self.start + self.count, self.pos + kept)  # where the next window begins
                self.marking = False
            if not self.count_total:
                return self._window(kept < n or self._more_after(got))
            self.line += ends.count(kept)
        return None

    def _first(self, chunk: bytes | bytearray, ends: Ends, in_place: bool) -> int | None:
        """Where in ``chunk`` the window's next line begins: past the end of a cut line or of the lines before
        the window; None when it is not in this chunk.

        ``in_place``: offsets in the chunk are offsets in the file (nothing was normalised).
        """
        if self.skipping:
            q = chunk.find(b"\n")
            if q < 0:
                return None
            self.skipping = False
            self.line += 1
            return q + 1
        if self.line >= self.start:
            return 0
        terms = ends.count(0)
        if self.line + terms < self.start:
            self.line += terms
            return None
        p = ends.nth_end(0, self.start - self.line)
        self.line = self.start
        if self.marking and in_place:
            self.index.mark(self.start, self.pos + p)
        return p

    def _collect(self, chunk: bytes | bytearray, ends: Ends, p: int, got: int) -> int | Window:
        """Keep the window lines of ``chunk`` from ``p``: where keeping stopped, or the window when a cut line
        ends the scan."""
        n = len(chunk)
        while self.count < self.limit and p < n:
            kept: int | Window
            if not self.in_partial and (take := min(found := ends.count(p), self.limit - self.count)):
                kept = self._lines(chunk, ends, p, take, take == found, got)
            else:
                kept = self._line(chunk, p, got)
            if isinstance(kept, Window):
                return kept
            p = kept
        return p

    def _lines(self, chunk: bytes | bytearray, ends: Ends, p: int, take: int, last: bool, got: int) -> int | Window:
        """Keep the ``take`` whole lines from ``p`` in one piece (``last``: the chunk's last whole ones); where
        they end, or the window when a cut line ends the scan."""
        e, run_longest = ends.run(p, take, self.measure, last=last)
        group = bytes(memoryview(chunk)[p : e - 1])
        if run_longest > self.max_line_bytes:
            bulk = group.split(b"\n")
            longs = [i for i, piece in enumerate(bulk) if len(piece) > self.max_line_bytes]
            if self.stop_at_cut:  # keep up to the first cut line, and stop there
                first = longs[0]
                q = p + sum(map(len, bulk[: first + 1])) + first  # the LF ending that line
                kept = bulk[: first + 1]
                kept[first] = kept[first][: self.max_line_bytes]
                self.cut.append(self.count + first)
                self.groups.append(b"\n".join(kept))
                self.count += first + 1
                self.longest = max(self.longest, *map(len, kept))
                return self._cut_window(q + 1 < len(chunk) or self._more_after(got))
            for i in longs:
                self.cut.append(self.count + i)
                bulk[i] = bulk[i][: self.max_line_bytes]
            group = b"\n".join(bulk)
            run_longest = max(map(len, bulk))
        self.groups.append(group)
        self.count += take
        self.longest = max(self.longest, run_longest)
        self.line += take
        return e

    def _line(self, chunk: bytes | bytearray, p: int, got: int) -> int | Window:
        """Keep one line by hand: the end of a line begun in an earlier chunk, or the start of one running on.

        Returns where the next line begins (the chunk's end when this one runs on), or the window when a cut
        line ends the scan.
        """
        n = len(chunk)
        q = chunk.find(b"\n", p)
        end = n if q < 0 else q
        room = self.max_line_bytes - len(self.partial)
        too_long = end - p > room
        piece = self.partial + bytes(memoryview(chunk)[p : p + min(end - p, room)])
        self.partial, self.in_partial = b"", False
        if too_long:
            self.cut.append(self.count)
            self._keep(piece)
            if self.stop_at_cut:
                if q < 0:
                    return self._cut_window(None if self.pos + got < self.size else False)
                return self._cut_window(q + 1 < n or self._more_after(got))
            if q < 0:
                self.skipping = True
                return n
        elif q < 0:
            self.partial, self.in_partial = piece, True
            return n
        else:
            self._keep(piece)
        self.line += 1
        return q + 1

    def _keep(self, piece: bytes) -> None:
        self.groups.append(piece)
        self.count += 1
        self.longest = max(self.longest, len(piece))

    def _more_after(self, got: int) -> bool:
        """Whether a line starts after the chunk, whose last line has just ended."""
        return _more_after(self.fd, self.pos + got, self.size, self.after_cr)

    def _cut_window(self, more: bool | None) -> Window:
        """The window, stopped at the cut line just kept; ``more`` as the chunk tells it, unless the index knows."""
        if self.known_total is not None:
            more = self.start + self.count - 1 < self.known_total
        return self._window(more)

    def _end(self) -> Window:
        """The window at the end of the file, which tells the total (told to the index)."""
        if self.in_partial:  # the file ends inside a window line that has no terminator
            self._keep(self.partial)
        total = 0 if self.size == 0 else (self.line - 1 if self.ends_with_terminator else self.line)
        self.index.total = total
        return self._window(self.start + self.count - 1 < total)

    def _window(self, more: bool | None) -> Window:
        groups = b"\n".join(self.groups)
        return Window(self.start, groups, self.count, self.cut, self.index.total, more, self.bytes_read, self.longest)
