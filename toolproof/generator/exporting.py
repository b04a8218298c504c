"""``toolproof export``: any format, for any selection of tools, as text for stdout."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.generator.artifacts import json_schemas, vectors
from toolproof.generator.exports import DEFINITION_FORMATS, export_definitions
from toolproof.generator.jsontext import dump_json
from toolproof.generator.losses import Loss
from toolproof.generator.model import Contract, HostEnums
from toolproof.generator.published import published_contract
from toolproof.generator.toolpage import render_docs
from toolproof.generator.typescript import shared_declarations, typescript_declarations

if TYPE_CHECKING:
    from toolproof.runtime.project import ProjectConfig

__all__ = ["export_text", "host_enums", "profile_export"]


def host_enums(enums: Mapping[str, list[str]], skills: Iterable[str | Path]) -> tuple[HostEnums, list[str]]:
    """``enums`` with the ``skills`` source filled as a host with these folders fills it, and the scan's problems.

    The skills are discovered as the runtime discovers them (built-in first, each
    folder overriding), and an empty catalogue gives read_skill's fallback enum.
    """
    from toolproof.builtin.skills.catalog import SkillCatalog, builtin_skills_dir

    catalog = SkillCatalog.discover(skills, builtin=builtin_skills_dir(), log=False)
    return HostEnums({**enums, "skills": catalog.enum_names()}), catalog.problems()


def export_text(fmt: str, contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> tuple[str, list[Loss]]:
    """The text of ``fmt`` for ``contracts``, and the losses it carries."""
    contracts = sorted(contracts, key=lambda c: c.module)
    if fmt in DEFINITION_FORMATS:
        exported = export_definitions(fmt, contracts, enums)
        return dump_json(exported.data), exported.losses
    if fmt == "jsonschema":
        data = [json_schemas(c, c.exported_input(enums)) for c in contracts]
        return dump_json(data[0] if len(data) == 1 else data), []
    if fmt == "contract":
        data = [published_contract(c, enums) for c in contracts]
        return dump_json(data[0] if len(data) == 1 else data), []
    if fmt == "vectors":
        data = [vectors(c) for c in contracts]
        return dump_json(data[0] if len(data) == 1 else data), []
    if fmt == "typescript":  # the TypeScript target serves tools only
        tools_only = [c for c in contracts if c.is_tool]
        shared = shared_declarations(tools_only)  # once, before the tools that use them (no import: one file)
        tools = [typescript_declarations(c, c.exported_input(enums), import_shared=False) for c in tools_only]
        return "\n".join([*([shared] if shared else []), *tools]), []
    if fmt == "docs":  # a tool's page shows its OpenAI definition; a resource's or prompt's its MCP entry
        definitions = {t["function"]["name"]: t for t in export_definitions("openai", contracts, enums).data}
        mcp = export_definitions("mcp", contracts, enums).data
        for key in ("resources", "resourceTemplates", "prompts"):
            definitions |= {entry["name"]: entry for entry in mcp.get(key, ())}
        return "\n---\n\n".join(render_docs(c, definitions[c.name]) for c in contracts), []
    raise ValueError(f"unknown format {fmt!r}")


def profile_export(
    profile: str, config: ProjectConfig, contracts: Sequence[Contract], enums: Mapping[str, list[str]]
) -> tuple[str, str, bool]:
    """The ``tools/list`` the host of ``profile`` accepts, the report of what that took, and whether all was clean.

    Each tool is rewritten as the host needs or left out when the host refuses it; the report names, per
    tool, its verdict, its token cost before and after (``tokens.py``), each loss and each reason for a refusal.
    """
    from toolproof.generator.fitness import server_name
    from toolproof.generator.profiles import PROFILES, apply_profile
    from toolproof.generator.tokens import counter, definition_text

    chosen = PROFILES[profile]
    contracts = sorted(contracts, key=lambda c: c.module)
    tools = export_definitions("mcp", contracts, enums).data["tools"]
    server = server_name(config)
    applied = apply_profile(chosen, tools, server)
    count = counter()
    lines = [
        f"{chosen.name}: {chosen.title}; server name '{server}';"
        f" tokens by {count.name} (an estimate for a host's model)"
    ]
    before_total = after_total = 0
    for original, outcome in zip(tools, applied, strict=True):
        before = count.count(definition_text(original))
        after = count.count(definition_text(outcome.definition)) if outcome.definition is not None else 0
        before_total += before
        after_total += after
        shown = f"{before} -> {after} tokens ({after - before:+d})" if outcome.definition is not None else "left out"
        lines.append(f"  {outcome.tool}: {outcome.verdict}; {shown}")
        lines += [
            f"    {loss.schema}{loss.pointer()}:{loss.keyword} {loss.action} ({loss.detail})" for loss in outcome.losses
        ]
        lines += [f"    refused: {why}" for why in outcome.refused]
    lines.append(f"  all tools: {before_total} -> {after_total} tokens ({after_total - before_total:+d})")
    lines.append("rules:")
    lines += [f"  {rule.name}: {rule.summary} ({', '.join(rule.sources)})" for rule in chosen.rules]
    accepted = [o.definition for o in applied if o.definition is not None]
    clean = all(o.verdict == "clean" for o in applied)
    return dump_json({"tools": accepted}), "\n".join(lines) + "\n", clean
