"""Rate limits per caller and tool set, the same for every worker of one machine: token buckets in a shared file.

Each ``[[serve.rate-limits]]`` entry is a token bucket per caller: it holds ``calls`` calls at most and regains
``calls / seconds`` a second; a call takes one from the bucket of every limit over its tool, or, when one has
none left, is answered 429 with ``Retry-After`` (the seconds until it would have one) and runs nothing. The
caller is the token's subject or client (OAuth), or the connection's address (``per``); a caller with no
subject or client is counted by address.

The buckets live in a file the workers of ``serve --workers`` map into memory (``SharedBuckets``): a fixed table
of ``SLOTS`` slots, each a key (a hash of the limit and the caller), the tokens left and when they were counted,
read and written under an exclusive ``flock`` of the file, so every worker sees every call. ``time.monotonic``
is the machine's clock, the same in each process. A key finds its slot among ``PROBES`` after its hash; when all
are taken, the one counted longest ago is forgotten (that caller's bucket starts full again), so a flood of
made-up callers costs a fixed file and never refuses a caller it has not counted.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import math
import mmap
import os
import struct
import tempfile
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Final

from toolproof.runtime.context import Caller, current_caller
from toolproof.runtime.serve.http import Refusal, Scope
from toolproof.runtime.serve.policy import RateLimit
from toolproof.runtime.spec import ToolSpec

__all__ = ["PROBES", "SLOTS", "RateGate", "SharedBuckets", "bucket_file"]

SLOTS: Final = 8192
"""Buckets the file holds: callers counted at once, across every limit."""
PROBES: Final = 16
"""Slots a key may take, from its hash on."""
_SLOT: Final = struct.Struct("<Qdd")
"""A slot: the key (0: free), the tokens left, the monotonic time they were counted."""
SIZE: Final = SLOTS * _SLOT.size


def bucket_file() -> Path:
    """A new, empty bucket file only this user may read or write (the ``serve --workers`` supervisor's)."""
    handle, name = tempfile.mkstemp(prefix="toolproof-rate-")
    try:
        os.ftruncate(handle, SIZE)
    finally:
        os.close(handle)
    return Path(name)


class SharedBuckets:
    """The token buckets in ``path`` (``bucket_file``); None: a private file, removed at once (one process).

    Raises:
        OSError: the file cannot be opened, or is not a bucket file's size.
    """

    def __init__(self, path: Path | None = None) -> None:
        own = path is None
        path = bucket_file() if path is None else path
        self._fd = os.open(path, os.O_RDWR | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
        if own:
            path.unlink()  # kept while mapped; nothing to clean up
        if os.fstat(self._fd).st_size != SIZE:
            os.close(self._fd)
            raise OSError(f"{path} is not a rate-limit bucket file of {SIZE} bytes")
        self._map = mmap.mmap(self._fd, SIZE)
        self._lock = threading.Lock()  # flock is per open file: threads of this process take turns here first

    def take(self, buckets: Sequence[tuple[int, float, float]], now: float) -> float:
        """Take a call from each bucket, or from none when one has none left.

        Args:
            buckets: each bucket's key (non-zero), capacity and tokens regained a second.
            now: ``time.monotonic()``.

        Returns:
            0 when taken; else the seconds until every bucket would have a call to give.
        """
        with self._lock:
            fcntl.flock(self._fd, fcntl.LOCK_EX)
            try:
                found = [(self._slot(key), key, capacity, rate) for key, capacity, rate in buckets]
                counted = []
                wait = 0.0
                for (offset, stored, tokens, stamp), key, capacity, rate in found:
                    left = capacity if stored != key else min(capacity, tokens + max(now - stamp, 0.0) * rate)
                    counted.append((offset, key, left))
                    if left < 1.0:
                        wait = max(wait, (1.0 - left) / rate)
                if wait > 0.0:
                    return wait
                for offset, key, left in counted:
                    _SLOT.pack_into(self._map, offset, key, left - 1.0, now)
                return 0.0
            finally:
                fcntl.flock(self._fd, fcntl.LOCK_UN)

    def _slot(self, key: int) -> tuple[int, int, float, float]:
        """The offset of ``key``'s slot and what it holds: its own, a free one, or the one counted longest ago."""
        start = key % SLOTS
        oldest: tuple[int, int, float, float] | None = None
        for probe in range(PROBES):
            offset = ((start + probe) % SLOTS) * _SLOT.size
            stored, tokens, stamp = _SLOT.unpack_from(self._map, offset)
            if stored == key or stored == 0:
                return offset, stored, tokens, stamp
            if oldest is None or stamp < oldest[3]:
                oldest = (offset, stored, tokens, stamp)
        assert oldest is not None
        return oldest

    def close(self) -> None:
        """Unmap the file and close it."""
        self._map.close()
        os.close(self._fd)


@functools.lru_cache(maxsize=4096)  # the callers seen lately: a hash a call saved
def _key(limit: int, who: str) -> int:
    digest = hashlib.blake2b(f"{limit}\0{who}".encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little") | 1  # never 0, which marks a free slot


def _who(per: str, caller: Caller | None, scope: Scope) -> str:
    """Whose calls a limit counts together: the caller's subject or client, else the connection's address."""
    if caller is not None:
        named = caller.subject if per == "subject" else caller.client_id if per == "client" else None
        if named:
            return f"{per}:{named}"
    client = scope.get("client")
    return f"address:{client[0]}" if client else "address:-"


class RateGate:
    """Refuses a call over any rate limit of its tool with 429 and ``Retry-After`` (see the module's docstring).

    Args:
        limits: the project's rate limits (``policy.rate_limits``).
        specs: the tools served.
        buckets: where the buckets are counted (shared by the workers of one machine).
    """

    def __init__(self, limits: Sequence[RateLimit], specs: Iterable[ToolSpec], buckets: SharedBuckets) -> None:
        self.buckets = buckets
        self._limits = {
            spec.name: tuple(
                (index, limit)
                for index, limit in enumerate(limits)
                if limit.toolsets is None or set(limit.toolsets).intersection(spec.toolsets)
            )
            for spec in specs
        }

    def __call__(self, tool: str, scope: Scope) -> Refusal | None:
        limits = self._limits.get(tool)
        if not limits:
            return None
        caller = current_caller()
        keys = [
            (_key(index, _who(limit.per, caller, scope)), float(limit.calls), limit.rate) for index, limit in limits
        ]
        wait = self.buckets.take(keys, time.monotonic())
        if wait == 0.0:
            return None
        seconds = max(1, math.ceil(wait))
        body = {"code": "rate_limited", "message": f"too many calls of {tool}: retry in {seconds} s"}
        return 429, body, [(b"retry-after", b"%d" % seconds)]
