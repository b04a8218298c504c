"""How far a long scan through a file has got, told to a caller's ``Progress`` callback.

A handler passes ``ctx.progress`` (MCP ``notifications/progress`` when the
caller sent a progress token, a no-op otherwise); the file layer only ever sees
the callback, so it stays independent of the tool context. A scan reports the
bytes it has read against the file's size, a bounded number of times.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

__all__ = ["PROGRESS_MIN", "Progress", "ProgressReport"]

PROGRESS_MIN: Final = 4 * 1024 * 1024
"""Bytes a scan must read before it reports progress: a shorter one reports nothing."""
_PROGRESS_REPORTS: Final = 16
"""Most reports one scan makes, the last (``size`` of ``size``) included."""

Progress = Callable[[int, int], None]
"""Told ``(offset, size)`` as a long scan passes through a file: how far it has read, of how much."""


class ProgressReport:
    """Tells ``progress`` how far a long scan got, each ``step`` bytes, and ``(size, size)`` once it is done.

    Nothing is told before the scan has read ``PROGRESS_MIN`` bytes, so a short
    scan of a large file (a window from a cached index) reports nothing; a long
    one reports at most ``_PROGRESS_REPORTS`` times, ascending, ending at ``size``.
    """

    __slots__ = ("_left", "_next", "_progress", "_size", "_step")

    def __init__(self, progress: Progress, begin: int, size: int) -> None:
        self._progress = progress
        self._size = size
        self._step = max(PROGRESS_MIN // 4, -(-(size - begin) // _PROGRESS_REPORTS))
        self._next = begin + max(self._step, PROGRESS_MIN)
        self._left = _PROGRESS_REPORTS - 1  # the last report is kept for ``done``

    def at(self, offset: int) -> None:
        """The scan has read up to ``offset``."""
        if offset >= self._next and offset < self._size and self._left:
            self._progress(offset, self._size)
            self._left -= 1
            while self._next <= offset:
                self._next += self._step

    def done(self) -> None:
        """The scan ended: the last report, ``size`` of ``size``, if any came before it."""
        if self._left < _PROGRESS_REPORTS - 1:
            self._progress(self._size, self._size)
