"""Handlers with a contract ``timeout``: run on a bounded set of daemon threads, waited for at most that long.

A thread cannot be killed, so a handler past its timeout runs on in the
background and its result is discarded. The threads are daemons: a handler
that never returns cannot hold a process open once its work is done (a
one-shot ``toolproof call``, a stdio server whose client hung up). At exit the
process waits up to ``EXIT_GRACE`` seconds for handlers still running, so one
that is about to finish (a write half done) can, then logs those it leaves.
"""

from __future__ import annotations

import atexit
import contextvars
import logging
import queue
import threading
import time
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from concurrent.futures import Future

    _Job = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]

__all__ = ["EXIT_GRACE", "TimedOut", "TimeoutPool"]

EXIT_GRACE: Final = 2.0
"""Seconds a process waits at exit for handlers that outlived their timeout, in all pools together."""

_log = logging.getLogger("toolproof.runtime")
_pools: weakref.WeakSet[TimeoutPool] = weakref.WeakSet()
_exit_hook = threading.Lock()
_hooked = False


class TimedOut(Exception):
    """A handler did not finish within its timeout, or every worker was busy."""


class TimeoutPool:
    """At most ``workers`` handlers at once, each on a daemon thread started when first needed.

    A call made while every worker is busy (those whose handlers timed out and
    still run count) fails at once rather than queueing behind them.
    """

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self._slots = threading.BoundedSemaphore(workers)
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._threads = 0
        self._idle = 0
        self._busy = 0

    @property
    def busy(self) -> int:
        """Handlers running now, those past their timeout included."""
        return self._busy

    def run(self, handler: Callable[..., Any], *args: Any, timeout: float) -> Any:
        """What ``handler(*args)`` returns (or raises), run on a worker with this thread's context variables.

        Raises:
            TimedOut: it did not finish within ``timeout`` seconds, or every worker is busy.
        """
        from concurrent.futures import Future  # here: a host whose tools have no timeout never needs it
        from concurrent.futures import TimeoutError as FutureTimeout

        if not self._slots.acquire(blocking=False):
            _log.warning("no worker is free for a handler with a timeout (%d busy)", self.workers)
            raise TimedOut
        future: Future[Any] = Future()
        with self._lock:
            self._busy += 1
            start = self._idle == 0
            if start:
                self._threads += 1
            else:
                self._idle -= 1
        if start:
            _hook_exit()
            _pools.add(self)
            # Started by the call that needs it, a thread inherits that thread's per-thread state (Linux
            # capabilities, which a conformance replay of a restricted example drops before building its runtime).
            threading.Thread(target=self._work, name=f"toolproof-timeout-{self._threads}", daemon=True).start()
        self._jobs.put((future, contextvars.copy_context().run, (handler, *args)))
        try:
            return future.result(timeout=timeout)
        except FutureTimeout:
            raise TimedOut from None

    def _work(self) -> None:
        while True:
            future, fn, args = self._jobs.get()
            try:
                future.set_result(fn(*args))
            except BaseException as exc:  # the caller re-raises it, or has gone and discards it
                future.set_exception(exc)
            finally:
                del future, fn, args  # a finished job's arguments and result are not kept alive while idle
                with self._lock:
                    self._busy -= 1
                    self._idle += 1
                self._slots.release()


def _hook_exit() -> None:
    global _hooked
    with _exit_hook:
        if not _hooked:
            atexit.register(_wait_at_exit, EXIT_GRACE)
            _hooked = True


def _wait_at_exit(grace: float) -> None:
    """Wait up to ``grace`` seconds for running handlers; log the ones left running."""
    deadline = time.monotonic() + grace
    while (busy := sum(pool.busy for pool in list(_pools))) and time.monotonic() < deadline:
        time.sleep(0.01)
    if busy:
        _log.warning("exiting with %d handler(s) still running past their timeout; they are stopped unfinished", busy)
