"""The ``call`` command: one tool call from the command line, its result printed as JSON.

Apart from the servers' commands, so a one-shot call builds none of their
options (and imports none of their limits) before it runs. What it does is
``run.call_once``, which the entry point also runs without click (``toolproof.command_line``).
"""

from __future__ import annotations

from pathlib import Path

import click

from toolproof.runtime.serve.console import CommandUsageError
from toolproof.runtime.serve.options import host_options, project_option

__all__ = ["call"]


@click.command()
@click.argument("tool")
@click.option("--args", "arguments", default="{}", show_default=True, help="The arguments, a JSON object.")
@host_options
@click.option("--session", default=None, help="The caller's session, for tools with per-session state.")
@click.option("--no-output-validation", is_flag=True, help="Do not check the output against the contract.")
@click.option("-v", "--verbose", is_flag=True, help="Print the [Tool Call] / [Tool Result] lines on stderr.")
@project_option
def call(
    tool: str,
    arguments: str,
    workspace: tuple[str, ...],
    skills: tuple[str, ...],
    toolset: str | None,
    allow_stale: bool,
    session: str | None,
    no_output_validation: bool,
    verbose: bool,
    project: Path | None,
) -> None:
    """Call TOOL once; print {"ok", "output", "error", "text"} as one JSON object.

    \b
    Exit codes:
      0  the tool ran, even if it failed: a tool error is data ("ok": false)
      1  toolproof itself failed: an internal error, or the file system refused it
      2  the call could not be made: a bad option, an unknown tool, a project
         that cannot be found, loaded or served, stale generated code
    """
    from toolproof.runtime.serve.run import call_once

    try:
        call_once(
            tool,
            arguments,
            workspace,
            skills,
            toolset,
            allow_stale,
            session,
            no_output_validation,
            verbose,
            project,
        )
    except CommandUsageError as exc:
        raise click.UsageError(str(exc)) from None
