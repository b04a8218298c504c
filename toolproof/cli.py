"""The ``toolproof`` command: one group over the generator's and the runtime's commands.

Only click is imported here; each command imports what it needs when it runs,
so a host that only serves never imports Jinja.
"""

from __future__ import annotations

import errno
import importlib
import sys
from typing import IO, Any

import click

from toolproof.launch import ready
from toolproof.runtime.serve.console import os_error_message

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
