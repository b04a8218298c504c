"""The ``toolproof`` command's entry point: a Ctrl-C while it starts ends it at once, quietly.

Python turns SIGINT into ``KeyboardInterrupt`` wherever it lands. While modules
import, that can be where nothing catches it (a traceback for the user),
inside an extension's initialisation (which turns it into a panic), or in a
callback whose exceptions are ignored (the signal is lost, and the host goes
on to serve). So until a command is ready to stop gracefully, SIGINT ends the
process at once with status 130; the command gives it back to Python when it
is (``ready``): before it runs a handler, writes a file or serves.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

__all__ = ["main", "ready"]


def _stop(signum: int, frame: FrameType | None) -> None:
    del frame
    os._exit(128 + signum)  # only imports and set-up run before ``ready``: nothing is left half done


def main() -> None:
    """Run the ``toolproof`` command, SIGINT ending it quietly until the command is ``ready``."""
    signal.signal(signal.SIGINT, _stop)
    from toolproof import command_line

    line = command_line.read(sys.argv[1:])
    if line is not None:  # `serve mcp` or `call` as usually written: no click to import (~a third of start-up)
        command_line.run(line)
        return
    from toolproof.cli import main as run

    run()


def ready() -> None:
    """Give SIGINT back to Python (``KeyboardInterrupt``) if ``main`` took it: what runs now can stop gracefully."""
    if signal.getsignal(signal.SIGINT) is _stop:
        signal.signal(signal.SIGINT, signal.default_int_handler)
