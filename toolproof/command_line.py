"""``serve mcp`` over stdio and ``call`` from their command line, without importing click.

Click and what it pulls in (``inspect``, ``gettext``, ...) cost a host about a
third of its start-up, for a command line of a few options. So the entry point
reads those two commands' usual lines itself: only a line that click would
accept as it stands, each value taken as click takes it (no option twice, no
value starting with ``-``, a ``--workspace`` that is a readable folder, no
``--``, no help, nothing set through the environment). Any other line, every
mistake and every help text goes to click, so what a user sees is click's.
The commands then run exactly what click's commands run (``run``), and what
they raise is shown as click's ``main`` and ``toolproof.cli`` show it.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

__all__ = ["CommandLine", "read", "run"]

_FOLDERS = ("--workspace", "--skills")
"""Repeatable options naming a folder that must exist (click's ``Path(exists=True, file_okay=False)``)."""

_CALL_VALUES: tuple[str, ...] = ("--args", "--toolset", "--session", "--project")
_CALL_FLAGS = {"--allow-stale": "allow_stale", "--no-output-validation": "no_output_validation"}
_CALL_FLAGS |= {"--verbose": "verbose", "-v": "verbose"}
_SERVE_VALUES: tuple[str, ...] = ("--toolset", "--project", "--transport")
_SERVE_FLAGS = {"--allow-stale": "allow_stale"}

_CLICK_ENV = ("_TOOLPROOF_COMPLETE", "TOOLPROOF_OTEL")
"""Variables click's commands read (shell completion, ``--otel``): set, the line is click's."""


class CommandLine:
    """A command line of ``call`` or ``serve mcp`` (stdio) as click would read it.

    A plain class: a dataclass would cost its creation at every start-up this module exists to shorten.
    """

    __slots__ = ("command", "flags", "folders", "tool", "values")

    def __init__(self, command: tuple[str, ...]) -> None:
        self.command = command
        """``("call",)`` or ``("serve", "mcp")``."""
        self.values: dict[str, str] = {}
        """Each single-value option given, by its name (``--args``)."""
        self.folders: dict[str, list[str]] = {}
        """``--workspace`` and ``--skills``, each in the order given."""
        self.flags: set[str] = set()
        """The flags given, by their parameter's name (``allow_stale``)."""
        self.tool = ""
        """The tool ``call`` calls."""


def read(args: Sequence[str]) -> CommandLine | None:
    """``args`` (what follows ``toolproof``) as a command line this module runs; None: click's to read.

    None for anything but ``call TOOL [options]`` and ``serve mcp [options]`` with the options above,
    and for any line click might read otherwise, refuse or answer with help.
    """
    if os.name == "nt" or any(os.environ.get(name) for name in _CLICK_ENV):
        return None  # click expands wildcards on Windows; the variables need click's reading
    args = list(args)
    if args[:2] == ["serve", "mcp"]:
        line, rest, values, flags = CommandLine(("serve", "mcp")), list(args[2:]), _SERVE_VALUES, _SERVE_FLAGS
    elif args[:1] == ["call"]:
        line, rest, values, flags = CommandLine(("call",)), list(args[1:]), _CALL_VALUES, _CALL_FLAGS
    else:
        return None
    positional: list[str] = []
    while rest:
        arg = rest.pop(0)
        if not arg.startswith("-") or arg == "-":
            positional.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name in flags and not eq:
            if flags[name] in line.flags:
                return None
            line.flags.add(flags[name])
            continue
        if name not in values and name not in _FOLDERS:
            return None  # --help, -h, a short-option cluster, --, an unknown or misspelt option: click says
        if not eq:
            if not rest:
                return None
            value = rest.pop(0)
        if value.startswith("-"):
            return None
        if name in _FOLDERS:
            if not (os.path.isdir(value) and os.access(value, os.R_OK)):
                return None  # click names the folder and what is wrong with it
            line.folders.setdefault(name, []).append(value)
        elif name in line.values:
            return None
        else:
            line.values[name] = value
    if line.values.get("--transport", "stdio") != "stdio":
        return None
    if line.command == ("call",):
        if len(positional) != 1 or positional[0].startswith("-"):
            return None
        line.tool = positional[0]
    elif positional:
        return None
    return line


def run(line: CommandLine) -> None:
    """Run ``line`` as click's command would, and end as click's ``main`` and ``toolproof.cli`` end it.

    A usage mistake is click's usage error (exit 2); an OS error one ``toolproof:`` line (exit 1);
    a Ctrl-C after the command is ready click's ``Aborted!`` (exit 1); a bug an internal error (exit 1).
    """
    from toolproof.runtime.serve.console import CommandUsageError, echo, os_error_message

    try:
        try:
            _command(line)()
        except (EOFError, KeyboardInterrupt):
            echo(err=True)  # the blank line closes the terminal's ``^C`` echo
            echo("Aborted!", err=True)
            sys.exit(1)
        except CommandUsageError as exc:
            _show_usage_error(line.command, str(exc))
        except OSError as exc:
            if exc.errno == errno.EPIPE:  # the reader went away: end quietly, as click does
                sys.stdout = _Pacified(sys.stdout)
                sys.stderr = _Pacified(sys.stderr)
                sys.exit(1)
            echo(f"toolproof: {os_error_message(exc)}", err=True)
            sys.exit(1)
    except Exception as exc:  # a bug of ours; say so without a traceback, as toolproof.cli.main does
        echo(f"toolproof: internal error ({type(exc).__name__}: {exc})", err=True)
        sys.exit(1)


def _command(line: CommandLine) -> Callable[[], None]:
    """What ``line`` runs: the body of click's command, given the values click would pass it."""
    from toolproof.runtime.serve import run

    workspace, skills = tuple(line.folders.get("--workspace", ())), tuple(line.folders.get("--skills", ()))
    project = Path(line.values["--project"]) if "--project" in line.values else None
    toolset = line.values.get("--toolset")
    allow_stale = "allow_stale" in line.flags
    if line.command == ("call",):
        return lambda: run.call_once(
            line.tool,
            line.values.get("--args", "{}"),
            workspace,
            skills,
            toolset,
            allow_stale,
            line.values.get("--session"),
            "no_output_validation" in line.flags,
            "verbose" in line.flags,
            project,
        )

    def serve() -> None:
        import logging

        logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
        config, runtime = run.load_served(workspace, skills, toolset, allow_stale, project)
        run.serve_stdio(config, runtime)

    return serve


def _show_usage_error(command: tuple[str, ...], message: str) -> NoReturn:
    """Show ``message`` as click shows a usage error of ``toolproof <command>``, and exit 2 as it does."""
    import click

    from toolproof.cli import cli

    ctx = click.Context(cli, info_name="toolproof", **cli.context_settings)
    group: click.Command = cli
    for name in command:
        assert isinstance(group, click.Group)
        sub = group.get_command(ctx, name)
        assert sub is not None
        group, ctx = sub, click.Context(sub, info_name=name, parent=ctx)
    error = click.UsageError(message, ctx)
    error.show()
    sys.exit(error.exit_code)


class _Pacified:
    """A stream whose flush ignores a closed pipe: what click's main puts in place when the reader went away."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as exc:
            if exc.errno != errno.EPIPE:
                raise

    def __getattr__(self, name: str) -> Any:
        return getattr(self.wrapped, name)
