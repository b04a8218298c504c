"""What a command says to its user, without importing click: a line, a usage mistake, an OS error.

``serve mcp`` (stdio) and ``call`` run without click (``toolproof.command_line``), so the pieces
they share with click's commands live here: ``echo`` writes as ``click.echo``
does (and is ``click.echo`` where the two could differ), ``CommandUsageError``
is a usage mistake that click, or ``toolproof.command_line``, shows under the command's usage
line, and ``os_error_message`` is the one line an OS error becomes.
"""

from __future__ import annotations

import codecs
import errno
import os
import sys

__all__ = ["CommandUsageError", "echo", "os_error_message"]


class CommandUsageError(Exception):
    """A mistake in how a command was called: shown as click's ``UsageError`` (``Error: ...``, exit code 2)."""


def echo(message: str = "", *, err: bool = False) -> None:
    """Write ``message`` and a newline to stdout (stderr with ``err``), then flush: what ``click.echo`` writes.

    ``click.echo`` re-encodes a stream whose encoding is ASCII and strips ANSI codes off
    a stream that is not a terminal; a line or stream where either could matter goes to it.
    """
    stream = sys.stderr if err else sys.stdout
    encoding = getattr(stream, "encoding", None)
    if stream is None or "\x1b" in message or not encoding or codecs.lookup(encoding).name != "utf-8":
        import click

        click.echo(message, err=err)
        return
    stream.write(message + "\n")
    stream.flush()


_ADVICE = {
    errno.ENAMETOOLONG: "the name is too long for the file system: choose a shorter one",
    errno.EROFS: "the file system is read-only: choose a folder you can write to",
    errno.EACCES: "permission denied: give yourself access, or choose a folder you can write to",
    errno.EPERM: "not permitted: choose a folder you can write to",
    errno.ENOSPC: "the disk is full: free some space, then run the command again",
    errno.EDQUOT: "the disk quota is used up: free some space, then run the command again",
    errno.ENOTDIR: "a file stands where a folder is needed: move it away, or choose another path",
    errno.EEXIST: "a file stands where a folder is needed: move it away, or choose another path",
    errno.EISDIR: "a folder stands where a file is needed: move it away, or choose another path",
    errno.ENOENT: "it does not exist, or cannot be created there: choose a folder you can write to",
}
"""What to do about each file system error a command may meet, said after the path."""

_PATHLESS_ADVICE = {
    errno.EADDRINUSE: "another process listens there: stop it, or choose another --port",
    errno.EADDRNOTAVAIL: "this machine has no such address: choose another --host",
    errno.EACCES: "permission denied: a port below 1024 needs privileges; choose a higher --port",
    errno.ENOSPC: _ADVICE[errno.ENOSPC],
    errno.EMFILE: "too many open files: raise the limit (ulimit -n), then run the command again",
    errno.ENFILE: "too many open files on this machine: close some, then run the command again",
    errno.ENOMEM: "out of memory: free some, then run the command again",
}
"""What to do about an OS error that names no path (a socket's, say), by its errno."""


def os_error_message(exc: OSError) -> str:
    """One line for an OS error: what failed (the path, when it has one), why, and what to do.

    Examples: ``/data/p/generated/x.py: Read-only file system; the file system is read-only: choose ...``;
    ``cannot bind 127.0.0.1:8765: address already in use; another process listens there: ...`` (an error
    whose raiser said what failed in its ``strerror``); ``the operating system refused an operation:
    Connection reset by peer (errno 104); run the command again`` (one that names nothing).
    """
    paths = [str(name) for name in (exc.filename, exc.filename2) if name is not None]
    what = exc.strerror or str(exc) or type(exc).__name__
    if paths:
        advice = _ADVICE.get(exc.errno or 0, "check the path, then run the command again")
        line = f"{' -> '.join(paths)}: {what}; {advice}"
    else:
        import socket  # here, not at the top: `toolproof call` imports no socket (tests/test_imports.py)

        names = {socket.EAI_NONAME: "no address has that name: check the --host name"}  # the codes vary by system
        advice = _PATHLESS_ADVICE.get(exc.errno or 0) or names.get(exc.errno or 0, "run the command again")
        if exc.errno is None or exc.strerror is None or exc.strerror == os.strerror(exc.errno):
            # the system's own words alone, which name no operation: say that much
            code = f" (errno {exc.errno})" if exc.errno is not None else ""
            what = f"the operating system refused an operation: {what}{code}"
        line = f"{what}; {advice}"
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in line)  # one line, whatever the path holds
