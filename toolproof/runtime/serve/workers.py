"""``serve --workers N``: N identical worker processes on one port, and the supervisor that keeps them running.

The worker model. Each worker is a whole ``toolproof serve`` process of its
own (it loads the project, builds its runtime and app, and serves them under
the hardened uvicorn protocol); workers share no memory, which is why a call
may land on any of them: 2026-07-28 requests carry everything they need, and
skill-gate tokens are HMACs under one secret. The supervisor hands that secret
to every worker through the environment: ``$TOOLPROOF_GATE_SECRET`` when it is
set, else the per-user key, read (or made) once by the supervisor and passed as
hex (``KEY_HEX_ENV``).

Sharing the port. Every worker binds its own listening socket with
``SO_REUSEPORT`` (``http_server.reuse_port_socket``) and the kernel spreads new
connections over them. We chose this over one socket bound by the parent and
inherited by the children (uvicorn's ``--workers``): that socket is made with
protocol 0, so asyncio never sets ``TCP_NODELAY`` on the connections it
accepts, and a small response waits about 40 ms for the client's delayed ACK;
all workers also wake for every connection. The cost of ``SO_REUSEPORT``:
connections queued in a worker's backlog when it dies are reset, so a balancer
in front should retry a connection that fails (the haproxy recipe in the
README does). The supervisor binds the port itself without listening, so that
``--port 0`` names one port for all workers, an address in use is reported
once, and the port stays reserved while a worker restarts.

The supervisor restarts a worker that exits (at most ``MAX_RESTARTS`` in any
``RESTART_WINDOW`` seconds, then it stops every worker and exits 1), forwards
SIGTERM and SIGINT to the workers, waits ``STOP_TIMEOUT`` seconds for them to
finish their requests, kills the rest, and exits 0. Workers run in their own
process group, so a Ctrl-C at a terminal reaches them once (forwarded), and
each stops itself if the supervisor disappears (``watch_supervisor``).
"""

from __future__ import annotations

import collections
import logging
import os
import signal
import subprocess
import threading
import time
from collections.abc import Mapping, Sequence
from types import FrameType
from typing import Final

from toolproof.builtin.skills.gate import KEY_HEX_ENV, default_secret, env_secret

__all__ = [
    "MAX_RESTARTS",
    "RESTART_WINDOW",
    "STOP_TIMEOUT",
    "WORKER_ENV",
    "Supervisor",
    "shared_secret_env",
    "watch_supervisor",
]

_log = logging.getLogger("toolproof.workers")

WORKER_ENV: Final = "TOOLPROOF_WORKER"
"""The variable that tells a process it is a worker, holding what it serves (JSON, written by the supervisor)."""
MAX_RESTARTS: Final = 10
"""The most worker restarts in any ``RESTART_WINDOW`` seconds; one more and the supervisor gives up."""
RESTART_WINDOW: Final = 60.0
STOP_TIMEOUT: Final = 30.0
"""Seconds the workers have to finish their requests after SIGTERM before they are killed."""
_POLL_SECONDS: Final = 0.1


def shared_secret_env() -> dict[str, str]:
    """The variables that give every worker the supervisor's gate secret.

    Nothing when ``$TOOLPROOF_GATE_SECRET`` is set (the workers inherit it; it is
    checked here, so a short one stops the supervisor, not each worker), else
    the per-user key as hex.

    Raises:
        GateSecretError: the variable is too short, or the key file can be neither read nor made.
    """
    if env_secret() is not None:
        return {}
    return {KEY_HEX_ENV: default_secret().hex()}


def watch_supervisor(interval: float = 1.0) -> None:
    """In a worker: send ourselves SIGTERM once the supervisor that started us is gone (we were re-parented)."""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(interval)
        _log.warning("the supervisor (pid %d) is gone; stopping", parent)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="toolproof-watch-supervisor", daemon=True).start()


class Supervisor:
    """Runs ``count`` workers from one command line, restarting those that exit, until SIGTERM or SIGINT.

    Args:
        command: the worker's command line.
        count: how many workers run at once.
        env: the workers' whole environment.
        max_restarts: the most restarts in any ``window`` seconds.
        window: see ``max_restarts``.
    """

    def __init__(
        self,
        command: Sequence[str],
        count: int,
        env: Mapping[str, str],
        *,
        max_restarts: int = MAX_RESTARTS,
        window: float = RESTART_WINDOW,
    ) -> None:
        self.command = list(command)
        self.count = count
        self.env = dict(env)
        self.max_restarts = max_restarts
        self.window = window
        self.workers: list[subprocess.Popen[bytes]] = []
        self._restarts: collections.deque[float] = collections.deque()
        self._stop_signal: int | None = None

    def run(self) -> int:
        """Start the workers and keep them running until a signal; the exit status (0, or 1 after too many restarts)."""
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
        try:
            self.workers = [self._start() for _ in range(self.count)]
            status = self._watch()
            # SIGTERM whichever signal came: uvicorn stops as gracefully on it, and a worker still starting
            # dies of it quietly, where a SIGINT would print its KeyboardInterrupt's traceback.
            self._stop(signal.SIGTERM)
            return status
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _start(self) -> subprocess.Popen[bytes]:
        # process_group=0: a terminal's Ctrl-C reaches the workers through us, once, not twice (uvicorn
        # takes a second SIGINT as "exit now", dropping the requests in hand).
        worker = subprocess.Popen(self.command, env=self.env, process_group=0)
        _log.info("worker %d started", worker.pid)
        return worker

    def _on_signal(self, sig: int, frame: FrameType | None) -> None:
        """Note the signal; the loop stops the workers within ``_POLL_SECONDS`` (with SIGTERM, once)."""
        del frame
        if self._stop_signal is None:
            self._stop_signal = sig

    def _watch(self) -> int:
        """Restart workers that exit until a signal comes (0), or the restart budget is spent (1)."""
        while self._stop_signal is None:
            time.sleep(_POLL_SECONDS)
            for index, worker in enumerate(self.workers):
                code = worker.poll()
                if code is None or self._stop_signal is not None:
                    continue
                now = time.monotonic()
                while self._restarts and now - self._restarts[0] > self.window:
                    self._restarts.popleft()
                if len(self._restarts) >= self.max_restarts:
                    _log.error(
                        "worker %d exited with status %d; %d restarts in %g s already: stopping",
                        worker.pid,
                        code,
                        len(self._restarts),
                        self.window,
                    )
                    return 1
                self._restarts.append(now)
                _log.warning("worker %d exited with status %d; restarting it", worker.pid, code)
                self.workers[index] = self._start()
        return 0

    def _stop(self, sig: int) -> None:
        """Pass ``sig`` to the workers still running, wait for them, and kill those that outstay ``STOP_TIMEOUT``."""
        for worker in self.workers:
            if worker.poll() is None:
                worker.send_signal(sig)
        deadline = time.monotonic() + STOP_TIMEOUT
        for worker in self.workers:
            try:
                worker.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                _log.warning("worker %d did not stop within %g s; killing it", worker.pid, STOP_TIMEOUT)
                worker.kill()
                worker.wait()
