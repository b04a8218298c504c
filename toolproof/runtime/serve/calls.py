"""The tool calls an HTTP app runs at once: the slots they share (``Budget``), the threads that run them (``Calls``)."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any, Final, TypeVar

__all__ = ["Budget", "Calls", "disconnected"]

_PATIENCE: Final = 0.002
"""Seconds the loop waits for a call, and a call for a thread already awake, before ``Calls`` does otherwise."""
_MAX_SLOW_KINDS: Final = 1024
T = TypeVar("T")


class Budget:
    """Units shared by concurrent requests, granted first come, first served."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.free = total
        self._waiters: deque[tuple[int, asyncio.Future[bool]]] = deque()
        """Who waits, first come first: each future comes true when granted, false when its wait timed out."""

    async def acquire(self, units: int, timeout: float) -> bool:
        """Take ``units`` (at most ``total``), waiting at most ``timeout`` seconds; False when they did not come.

        A waiter awaits its own future, which ``_grant`` or a timer settles: every
        request waits here when the slots are taken, and ``asyncio.wait`` took twice as long.
        """
        if not self._waiters and units <= self.free:
            self.free -= units
            return True
        loop = asyncio.get_running_loop()
        granted: asyncio.Future[bool] = loop.create_future()
        self._waiters.append((units, granted))
        timer = loop.call_later(timeout, _time_out, granted)
        try:
            if await granted:
                return True
        except BaseException:
            self._withdraw(units, granted)
            raise
        finally:
            timer.cancel()
        self._grant()  # it may have held smaller waiters back
        return False

    def try_acquire(self, units: int) -> bool:
        """Take ``units`` if they are free now and no one waits before; False otherwise, without waiting."""
        if not self._waiters and units <= self.free:
            self.free -= units
            return True
        return False

    async def acquire_for(self, units: int, timeout: float, receive: Callable[[], Awaitable[Any]]) -> bool | None:
        """``acquire`` for an HTTP request whose body has been read: None if its client disconnects meanwhile.

        The ASGI server does not stop a request whose client has gone; one that
        waited here would then run for no one, and a flood of requests dropped
        at once would each wait ``timeout``, held in memory beyond any limit
        on connections. So the request listens for its client's disconnect
        while it waits, and gives up its place when it comes.
        """
        if self.try_acquire(units):
            return True
        waiting = asyncio.ensure_future(self.acquire(units, timeout))
        gone = asyncio.ensure_future(disconnected(receive))
        try:
            await asyncio.wait((waiting, gone), return_when=asyncio.FIRST_COMPLETED)
        finally:
            gone.cancel()
            if not waiting.done():
                waiting.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await waiting  # withdraws from the queue
        if gone.done() and not gone.cancelled():
            if waiting.done() and not waiting.cancelled() and waiting.result():
                self.release(units)  # granted as the client went
            return None
        return waiting.result()

    def release(self, units: int) -> None:
        """Give ``units`` back, and grant waiters in turn."""
        self.free += units
        self._grant()

    def _withdraw(self, units: int, granted: asyncio.Future[bool]) -> None:
        if granted.done() and not granted.cancelled() and granted.result():
            self.release(units)  # granted as the wait ended
        else:
            granted.cancel()
            self._grant()  # a large waiter at the head may have held smaller ones back

    def _grant(self) -> None:
        while self._waiters:
            units, granted = self._waiters[0]
            if granted.done():
                self._waiters.popleft()
            elif units <= self.free:
                self.free -= units
                granted.set_result(True)
                self._waiters.popleft()
            else:
                return


class _Batch:
    """The calls one turn of the loop handed over and waits for: how many have not ended, and the lock that says so."""

    __slots__ = ("ended", "left")

    def __init__(self, size: int) -> None:
        self.left = size
        self.ended = threading.Lock()
        self.ended.acquire()  # released by the thread that ends the last of them


class _Job:
    """A call handed to the threads, and how its outcome comes back."""

    __slots__ = ("args", "batch", "context", "fn", "future", "kind", "loop", "outcome", "since")

    def __init__(
        self, loop: asyncio.AbstractEventLoop, future: asyncio.Future[Any], fn: Callable[..., Any], args: Any, kind: Any
    ) -> None:
        self.since = time.monotonic()
        self.loop = loop
        self.future = future
        self.context = contextvars.copy_context()
        self.fn = fn
        self.args = args
        self.kind = kind
        self.batch: _Batch | None = None
        """The batch the loop waits for, if it still does: then the thread leaves the outcome in ``outcome``."""
        self.outcome: tuple[Any, BaseException | None] | None = None


class Calls(Budget):
    """The slots of the tool calls running at once (a ``Budget``), and the threads that run them.

    A call runs in a thread, never on the event loop: a handler may block (a
    slow disk, a contract ``timeout`` it waits out), and the loop must go on
    reading requests and timing out clients meanwhile. But two threads that
    both want the GIL hand it over at every system call either makes, and a
    small read makes a dozen: at 64 connections a small REST read took 870 us
    of CPU through ``asyncio.to_thread``, about 460 through one thread, and 245
    run on the loop itself or handed over as here (interleaved runs of
    ``benchmarks/http_load.py``'s setup on a busy two-core machine). So:

    - the calls a turn of the loop asks for are handed over together, and the
      loop waits for them, at most ``patience`` seconds, not wanting the GIL
      meanwhile; those that took longer are left to their threads, and the loop
      turns to other work. It waits so only for a kind of call (a tool) whose
      last call ended within ``patience``: a slow tool does not stall the loop,
      and no turn of the loop stalls longer than ``patience``;
    - calls run on as few threads as keep up: a call is taken by a thread
      already awake, and another is woken only when the oldest waiting call has
      waited ``patience`` seconds (the awake ones are blocked, or slow), up to
      one thread a slot. A blocked handler thus holds the calls behind it back
      about ``patience`` (twice that at most).

    The threads are started when first needed and are daemons: they hold no
    call when the server stops, as it waits for its requests first.
    """

    def __init__(self, total: int, *, patience: float = _PATIENCE) -> None:
        super().__init__(total)
        self.patience = patience
        self._lock = threading.Lock()
        self._jobs: deque[_Job] = deque()
        self._parked: list[threading.Lock] = []
        """One lock a thread waiting for work, held until ``_wake`` releases it; the latest parked last."""
        self._threads = 0
        self._awake = 0
        """Threads running a call or about to take one."""
        self._slow: set[Any] = set()
        """Kinds of call whose last one outlasted ``patience``: the loop does not wait for them."""
        self._pending: list[_Job] = []
        """Calls asked for in this turn of the loop, handed over together at its end (``_hand_over``)."""
        self._pending_loop: asyncio.AbstractEventLoop | None = None
        self._check: asyncio.TimerHandle | None = None
        self._check_loop: asyncio.AbstractEventLoop | None = None

    def run(self, fn: Callable[..., T], *args: Any, kind: Any = None) -> asyncio.Future[T]:
        """Call ``fn(*args)`` in a thread, in a copy of the caller's context; its outcome, as a future of this loop.

        The caller holds a slot: at most ``total`` calls are in the threads'
        hands at once. ``kind`` names what is called (a tool), for ``patience``.
        """
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        job = _Job(loop, future, fn, args, kind)
        if kind in self._slow:
            self._submit([job], loop)
        else:
            if self._pending_loop is not loop or not self._pending:
                self._pending = []
                self._pending_loop = loop
                loop.call_soon(self._hand_over, self._pending, loop)
            self._pending.append(job)
        return future

    def _hand_over(self, jobs: list[_Job], loop: asyncio.AbstractEventLoop) -> None:
        """Hand this turn's calls over and wait for them, ``patience`` at most; settle those that ended."""
        if self._pending is jobs:
            self._pending = []
        batch = _Batch(len(jobs))
        for job in jobs:
            job.batch = batch
        self._submit(jobs, loop)
        if batch.ended.acquire(timeout=self.patience):  # blocks the loop, and lets the calls' thread have the GIL
            for job in jobs:
                assert job.outcome is not None
                _settle(job.future, job.outcome)
            return
        with self._lock:
            ended = [job for job in jobs if job.outcome is not None]
            for job in jobs:
                job.batch = None  # from now on, its thread settles its future when it ends
        for job in ended:
            assert job.outcome is not None
            _settle(job.future, job.outcome)
        self._check_waiting()  # some have waited for a thread all this while, maybe

    def _submit(self, jobs: list[_Job], loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._jobs.extend(jobs)
            if self._awake == 0:
                self._wake()  # the thread woken now takes them, unless one is blocked: see _check_waiting
            queued = len(self._jobs) > 1
        if queued:
            self._watch(loop)

    def _wake(self) -> None:
        """Wake a parked thread, or start one while there are fewer than ``total`` (the lock is held)."""
        if self._parked:
            self._parked.pop().release()
        elif self._threads < self.total:
            self._threads += 1
            parked = threading.Lock()
            parked.acquire()
            name = f"toolproof-call-{self._threads}"
            threading.Thread(target=self._work, args=(parked,), name=name, daemon=True).start()
        else:
            return
        self._awake += 1

    def _check_waiting(self) -> None:
        """Wake one more thread when the oldest call has waited ``patience``; look again later while calls wait."""
        with self._lock:
            if not self._jobs:
                return
            if time.monotonic() - self._jobs[0].since >= self.patience:
                self._wake()
        self._watch(asyncio.get_running_loop())

    def _watch(self, loop: asyncio.AbstractEventLoop) -> None:
        """Check the waiting calls ``patience`` from now, unless a check is due already."""
        if self._check is None or self._check_loop is not loop:
            self._check_loop = loop
            self._check = loop.call_later(self.patience, self._look)

    def _look(self) -> None:
        self._check = None
        self._check_waiting()

    def _work(self, parked: threading.Lock) -> None:
        while True:
            with self._lock:
                job = self._jobs.popleft() if self._jobs else None
                if job is None:
                    self._awake -= 1
                    self._parked.append(parked)
            if job is None:
                parked.acquire()  # until _wake releases it
                continue
            outcome = self._call(job)
            with self._lock:
                batch = job.batch
                if batch is not None:  # the loop waits for it
                    job.outcome = outcome
                    batch.left -= 1
                    last = batch.left == 0
            if batch is None:
                try:
                    job.loop.call_soon_threadsafe(_settle, job.future, outcome)
                except RuntimeError:  # the loop is closed: no one waits
                    pass
            elif last:
                batch.ended.release()

    def _call(self, job: _Job) -> tuple[Any, BaseException | None]:
        """What the call returns or raises (nothing, its request gone); noting whether its kind is slow."""
        if job.future.cancelled():
            return None, None
        started = time.monotonic()
        try:
            outcome: tuple[Any, BaseException | None] = (job.context.run(job.fn, *job.args), None)
        except BaseException as exc:  # handed to the caller, as concurrent.futures does
            outcome = (None, exc)
        if time.monotonic() - started <= self.patience:
            self._slow.discard(job.kind)
        elif len(self._slow) < _MAX_SLOW_KINDS:
            self._slow.add(job.kind)
        return outcome


async def disconnected(receive: Callable[[], Awaitable[Any]]) -> None:
    """Return when the client disconnects (to be awaited once every body message has been received)."""
    while (await receive()).get("type") != "http.disconnect":
        await asyncio.sleep(0.01)  # a server that answers at once with more (none should) is not spun on


def _time_out(granted: asyncio.Future[bool]) -> None:
    if not granted.done():
        granted.set_result(False)


def _settle(future: asyncio.Future[Any], outcome: tuple[Any, BaseException | None]) -> None:
    if future.done():  # cancelled
        return
    result, error = outcome
    if error is None:
        future.set_result(result)
    else:
        future.set_exception(error)
