"""MkDocs hook: the reference pages, generated at build time from the code's own registries.

Nothing here is committed as Markdown, so a page cannot drift from what it documents:

- ``reference/contract-schema.md`` from the contract meta-schema (``contract.schema.json``);
- ``rules/`` one page per lint rule (``toolproof.generator.problems.RULES`` and ``DOCS``);
- ``breaking/`` one page per breaking-change rule (``toolproof.generator.breaking_rules``);
- ``reference/cli.md`` from the click commands (``toolproof.cli.cli``);
- ``reference/python/*.md`` one page per public module, the names ``api.md`` lists, rendered by mkdocstrings;
- ``benchmarks.md`` from ``benchmarks/results.json``, the figures of the last ``make bench`` run;
- ``changelog.md``, the repository's ``CHANGELOG.md``.

Everything is read from the repository, so the build needs no network.
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Final

import click
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files

REPO: Final = Path(__file__).resolve().parents[2]
RESULTS: Final = REPO / "benchmarks" / "results.json"
CHART: Final = REPO / "benchmarks" / "results.svg"
SCHEMA: Final = REPO / "toolproof" / "generator" / "contract.schema.json"

_NAV_PLACEHOLDERS: Final = {"rules/index.md": "rules", "breaking/index.md": "breaking"}
"""Nav entries the hook expands into the index followed by one entry per generated rule page."""


def _pages() -> dict[str, str]:
    """Every generated page, by its path under docs/."""
    pages = {
        "reference/contract-schema.md": _schema_page(),
        "reference/cli.md": _cli_page(),
        "benchmarks.md": _benchmarks_page(),
        "changelog.md": (REPO / "CHANGELOG.md").read_text(encoding="utf-8"),
        **_lint_pages(),
        **_breaking_pages(),
        **_api_pages(),
    }
    if CHART.is_file():
        pages["assets/results.svg"] = CHART.read_text(encoding="utf-8")
    return pages


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Expand the rule indexes in the nav into the index plus one entry per rule."""
    config.nav = _expand(config.nav or [])
    return config


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the generated pages to the site."""
    for path, text in _pages().items():
        files.append(File.generated(config, path, content=text))
    return files


def _expand(nav: list[Any]) -> list[Any]:
    out: list[Any] = []
    for entry in nav:
        if isinstance(entry, dict):
            expanded: dict[str, Any] = {}
            for title, value in entry.items():
                if isinstance(value, str) and value in _NAV_PLACEHOLDERS:
                    folder = _NAV_PLACEHOLDERS[value]
                    ids = _lint_ids() if folder == "rules" else _breaking_ids()
                    expanded[title] = [{"Overview": value}, *(f"{folder}/{rule_id}.md" for rule_id in ids)]
                elif isinstance(value, list):
                    expanded[title] = _expand(value)
                else:
                    expanded[title] = value
            out.append(expanded)
        else:
            out.append(entry)
    return out


# --- lint rules -------------------------------------------------------------------------------------------


def _lint_ids() -> list[str]:
    from toolproof.generator.problems import RULES

    return sorted(RULES)


_LINT_GROUPS: Final = {
    "0": "The file and its YAML",
    "1": "The contract format and its catalogue",
    "2": "The JSON Schemas",
    "3": "The examples",
    "4": "The project and its exports",
    "5": "Beyond tools: resources, prompts and questions",
    "6": "Client profiles and token budgets",
    "7": "The descriptions a model reads",
}


def _slug(group: str) -> str:
    return f"group-{group}xx"


def _lint_pages() -> dict[str, str]:
    from toolproof.generator.problems import DOCS, RULES

    index = [
        "# Lint rules",
        "",
        "`toolproof lint` (and `toolproof gen`, which lints first) reports every problem it finds at once, each as",
        "`file:line:col: level [ID] message`. IDs never change meaning and are never reused, so CI configuration",
        "and baselines can rely on them. The first digit groups the rules. See [Linting](../contracts/lint.md)",
        "for how the checks run.",
        "",
    ]
    pages: dict[str, str] = {}
    group = ""
    for rule_id in sorted(RULES):
        rule = RULES[rule_id]
        doc = DOCS[rule_id]
        group_name = _LINT_GROUPS[rule_id[2]]
        if rule_id[2] != group:
            group = rule_id[2]
            heading = f"## {group}xx: {_LINT_GROUPS[group]} {{#{_slug(group)}}}"
            index += ["", heading, "", "| ID | Name | Level | What it catches |"]
            index.append("| --- | --- | --- | --- |")
        index.append(f"| [{rule_id}]({rule_id}.md) | `{rule.name}` | {rule.level.value} | {_cell(rule.summary)} |")
        pages[f"rules/{rule_id}.md"] = "\n".join(
            [
                f"# {rule_id} `{rule.name}`",
                "",
                f"**Level:** {rule.level.value} · **Group:** [{group}xx, {group_name}](index.md#{_slug(group)})",
                "",
                "## What it catches",
                "",
                rule.summary,
                "",
                "## Example",
                "",
                "```yaml",
                doc.example.rstrip("\n"),
                "```",
                "",
                "## Fix",
                "",
                doc.fix,
                "",
                "[All lint rules](index.md)",
                "",
            ]
        )
    pages["rules/index.md"] = "\n".join(index) + "\n"
    return pages


# --- breaking-change rules --------------------------------------------------------------------------------


def _breaking_ids() -> list[str]:
    from toolproof.generator.breaking_rules import RULES

    return list(RULES)


def _breaking_pages() -> dict[str, str]:
    from toolproof.generator.breaking_rules import DOCS, RULES, Category

    index = [
        "# Breaking-change rules",
        "",
        "`toolproof breaking` compares the contracts with those of an earlier revision and reports each change",
        "under one of these rule IDs, at the level below unless the project pins another in `breaking.toml`",
        "(see [Breaking changes](../contracts/breaking.md)).",
        "",
    ]
    pages: dict[str, str] = {}
    for category in Category:
        rules = [r for r in RULES.values() if r.category is category]
        index += [f"## {category.value}", "", _cell(category.__doc__ or ""), ""]
        index += ["| ID | Level | What it catches |", "| --- | --- | --- |"]
        for rule in rules:
            doc = DOCS[rule.id]
            index.append(f"| [{rule.id}]({rule.id}.md) | {rule.level.value} | {_cell(rule.doc)} |")
            pages[f"breaking/{rule.id}.md"] = "\n".join(
                [
                    f"# {rule.id}",
                    "",
                    f"**Default level:** {rule.level.value} · **Category:** {category.value}",
                    "",
                    "## What it catches",
                    "",
                    rule.doc,
                    "",
                    "## Example",
                    "",
                    "```yaml",
                    doc.example.rstrip("\n"),
                    "```",
                    "",
                    "## Fix",
                    "",
                    doc.fix,
                    "",
                    "[All breaking-change rules](index.md)",
                    "",
                ]
            )
        index.append("")
    pages["breaking/index.md"] = "\n".join(index)
    return pages


# --- the contract meta-schema -----------------------------------------------------------------------------


def _schema_page() -> str:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    lines = [
        "# Contract schema",
        "",
        "Every field of a contract, generated from the meta-schema `toolproof lint` checks each contract against",
        f"(`{schema['$id']}`, JSON Schema 2020-12). The [contract format](../contracts/index.md) explains the fields",
        "in prose; this page is the exhaustive list.",
        "",
    ]
    lines += _object_section("Top level", "top-level", schema, 2)
    for name, definition in schema.get("$defs", {}).items():
        lines += _object_section(f"`{name}`", f"def-{name}", definition, 2)
    return "\n".join(lines) + "\n"


def _object_section(title: str, anchor: str, schema: dict[str, Any], depth: int) -> list[str]:
    lines = [f"{'#' * depth} {title} {{#{anchor}}}", ""]
    if schema.get("description"):
        lines += [schema["description"], ""]
    properties: dict[str, Any] = schema.get("properties", {})
    if not properties:
        lines += [f"Type: {_type(schema)}.", ""]
        return lines
    required = set(schema.get("required", []))
    closed = schema.get("additionalProperties") is False
    lines.append("Other keys are refused." if closed else "Other keys are allowed.")
    lines += ["", "| Field | Type | Required | Description |", "| --- | --- | --- | --- |"]
    nested: list[tuple[str, str, dict[str, Any]]] = []
    for name, sub in properties.items():
        kind = _type(sub)
        if sub.get("properties") and depth < 4:
            sub_anchor = f"{anchor}-{name}".replace("_", "-")
            kind = f"[object](#{sub_anchor})"
            nested.append((name, sub_anchor, sub))
        described = " ".join(filter(None, [html.escape(sub.get("description", ""), quote=False), _constraints(sub)]))
        lines.append(f"| `{name}` | {kind} | {'yes' if name in required else 'no'} | {_cell(described)} |")
    lines.append("")
    for name, sub_anchor, sub in nested:
        lines += _object_section(f"{title.strip('`')}.`{name}`", sub_anchor, sub, min(depth + 1, 4))
    return lines


def _type(schema: dict[str, Any]) -> str:
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#def-{name})"
    if "enum" in schema:
        return "one of " + ", ".join(f"`{json.dumps(v)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'])}`"
    kind = schema.get("type")
    if kind == "array" and isinstance(schema.get("items"), dict):
        return f"array of {_type(schema['items'])}"
    if kind == "object" and isinstance(schema.get("additionalProperties"), dict):
        return f"map of {_type(schema['additionalProperties'])}"
    if isinstance(kind, list):
        return " or ".join(kind)
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return " or ".join(_type(branch) for branch in schema[combinator])
    return str(kind) if kind else "any"


def _constraints(schema: dict[str, Any]) -> str:
    shown = []
    for keyword in ("pattern", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum", "minItems"):
        if keyword in schema:
            shown.append(f"{keyword} `{schema[keyword]}`")
    if "default" in schema:
        shown.append(f"default `{json.dumps(schema['default'])}`")
    return f"({', '.join(shown)})" if shown else ""


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


# --- the CLI ----------------------------------------------------------------------------------------------


def _cli_page() -> str:
    from toolproof.cli import cli

    lines = [
        "# Command line",
        "",
        "Every `toolproof` command and option, generated from the commands' own help. `toolproof COMMAND -h`",
        "prints the same.",
        "",
    ]
    root = click.Context(cli, info_name="toolproof")
    lines += _command("toolproof", cli, root, 2)
    return "\n".join(lines) + "\n"


def _walk(command: click.Command, ctx: click.Context) -> Iterator[tuple[str, click.Command, click.Context]]:
    if isinstance(command, click.Group):
        for name in command.list_commands(ctx):
            sub = command.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                yield name, sub, click.Context(sub, info_name=name, parent=ctx)


def _command(path: str, command: click.Command, ctx: click.Context, depth: int) -> list[str]:
    lines = [f"{'#' * depth} `{path}`", ""]
    if command.help:
        lines += [_dedent(command.help), ""]
    lines += ["```text", command.get_usage(ctx), "```", ""]
    params = [p for p in command.get_params(ctx) if not getattr(p, "hidden", False)]
    arguments = [p for p in params if isinstance(p, click.Argument)]
    options = [p for p in params if isinstance(p, click.Option)]
    if arguments:
        lines += ["| Argument | Type |", "| --- | --- |"]
        lines += [f"| `{p.human_readable_name}` | {_cell(p.type.name)} |" for p in arguments]
        lines.append("")
    if options:
        lines += ["| Option | Type | Default | Description |", "| --- | --- | --- | --- |"]
        for option in options:
            names = ", ".join(f"`{o}`" for o in [*option.opts, *option.secondary_opts])
            kind = "flag" if option.is_flag else _cell(option.type.name)
            if option.multiple:
                kind += ", repeatable"
            if option.required:
                kind += ", required"
            lines.append(f"| {names} | {kind} | {_default(option)} | {_cell(option.help or '')} |")
        lines.append("")
    for name, sub, sub_ctx in _walk(command, ctx):
        lines += _command(f"{path} {name}", sub, sub_ctx, min(depth + 1, 4))
    return lines


def _default(option: click.Option) -> str:
    """The default as the help shows it; none for flags, unset values (click's sentinel) and empty ones."""
    default = option.default
    if option.is_flag or default in (None, (), [], "") or type(default).__name__ == "Sentinel" or callable(default):
        return ""
    return f"`{_cell(str(default))}`"


def _dedent(text: str) -> str:
    """Click help as Markdown: ``\\b`` blocks (kept verbatim by click) become code blocks."""
    import inspect

    out: list[str] = []
    for paragraph in inspect.cleandoc(text).split("\n\n"):
        if paragraph.startswith("\b\n"):
            out.append("```text\n" + paragraph[2:] + "\n```")
        else:
            out.append(re.sub(r"\s*\n\s*", " ", paragraph))
    return "\n\n".join(out)


# --- the Python API ---------------------------------------------------------------------------------------


def _api_modules() -> dict[str, list[str]]:
    """``api.md``'s names, by module heading (the list tests/test_public_api.py holds to each ``__all__``)."""
    listed: dict[str, list[str]] = {}
    module = None
    for line in (REPO / "docs" / "api.md").read_text(encoding="utf-8").splitlines():
        if heading := re.fullmatch(r"## `([\w.]+)`", line):
            module = heading.group(1)
            listed[module] = []
        elif module and (item := re.match(r"- `(\w+)`:", line)):
            listed[module].append(item.group(1))
    return listed


def _api_pages() -> dict[str, str]:
    pages = {}
    for module, names in _api_modules().items():
        lines = [f"# `{module}`", "", f"The public names of `{module}`, from their docstrings.", ""]
        for name in names:
            if name == "__version__":
                lines += ["## `__version__`", "", "The installed version; generated files are stamped with it.", ""]
                continue
            lines += [f"::: {module}.{name}", ""]
        pages[f"reference/python/{module}.md"] = "\n".join(lines)
    return pages


# --- benchmarks -------------------------------------------------------------------------------------------


def _load(section: dict[str, Any]) -> str:
    """How loaded the machine was while the section was measured (sections recorded before the load was: nothing)."""
    machine = section.get("machine")
    if not isinstance(machine, dict):
        return ""
    start, end = (", ".join(f"{load:.1f}" for load in machine[key]) for key in ("load_at_start", "load_at_end"))
    return f" on {machine['cpus']} CPUs, load average (1, 5, 15 minutes) {start} at the start and {end} at the end"


def _benchmarks_page() -> str:
    lines = [
        "# Benchmarks",
        "",
        "Every figure on this page is read from `benchmarks/results.json`, which `make bench` writes; nothing here",
        "is typed by hand. Each row is a workload measured on every system in the same run; lower is better, and",
        "the ratio is to the fastest system of the row. Run `make bench` to measure your own machine.",
        "",
    ]
    try:
        document = json.loads(RESULTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return "\n".join([*lines, "No results yet: run `make bench`.", ""])
    for name, section in document["sections"].items():
        quick = " Quick run (fewer rounds)." if section.get("quick") else ""
        measured = f"Measured {section['measured']}{_load(section)}.{quick}"
        lines += [f"## {section['title']} {{#{name}}}", "", measured, ""]
        systems: dict[str, str] = section["systems"]
        lines += [f"- **{system}**: {_cell(what)}" for system, what in systems.items()]
        lines += ["", "| Workload | Unit | " + " | ".join(systems) + " |", "| --- | --- |" + " --- |" * len(systems)]
        for row in section["rows"]:
            cells = []
            for system in systems:
                value = row["values"].get(system)
                ratio = row["ratio_to_fastest"].get(system)
                cells.append("" if value is None else f"{_figure(value)} ({ratio:.2f}x)")
            lines.append(f"| {_cell(row['workload'])} | {row['unit']} | " + " | ".join(cells) + " |")
        lines.append("")
    if CHART.is_file():
        lines += [
            "## Every row as a chart {#chart}",
            "",
            "![Every row as ratios to the fastest system](assets/results.svg)",
        ]
    return "\n".join(lines) + "\n"


def _figure(value: float) -> str:
    return f"{value:,.0f}" if value >= 100 else f"{value:.3g}"
