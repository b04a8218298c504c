"""``toolproof conform``: hold an MCP server to the project's contracts, example by example."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import click

from toolproof.runtime.serve.options import project_option, project_or_exit, specs_or_exit

__all__ = ["conform", "verify"]


def _command(ctx: click.Context, param: click.Parameter, value: str) -> str:
    """``--mcp``, refused at once (exit 2) when it is no command: empty, unclosed, or with an unknown placeholder."""
    from toolproof.testing.mcp import command_words

    try:
        command_words(value)
    except ValueError as exc:
        raise click.BadParameter(str(exc), ctx, param) from None
    return value


@click.command()
@click.option(
    "--mcp",
    "command",
    required=True,
    callback=_command,
    help='Starts the server under test, e.g. "toolproof serve mcp --workspace {workspace} --skills {skills}".',
)
@click.option("--tool", "tools", multiple=True, help="Only this tool's examples (repeatable).")
@click.option("--toolset", default=None, help="Only the examples of this tool set.")
@click.option("--junit", type=click.Path(dir_okay=False, path_type=Path), help="Also write a JUnit XML report here.")
@click.option("--jobs", default=2, show_default=True, type=click.IntRange(1, 64), help="Servers run at once.")
@click.option("--timeout", default=30.0, show_default=True, type=click.FloatRange(0.1), help="Seconds per answer.")
@project_option
def conform(
    command: str,
    tools: tuple[str, ...],
    toolset: str | None,
    junit: Path | None,
    jobs: int,
    timeout: float,
    project: Path | None,
) -> None:
    """Replay every example of the project's contracts against an MCP server; exit 1 naming each failure.

    For each example the server is started afresh with COMMAND, where {workspace}
    and {skills} name the example's test folder's roots, {folder} (or {dir}) the
    folder itself (also given as $TOOLPROOF_TEST_FOLDER, which a toolproof host
    passes to the project's resource factories as options.folder) and {project}
    the project (also given as $TOOLPROOF_PROJECT); a "--flag {workspace}" pair is repeated
    for each workspace the example allows. A contract whose tool the server
    does not list, or lists with schemas, a title, description or annotations other
    than the contract's, or with a digest other than the one the project's
    tools.lock.json pins, is a failure.
    """
    from toolproof.testing.mcp import DEFINITION, DIGEST, LISTING, SCHEMAS, Outcome, run_conformance, write_junit

    config = project_or_exit(project)
    specs = specs_or_exit(config)
    unknown = sorted(set(tools) - {s.name for s in specs})
    if unknown:
        raise click.UsageError(f"{config.name} has no tool {', '.join(unknown)}")
    specs = [s for s in specs if (not tools or s.name in tools) and (toolset is None or toolset in s.toolsets)]
    if not specs:
        raise click.UsageError(f"no tool of {config.name} matches the selection")

    shown: set[str] = set()

    def report(outcome: Outcome) -> None:
        line = f"{'PASS' if outcome.passed else 'FAIL'} {outcome.tool}: {outcome.example}"
        click.echo(line if outcome.passed else f"{line}\n    {outcome.detail}")
        if not outcome.stderr:
            return
        if outcome.stderr in shown:  # a server that cannot start fails every example alike: its stderr once
            click.echo("    its stderr: as shown above")
            return
        shown.add(outcome.stderr)
        click.echo("    its stderr:\n" + textwrap.indent(outcome.stderr, "      ", lambda _: True))

    root = None if config.is_builtin and config.config_file is None else config.root
    outcomes = run_conformance(command, specs, jobs=jobs, timeout=timeout, report=report, project=root)
    if junit is not None:
        write_junit(outcomes, junit)
    failed = [o for o in outcomes if not o.passed]
    unlisted = sum(1 for o in failed if o.example == LISTING)
    mismatched = sum(1 for o in failed if o.example == SCHEMAS)
    misdescribed = sum(1 for o in failed if o.example == DEFINITION)
    unpinned = sum(1 for o in failed if o.example == DIGEST)
    examples = len(outcomes) - unlisted - mismatched - misdescribed - unpinned
    others = f", {mismatched} with schemas other than the contract's" if mismatched else ""
    if misdescribed:
        others += f", {misdescribed} with another title, description or annotations"
    if unpinned:
        others += f", {unpinned} with a digest other than the pinned one"
    click.echo(
        f"{config.name}: {len(specs)} tool(s) checked ({len(specs) - unlisted} listed by the server{others}), "
        f"{examples} example(s)"
    )
    click.echo(f"{len(outcomes) - len(failed)} passed, {len(failed)} failed")
    if failed:
        sys.exit(1)


@click.command()
@click.option(
    "--mcp",
    "command",
    required=True,
    callback=_command,
    help='Starts the server to verify, e.g. "npx -y some-mcp-server" or "toolproof serve mcp --workspace {workspace}".',
)
@click.option(
    "--lock",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The tools.lock.json pinned (default: the one in the project's generated folder).",
)
@click.option("--timeout", default=30.0, show_default=True, type=click.FloatRange(0.1), help="Seconds per answer.")
@project_option
def verify(command: str, lock: Path | None, timeout: float, project: Path | None) -> None:
    """Check that a running MCP server still serves the tool definitions pinned in a lock file.

    The server is started with COMMAND (placeholders as for conform), asked for
    tools/list, and each tool's digest (RFC 8785, SHA-256 of its name, title,
    description, schemas and annotations) compared with LOCK's pin. Each tool that
    changed, is pinned but not served, or is served but not pinned is named.
    Exit 0: every tool as pinned; 1: a difference; 2: the lock file cannot be read or
    the server cannot be listed.
    """
    from toolproof.runtime.digests import LOCK_FILE, LockError, digest_differences, read_lock
    from toolproof.runtime.printable import printable
    from toolproof.testing.mcp import served_tools

    if lock is None:
        config = project_or_exit(project)
        lock = config.generated / LOCK_FILE
        root = None if config.is_builtin and config.config_file is None else config.root
    else:
        root = None
    try:
        pins = read_lock(lock)
    except LockError as exc:
        click.echo(f"toolproof verify: {exc}", err=True)
        sys.exit(2)
    try:
        listed = served_tools(command, timeout, root)
    except (OSError, ValueError) as exc:
        click.echo(f"toolproof verify: the server could not be listed: {exc}", err=True)
        sys.exit(2)
    differences = digest_differences(pins, listed)
    for name in sorted({*pins, *(tool["name"] for tool in listed)}):
        # a server names its tools: one printable line each, whatever it put in a name
        click.echo(printable(f"DIFFERS {name}: {differences[name]}" if name in differences else f"OK {name}"))
    click.echo(f"{lock}: {len(pins)} pinned, {len(listed)} served, {len(differences)} difference(s)")
    if differences:
        sys.exit(1)
