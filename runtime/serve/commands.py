"""The commands that run tools: ``call``, ``serve mcp``, ``serve http``, ``toolsets``, ``skills``.

Each finds the project (``--project``, else the nearest above the current
folder, else the built-in tools) and serves exactly its tools. Transports are
imported inside the command that uses them.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import click

from toolproof.runtime.serve.options import host_options, project_option, project_or_exit, runtime_or_exit

__all__ = ["call", "serve", "skills", "toolsets"]


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
    session: str | None,
    no_output_validation: bool,
    verbose: bool,
    project: Path | None,
) -> None:
    """Call TOOL once; print {"ok", "output", "error", "text"} as one JSON object.

    Exits 0 when the tool ran, even if it failed (a tool error is data).
    """
    from toolproof.runtime.serve.transparency import call_line, result_line

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if verbose:  # the audit records join the transparency lines
        logging.getLogger("toolproof.audit").setLevel(logging.INFO)
    config = project_or_exit(project)
    runtime = runtime_or_exit(config, workspace, skills, toolset, validate_output=not no_output_validation)
    if tool not in {spec.name for spec in runtime.specs}:
        names = ", ".join(spec.name for spec in runtime.specs) or "none"
        where = f" in tool set '{toolset}'" if toolset else ""
        missing = runtime.unavailable.get(tool)
        if missing:
            raise click.UsageError(
                f"tool '{tool}' is not served: it needs {', '.join(missing)}, which this host was not given"
                + (" (pass --workspace)" if "workspace" in missing else "")
            )
        raise click.UsageError(f"unknown tool '{tool}'{where}; available: {names} ({config.name})")
    if verbose:
        click.echo(call_line(tool, arguments), err=True)
    result = runtime.call(tool, arguments, session=session)
    if verbose:
        click.echo(result_line(result), err=True)
    click.echo(json.dumps(result.to_dict(), ensure_ascii=False))


@click.command()
@click.option(
    "--skills", multiple=True, type=click.Path(exists=True, file_okay=False), help="A workspace skills folder."
)
@click.option("--budget", default=8000, show_default=True, type=click.IntRange(min=100), help="Most characters.")
def skills(skills: tuple[str, ...], budget: int) -> None:
    """Print the skills section for a system prompt; problems go to stderr, one warning line each."""
    from toolproof.runtime.printable import printable
    from toolproof.runtime.skills.catalog import SkillCatalog, builtin_skills_dir

    catalog = SkillCatalog.discover(skills, builtin=builtin_skills_dir(), log=False)  # printed below instead
    summary = catalog.summary(budget)
    click.echo(summary.text, nl=False)
    for line in catalog.problems():
        click.echo(f"warning: {line}", err=True)
    if summary.omitted:
        left_out = ", ".join(printable(name) for name in summary.omitted)
        click.echo(f"warning: {len(summary.omitted)} skill(s) left out by the budget: {left_out}", err=True)


@click.group()
def serve() -> None:
    """Serve the project's tools to clients: MCP over stdio, or HTTP."""


@serve.command("mcp")
@host_options
@project_option
def serve_mcp(workspace: tuple[str, ...], skills: tuple[str, ...], toolset: str | None, project: Path | None) -> None:
    """Serve MCP over stdio (one connection, one session) until stdin closes."""
    from toolproof.runtime.serve.mcp import McpServer, serve_stdio

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    config = project_or_exit(project)
    runtime = runtime_or_exit(config, workspace, skills, toolset)
    if not runtime.specs:
        raise click.UsageError(f"no tool to serve{f' in tool set {toolset!r}' if toolset else ''}")
    serve_stdio(McpServer(runtime, package=config.package))


@serve.command("http")
@host_options
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
@click.option(
    "--head-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0.01),
    help="Seconds for a request head.",
)
@click.option(
    "--body-timeout", default=30.0, show_default=True, type=click.FloatRange(min=0.01), help="Seconds for a body."
)
@click.option(
    "--send-timeout",
    default=30.0,
    show_default=True,
    type=click.FloatRange(min=0.01),
    help="Seconds a client may leave a response unread before it is dropped.",
)
@click.option(
    "--max-connections", default=1000, show_default=True, type=click.IntRange(min=1), help="Connections at once."
)
@click.option("--max-calls", default=4, show_default=True, type=click.IntRange(min=1), help="Tool calls at once.")
@click.option(
    "--max-in-flight-bytes",
    default=64 << 20,
    show_default=True,
    type=click.IntRange(min=1),
    help="Bytes of large responses being written at once.",
)
@click.option(
    "--queue-timeout",
    default=10.0,
    show_default=True,
    type=click.FloatRange(min=0),
    help="Seconds a request waits for a call slot or response bytes before 503.",
)
@project_option
def serve_http(
    workspace: tuple[str, ...],
    skills: tuple[str, ...],
    toolset: str | None,
    host: str,
    port: int,
    head_timeout: float,
    body_timeout: float,
    send_timeout: float,
    max_connections: int,
    max_calls: int,
    max_in_flight_bytes: int,
    queue_timeout: float,
    project: Path | None,
) -> None:
    """Serve POST /tools/{name} and GET /openapi.json with uvicorn.

    Half-sent requests time out (408), connections past the limit get 503, and
    the memory calls and responses hold is bounded; excess requests wait, then
    get 503 with Retry-After.
    """
    from toolproof.runtime.serve.http import HttpApp, HttpLimits
    from toolproof.runtime.serve.http_server import serve as serve_app

    config = project_or_exit(project)
    runtime = runtime_or_exit(config, workspace, skills, toolset)
    if not runtime.specs:
        raise click.UsageError(f"no tool to serve{f' in tool set {toolset!r}' if toolset else ''}")
    limits = HttpLimits(
        head_timeout=head_timeout,
        body_timeout=body_timeout,
        send_timeout=send_timeout,
        max_connections=max_connections,
        max_calls=max_calls,
        max_in_flight_bytes=max_in_flight_bytes,
        queue_timeout=queue_timeout,
    )
    serve_app(HttpApp(runtime, package=config.package, limits=limits), host=host, port=port)


@click.command()
@project_option
def toolsets(project: Path | None) -> None:
    """List the project's tool sets and their tools (built-in sets it includes marked as such)."""
    from toolproof.runtime.errors import RegistryError
    from toolproof.runtime.toolbox import project_specs

    config = project_or_exit(project)
    try:
        specs = project_specs(config)
    except RegistryError as exc:
        for problem in exc.problems:
            click.echo(problem, err=True)
        sys.exit(1)
    sets: dict[str, list[str]] = {}
    included: set[str] = set()
    for spec in specs:
        for name in spec.toolsets:
            sets.setdefault(name, []).append(spec.name)
            if spec.package != config.package:
                included.add(name)
    for name, tools in sorted(sets.items()):
        mark = " (built-in)" if name in included else ""
        click.echo(f"{name}{mark}: {', '.join(tools)}")
    loose = [spec.name for spec in specs if not spec.toolsets]
    if loose:
        click.echo(f"(in no tool set): {', '.join(loose)}")
