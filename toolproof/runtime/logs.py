"""Log records whose text comes from outside, kept to the record they belong to; and who each call's came from.

An exception's message can hold anything a caller chose (a file name with a
line break, an escape sequence), and its traceback repeats it. Logged raw, it
could end a record early and forge the next one on stderr. ``log_failure``
logs the exception being handled as ``printable_block`` text: control
characters escaped, and every line after the first indented, so nothing in it
can pass for a record of its own, whatever handler or format the host set up.

When the host authenticates callers with OAuth, a record logged while a call
runs names who made it: ``CallerLog`` (the logger of the dispatch core and of
the MCP core) appends ``subject=... client=... scopes=...``, each value
``printable_field``, and sets ``record.caller`` (the ``Caller``) for handlers
that format records themselves. Without OAuth nothing is added.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import MutableMapping
from typing import Any

from toolproof.runtime.context import Caller, current_caller
from toolproof.runtime.printable import printable_block, printable_field

__all__ = ["CallerLog", "caller_fields", "log_failure"]


def caller_fields(caller: Caller) -> str:
    """``subject=... client=... scopes=...``: who called, as ``key=value`` fields (a missing value is ``None``).

    The scopes are sorted and space-separated (so quoted when more than one); every value is ``printable_field``,
    so no claim a token carries can end the line or add a field.
    """
    subject = None if caller.subject is None else printable_field(caller.subject)
    client = None if caller.client_id is None else printable_field(caller.client_id)
    return f"subject={subject} client={client} scopes={printable_field(' '.join(sorted(caller.scopes)))}"


class CallerLog(logging.LoggerAdapter[logging.Logger]):
    """A logger whose records, logged while a call of an OAuth caller runs, name that caller.

    The fields end the message's first line (before a ``log_failure`` traceback), ``%`` doubled so they are never
    read as formatting; only records that are emitted pay for it (``LoggerAdapter`` checks the level first).
    """

    def __init__(self, logger: logging.Logger) -> None:
        super().__init__(logger, None)

    def process(self, msg: Any, kwargs: MutableMapping[str, Any]) -> tuple[Any, MutableMapping[str, Any]]:
        caller = current_caller()
        if caller is None:
            return msg, kwargs
        kwargs["extra"] = {**(kwargs.get("extra") or {}), "caller": caller}
        first, newline, rest = str(msg).partition("\n")  # on the record's first line, before any traceback
        return f"{first} [{caller_fields(caller).replace('%', '%%')}]{newline}{rest}", kwargs


def log_failure(logger: logging.Logger | CallerLog, message: str, *args: object) -> None:
    """Log ``message % args`` at ERROR with the exception being handled, its text escaped and indented.

    Args:
        logger: where the record goes.
        message: a %-format string of our own; the values in ``args`` that came
            from outside must already be ``printable``.
        args: its arguments.
    """
    text = traceback.format_exc().rstrip("\n")
    logger.error(message + ":\n    %s", *args, printable_block(text))
