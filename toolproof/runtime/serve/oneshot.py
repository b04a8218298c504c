"""The ``call`` command: one tool call from the command line, its result printed as JSON.

Apart from the servers' commands, so a one-shot call builds none of their
options (and imports none of their limits) before it runs.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path

import click

from toolproof.launch import ready
from toolproof.runtime.serve.options import (
    fresh_or_exit,
    host_options,
    not_served,
    project_option,
    project_or_exit,
    runtime_or_exit,
)

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
    from toolproof.runtime.serve.transparency import call_line, result_line

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if verbose:  # the audit records join the transparency lines
        logging.getLogger("toolproof.audit").setLevel(logging.INFO)
    config = project_or_exit(project)
    fresh_or_exit(config, allow_stale)
    # Only the called tool is bound: a one-shot call imports one handler, and a broken neighbour is
    # `serve`'s and `conform`'s to report, not a reason this tool cannot run.
    validate = not no_output_validation
    runtime = runtime_or_exit(config, workspace, skills, toolset, validate_output=validate, only=tool, exit_code=2)
    if tool not in {spec.name for spec in runtime.specs}:  # name what is served: bind it all
        runtime = runtime_or_exit(config, workspace, skills, toolset, validate_output=validate, exit_code=2)
        names = ", ".join(spec.name for spec in runtime.specs) or "none"
        where = f" in tool set '{toolset}'" if toolset else ""
        why = not_served(runtime, tool)
        if why is not None:
            raise click.UsageError(why)
        raise click.UsageError(f"unknown tool '{tool}'{where}; available: {names} ({config.name})")
    if verbose:
        click.echo(call_line(tool, arguments), err=True)
    ready()  # the handler may hold what it must clean up: a Ctrl-C from now on unwinds it
    result = runtime.call(tool, arguments, session=session)
    if verbose:
        click.echo(result_line(result), err=True)
    click.echo(json.dumps(result.to_dict(), ensure_ascii=False))
