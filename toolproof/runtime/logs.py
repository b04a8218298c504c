"""Log records whose text comes from outside, kept to the record they belong to.

An exception's message can hold anything a caller chose (a file name with a
line break, an escape sequence), and its traceback repeats it. Logged raw, it
could end a record early and forge the next one on stderr. ``log_failure``
logs the exception being handled as ``printable_block`` text: control
characters escaped, and every line after the first indented, so nothing in it
can pass for a record of its own, whatever handler or format the host set up.
"""

from __future__ import annotations

import logging
import traceback

from toolproof.runtime.printable import printable_block

__all__ = ["log_failure"]


def log_failure(logger: logging.Logger, message: str, *args: object) -> None:
    """Log ``message % args`` at ERROR with the exception being handled, its text escaped and indented.

    Args:
        logger: where the record goes.
        message: a %-format string of our own; the values in ``args`` that came
            from outside must already be ``printable``.
        args: its arguments.
    """
    text = traceback.format_exc().rstrip("\n")
    logger.error(message + ":\n    %s", *args, printable_block(text))
