"""The generator's commands: ``gen``, ``lint``, ``export``, ``init`` and ``new``.

Heavy modules (Jinja, YAML, python-jsonschema) are imported inside the commands
that need them, so ``toolproof call`` never pays for them.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import click

from toolproof import __version__
from toolproof.runtime.serve.options import project_option, project_or_exit

if TYPE_CHECKING:
    from collections.abc import Mapping

    from toolproof.generator.model import Contract
    from toolproof.generator.problems import Problem
    from toolproof.generator.project import Project
    from toolproof.runtime.project import ProjectConfig

__all__ = ["breaking", "docs", "export", "gen", "init", "lint", "new"]

_FORMATS = (
    *("openai", "openai-responses", "anthropic", "mcp", "gemini", "gemini-openapi"),
    *("jsonschema", "typescript", "vectors", "contract", "docs"),
)
"""Every export format; the first six are provider tool definitions (generator.exports.DEFINITION_FORMATS)."""

_STRICT_EXPORT = click.option(
    "--strict-export", is_flag=True, help="Make every loss a provider forces on an exported definition an error."
)


_EACH_LOSS = ("json", "sarif")
"""Lint formats for machines that keep every loss: a summary line would hide the places they annotate."""

_OWN_PROJECT = click.option(
    "--project",
    type=click.Path(path_type=Path),
    default=None,
    help="The project to write into (a folder with [tool.toolproof] in pyproject.toml, or toolproof.toml); "
    "default: the nearest one above the current folder (or $TOOLPROOF_PROJECT). Outside any project the "
    "command stops: create one with `toolproof init`.",
)
"""``--project`` of the commands that write into a project (gen, new): unlike reading ones, they never fall back
on the built-in tools (``_own_project``)."""


_IN_THE_WAY = "files toolproof did not write stand where gen writes, and gen overwrites only its own"


def _load(
    config: ProjectConfig, *, strict_export: bool = False, show_losses: bool = False, handlers: bool = False
) -> Project:
    """The project's contracts, checked; every problem printed as text, exit 1 when one is an error.

    ``handlers`` also checks the handlers package as serve will (``_handler_problems``): for the commands
    that generate, whose tests would all fail on a project serve refuses.
    """
    from toolproof.generator.project import load_project

    loaded = load_project(config, strict_export=strict_export, show_losses=show_losses)
    if handlers:
        _check_handlers(loaded)
    for problem in loaded.problems:
        click.echo(str(problem), err=True)
    if not loaded.ok:
        errors = sum(1 for p in loaded.problems if p.level.value == "error")
        click.echo(f"{errors} error(s) in contracts; nothing generated", err=True)
        sys.exit(1)
    return loaded


def _handlers_folder(config: ProjectConfig) -> Path | None:
    """The folder of the project's handlers package, found without importing it; None when it has none.

    Where the runtime imports it from: the first source root holding it (they lead the import path), else,
    for a package inside one already imported (``toolproof.builtin.handlers``), its parent's folder. No code of the
    project runs: lint must be safe on a pull request, and in one process a package imported earlier under
    the same name (another project's ``handlers``) would stand in for this one's.
    """
    import importlib.util

    parts = config.handlers.split(".")
    for root in config.source_roots:
        folder = root.joinpath(*parts)
        if folder.is_dir():
            return folder
    parent = config.handlers.rpartition(".")[0]
    if not parent or parent not in sys.modules:
        return None
    try:
        spec = importlib.util.find_spec(config.handlers)
    except (ImportError, ValueError):
        return None
    locations = spec.submodule_search_locations if spec is not None else None
    return Path(locations[0]) if locations else None


def _handler_problems(loaded: Project) -> list[Problem]:
    """``orphan-handler``: each public module of the handlers package that serves none of the project's contracts.

    The runtime's rule (``registry.stray_handler_modules``, which serve applies at start-up and refuses the
    project on), judged on the package's folder. Only once every contract file loads, since the handler of
    one that does not would look like an orphan.
    """
    from toolproof.generator.problems import rule
    from toolproof.runtime.registry import stray_handler_modules

    config = loaded.config
    files = [*config.contracts.glob("*.yaml"), *config.contracts.glob("*.yml")]
    if {config.relative(path) for path in files} - {contract.source for contract in loaded.contracts}:
        return []
    folder = _handlers_folder(config)
    if folder is None:
        return []
    handlers = (contract.handler for contract in loaded.contracts)
    problems: list[Problem] = []
    for module in stray_handler_modules(handlers, config.handlers, [str(folder)]):
        name = module.rpartition(".")[2]
        where = folder / name if (folder / name).is_dir() else min(folder.glob(f"{name}.*"), default=folder)
        message = f"handler module {module} serves no contract; remove it or add a contract (serve refuses it)"
        problems.append(rule("orphan-handler").at(config.relative(where), 1, 1, message))
    return problems


def _check_handlers(loaded: Project) -> None:
    """Add ``_handler_problems`` to the project's problems, in their order."""
    found = _handler_problems(loaded)
    if found:
        loaded.problems.extend(found)
        loaded.problems.sort()


def _own_project(project: Path | None, command: str) -> ProjectConfig:
    config = project_or_exit(project)
    if config.is_builtin and config.config_file is None:  # never write into the installed package
        raise click.UsageError(
            f"`toolproof {command}` needs a project: run it in a folder with [tool.toolproof] in its "
            "pyproject.toml (or a toolproof.toml), pass --project, or create one with `toolproof init`"
        )
    return config


_LOCK_WAIT = 60.0
"""Seconds gen waits for another gen of the project to let go of the lock before it gives up."""


@contextmanager
def _one_gen_at_a_time(config: ProjectConfig, *, shared: bool = False) -> Iterator[None]:
    """Hold the project's gen lock: gens of one project run one after another, and a check waits for a gen.

    The lock is an advisory ``flock`` on the project folder, held from reading the contracts to the
    last file written. That folder exists before gen runs and lies outside the generated folder,
    and, unlike the settings file, keeps its inode when an editor saves by renaming a new copy into
    place (two gens would then lock two files); a read-only checkout can take it, so ``gen --check``
    runs there. The kernel drops the lock when the process ends, however it ends: a killed gen never
    leaves it held. Anyone who can read the folder can take it too, so the wait is bounded
    (``_LOCK_WAIT``): a lock held longer ends gen with an error, never an endless wait.

    Raises:
        click.ClickException: the lock stayed held for ``_LOCK_WAIT`` seconds.
    """
    import fcntl
    import time

    fd = os.open(config.root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        kind = (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB
        deadline = time.monotonic() + _LOCK_WAIT
        waiting = False
        while True:
            try:
                fcntl.flock(fd, kind)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise click.ClickException(
                        f"another gen of {config.root} has held its lock for {_LOCK_WAIT:g} s; run again when it"
                        " ends (any process that can read the folder can hold it)"
                    ) from None
                if not waiting:
                    click.echo(
                        f"toolproof: another gen of {config.root} is running; waiting for it to finish", err=True
                    )
                    waiting = True
                time.sleep(0.1)
            except OSError:  # a file system without locks: gen as before, unguarded, rather than not at all
                break
        yield
    finally:
        os.close(fd)


@click.command()
@click.option("--check", is_flag=True, help="Write nothing; exit 1 naming every stale, missing or orphaned file.")
@_STRICT_EXPORT
@_OWN_PROJECT
def gen(check: bool, strict_export: bool, project: Path | None) -> None:
    """Generate stubs, tool definitions and conformance tests from the project's contracts."""
    config = _own_project(project, "gen")
    with _one_gen_at_a_time(config, shared=check):
        _gen(config, check=check, strict_export=strict_export)


def _gen(config: ProjectConfig, *, check: bool, strict_export: bool) -> None:
    loaded = _load(config, strict_export=strict_export, handlers=True)
    folder = loaded.layout.folder
    if check:
        drift = loaded.drift()
        for line in drift.warnings():
            click.echo(f"warning: {line}", err=True)
        if drift:
            for line in drift.lines():
                click.echo(line)
            if drift.conflicts:
                click.echo(f"{folder}/: {_IN_THE_WAY}; move them away and run `{config.command}`", err=True)
            elif drift.written_by:
                by = f"was written by toolproof {drift.written_by}, not {__version__}"
                click.echo(f"{folder}/ {by}; run `{config.command}`", err=True)
            else:
                click.echo(f"{folder}/ is out of date; run `{config.command}`", err=True)
            sys.exit(1)
        click.echo(f"{folder}/ is up to date ({len(loaded.contracts)} contract(s))")
        return
    changes = _write(loaded, config)
    for line in changes:
        click.echo(line)
    click.echo(f"{len(changes)} file(s) changed, {len(loaded.contracts)} contract(s)")


def _write(loaded: Project, config: ProjectConfig) -> list[str]:
    """Bring the generated folder up to date; warn of the strangers kept, exit 1 when one is in the way."""
    from toolproof.generator.writer import GeneratedFolderError

    try:
        changes, drift = loaded.write_checked()
    except GeneratedFolderError as exc:
        for line in exc.conflicts:
            click.echo(f"error: {line}", err=True)
        click.echo(
            f"{loaded.layout.folder}/: {_IN_THE_WAY}; move them away and run `{config.command}`; nothing written",
            err=True,
        )
        sys.exit(1)
    for line in drift.warnings():
        click.echo(f"warning: {line}", err=True)
    return changes


@click.command()
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("text", "json", "github", "sarif", "junit")),
    default="text",
    show_default=True,
    help="How to report: text for people (on stderr); json, github (workflow annotations), "
    "sarif (2.1.0) or junit (XML, one test case per contract) on stdout.",
)
@click.option(
    "--against",
    metavar="REF",
    default=None,
    help="Also report contracts whose changes since REF (as `toolproof breaking` sees them) break callers "
    "without a major version bump.",
)
@click.option(
    "-v",
    "--verbose",
    is_flag=True,
    help="List each export loss (TP404) a provider forces, not one line per tool counting them "
    "(json and sarif always list each).",
)
@click.option(
    "--matrix",
    is_flag=True,
    help="Also print every tool against every client profile (clean, rewritten or refused, and why) on stdout.",
)
@click.option(
    "--tokens",
    "show_tokens",
    is_flag=True,
    help="Also print each tool's and each tool set's definition tokens per provider format on stdout.",
)
@_STRICT_EXPORT
@project_option
def lint(
    fmt: str,
    against: str | None,
    verbose: bool,
    matrix: bool,
    show_tokens: bool,
    strict_export: bool,
    project: Path | None,
) -> None:
    """Check the contracts and the handlers package; report each problem, and the export losses not accepted.

    Every problem names its rule. The checks run in stages: a contract's later
    stages run once its earlier ones pass (the documentation's Linting page).
    The losses a provider forces on a tool (TP404) print as one note per tool
    that counts them by provider; --verbose, json and sarif list each.

    Text lines read `file:line:col: level [RULE-ID] message`. The project's
    `[tool.toolproof.lint] strict-export = true` is the same as --strict-export.

    Exit codes: 0 no problem at error level (warnings and notes allowed);
    1 at least one error; 2 a usage error, or project settings that cannot be read.
    """
    from toolproof.generator.project import load_project
    from toolproof.generator.reports import render_report, summary

    config = project_or_exit(project)
    strict_export = strict_export or config.lint.get("strict-export") is True
    summary_only = not verbose and fmt not in _EACH_LOSS
    loaded = load_project(config, strict_export=strict_export, show_losses=True, loss_summary=summary_only, fit=True)
    _check_handlers(loaded)
    if against is not None and loaded.ok:
        loaded.problems.extend(_version_problems(config, loaded, against))
        loaded.problems.sort()
    folder = config.relative(config.contracts) + "/"
    files = sorted(
        {c.source for c in loaded.contracts} | {p.file for p in loaded.problems if p.file.startswith(folder)}
    )
    report = render_report(fmt, loaded.problems, files, config.root)
    counts = summary(loaded.problems)
    if fmt != "text":
        click.echo(report, nl=False)
    elif loaded.problems:
        click.echo(report, nl=False, err=True)
    if (matrix or show_tokens) and loaded.ok and loaded.contracts:
        from toolproof.generator.fitness import matrix_text, tokens_text

        if matrix:
            click.echo(matrix_text(loaded), nl=False, err=fmt != "text")
        if show_tokens:
            click.echo(tokens_text(loaded), nl=False, err=fmt != "text")
    if not loaded.ok:
        if fmt == "text":
            click.echo(f"{counts['errors']} error(s), {counts['warnings']} warning(s) in contracts", err=True)
        sys.exit(1)
    if fmt == "text":
        warned = f", {counts['warnings']} warning(s)" if counts["warnings"] else ""
        click.echo(f"{len(loaded.contracts)} contract(s) OK{warned}")


def _version_problems(config: ProjectConfig, loaded: Project, against: str) -> list[Problem]:
    """``version-not-bumped`` problems: what `breaking` reports as VERSION_NOT_BUMPED, as lint problems."""
    from toolproof.generator.breaking import compare, load_against
    from toolproof.generator.breaking_rules import BreakingError, load_severities
    from toolproof.generator.problems import rule

    try:
        levels = load_severities(config)
        old = load_against(against, config)
    except BreakingError as exc:
        click.echo(f"toolproof: {exc}", err=True)
        sys.exit(2)
    findings = compare(
        old, loaded.contracts, levels, enums=loaded.enum_sources(), folder=config.relative(config.contracts)
    )
    return [
        rule("version-not-bumped").at(f.where.file, f.where.line, f.where.column, f.message)
        for f in findings
        if f.rule == "VERSION_NOT_BUMPED" and f.level.value == "error"
    ]


def _profile_names() -> tuple[str, ...]:
    from toolproof.generator.profiles import PROFILES

    return tuple(PROFILES)


@click.command()
@click.option("--format", "fmt", type=click.Choice(_FORMATS), default=None, help="What to print.")
@click.option(
    "--for",
    "profile",
    type=click.Choice(_profile_names()),
    default=None,
    help="Print the tools/list a client profile's host accepts (each tool rewritten or left out as that host "
    "needs), with a report on stderr: each tool's verdict, its losses and its token difference.",
)
@click.option("--toolset", default=None, help="Only the tools of this tool set.")
@click.option("--tool", "tools", multiple=True, help="Only this tool (repeatable).")
@click.option(
    "--skills",
    multiple=True,
    type=click.Path(exists=True, file_okay=False),
    help="A host's skills folder (repeatable): dynamic skill enums list the skills found, not the built-in default.",
)
@click.option(
    "--tokens",
    "show_tokens",
    is_flag=True,
    help="With a provider --format, also print each tool's and the set's definition tokens on stderr.",
)
@_STRICT_EXPORT
@project_option
def export(
    fmt: str | None,
    profile: str | None,
    toolset: str | None,
    tools: tuple[str, ...],
    skills: tuple[str, ...],
    show_tokens: bool,
    strict_export: bool,
    project: Path | None,
) -> None:
    """Print tool definitions or artifacts for other providers and languages on stdout.

    A project's export holds its own tools and the built-in tool sets it includes;
    outside any project, the built-in tools. Without --skills, a dynamic enum
    (read_skill's skill_name) holds the built-in skills, and its description says
    they are the default; with --skills, it holds what a host with those folders
    serves (the built-in skills, overridden and extended by the folders').
    """
    from toolproof.generator.exporting import export_text, host_enums
    from toolproof.generator.project import unaccepted_losses

    if (fmt is None) == (profile is None):
        raise click.UsageError("give one of --format FORMAT and --for PROFILE")
    loaded = _load(project_or_exit(project))  # this format's losses are judged below, on their own
    served = loaded.served
    chosen = [c for c in served if (toolset is None or toolset in c.toolsets) and (not tools or c.name in tools)]
    unknown = set(tools) - {c.name for c in served}
    if unknown:
        raise click.UsageError(f"unknown tool(s): {', '.join(sorted(unknown))}")
    known = sorted({name for c in served for name in c.toolsets})
    if toolset is not None and toolset not in known:
        sets = f"its tool sets are {', '.join(known)}" if known else "it declares none (a contract's `toolsets`)"
        raise click.UsageError(f"no tool is in tool set '{toolset}'; {sets}")
    if not chosen:  # tools named, none of them in the tool set; or a project with no tool at all
        among = f"no tool of tool set '{toolset}' is among {', '.join(tools)}" if tools else "the project has no tool"
        raise click.UsageError(among)
    enums = loaded.enum_sources()
    if skills:
        enums, problems = host_enums(enums, skills)
        for line in problems:
            click.echo(f"warning: {line}", err=True)
    if profile is not None:
        _export_for(profile, loaded, chosen, enums, strict_export)
        return
    assert fmt is not None  # one of the two, checked above
    text, losses = export_text(fmt, chosen, enums)
    if show_tokens:
        _echo_tokens(fmt, text)
    losses = unaccepted_losses(loaded, losses)
    if strict_export and losses:
        for loss in losses:
            click.echo(
                f"error: {fmt}: tool '{loss.tool}' {loss.schema}{loss.pointer()}: {loss.keyword} {loss.action}",
                err=True,
            )
        sys.exit(1)
    click.echo(text, nl=False)


def _export_for(
    profile: str, loaded: Project, chosen: list[Contract], enums: Mapping[str, list[str]], strict: bool
) -> None:
    """``export --for``: the profile's tools/list on stdout, the report on stderr; exit 1 if strict and not clean."""
    from toolproof.generator.exporting import profile_export

    text, report, clean = profile_export(profile, loaded.config, chosen, enums)
    click.echo(report, nl=False, err=True)
    click.echo(text, nl=False)
    if strict and not clean:
        sys.exit(1)


def _echo_tokens(fmt: str, text: str) -> None:
    """``export --tokens``: each tool's definition tokens and the set's, as a request carries them, on stderr."""
    import json

    from toolproof.generator.exports import DEFINITION_FORMATS
    from toolproof.generator.tokens import counter, tool_costs

    if fmt not in DEFINITION_FORMATS:
        raise click.UsageError(
            f"--tokens counts tool definitions: give a provider format ({', '.join(DEFINITION_FORMATS)})"
        )
    costs = tool_costs(fmt, json.loads(text))
    click.echo(f"{fmt}: tokens by {counter().name} ({costs.accuracy})", err=True)
    for tool, tokens in costs.tools.items():
        click.echo(f"  {tool}: {tokens}", err=True)
    click.echo(f"  all {len(costs.tools)} tool(s), as one request's array: {costs.total}", err=True)


@click.command()
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, path_type=Path),
    default=Path("catalogue.html"),
    show_default=True,
    help="The HTML file to write.",
)
@project_option
def docs(output: Path, project: Path | None) -> None:
    """Write a browsable HTML catalogue of the project's tools, one self-contained file.

    Each tool as each provider sees it, side by side, with what each export lost, its
    error catalogue, its examples and the texts they render, its annotations, tool sets,
    needs and pinned digest; a search box filters by any word (an error code too).
    Style and script are inline: the file opens in any browser with no network.
    """
    from toolproof.generator.catalogue import catalogue_html, tool_views

    loaded = _load(project_or_exit(project))
    views = tool_views(loaded.served, loaded.exports())
    api = loaded.layout.api
    title = api.title if api is not None else loaded.config.name
    output.write_text(catalogue_html(title, views), encoding="utf-8")
    click.echo(f"wrote {output}: {len(views)} tool(s)")


def _generate(config: ProjectConfig) -> None:
    with _one_gen_at_a_time(config):
        loaded = _load(config, handlers=True)
        changes = _write(loaded, config)
    click.echo(f"generated {loaded.layout.folder}/: {len(changes)} file(s), {len(loaded.contracts)} contract(s)")


@click.command()
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path), default=Path("."))
@click.option(
    "--lang",
    type=click.Choice(["python", "typescript"]),
    default="python",
    show_default=True,
    help="The handlers' language: typescript writes an npm project on the official MCP TypeScript SDK.",
)
def init(folder: Path, lang: str) -> None:
    """Create a project in FOLDER (default: here) with one working tool, then generate it.

    Then: `make test` (or `toolproof gen --check && toolproof lint && pytest`),
    `toolproof call word_count --args '{"text": "a b"}'`, `toolproof serve mcp`.
    """
    from toolproof.generator.scaffold import ScaffoldError, init_project
    from toolproof.runtime.project import load_config

    try:
        written = init_project(folder, lang)
    except ScaffoldError as exc:
        raise click.UsageError(str(exc)) from None
    for path in written:
        click.echo(f"wrote {path}")
    config = load_config(folder / ("toolproof.toml" if lang == "typescript" else "pyproject.toml"))
    _generate(config)
    if lang == "typescript":
        click.echo(f"project ready in {config.root}: next, `npm install`, then `npm test` and `toolproof new TOOL`")
        return
    click.echo(
        f"project ready in {config.root}: next, `pip install -e '.[test]'` (its tests need pytest and Hypothesis),"
        " then `toolproof new TOOL` or `make test`"
    )


def _refuse_clash(config: ProjectConfig, tool: str) -> None:
    """Refuse, before anything is written, a name gen would refuse beside the project's tools.

    The name of a built-in tool the project includes, and what lint reports as
    ``module-clash`` (``checks.module_clash``): a module name the generated package
    keeps, or a generated file another tool's stands at. The project's tools are
    read from its contracts folder by file name, which is each tool's module (TP102);
    a file named after the new tool's module is left to ``new_tool``, which refuses it.

    Raises:
        click.UsageError: naming the clash.
    """
    from toolproof.generator.checks import module_clash
    from toolproof.generator.naming import module_name, tool_files
    from toolproof.runtime.errors import RegistryError
    from toolproof.runtime.toolbox import included_builtin_specs

    try:
        builtin = {spec.name: spec for spec in included_builtin_specs(config)}
    except RegistryError:
        builtin = {}  # a wrong include is reported by gen, with its file
    if tool in builtin:
        sets = ", ".join(builtin[tool].toolsets)
        message = f"'{tool}' is the built-in tool of set {sets}, which the project includes; pick another name"
        raise click.UsageError(message)
    others: dict[str, str] = {}
    for spec in builtin.values():
        label = f"the built-in tool '{spec.name}', which the project includes,"
        others |= dict.fromkeys(tool_files(spec.module, builtin=True).values(), label)
    contracts = sorted(config.contracts.glob("*.yaml")) + sorted(config.contracts.glob("*.yml"))
    for path in contracts:
        if path.stem != module_name(tool):
            others |= dict.fromkeys(tool_files(path.stem).values(), f"the tool of {config.relative(path)}")
    clash = module_clash(tool, others)
    if clash is not None:
        raise click.UsageError(f"{clash}; pick another name (nothing was written)")


@click.command()
@click.argument("tool")
@_OWN_PROJECT
def new(tool: str, project: Path | None) -> None:
    """Add a contract for TOOL and a handler skeleton, then generate.

    The generated tests of TOOL fail until its handler is written.
    """
    from toolproof.generator.scaffold import ScaffoldError, new_tool

    config = _own_project(project, "new")
    _refuse_clash(config, tool)
    from toolproof.generator.render import TS_HANDLERS

    handlers = config.source_roots[0] if config.source_roots else config.root
    folder = handlers.joinpath(*config.handlers.split("."))
    typescript = config.root / TS_HANDLERS if "typescript" in config.languages else None
    try:
        written = new_tool(
            tool, config.contracts, folder, config.package, typescript=typescript, python="python" in config.languages
        )
    except ScaffoldError as exc:
        raise click.UsageError(str(exc)) from None
    for path in written:
        click.echo(f"wrote {path}")
    _generate(config)


@click.command()
@click.option(
    "--against",
    required=True,
    metavar="REF",
    help="A git ref, a project or contracts folder, or toolproof==VERSION (its built-in contracts).",
)
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning"]),
    default="error",
    show_default=True,
    help="Exit 1 when a finding is at this level or above.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github"]),
    default="text",
    show_default=True,
    help="text (file:line:col: level [RULE] CATEGORY: sentence), json, or github (workflow annotations); on stdout.",
)
@project_option
def breaking(against: str, fail_on: str, fmt: str, project: Path | None) -> None:
    """Report every change since REF that breaks callers, providers, the model or generated code.

    Each finding names a rule, its level (breaking.toml pins them), the place in
    the new contract and what breaks. Exit 0 when nothing is at or above
    --fail-on, 1 when something is, 2 when REF or breaking.toml is wrong.
    """
    from toolproof.generator.breaking import compare, load_against, report
    from toolproof.generator.breaking_rules import BreakingError, Severity, load_severities

    config = project_or_exit(project)
    try:
        levels = load_severities(config)
        old = load_against(against, config)
    except BreakingError as exc:
        click.echo(f"toolproof: {exc}", err=True)
        sys.exit(2)
    loaded = _load(config)
    folder = config.relative(config.contracts)
    findings = compare(old, loaded.contracts, levels, enums=loaded.enum_sources(), folder=folder)
    text, failed = report(findings, fmt, against=against, contracts=len(loaded.contracts), fail_on=Severity(fail_on))
    click.echo(text, nl=False)
    if failed:
        sys.exit(1)
