"""What ``call`` and ``serve mcp`` over stdio do once their command line is read, without click.

Click's commands (``oneshot``, ``commands``) and the click-free path of the
entry point (``toolproof.command_line``) both run these, so the two behave and word alike.
A usage mistake is a ``CommandUsageError``, which each shows as click does.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.launch import ready
from toolproof.runtime.serve.console import CommandUsageError, echo
from toolproof.runtime.serve.loading import (
    fresh_or_exit,
    not_served,
    project_or_exit,
    runtime_or_exit,
    warn_left_out,
)

if TYPE_CHECKING:
    from toolproof.runtime.dispatch import Runtime
    from toolproof.runtime.project import ProjectConfig

__all__ = ["call_once", "load_served", "serve_stdio"]


def call_once(
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
    """Call ``tool`` once with the JSON ``arguments``; print its result as one JSON object (``toolproof call``).

    Raises:
        CommandUsageError: the tool is not served (unknown, or left out for a need it was not given).
    """
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
            raise CommandUsageError(why)
        raise CommandUsageError(f"unknown tool '{tool}'{where}; available: {names} ({config.name})")
    if verbose:
        from toolproof.runtime.serve.transparency import call_line

        echo(call_line(tool, arguments), err=True)
    ready()  # the handler may hold what it must clean up: a Ctrl-C from now on unwinds it
    result = runtime.call(tool, arguments, session=session)
    if verbose:
        from toolproof.runtime.serve.transparency import result_line

        echo(result_line(result), err=True)
    echo(json.dumps(result.to_dict(), ensure_ascii=False))


def load_served(
    workspace: tuple[str, ...],
    skills: tuple[str, ...],
    toolset: str | None,
    allow_stale: bool,
    project: Path | None,
) -> tuple[ProjectConfig, Runtime]:
    """The project a server serves and its runtime; warns of each tool left out, exits naming what stops it.

    Raises:
        CommandUsageError: no tool is left to serve.
    """
    config = project_or_exit(project)
    fresh_or_exit(config, allow_stale)
    runtime = runtime_or_exit(config, workspace, skills, toolset)
    warn_left_out(runtime)
    if not runtime.specs:
        raise CommandUsageError(f"no tool to serve{f' in tool set {toolset!r}' if toolset else ''}")
    return config, runtime


def serve_stdio(config: ProjectConfig, runtime: Runtime) -> None:
    """Serve ``runtime`` over MCP stdio until stdin closes (``toolproof serve mcp``, once loaded and traced)."""
    from toolproof.runtime.errors import RegistryError
    from toolproof.runtime.serve.mcp import McpServer
    from toolproof.runtime.serve.mcp import serve_stdio as serve

    if config.serve.get("rate-limits"):  # one client, its own host: nothing to share out
        echo("warning: the project's rate limits apply over HTTP only; this stdio server has none", err=True)
    try:  # the generated files that list the tools: one missing, torn or stale is a start-up error naming it
        server = McpServer(runtime, package=config.package)
    except RegistryError as exc:
        for problem in exc.problems:
            echo(problem, err=True)
        sys.exit(1)
    ready()  # a Ctrl-C now ends the read loop; the calls in flight finish first
    serve(server)
