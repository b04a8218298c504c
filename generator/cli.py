"""The ``toolproof`` command: gen, lint, export, call, serve, conform, skills, toolsets.

Heavy modules (Jinja, YAML, the runtime) are imported inside the commands that
need them, so ``toolproof call`` starts without the generator's weight.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from generator.project import Project
    from runtime import Runtime

__all__ = ["cli", "main"]

_PROJECT = click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="Project folder holding contracts/ and generated/.",
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="toolproof", prog_name="toolproof")
def cli() -> None:
    """Contract-first toolkit for LLM tools."""


_FORMATS = (
    *("openai", "openai-responses", "anthropic", "mcp", "gemini", "gemini-openapi"),
    *("jsonschema", "typescript", "vectors", "docs"),
)
"""Every export format; the first six are provider tool definitions (generator.exports.DEFINITION_FORMATS)."""

_STRICT_EXPORT = click.option(
    "--strict-export", is_flag=True, help="Make every loss a provider forces on an exported definition an error."
)


def _load(project: Path, *, strict_export: bool = False, show_losses: bool = False) -> Project:
    from generator.project import load_project

    loaded = load_project(project, strict_export=strict_export, show_losses=show_losses)
    for problem in loaded.problems:
        click.echo(str(problem), err=True)
    if not loaded.ok:
        errors = sum(1 for p in loaded.problems if p.level.value == "error")
        click.echo(f"{errors} error(s) in contracts; nothing generated", err=True)
        sys.exit(1)
    return loaded


@cli.command()
@click.option("--check", is_flag=True, help="Write nothing; exit 1 naming every stale, missing or orphaned file.")
@_STRICT_EXPORT
@_PROJECT
def gen(check: bool, strict_export: bool, project: Path) -> None:
    """Generate stubs, tool definitions and conformance tests from the contracts."""
    loaded = _load(project, strict_export=strict_export)
    if check:
        drift = loaded.drift()
        if drift:
            for line in drift.lines():
                click.echo(line)
            click.echo("generated/ is out of date; run `make gen`", err=True)
            sys.exit(1)
        click.echo(f"generated/ is up to date ({len(loaded.contracts)} contract(s))")
        return
    changes = loaded.write()
    for line in changes:
        click.echo(line)
    click.echo(f"{len(changes)} file(s) changed, {len(loaded.contracts)} contract(s)")


@cli.command()
@_STRICT_EXPORT
@_PROJECT
def lint(strict_export: bool, project: Path) -> None:
    """Check the contracts; print every problem, and every export loss, as file:line:col: message."""
    loaded = _load(project, strict_export=strict_export, show_losses=True)
    click.echo(f"{len(loaded.contracts)} contract(s) OK")


@cli.command()
@click.option(
    "--format",
    "fmt",
    required=True,
    type=click.Choice(_FORMATS),
    help="What to print.",
)
@click.option("--toolset", default=None, help="Only the tools of this tool set.")
@click.option("--tool", "tools", multiple=True, help="Only this tool (repeatable).")
@_STRICT_EXPORT
@_PROJECT
def export(fmt: str, toolset: str | None, tools: tuple[str, ...], strict_export: bool, project: Path) -> None:
    """Print tool definitions or artifacts for other providers and languages on stdout."""
    from generator.exporting import export_text

    loaded = _load(project, strict_export=strict_export)
    chosen = [
        c for c in loaded.contracts if (toolset is None or toolset in c.toolsets) and (not tools or c.name in tools)
    ]
    unknown = set(tools) - {c.name for c in loaded.contracts}
    if unknown:
        raise click.UsageError(f"unknown tool(s): {', '.join(sorted(unknown))}")
    if not chosen:
        raise click.UsageError("no tool matches the selection")
    text, losses = export_text(fmt, chosen, loaded.enum_sources())
    if strict_export and losses:
        for loss in losses:
            click.echo(
                f"error: {fmt}: tool '{loss.tool}' {loss.schema}{loss.pointer()}: {loss.keyword} {loss.action}",
                err=True,
            )
        sys.exit(1)
    click.echo(text, nl=False)


@cli.command()
@click.argument("tool")
@click.option("--args", "arguments", default="{}", show_default=True, help="The arguments, a JSON object.")
@click.option(
    "--workspace",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="A folder the file tools may read.",
)
@click.option("--skills", multiple=True, type=click.Path(exists=True, file_okay=False), help="A folder of skills.")
@click.option("--session", default=None, help="The caller's session, for tools with per-session state.")
@click.option("--toolset", default=None, help="Serve only the tools of this tool set.")
@click.option("--no-output-validation", is_flag=True, help="Do not check the output against the contract.")
@click.option("-v", "--verbose", is_flag=True, help="Print the [Tool Call] / [Tool Result] lines on stderr.")
def call(
    tool: str,
    arguments: str,
    workspace: tuple[str, ...],
    skills: tuple[str, ...],
    session: str | None,
    toolset: str | None,
    no_output_validation: bool,
    verbose: bool,
) -> None:
    """Call TOOL once; print {"ok", "output", "error", "text"} as one JSON object.

    Exits 0 when the tool ran, even if it failed (a tool error is data).
    """
    from runtime import RegistryError, Runtime
    from runtime.transparency import call_line, result_line

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if verbose:  # the audit records join the transparency lines
        logging.getLogger("toolproof.audit").setLevel(logging.INFO)
    try:
        runtime = Runtime(workspace=workspace, skills=skills, toolset=toolset, validate_output=not no_output_validation)
    except RegistryError as exc:
        for problem in exc.problems:
            click.echo(problem, err=True)
        sys.exit(1)
    if tool not in {spec.name for spec in runtime.specs}:
        names = ", ".join(spec.name for spec in runtime.specs) or "none"
        where = f" in tool set '{toolset}'" if toolset else ""
        raise click.UsageError(f"unknown tool '{tool}'{where}; available: {names}")
    if verbose:
        click.echo(call_line(tool, arguments), err=True)
    result = runtime.call(tool, arguments, session=session)
    if verbose:
        click.echo(result_line(result), err=True)
    click.echo(json.dumps(result.to_dict(), ensure_ascii=False))


@cli.command()
@click.option(
    "--skills", multiple=True, type=click.Path(exists=True, file_okay=False), help="A workspace skills folder."
)
@click.option("--budget", default=8000, show_default=True, type=click.IntRange(min=100), help="Most characters.")
def skills(skills: tuple[str, ...], budget: int) -> None:
    """Print the skills section for a system prompt; problems go to stderr."""
    from runtime.skills import SkillCatalog, builtin_skills_dir

    catalog = SkillCatalog.discover(skills, builtin=builtin_skills_dir())
    summary = catalog.summary(budget)
    click.echo(summary.text, nl=False)
    for line in catalog.problems():
        click.echo(f"warning: {line}", err=True)
    if summary.omitted:
        click.echo(
            f"warning: {len(summary.omitted)} skill(s) left out by the budget: {', '.join(summary.omitted)}", err=True
        )


@cli.group()
def serve() -> None:
    """Serve the tools to clients: MCP over stdio, or HTTP."""


_ROOTS = [
    click.option(
        "--workspace",
        multiple=True,
        type=click.Path(exists=True, file_okay=False),
        help="A folder the file tools may read.",
    ),
    click.option("--skills", multiple=True, type=click.Path(exists=True, file_okay=False), help="A folder of skills."),
    click.option("--toolset", default=None, help="Serve only the tools of this tool set."),
]


def _roots(fn: Callable[..., None]) -> Callable[..., None]:
    for option in reversed(_ROOTS):
        fn = option(fn)
    return fn


def _runtime_or_exit(workspace: tuple[str, ...], skills: tuple[str, ...], toolset: str | None) -> Runtime:
    from runtime import RegistryError, Runtime

    try:
        runtime = Runtime(workspace=workspace, skills=skills, toolset=toolset)
    except RegistryError as exc:
        for problem in exc.problems:
            click.echo(problem, err=True)
        sys.exit(1)
    if not runtime.specs:
        raise click.UsageError(f"tool set '{toolset}' has no tools")
    return runtime


@serve.command("mcp")
@_roots
def serve_mcp(workspace: tuple[str, ...], skills: tuple[str, ...], toolset: str | None) -> None:
    """Serve MCP over stdio (one connection, one session) until stdin closes."""
    from runtime.mcp_server import McpServer, serve_stdio

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(name)s: %(message)s")
    serve_stdio(McpServer(_runtime_or_exit(workspace, skills, toolset), toolset=toolset))


@serve.command("http")
@_roots
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port to listen on.")
def serve_http(workspace: tuple[str, ...], skills: tuple[str, ...], toolset: str | None, host: str, port: int) -> None:
    """Serve POST /tools/{name} and GET /openapi.json with uvicorn."""
    import uvicorn

    from runtime.http_app import HttpApp

    app = HttpApp(_runtime_or_exit(workspace, skills, toolset))
    uvicorn.run(app, host=host, port=port, log_level="warning", access_log=False)


@cli.command()
@click.option(
    "--mcp",
    "command",
    required=True,
    help='Starts the server under test, e.g. "toolproof serve mcp --workspace {workspace} --skills {skills}".',
)
@click.option("--tool", "tools", multiple=True, help="Only this tool's examples (repeatable).")
@click.option("--toolset", default=None, help="Only the examples of this tool set.")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Also write a JUnit XML report here.")
@click.option("--jobs", default=2, show_default=True, type=click.IntRange(1, 64), help="Servers run at once.")
@click.option("--timeout", default=30.0, show_default=True, type=click.FloatRange(0.1), help="Seconds per answer.")
def conform(
    command: str, tools: tuple[str, ...], toolset: str | None, junit: Path | None, jobs: int, timeout: float
) -> None:
    """Replay every contract example against an MCP server; exit 1 naming each example that fails.

    For each example the server is started afresh with COMMAND, where {workspace},
    {skills} and {dir} name the example's test folder; a "--flag {workspace}"
    pair is repeated for each workspace the example allows.
    """
    from runtime.conform import Outcome, run_conformance, write_junit
    from runtime.spec import load_specs

    specs = [s for s in load_specs() if (not tools or s.name in tools) and (toolset is None or toolset in s.toolsets)]
    if not specs:
        raise click.UsageError("no tool matches the selection")

    def report(outcome: Outcome) -> None:
        line = f"{'PASS' if outcome.passed else 'FAIL'} {outcome.tool}: {outcome.example}"
        click.echo(line if outcome.passed else f"{line}\n    {outcome.detail}")

    outcomes = run_conformance(command, specs, jobs=jobs, timeout=timeout, report=report)
    if junit is not None:
        write_junit(outcomes, junit)
    failed = [o for o in outcomes if not o.passed]
    click.echo(f"{len(outcomes) - len(failed)} passed, {len(failed)} failed")
    if failed:
        sys.exit(1)


@cli.command()
def toolsets() -> None:
    """List the tool sets and their tools."""
    import generated

    for name, tools in generated.TOOLSETS.items():
        click.echo(f"{name}: {', '.join(tools)}")


def main() -> None:
    """Entry point of the console script: no traceback ever reaches the user."""
    try:
        cli.main(prog_name="toolproof")
    except Exception as exc:  # a bug of ours; say so without a traceback
        click.echo(f"toolproof: internal error ({type(exc).__name__}: {exc})", err=True)
        sys.exit(1)
