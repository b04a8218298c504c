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


def _window(
    start: int,
    groups: list[bytes],
    count: int,
    cut: list[int],
    total: int | None,
    more: bool | None,
    read: int,
    longest: int,
) -> Window:
    return Window(start, b"\n".join(groups), count, cut, total, more, read, longest)


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
    window = _scan(fd, index, size, pos, line, start, limit, max_line_bytes, measure, count_total, marking, report)
    if report is not None:
        report.done()
    return window


def _scan(
    fd: int,
    index: LineIndex,
    size: int,
    pos: int,
    line: int,
    start: int,
    limit: int,
    max_line_bytes: int,
    measure: int,
    count_total: bool,
    marking: bool,
    report: ProgressReport | None,
) -> Window:
    """``read_window`` from the checkpoint ``pos`` (where line ``line`` is under way), marking where it begins
    and ends in the index when ``marking``."""
    known_total = index.total
    stop_at_cut = not count_total
    if known_total is not None:
        count_total = False  # the index already knows it: stop after the window (but not before it is full)
    vector = size - pos >= VECTOR_MIN or "numpy" in sys.modules
    # A checkpoint may fall between the two bytes of a CRLF: its LF then ends no line.
    after_cr = pos > 0 and os.pread(fd, 1, pos - 1) == b"\r"
    groups: list[bytes] = []  # runs of whole window lines, each joined by LF
    count = 0  # window lines in ``groups``
    longest = 0
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
    counter = Counter(buffer, vector)
    while pos < size:
        if step < CHUNK and pos > 0:
            step = min(step * 4, CHUNK)
            view.release()
            buffer = bytearray(step)
            view = memoryview(buffer)
            counter = Counter(buffer, vector)
        got = os.preadv(fd, [view[: min(step, size - pos)]], pos)
        if got == 0:
            break
        raw = buffer if got == len(buffer) else buffer[:got]
        index.record(pos, line, raw, fd)
        bytes_read += got
        if report is not None:
            report.at(pos + got)
        if (line < start or (count >= limit and count_total and not skipping)) and not after_cr and b"\r" not in raw:
            # Only counting, in a chunk with no CR: count in place, without the window's machinery.
            terms = counter.count(got)
            if count >= limit or line + terms < start:
                line += terms
                ends_with_terminator = raw[-1] == 0x0A
                pos += got
                continue
        chunk = _normalised(raw, after_cr)
        after_cr = raw[-1] == 0x0D
        n = len(chunk)
        if n == 0:  # the LF of a CRLF that the previous chunk ended in the middle of
            pos += got
            continue
        ends_with_terminator = chunk[-1] == 0x0A
        ends = Ends(chunk, vector)
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
            terms = ends.count(0)
            if line + terms < start:
                line += terms
                pos += got
                continue
            p = ends.nth_end(0, start - line)
            line = start
            if marking and chunk is raw:  # offsets in the chunk are offsets in the file
                index.mark(start, pos + p)
        while count < limit and p < n:
            if not in_partial:
                # The whole lines of this chunk that the window still needs, kept in one piece.
                found = ends.count(p)
                take = min(found, limit - count)
                if take:
                    e, run_longest = ends.run(p, take, measure, last=take == found)
                    group = bytes(memoryview(chunk)[p : e - 1])
                    if run_longest > max_line_bytes:
                        bulk = group.split(b"\n")
                        longs = [i for i, piece in enumerate(bulk) if len(piece) > max_line_bytes]
                        if stop_at_cut:  # keep up to the first cut line, and stop there
                            first = longs[0]
                            q = p + sum(map(len, bulk[: first + 1])) + first  # the LF ending that line
                            kept = bulk[: first + 1]
                            kept[first] = kept[first][:max_line_bytes]
                            cut.append(count + first)
                            groups.append(b"\n".join(kept))
                            count += first + 1
                            longest = max(longest, *map(len, kept))
                            more = q + 1 < n or _more_after(fd, pos + got, size, after_cr)
                            if known_total is not None:
                                more = start + count - 1 < known_total
                            return _window(start, groups, count, cut, index.total, more, bytes_read, longest)
                        for i in longs:
                            cut.append(count + i)
                            bulk[i] = bulk[i][:max_line_bytes]
                        group = b"\n".join(bulk)
                        run_longest = max(map(len, bulk))
                    groups.append(group)
                    count += take
                    longest = max(longest, run_longest)
                    line += take
                    p = e
                    continue
            # By hand, one line: the end of a line begun in an earlier chunk, or the start of one running on.
            q = chunk.find(b"\n", p)
            end = n if q < 0 else q
            room = max_line_bytes - len(partial)
            too_long = end - p > room
            piece = partial + bytes(memoryview(chunk)[p : p + min(end - p, room)])
            partial, in_partial = b"", False
            if too_long:
                cut.append(count)
                groups.append(piece)
                count += 1
                longest = max(longest, len(piece))
                if stop_at_cut:
                    if q < 0:
                        more = None if pos + got < size else False
                    else:
                        more = q + 1 < n or _more_after(fd, pos + got, size, after_cr)
                    if known_total is not None:
                        more = start + count - 1 < known_total
                    return _window(start, groups, count, cut, index.total, more, bytes_read, longest)
                if q < 0:
                    skipping = True
                    p = n
                    break
            elif q < 0:
                partial, in_partial = piece, True
                p = n
                break
            else:
                groups.append(piece)
                count += 1
                longest = max(longest, len(piece))
            line += 1
            p = q + 1
        if count >= limit and not skipping:
            if marking:
                if chunk is raw:
                    index.mark(start + count, pos + p)  # where the next window begins
                marking = False
            if not count_total:
                more = p < n or _more_after(fd, pos + got, size, after_cr)
                return _window(start, groups, count, cut, index.total, more, bytes_read, longest)
            line += ends.count(p)
        pos += got
    if in_partial:  # the file ends inside a window line that has no terminator
        groups.append(partial)
        count += 1
        longest = max(longest, len(partial))
    total = 0 if size == 0 else (line - 1 if ends_with_terminator else line)
    index.total = total
    return _window(start, groups, count, cut, total, start + count - 1 < total, bytes_read, longest)
