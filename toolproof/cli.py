"""The ``toolproof`` command: one group over the generator's and the runtime's commands.

Only click is imported here; each command imports what it needs when it runs,
so a host that only serves never imports Jinja.
"""

from __future__ import annotations

import errno
import importlib
import os
import sys
from typing import IO, Any

import click

from toolproof.launch import ready

__all__ = ["cli", "main", "os_error_message"]

# Where each command lives: its module is imported only when the command runs (or help lists it),
# so `toolproof call` never pays for the generator's or conformance's imports.
_COMMANDS = {
    "init": "toolproof.generator.cli",
    "new": "toolproof.generator.cli",
    "gen": "toolproof.generator.cli",
    "lint": "toolproof.generator.cli",
    "breaking": "toolproof.generator.cli",
    "export": "toolproof.generator.cli",
    "docs": "toolproof.generator.cli",
    "call": "toolproof.runtime.serve.oneshot",
    "serve": "toolproof.runtime.serve.commands",
    "conform": "toolproof.testing.commands",
    "verify": "toolproof.testing.commands",
    "toolsets": "toolproof.runtime.serve.commands",
    "skills": "toolproof.runtime.serve.commands",
}


_QUIET_TO_THE_END = frozenset({"call", "serve"})
"""Commands that keep ``launch``'s quiet exit past dispatch: a call until its handler runs, a server until it serves."""


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


class _FileSystemError(click.ClickException):
    """A command met an OSError: shown as one ``toolproof:`` line naming the path or what failed (exit code 1)."""

    def show(self, file: IO[Any] | None = None) -> None:
        click.echo(f"toolproof: {self.format_message()}", err=True, file=file)


class _LazyGroup(click.Group):
    """A group whose commands are imported by name, on first use; an OS error becomes one line of what failed."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except OSError as exc:
            if exc.errno == errno.EPIPE:  # the reader went away: click's main exits quietly
                raise
            raise _FileSystemError(os_error_message(exc)) from None

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*_COMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        module = _COMMANDS.get(cmd_name)
        if module is None:
            return super().get_command(ctx, cmd_name)
        command = getattr(importlib.import_module(module), cmd_name)
        assert isinstance(command, click.Command)
        if cmd_name not in _QUIET_TO_THE_END:
            ready()  # a Ctrl-C from now on is click's "Aborted!", after the command's own clean-up
        return command


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="toolproof", prog_name="toolproof")
def cli() -> None:
    """Contract-first toolkit for LLM tools."""


def main() -> None:
    """Entry point of the console script: no traceback ever reaches the user."""
    try:
        cli.main(prog_name="toolproof")
    except OSError as exc:  # met outside a command (a command's own is ``_FileSystemError``)
        click.echo(f"toolproof: {os_error_message(exc)}", err=True)
        sys.exit(1)
    except Exception as exc:  # a bug of ours; say so without a traceback
        click.echo(f"toolproof: internal error ({type(exc).__name__}: {exc})", err=True)
        sys.exit(1)
