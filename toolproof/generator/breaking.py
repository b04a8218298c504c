"""``toolproof breaking``: what changed in a project's contracts since a ref, and whom it breaks.

The contracts at the ref (a git ref, a project or contracts folder, or the
built-in contracts of ``toolproof==VERSION``) are read and modelled as the
project's are (not checked again: they passed the checks of their day), then
compared tool by tool, by wire name. Schemas are compared
as JSON Schema, local ``$ref``\\ s resolved wherever they stand (under
``items``, ``prefixItems``, ``additionalProperties``, in a union's branches),
never as YAML text, so a change is judged the same however its subschema is
reached; a changed union branch that pairs with one on the other side (the
same ``$ref``, or the same place and an overlapping type) is compared in
detail. Requests and responses are judged in opposite directions: a caller's
request breaks when the input accepts less, a caller's reading breaks when the
output may hold more.

Each change is a ``Finding``: a rule of ``breaking_rules.RULES``, the level the
project gives it, where it is in the new contract and one sentence. A contract
with an error-level finding must move its major version (the minor, below 1.0):
then its findings are downgraded to info, else ``VERSION_NOT_BUMPED`` is added.

A ref that exists but holds no contracts (the pull request that adopts
toolproof: its base branch has no contracts folder yet) is an empty baseline:
every tool is reported as added, and each such finding says why. A ref that
names nothing (an unknown git ref, a missing folder, a folder that is neither
a project nor holds contracts) is an error, so a typo never passes silently.
"""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import tempfile
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Final

from toolproof.generator.breaking_rules import RULES, BreakingError, Category, Severity
from toolproof.generator.exports import DEFINITION_FORMATS, export_definitions, tool_digest
from toolproof.generator.losses import Loss, pointer
from toolproof.generator.model import Contract, build_shared_types, shared_class
from toolproof.generator.pytypes import TypeBuilder
from toolproof.generator.schemadiff import (
    Change,
    JsonPath,
    Schemas,
    show,
)
from toolproof.generator.shared import SHARED_FOLDER
from toolproof.runtime.project import ProjectConfig

__all__ = ["REPORT_FORMATS", "BreakingError", "Finding", "Where", "compare", "load_against", "report"]

REPORT_FORMATS: Final = ("text", "json", "github")


@dataclass(frozen=True, slots=True, order=True)
class Where:
    """A place in a contract file: ``contracts/x.yaml:12:5``."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass(frozen=True, slots=True)
class Finding:
    """One change and whom it breaks, located in the new contract."""

    rule: str
    category: Category
    level: Severity
    where: Where
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.level.value} [{self.rule}] {self.category.value}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        """The finding as JSON data."""
        return {
            "rule": self.rule,
            "category": self.category.value,
            "level": self.level.value,
            "file": self.where.file,
            "line": self.where.line,
            "column": self.where.column,
            "message": self.message,
        }


def _classes(side: str, contract: Contract) -> list[str]:
    schema = contract.input_schema if side == "input" else contract.output_schema
    types = TypeBuilder(schema)
    types.annotation(schema, f"{contract.prefix}{side.title()}")
    return [d.name for d in types.defs]


# -- the contract as a whole --------------------------------------------------------------------------------------


def _tool(old: Contract, new: Contract, out: list[Change]) -> None:
    if old.title != new.title:
        message = f"the tool title {show(old.title)} → {show(new.title)}"
        out.append(Change("MODEL_TITLE_CHANGED", ("title",), message))
    if old.description != new.description:
        message = "the tool description changed; the model reads it to decide when and how to call the tool"
        out.append(Change("MODEL_DESCRIPTION_CHANGED", ("description",), message))
    for key in sorted({*old.render, *new.render}):
        if old.render.get(key) != new.render.get(key):
            message = f"render.{key} changed; the text the model reads differs"
            out.append(Change("MODEL_RENDER_CHANGED", ("render", key), message))
    for key in sorted({*old.annotations, *new.annotations}):
        before, after = old.annotations.get(key), new.annotations.get(key)
        if before == after:
            continue
        flag = f"annotation {key} {show(before)} → {show(after)}"
        if key == "read_only" and before is True:
            message = f"{flag}; hosts that auto-approve read-only tools would run it unasked"
            out.append(Change("EXPORT_ANNOTATION_UNSAFE", ("annotations", key), message))
        elif key == "destructive" and after is True:
            message = f"{flag}; hosts that auto-approve non-destructive tools would run it unasked"
            out.append(Change("EXPORT_ANNOTATION_UNSAFE", ("annotations", key), message))
        else:
            message = f"{flag}; hosts that decide approval or retries by it act differently"
            out.append(Change("EXPORT_ANNOTATION_CHANGED", ("annotations", key), message))
    for name in old.toolsets:
        if name not in new.toolsets:
            message = f"the tool left tool set '{name}'; hosts that serve that set no longer offer it"
            out.append(Change("EXPORT_TOOLSET_LEFT", ("toolsets",), message))
    for index, name in enumerate(new.toolsets):
        if name not in old.toolsets:
            out.append(Change("EXPORT_TOOLSET_JOINED", ("toolsets", index), f"the tool joined tool set '{name}'"))
    for index, name in enumerate(new.needs):
        if name not in old.needs:
            message = f"the tool now needs resource '{name}'; hosts without it no longer list the tool"
            out.append(Change("EXPORT_NEED_ADDED", ("needs", index), message))
    for index, scope in enumerate(new.scopes):
        if scope not in old.scopes:
            message = f"a call now needs OAuth scope '{scope}'; tokens without it are refused with 403"
            out.append(Change("EXPORT_SCOPE_ADDED", ("scopes", index), message))
    _kind(old, new, out)


def _kind(old: Contract, new: Contract, out: list[Change]) -> None:
    """What a resource's or prompt's callers rely on beyond its schemas: its kind, its URI, its MIME type, its size."""
    if old.kind != new.kind:
        message = f"the contract is a {new.kind} now, not a {old.kind}: its callers reach it by another MCP method"
        out.append(Change("WIRE_KIND_CHANGED", ("kind",), message))
        return
    if old.resource is None or new.resource is None:
        return
    if old.resource["uri"] != new.resource["uri"]:
        before, after = show(old.resource["uri"]), show(new.resource["uri"])
        message = f"the resource URI {before} → {after}; URIs clients kept read nothing"
        out.append(Change("WIRE_RESOURCE_URI_CHANGED", ("resource", "uri"), message))
    if old.resource["mime_type"] != new.resource["mime_type"]:
        before, after = show(old.resource["mime_type"]), show(new.resource["mime_type"])
        message = f"the resource's MIME type {before} → {after}; its readers parse another format"
        out.append(Change("WIRE_RESOURCE_MIME_CHANGED", ("resource", "mime_type"), message))
    before_max, after_max = old.resource.get("max_bytes"), new.resource.get("max_bytes")
    if after_max is not None and (before_max is None or after_max < before_max):
        message = f"the resource's max_bytes {show(before_max)} → {show(after_max)}; a read that passed may be refused"
        out.append(Change("WIRE_RESOURCE_SMALLER", ("resource", "max_bytes"), message))


def _errors(old: Contract, new: Contract, out: list[Change]) -> None:
    before = {e.code: e for e in old.errors}
    after = {e.code: e for e in new.errors}
    for code in before:
        if code not in after:
            message = f"error code '{code}' was removed; callers that branch on it and handlers that raise it break"
            out.append(Change("ERRORS_CODE_REMOVED", ("errors",), message))
    for code, error in after.items():
        where = ("errors", code)
        if code not in before:
            message = f"error code '{code}' was added; callers that handle every code exhaustively miss it"
            out.append(Change("ERRORS_CODE_ADDED", where, message))
            continue
        was = before[code]
        old_params = {p.name: p.annotation for p in was.params}
        new_params = {p.name: p.annotation for p in error.params}
        for param in old_params:
            if param not in new_params:
                message = f"error '{code}' no longer names {{{param}}}; handlers that pass {param}= to its factory fail"
                out.append(Change("ERRORS_PARAM_REMOVED", (*where, "message"), message))
        for param, annotation in new_params.items():
            if param not in old_params:
                message = (
                    f"the factory {error.function}() now takes {param}: {annotation}; "
                    f"handlers that call it without {param}= fail"
                )
                out.append(Change("CODE_FACTORY_PARAM_ADDED", (*where, "message"), message))
            elif old_params[param] != annotation:
                message = f"error '{code}' parameter {param} changes type: {old_params[param]} → {annotation}"
                out.append(Change("ERRORS_PARAM_CHANGED", (*where, "params", param), message))
        if was.message != error.message:
            message = f"error '{code}' message changed; the model reads the new text"
            out.append(Change("MODEL_ERROR_TEXT_CHANGED", (*where, "message"), message))
        if was.hint != error.hint:
            message = f"error '{code}' hint changed; the model reads the new text"
            out.append(Change("MODEL_ERROR_HINT_CHANGED", (*where, "hint"), message))
        if was.status != error.status:
            message = f"error '{code}' HTTP status {was.status} → {error.status}; REST callers see another status"
            out.append(Change("ERRORS_STATUS_CHANGED", (*where, "status"), message))


def _contract(old: Contract, new: Contract) -> list[Change]:
    out: list[Change] = []
    _tool(old, new, out)
    for side in ("input", "output"):
        Schemas(side, old, new, out).run()
        kept = set(_classes(side, new))
        for name in _classes(side, old):
            if name not in kept:
                message = f"class {name} is no longer generated in {new.module}.py; code that imports it breaks"
                out.append(Change("CODE_CLASS_REMOVED", (side,), message))
    _errors(old, new, out)
    _asks(old, new, out)
    return out


def _asks(old: Contract, new: Contract, out: list[Change]) -> None:
    """New, removed and changed questions (``asks``): a new one breaks a client that cannot answer it."""
    before, after = old.wire_asks(), new.wire_asks()
    for name in before:
        if name not in after:
            out.append(Change("WIRE_ASK_REMOVED", ("asks",), f"the tool no longer asks '{name}'"))
    for name, ask in after.items():
        where = ("asks", name)
        was = before.get(name)
        if was is None:
            message = (
                f"the tool now asks '{name}'; a client that cannot be asked (no MCP elicitation) gets "
                "input_unavailable where it got a result"
            )
            out.append(Change("WIRE_ASK_ADDED", where, message))
            continue
        if (was["kind"], was["schema"]) != (ask["kind"], ask["schema"]):
            message = f"question '{name}' changed its kind or form; answers made for the old form are refused"
            out.append(Change("WIRE_ASK_FORM_CHANGED", where, message))
        if was["message"] != ask["message"]:
            out.append(Change("WIRE_ASK_MESSAGE_CHANGED", (*where, "message"), f"question '{name}' message changed"))


# -- what providers receive ---------------------------------------------------------------------------------------


def _digest(old: Contract, new: Contract) -> list[Change]:
    """``EXPORT_DIGEST_CHANGED`` when the tool's pinned digest (``exports.tool_digest``) differs."""
    if not (old.is_tool and new.is_tool):  # only tools are pinned (a kind change is WIRE_KIND_CHANGED)
        return []
    before, after = tool_digest(old), tool_digest(new)
    if before == after:
        return []
    message = (
        f"the tool's pinned digest {before[:19]}… → {after[:19]}…; clients that pinned it (tools.lock.json)"
        " see a changed definition: review it, then pin the new digest"
    )
    return [Change("EXPORT_DIGEST_CHANGED", ("name",), message)]


def _entries(fmt: str, data: Any) -> dict[str, Mapping[str, Any]]:
    """Each tool's definition in one format's export, by wire name."""
    if fmt == "openai":
        return {t["function"]["name"]: t["function"] for t in data}
    if fmt in ("openai-responses", "anthropic"):
        return {t["name"]: t for t in data}
    if fmt == "mcp":
        return {t["name"]: t for t in data["tools"]}
    return {t["name"]: t for t in data["functionDeclarations"]}


def _loss_key(loss: Loss) -> tuple[Any, ...]:
    return (loss.format, loss.tool, loss.schema, loss.path, loss.keyword, loss.action)


def _said(loss: Loss) -> tuple[Any, ...]:
    return (loss.format, loss.tool, loss.schema, loss.keyword, loss.action, loss.detail)


def _new_losses(before: Sequence[Loss], after: Sequence[Loss]) -> list[Loss]:
    """The losses of ``after`` that ``before`` has not: matched where they stand, then by what they say.

    A loss that only moved (its ``$defs`` entry renamed, its schema moved into ``$defs``) is not new;
    where both sides hold several alike, only the surplus is.
    """
    unmatched = Counter(_loss_key(loss) for loss in before)
    moved: list[Loss] = []
    for loss in after:
        if unmatched[_loss_key(loss)]:
            unmatched[_loss_key(loss)] -= 1
        else:
            moved.append(loss)
    said: Counter[tuple[Any, ...]] = Counter()
    for loss in before:
        if unmatched[_loss_key(loss)]:
            unmatched[_loss_key(loss)] -= 1
            said[_said(loss)] += 1
    new: list[Loss] = []
    for loss in moved:
        if said[_said(loss)]:
            said[_said(loss)] -= 1
        else:
            new.append(loss)
    return new


def _exports(
    old: Sequence[Contract], new: Sequence[Contract], enums: Mapping[str, list[str]]
) -> dict[str, list[Change]]:
    """Changes in what each provider receives, by tool: strictness, new losses and shown examples.

    Both sides are exported as whole tool sets, as a request carries them (Anthropic's strict budget is per request).
    """
    out: dict[str, list[Change]] = {}
    lost: dict[tuple[str, str], list[str]] = {}
    added: dict[tuple[str, str, JsonPath, str, str, str], list[str]] = {}
    for fmt in DEFINITION_FORMATS:
        before, after = export_definitions(fmt, old, enums), export_definitions(fmt, new, enums)
        old_tools, new_tools = _entries(fmt, before.data), _entries(fmt, after.data)
        for loss in _new_losses(before.losses, after.losses):
            if loss.tool not in old_tools:
                continue
            if loss.keyword == "strict":
                lost.setdefault((loss.tool, loss.detail), []).append(fmt)
            else:
                key = (loss.tool, loss.schema, loss.path, loss.keyword, loss.action, loss.detail)
                added.setdefault(key, []).append(fmt)
        if fmt == "anthropic":
            for name, entry in new_tools.items():
                if name in old_tools and old_tools[name].get("input_examples") != entry.get("input_examples"):
                    message = "the input examples the model is shown changed (Anthropic input_examples)"
                    out.setdefault(name, []).append(Change("MODEL_EXAMPLES_CHANGED", ("examples",), message))
    for (tool, detail), formats in lost.items():
        message = f"{', '.join(formats)}: no longer exported strict ({detail})"
        out.setdefault(tool, []).append(Change("EXPORT_STRICT_LOST", ("input",), message))
    for (tool, schema, path, keyword, action, detail), formats in added.items():
        message = f"{', '.join(formats)}: new loss at {schema}{pointer(path)} {keyword}: {action} ({detail})"
        out.setdefault(tool, []).append(Change("EXPORT_LOSS_ADDED", (schema, *path), message))
    return out


# -- judging ------------------------------------------------------------------------------------------------------


def _compat(version: str) -> tuple[tuple[int, ...], str, str] | None:
    """(the version as numbers, the part that must move for a breaking change, the next such version)."""
    match = re.match(r"^(\d+)\.(\d+)\.(\d+)", version)
    if match is None:
        return None
    major, minor, patch = (int(g) for g in match.groups())
    if major:
        return (major, minor, patch), f"{major}.x", f"{major + 1}.0.0"
    if minor:
        return (major, minor, patch), f"0.{minor}.x", f"0.{minor + 1}.0"
    return (major, minor, patch), f"0.0.{patch}", f"0.0.{patch + 1}"


def _level(rule: str, levels: Mapping[str, Severity]) -> Severity:
    return levels.get(rule, RULES[rule].level)


def _finding(rule: str, where: Where, message: str, levels: Mapping[str, Severity]) -> Finding:
    return Finding(rule, RULES[rule].category, _level(rule, levels), where, message)


def _allowed(finding: Finding, bump: str) -> Finding:
    return dataclasses.replace(finding, level=Severity.INFO, message=f"{finding.message} (allowed by {bump})")


def _where(contract: Contract, path: JsonPath) -> Where:
    """Where a change stands: in the contract, or at the shared definition it lies in (``$defs/<name>/...``)."""
    if len(path) > 2 and path[1] == "$defs" and isinstance(path[2], str) and path[2] in contract.shared:
        definition = contract.shared[path[2]]
        return Where(definition.file, definition.line, definition.column)
    return Where(contract.source, *contract.where(path))


def _grouped(found: Sequence[tuple[str, Finding]], names: Mapping[Where, str]) -> list[Finding]:
    """One finding per change of a shared definition, naming every tool it reaches, at its most severe level.

    ``found`` holds each tool's finding of the change (judged, version bumps allowed, per tool).
    """
    groups: dict[tuple[str, Where], list[tuple[str, Finding]]] = {}
    for tool, finding in found:
        groups.setdefault((finding.rule, finding.where), []).append((tool, finding))
    out = []
    for (_, where), members in groups.items():
        tools = sorted({tool for tool, _ in members})
        level = max((f.level for _, f in members), key=lambda level: level.rank)
        said = "; ".join(f"{tool}: {f.message}" for tool, f in sorted(members, key=lambda m: m[0]))
        message = (
            f"shared definition '{names[where]}' changed, reaching {len(tools)} tool(s) ({', '.join(tools)}): {said}"
        )
        out.append(dataclasses.replace(members[0][1], level=level, message=message))
    return out


def _shared_types(old: Sequence[Contract], new: Sequence[Contract], levels: Mapping[str, Severity]) -> list[Finding]:
    """Changes to the generated ``defs`` module: a shared definition's type alias changed or its type gone."""
    before, after = build_shared_types(old), build_shared_types(new)
    if before is None:
        return []
    places = {shared_class(d.name): Where(d.file, d.line, d.column) for c in new for d in c.shared.values()}
    aliases = {a.name: a.annotation for a in after.aliases} if after else {}
    kept = set(after.exports) if after else set()
    findings = []
    for alias in before.aliases:
        if alias.name in aliases and aliases[alias.name] != alias.annotation and alias.name in places:
            message = f"the generated type {alias.name} (defs.py) changes: {alias.annotation} → {aliases[alias.name]}"
            findings.append(_finding("CODE_FIELD_TYPE_CHANGED", places[alias.name], message, levels))
    for name in before.exports:
        if name not in kept:
            message = f"type {name} is no longer generated in defs.py; code that imports it breaks"
            where = Where(next(iter(c.source for c in new), "contracts"), 1, 1)
            findings.append(_finding("CODE_CLASS_REMOVED", where, message, levels))
    return [f for f in findings if f.level is not Severity.OFF]


def _judge(old: Contract, new: Contract, changes: list[Change], levels: Mapping[str, Severity]) -> list[Finding]:
    """The findings of one contract, with its version judged against its breaking changes."""
    findings = [
        _finding(c.rule, _where(new, c.path), c.message, levels)
        for c in changes
        if _level(c.rule, levels) is not Severity.OFF
    ]
    breaking = sum(1 for f in findings if f.level is Severity.ERROR)
    if not breaking:
        return findings
    before, after = _compat(old.version), _compat(new.version)
    if before is not None and after is not None and after[0] > before[0] and after[1] != before[1]:
        bump = f"major version bump {before[1]} → {new.version}"
        return [_allowed(f, bump) if f.level is Severity.ERROR else f for f in findings]
    if _level("VERSION_NOT_BUMPED", levels) is not Severity.OFF:
        advice = f"; make it {before[2]} or later" if before else ""
        message = (
            f"{breaking} breaking change(s) but version {old.version} → {new.version} "
            f"is not a major version bump{advice}"
        )
        findings.append(_finding("VERSION_NOT_BUMPED", Where(new.source, *new.where(("version",))), message, levels))
    return findings


def compare(
    old: Sequence[Contract],
    new: Sequence[Contract],
    levels: Mapping[str, Severity],
    *,
    enums: Mapping[str, list[str]],
    folder: str,
) -> list[Finding]:
    """Every change from ``old`` to ``new`` (matched by wire name), judged, most relevant place first.

    Args:
        old: the contracts at the ref.
        new: the project's contracts.
        levels: each rule's level (``breaking_rules.load_severities``).
        enums: values of the dynamic-enum sources, for the exported definitions.
        folder: the project's contracts folder as messages name it, for removed tools' files.
    """
    before, kept = {c.name: c for c in old}, {c.name for c in new}
    added = "was added" if old else "was added (the baseline holds no contracts: every tool is new)"
    exports = _exports(old, new, enums)
    findings: list[Finding] = []
    shared: list[tuple[str, Finding]] = []  # (tool, a finding located at a shared definition)
    names: dict[Where, str] = {}
    for c in (c for c in old if c.name not in kept):
        where = Where(f"{folder}/{PurePosixPath(c.source).name}", 1, 1)
        message = f"tool '{c.name}' was removed or renamed; callers that call it by name fail"
        findings.append(_finding("WIRE_TOOL_REMOVED", where, message, levels))
    for c in new:
        if c.name not in before:
            where = Where(c.source, *c.where(("name",)))
            findings.append(_finding("WIRE_TOOL_ADDED", where, f"tool '{c.name}' {added}", levels))
            continue
        changes = _contract(before[c.name], c) + exports.get(c.name, []) + _digest(before[c.name], c)
        shared_files = {d.file for d in c.shared.values()}
        for finding in _judge(before[c.name], c, changes, levels):
            if finding.where.file in shared_files:
                shared.append((c.name, finding))
            else:
                findings.append(finding)
        names |= {Where(d.file, d.line, d.column): d.name for d in c.shared.values()}
    findings += _grouped(shared, names)
    findings += _shared_types(old, new, levels)
    shown = [f for f in findings if f.level is not Severity.OFF]
    return sorted(shown, key=lambda f: (f.where, f.rule, f.message))


# -- the ref ------------------------------------------------------------------------------------------------------


def _git(args: Sequence[str], cwd: Path) -> bytes | None:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, check=False, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise BreakingError(f"git cannot be run ({exc})") from None
    return done.stdout if done.returncode == 0 else None


def _load(config: ProjectConfig, ref: str) -> list[Contract]:
    """The contracts at the ref, read and modelled but not checked; none when its folder holds none.

    They passed the checks of their day; today's checks may be stricter, and
    the comparison needs only what they say.
    """
    from toolproof.generator.kinds import implied
    from toolproof.generator.model import build_contract
    from toolproof.generator.shared import SharedDefs, bundle, load_shared
    from toolproof.generator.source import load_source

    folder = config.contracts
    paths = sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml")) if folder.is_dir() else []
    contracts: list[Contract] = []
    within = (config.root, folder)
    shared = load_shared(folder, config.relative, within=within) if paths else SharedDefs()
    for path in paths:
        display = config.relative(path)
        source, problems = load_source(path, display, within=within)
        if source is None:
            raise BreakingError(f"the contracts at {ref} do not load: {problems[0]}")
        missing = [p for p in bundle(source, shared) if p.rule.name == "unresolved-ref"]
        if missing:
            raise BreakingError(f"the contracts at {ref} do not load: {missing[0]}")
        data = source.data
        if (
            isinstance(data, dict)
            and data.get("kind") in ("resource", "prompt")
            and isinstance(data.get("resource", {}), Mapping)
        ):
            implied(data)  # a resource's or prompt's output and annotations
        if not isinstance(data, Mapping) or not all(isinstance(data.get(k), Mapping) for k in ("input", "output")):
            raise BreakingError(f"the contracts at {ref} do not load: {display} is not a contract")
        try:
            contracts.append(build_contract(source, config.handlers))
        except (KeyError, TypeError, AttributeError, ValueError) as exc:
            raise BreakingError(f"the contracts at {ref} do not load: {display} is not a contract ({exc})") from None
    return contracts


def _from_folder(ref: str, folder: Path, config: ProjectConfig) -> list[Contract]:
    from toolproof.generator.project import config_for
    from toolproof.runtime.project import ProjectError

    folder = folder.resolve()
    try:
        found = config_for(folder)
    except ProjectError as exc:
        raise BreakingError(str(exc)) from None
    if found.config_file is None and not found.contracts.is_dir():
        if not (any(folder.glob("*.yaml")) or any(folder.glob("*.yml"))):
            raise BreakingError(f"{ref}: no contracts there (not a project, no contracts/ folder, no *.yaml)")
        found = dataclasses.replace(config, root=folder.parent, contracts=folder)
    return _load(found, ref)


def _entries_of(listing: bytes | None) -> list[tuple[str, str]]:
    """The (mode type object size, name) of each entry of a ``git ls-tree -l -z`` listing."""
    entries = (listing or b"").decode("utf-8").split("\0")
    return [(meta, name) for meta, _, name in (e.partition("\t") for e in entries) if name]


def _from_git(ref: str, config: ProjectConfig) -> list[Contract]:
    from toolproof.generator.source import MAX_CONTRACT_BYTES

    top = _git(["rev-parse", "--show-toplevel"], config.root)
    if top is None:
        raise BreakingError(f"{ref}: not a folder, and {config.root} is not in a git repository")
    commit = None
    if not ref.startswith("-"):  # never an option to git
        commit = _git(["rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}"], config.root)
    if commit is None:
        raise BreakingError(f"unknown git ref '{ref}' (and no folder of that name)")
    sha, root = commit.decode("ascii").strip(), Path(top.decode("utf-8").strip()).resolve()
    try:
        inside = config.contracts.resolve().relative_to(root).as_posix()
    except ValueError:
        raise BreakingError(f"the contracts folder {config.contracts} is outside the git repository") from None
    tree = sha if inside == "." else f"{sha}:{inside}"
    listing = _git(["ls-tree", "-l", "-z", tree], root)  # from the top: in a subfolder ls-tree lists only that
    if listing is None and _git(["cat-file", "-e", tree], root) is not None:
        raise BreakingError(f"{ref}: {inside} is not a folder there")
    blobs = []
    entries = _entries_of(listing)
    if (f"{SHARED_FOLDER}", "tree") in {(name, meta.split()[1]) for meta, name in entries if len(meta.split()) > 1}:
        shared = _git(
            ["ls-tree", "-l", "-z", f"{tree}/{SHARED_FOLDER}" if ":" in tree else f"{tree}:{SHARED_FOLDER}"], root
        )
        entries += [(meta, f"{SHARED_FOLDER}/{name}") for meta, name in _entries_of(shared)]
    for meta, name in entries:
        mode, kind, blob, size = [*meta.split(), "", "", "", ""][:4]
        if kind != "blob" or not name.endswith((".yaml", ".yml")):
            continue
        if mode == "120000":  # the blob holds the link's target, not a contract
            raise BreakingError(f"{ref}: {inside}/{name} is a symbolic link; a contract at a git ref must be a file")
        if size.isdigit() and int(size) > MAX_CONTRACT_BYTES:
            raise BreakingError(f"{ref}: {inside}/{name} is larger than {MAX_CONTRACT_BYTES} bytes, too large to read")
        blobs.append((name, blob))
    if not blobs:
        return []  # the ref is older than the contracts folder (or it is empty there): every tool is new
    try:
        local = config.contracts.relative_to(config.root)
    except ValueError:
        local = Path(config.contracts.name)
    with tempfile.TemporaryDirectory(prefix="toolproof-breaking-") as tmp:
        folder = Path(tmp) / local
        folder.mkdir(parents=True, exist_ok=True)
        (folder / SHARED_FOLDER).mkdir()
        for name, blob in blobs:  # the contracts and the shared definition files (_defs/) they use
            (folder / name).write_bytes(_git(["cat-file", "blob", blob], root) or b"")
        return _load(dataclasses.replace(config, root=Path(tmp), contracts=folder), ref)


def load_against(ref: str, config: ProjectConfig) -> list[Contract]:
    """The contracts to compare the project with, checked.

    Args:
        ref: a folder (a project, or a folder of contracts), ``toolproof==VERSION`` (the
            built-in contracts of the installed toolproof, which must be that version),
            or a git ref of the repository holding the project (its contracts folder there).
        config: the project's settings.

    Returns:
        The contracts at the ref; none when the ref exists but holds none (a git ref older
        than the contracts folder, a project or contracts folder without contracts): an
        empty baseline, against which every tool is new.

    Raises:
        BreakingError: the ref is empty or blank, or names nothing (an unknown git ref, a missing
            folder, a folder that is neither a project nor holds contracts), or its contracts do not load.
    """
    if not ref.strip():  # Path("") is the current folder: the project would be compared with itself and pass
        raise BreakingError(
            f"--against {ref!r} names no ref: pass a git ref (main, origin/main, a commit), a folder of contracts"
            " or toolproof==VERSION; in CI an empty value is a `git merge-base` that found no such ref"
        )
    if ref.startswith("toolproof=="):
        from toolproof import __version__
        from toolproof.runtime.project import builtin_project

        version = ref.removeprefix("toolproof==")
        if version != __version__:
            raise BreakingError(f"{ref}: the installed toolproof is {__version__}; install {version} or pass a folder")
        builtin = builtin_project()
        contracts = _load(builtin, ref)
        if not contracts:  # a broken install; never an empty baseline
            raise BreakingError(f"{ref}: no contracts in {builtin.contracts}")
        return contracts
    folder = Path(ref)
    if folder.is_dir():
        return _from_folder(ref, folder, config)
    return _from_git(ref, config)


# -- the report ---------------------------------------------------------------------------------------------------


def _escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if prop else text


def _github(finding: Finding) -> str:
    command = {"error": "error", "warning": "warning"}.get(finding.level.value, "notice")
    where = finding.where
    props = f"file={_escape(where.file, prop=True)},line={where.line},col={where.column},title={finding.rule}"
    return f"::{command} {props}::{_escape(f'{finding.category.value}: {finding.message}')}"


def report(
    findings: Sequence[Finding], fmt: str, *, against: str, contracts: int, fail_on: Severity
) -> tuple[str, bool]:
    """The report in ``fmt`` (text, json or github), and whether a finding is at or above ``fail_on``."""
    failed = any(f.level.rank >= fail_on.rank for f in findings)
    counts = Counter(f.level for f in findings)
    if failed:
        summary = (
            f"{counts[Severity.ERROR]} error(s), {counts[Severity.WARNING]} warning(s) "
            f"in {contracts} contract(s) against {against}"
        )
    else:
        summary = f"no breaking changes in {contracts} contract(s) against {against}"
    if fmt == "json":
        data = {
            "against": against,
            "contracts": contracts,
            "fail_on": fail_on.value,
            "failed": failed,
            "findings": [f.to_dict() for f in findings],
            "summary": summary,
        }
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n", failed
    if fmt == "github":
        return "".join(f"{_github(f)}\n" for f in findings) + summary + "\n", failed
    return "".join(f"{f}\n" for f in findings) + summary + "\n", failed
