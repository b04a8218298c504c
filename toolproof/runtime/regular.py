"""Reading a file that must be a regular one: never waiting on a FIFO, never reading without bound.

Files a host or ``gen`` reads whole at start (contracts, generated JSON, the
gate key) may be replaced by anything: a FIFO, whose reader waits for a writer
for ever; ``/dev/zero``, which never ends; a folder. ``read_regular`` opens
without blocking, reads only when ``fstat`` says the file is regular, and
stops past a bound.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Final

__all__ = ["NotRegular", "TooLarge", "read_regular"]

_KINDS: Final = {stat.S_IFIFO: "a FIFO", stat.S_IFDIR: "a folder", stat.S_IFSOCK: "a socket"}


class NotRegular(Exception):
    """The path names a FIFO, a folder, a socket or a device; ``kind`` says which (``"a FIFO"``)."""

    def __init__(self, kind: str) -> None:
        super().__init__(f"{kind}, not a regular file")
        self.kind = kind


class TooLarge(Exception):
    """The file holds more than the bytes the reader allows (``limit``)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"larger than {limit} bytes")
        self.limit = limit


def read_regular(path: str | Path, limit: int, *, follow_links: bool = True) -> bytes:
    """The whole content of the regular file at ``path``: at most ``limit`` bytes.

    Raises:
        OSError: it cannot be opened or read (``ELOOP`` for a link when ``follow_links`` is False).
        NotRegular: it is not a regular file.
        TooLarge: it holds more than ``limit`` bytes.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow_links else os.O_NOFOLLOW)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotRegular(_KINDS.get(stat.S_IFMT(mode), "a device"))
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, min(1 << 20, limit + 1 - size)):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise TooLarge(limit)
    finally:
        os.close(fd)
    return b"".join(chunks)
