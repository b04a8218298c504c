"""Is a project fit for the hosts it must serve and the context windows it must fit? Lint's 6xx and 7xx rules.

The settings (``[tool.toolproof.lint]``)::

    profiles = ["claude", "cursor"]        # hosts that must take every tool: a refusal is an error (TP601)
    server-name = "files"                  # the name hosts give the server (some prefix tool names with it)

    [tool.toolproof.lint.budgets]          # tokens (tokens.py), per definition format
    tool = 800                             # one tool's definition (TP604)
    toolset = 4000                         # a tool set's definitions, as one request carries them (TP605)
    formats = ["openai", "anthropic"]      # default: every definition format the project exports

    [tool.toolproof.lint.levels]           # a 6xx or 7xx rule's level, by ID or name, or "off"
    TP702 = "note"
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Final

from toolproof.generator.descriptions import description_problems
from toolproof.generator.exports import DEFINITION_FORMATS
from toolproof.generator.losses import settings_mark
from toolproof.generator.problems import RULES, Level, Problem, rule
from toolproof.generator.profiles import PROFILES, Applied, apply_profile
from toolproof.generator.tokens import counter, tool_costs
from toolproof.generator.vocabulary import did_you_mean

if TYPE_CHECKING:
    from toolproof.generator.project import Project
    from toolproof.runtime.project import ProjectConfig

__all__ = ["fit_problems", "matrix", "matrix_text", "server_name", "tokens_text"]

_CHANGEABLE: Final = ("TP6", "TP7")
_LEVELS: Final = {"error": Level.ERROR, "warning": Level.WARNING, "note": Level.NOTE}


def server_name(config: ProjectConfig) -> str:
    """The name hosts give the project's server: ``lint.server-name``, else the project folder's name."""
    name = config.lint.get("server-name")
    if isinstance(name, str) and name:
        return name
    return "toolproof" if config.is_builtin else config.root.name


def _required(config: ProjectConfig) -> tuple[list[str], list[Problem]]:
    value: Any = config.lint.get("profiles", [])
    bad = rule("profile-setting")
    problems: list[Problem] = []
    if "server-name" in config.lint and not isinstance(config.lint["server-name"], str):
        problems.append(bad.at(*settings_mark(config, "server-name"), "lint.server-name must be a string"))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        return [], [*problems, bad.at(*settings_mark(config, "profiles"), "lint.profiles must be a list of names")]
    known: list[str] = []
    for name in value:
        if name in PROFILES:
            known.append(name)
            continue
        close = did_you_mean(name, list(PROFILES))
        hint = f"did you mean '{close}'?" if close else "known: " + ", ".join(PROFILES)
        problems.append(
            bad.at(*settings_mark(config, "profiles", name), f"lint.profiles: no profile '{name}' ({hint})")
        )
    return known, problems


def matrix(project: Project, names: Sequence[str]) -> dict[str, list[Applied]]:
    """Each named profile applied to the project's whole ``tools/list`` (own and included tools)."""
    tools = project.exports()["mcp"]["all"].data["tools"]
    server = server_name(project.config)
    return {name: apply_profile(PROFILES[name], tools, server) for name in names}


def _profile_problems(project: Project, names: Sequence[str], *, strict_export: bool) -> list[Problem]:
    """Each refusal of a required profile (an error), and each tool it rewrites beyond the accepted losses.

    A rewrite is a loss like a provider's: a project accepts it in ``accept-losses.<profile>``; one not
    accepted is a note, an error under ``--strict-export``; an entry that accepts nothing is a warning.
    """
    from toolproof.generator.project import _acceptance

    accepted = [a for a in _acceptance(project)[0] if a.provider in PROFILES]
    used: set[Any] = set()
    by_name = {c.name: c for c in project.contracts}
    problems: list[Problem] = []
    for name, applied in matrix(project, names).items():
        for outcome in applied:
            contract = by_name.get(outcome.tool)
            kept = []
            for loss in outcome.losses:
                entry = next((a for a in accepted if a.matches(loss)), None)
                if entry is None:
                    kept.append(loss)
                else:
                    used.add(entry)
            if contract is None or (not outcome.refused and not kept):
                continue
            line, column = contract.where(("name",))
            if outcome.refused:
                message = f"{name} refuses tool '{outcome.tool}': {'; '.join(outcome.refused)}"
                problems.append(rule("profile-refused").at(contract.source, line, column, message))
            else:
                outcome = Applied(outcome.tool, outcome.definition, tuple(kept), ())
                level = Level.ERROR if strict_export else None
                shown = ", ".join(
                    f"{loss.schema}{loss.pointer()}:{loss.keyword} {loss.action}" for loss in outcome.losses[:3]
                )
                more = ", ..." if len(outcome.losses) > 3 else ""
                message = f"{name} rewrites tool '{outcome.tool}': {len(outcome.losses)} change(s) ({shown}{more})"
                problems.append(rule("profile-rewritten").at(contract.source, line, column, message, level))
    for entry in accepted:
        if entry.provider in names and entry not in used:
            message = f"accept-losses.{entry.provider}: '{entry.entry}' matches no loss of {entry.provider}; remove it"
            problems.append(
                rule("unused-accepted-loss").at(*settings_mark(project.config, entry.provider, entry.entry), message)
            )
    return problems


def _budget(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _budget_problems(project: Project) -> list[Problem]:
    config = project.config
    table: Any = config.lint.get("budgets")
    if table is None:
        return []
    bad = rule("budget-setting")
    if not isinstance(table, Mapping):
        return [bad.at(*settings_mark(config, "budgets"), "lint.budgets must be a table: tool = N, toolset = N")]
    problems: list[Problem] = []
    for key in table:
        if key not in ("tool", "toolset", "formats"):
            problems.append(
                bad.at(*settings_mark(config, key), f"lint.budgets: unknown key '{key}' (tool, toolset, formats)")
            )
        elif key != "formats" and not _budget(table[key]):
            problems.append(
                bad.at(*settings_mark(config, key), f"lint.budgets.{key} must be a positive whole number of tokens")
            )
    formats: Any = table.get("formats", [f for f in DEFINITION_FORMATS if f in config.exports])
    if not isinstance(formats, list) or not all(f in DEFINITION_FORMATS for f in formats):
        message = f"lint.budgets.formats must be a list of definition formats: {', '.join(DEFINITION_FORMATS)}"
        problems.append(bad.at(*settings_mark(config, "formats"), message))
        formats = []
    if problems:
        return problems
    exports = project.exports()
    by_name = {c.name: c for c in project.contracts}
    count = counter()
    for fmt in formats:
        for set_name, exported in exports[fmt].items():
            costs = tool_costs(fmt, exported.data, count)
            how = f"{count.name}, {costs.accuracy}"
            if _budget(table.get("toolset")) and costs.total > table["toolset"]:
                message = (
                    f"tool set '{set_name}': its {fmt} definitions cost {costs.total} tokens ({how});"
                    f" the budget is {table['toolset']}"
                )
                problems.append(rule("toolset-over-budget").at(*settings_mark(config, "toolset"), message))
            if set_name != "all" or not _budget(table.get("tool")):
                continue
            for tool, tokens in costs.tools.items():
                contract = by_name.get(tool)
                if contract is not None and tokens > table["tool"]:
                    budget = table["tool"]
                    message = (
                        f"tool '{tool}': its {fmt} definition costs {tokens} tokens ({how}); the budget is {budget}"
                    )
                    line, column = contract.where(("description",))
                    problems.append(rule("tool-over-budget").at(contract.source, line, column, message))
    return problems


def _levels(config: ProjectConfig) -> tuple[dict[str, Level | None], list[Problem]]:
    table: Any = config.lint.get("levels", {})
    bad = rule("level-setting")
    if not isinstance(table, Mapping):
        return {}, [bad.at(*settings_mark(config, "levels"), 'lint.levels must be a table: RULE = "warning"')]
    by_name = {r.name: r for r in RULES.values()}
    levels: dict[str, Level | None] = {}
    problems: list[Problem] = []
    for key, value in table.items():
        found = RULES.get(key) or by_name.get(key)
        if found is None or not found.id.startswith(_CHANGEABLE):
            why = "no such rule" if found is None else "only the 6xx and 7xx rules' levels can be changed"
            problems.append(bad.at(*settings_mark(config, key), f"lint.levels: '{key}': {why}"))
        elif value != "off" and value not in _LEVELS:
            problems.append(
                bad.at(*settings_mark(config, key), f"lint.levels.{key} must be error, warning, note or off")
            )
        else:
            levels[found.id] = None if value == "off" else _LEVELS[value]
    return levels, problems


def fit_problems(project: Project, *, strict_export: bool = False) -> list[Problem]:
    """The 6xx and 7xx problems of a project whose contracts all load, each at the level its settings give it.

    Under ``strict_export`` a rewrite a required profile forces and the project does not accept is an error.
    """
    config = project.config
    names, problems = _required(config)
    levels, level_problems = _levels(config)
    found = description_problems(project.contracts) + _budget_problems(project)
    if names:
        found += _profile_problems(project, names, strict_export=strict_export)
    out: list[Problem] = [*problems, *level_problems]
    for p in found:
        if p.rule.id not in levels:
            out.append(p)
        elif levels[p.rule.id] is not None:
            out.append(p.rule.at(p.file, p.line, p.column, p.message, levels[p.rule.id]))
    return out


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], right: bool = False) -> list[str]:
    widths = [max(len(str(row[i])) for row in [header, *rows]) for i in range(len(header))]

    def line(row: Sequence[str]) -> str:
        cells = [row[0].ljust(widths[0])]
        cells += [c.rjust(w) if right else c.ljust(w) for c, w in zip(row[1:], widths[1:], strict=True)]
        return "  ".join(cells).rstrip()

    return [line(header), *(line(row) for row in rows)]


def matrix_text(project: Project, names: Sequence[str] | None = None) -> str:
    """The tool x profile table ``lint --matrix`` prints: clean, rewritten (how many changes) or refused (why)."""
    chosen = list(names or PROFILES)
    table = matrix(project, chosen)
    tools = [t["name"] for t in project.exports()["mcp"]["all"].data["tools"]]
    rows: list[list[str]] = []
    reasons: list[str] = []
    for i, tool in enumerate(tools):
        row = [tool]
        for name in chosen:
            outcome = table[name][i]
            row.append(f"rewritten ({len(outcome.losses)})" if outcome.verdict == "rewritten" else outcome.verdict)
            if outcome.refused:
                reasons.append(f"  {tool} x {name}: {'; '.join(outcome.refused)}")
        rows.append(row)
    lines = _table(["tool", *chosen], rows)
    if reasons:
        lines += ["refused, because:", *reasons]
    return "\n".join(lines) + "\n"


def tokens_text(project: Project) -> str:
    """The table ``lint --tokens`` prints: each tool's and each tool set's definition tokens per format."""
    count = counter()
    exports = project.exports()
    costs = {fmt: tool_costs(fmt, exports[fmt]["all"].data, count) for fmt in DEFINITION_FORMATS}
    rows = [[tool, *(str(costs[f].tools[tool]) for f in DEFINITION_FORMATS)] for tool in costs["mcp"].tools]
    for set_name in exports["mcp"]:
        totals = [str(tool_costs(f, exports[f][set_name].data, count).total) for f in DEFINITION_FORMATS]
        rows.append([f"tool set '{set_name}'", *totals])
    accuracy = ", ".join(f"{f}: {c.accuracy}" for f, c in costs.items())
    lines = [f"tokens by {count.name} ({accuracy}); a tool set counts as one request's array"]
    return "\n".join([*lines, *_table(["tool", *DEFINITION_FORMATS], rows, right=True)]) + "\n"
