"""Client compatibility profiles: what each widely used MCP host or agent framework does to a tool definition.

A profile is a set of rules, each with the public source that documents or demonstrates it. Applied
to a tool as ``tools/list`` serves it (``exports.export_definitions("mcp", ...)``), each rule either
leaves the tool alone, rewrites it into what the host accepts (recorded as a ``Loss``, as the
provider exports record theirs), or refuses it: the host would reject the schema, fail the request
or leave the tool out, whatever the server does. ``toolproof export --for PROFILE`` writes the
rewritten ``tools/list``; ``toolproof lint --matrix`` shows every tool against every profile; a
project's ``[tool.toolproof.lint] profiles`` makes each refusal an error in CI.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from toolproof.generator.losses import Loss, pointer
from toolproof.generator.refs import resolve
from toolproof.generator.transforms import gemini_json_schema, openai_strict_schema

__all__ = ["PROFILES", "Applied", "Profile", "Rule", "apply_profile"]

Path = tuple[str | int, ...]

_MAPS: Final = ("properties", "patternProperties", "dependentSchemas")
_LISTS: Final = ("anyOf", "oneOf", "allOf", "prefixItems")
_SINGLE: Final = (
    *("items", "additionalProperties", "not", "if", "then", "else", "contains"),
    *("propertyNames", "unevaluatedItems", "unevaluatedProperties"),
)
"""Where a JSON Schema holds subschemas (every other keyword's value is data, copied as it is)."""
_OPENAI_NAME: Final = re.compile(r"[a-zA-Z0-9_-]{1,64}")


@dataclass(slots=True)
class _Tool:
    """One tool while a profile's rules run over it: its definition, what was rewritten and why it is refused."""

    definition: dict[str, Any]
    losses: list[Loss] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Context:
    """What a rule may need beside the tool: the profile's name, the server's name, the tool's place in the set."""

    profile: str
    server: str
    index: int


@dataclass(frozen=True, slots=True)
class Rule:
    """One thing a host does to tool definitions, and the public sources that show it."""

    name: str
    summary: str
    sources: tuple[str, ...]
    apply: Callable[[_Tool, Context], None]


def _loss(tool: _Tool, ctx: Context, which: str, path: Path, keyword: str, action: str, detail: str) -> None:
    name = tool.definition["name"]
    tool.losses.append(Loss(ctx.profile, name, which, path, keyword, action, detail))


def _size(node: Any) -> int:
    return len(json.dumps(node, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def _inline(schema: Any, emit: Callable[[Path, str, str, str], None], refuse: Callable[[str], None]) -> Any:
    """``schema`` with every local ``$ref`` replaced by what it points at and ``$defs`` removed."""

    def visit(node: Any, path: Path, seen: tuple[str, ...]) -> Any:
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            if ref in seen:
                refuse(f"{pointer(path) or '(root)'}: $ref {ref} is recursive, so no inlining can remove it")
                return {}
            found, target = resolve(schema, ref)
            if not found:
                refuse(f"{pointer(path) or '(root)'}: $ref {ref} resolves to nothing")
                return {}
            siblings = {k: v for k, v in node.items() if k != "$ref"}
            merged = {**target, **siblings} if isinstance(target, dict) else target if not siblings else siblings
            emit(
                path, "$ref", "inlined", f"the definition is copied in, +{_size(merged) - _size(node)} bytes of schema"
            )
            return visit(merged, path, (*seen, ref))
        if isinstance(node.get("$dynamicRef"), str):
            refuse(f"{pointer(path) or '(root)'}: $dynamicRef cannot be inlined")
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in ("$defs", "definitions", "$anchor", "$dynamicAnchor"):
                if not path:
                    emit(path, key, "dropped", "every $ref to it is inlined")
                continue
            if key in _MAPS and isinstance(value, dict):
                out[key] = {n: visit(s, (*path, key, n), seen) for n, s in value.items()}
            elif key in _LISTS and isinstance(value, list):
                out[key] = [visit(s, (*path, key, i), seen) for i, s in enumerate(value)]
            elif key in _SINGLE:
                out[key] = visit(value, (*path, key), seen)
            else:
                out[key] = value
        return out

    return visit(schema, (), ())


def _schemas(tool: _Tool) -> list[tuple[str, str]]:
    return [
        (key, which) for key, which in (("inputSchema", "input"), ("outputSchema", "output")) if key in tool.definition
    ]


def _inline_refs(tool: _Tool, ctx: Context) -> None:
    for key, which in _schemas(tool):
        schema = tool.definition[key]
        if "$ref" not in json.dumps(schema) and not any(k in schema for k in ("$defs", "definitions")):
            continue

        def emit(path: Path, keyword: str, action: str, detail: str, which: str = which) -> None:
            _loss(tool, ctx, which, path, keyword, action, detail)

        def refuse(why: str, which: str = which) -> None:
            tool.refused.append(f"{which}{why if why.startswith('/') else ' ' + why}")

        tool.definition[key] = _inline(schema, emit, refuse)


def _union_items(tool: _Tool, ctx: Context) -> None:
    """An array's ``items`` typed ``[object, null]`` (or any union holding object): narrowed, or refused."""

    def visit(node: Any, path: Path) -> Any:
        if isinstance(node, list):
            return [visit(v, (*path, i)) for i, v in enumerate(node)]
        if not isinstance(node, dict):
            return node
        out = {
            k: visit(v, (*path, k)) if k not in ("enum", "const", "default", "examples") else v for k, v in node.items()
        }
        items = out.get("items")
        if isinstance(items, dict) and isinstance(items.get("type"), list) and "object" in items["type"]:
            rest = [t for t in items["type"] if t != "null"]
            if len(rest) == 1:
                out["items"] = {**items, "type": rest[0]}
                detail = "the model no longer sends null items; the runtime still accepts them"
                _loss(tool, ctx, "input", (*path, "items"), "type", "narrowed to object", detail)
            else:
                tool.refused.append(
                    f"input{pointer((*path, 'items'))}: items typed {items['type']} (a union with object)"
                )
        return out

    tool.definition["inputSchema"] = visit(tool.definition["inputSchema"], ())


def _openai_strict(tool: _Tool, ctx: Context) -> None:
    rewrite = openai_strict_schema(tool.definition["inputSchema"], tool.definition["name"], ctx.profile)
    if not rewrite.strict:
        tool.refused.append(
            f"input cannot be made strict, and the host binds it strict (HTTP 400): {rewrite.why_not_strict}"
        )
        return
    tool.losses.extend(rewrite.losses)
    tool.definition["inputSchema"] = rewrite.schema


def _gemini(tool: _Tool, ctx: Context) -> None:
    for key, which in _schemas(tool):
        rewrite = gemini_json_schema(tool.definition[key], tool.definition["name"], which)
        tool.losses.extend(
            Loss(ctx.profile, loss.tool, loss.schema, loss.path, loss.keyword, loss.action, loss.detail)
            for loss in rewrite.losses
        )
        tool.definition[key] = rewrite.schema


def _drop(keywords: tuple[str, ...], why: str) -> Callable[[_Tool, Context], None]:
    def apply(tool: _Tool, ctx: Context) -> None:
        def visit(node: Any, path: Path) -> Any:
            if isinstance(node, list):
                return [visit(v, (*path, i)) for i, v in enumerate(node)]
            if not isinstance(node, dict):
                return node
            out: dict[str, Any] = {}
            for key, value in node.items():
                if key in keywords and not (path and path[-1] in _MAPS):
                    _loss(tool, ctx, "input", path, key, "dropped", why)
                    continue
                out[key] = value if key in ("enum", "const", "default") else visit(value, (*path, key))
            return out

        tool.definition["inputSchema"] = visit(tool.definition["inputSchema"], ())

    return apply


def _root_object(tool: _Tool, ctx: Context) -> None:
    schema = tool.definition["inputSchema"]
    found = [k for k in ("anyOf", "oneOf", "allOf", "not", "enum") if k in schema]
    if found or schema.get("type") != "object":
        why = f"{', '.join(found)} at the top level" if found else "a top level that is not type: object"
        tool.refused.append(f"input: {why}, which the API refuses in a tool's parameters")


def _name_within(prefix: str, limit: int) -> Callable[[_Tool, Context], None]:
    def apply(tool: _Tool, ctx: Context) -> None:
        full = prefix.format(server=ctx.server) + tool.definition["name"]
        if len(full) > limit:
            tool.refused.append(f"the name the model sees, '{full}', has {len(full)} characters; the limit is {limit}")

    return apply


def _name_pattern(pattern: str, shown: str) -> Callable[[_Tool, Context], None]:
    compiled = re.compile(pattern)

    def apply(tool: _Tool, ctx: Context) -> None:
        if not compiled.fullmatch(tool.definition["name"]):
            tool.refused.append(f"the name '{tool.definition['name']}' is not {shown}")

    return apply


def _description_within(limit: int) -> Callable[[_Tool, Context], None]:
    def apply(tool: _Tool, ctx: Context) -> None:
        length = len(tool.definition.get("description", ""))
        if length > limit:
            tool.refused.append(f"the description has {length} characters; the API refuses more than {limit}")

    return apply


def _first(limit: int) -> Callable[[_Tool, Context], None]:
    def apply(tool: _Tool, ctx: Context) -> None:
        if ctx.index >= limit:
            tool.refused.append(
                f"it is tool {ctx.index + 1} of the set, and only the first {limit} are sent to the model"
            )

    return apply


_INLINE_GEMINI = Rule(
    "inline-refs",
    "$ref and $defs are rejected: every reference is inlined; a recursive one cannot be, and the tool is refused.",
    ("google-gemini/gemini-cli#13326", "google-gemini/gemini-cli#13142"),
    _inline_refs,
)
_LIMIT_DESCRIPTION = Rule(
    "description-1024",
    "OpenAI refuses a function description over 1,024 characters (string_above_max_length).",
    ("getsentry/sentry-mcp#106", "langchain-ai/open_deep_research#80"),
    _description_within(1024),
)
_OPENAI_NAMES = Rule(
    "name-pattern",
    "A function name must match ^[a-zA-Z0-9_-]{1,64}$.",
    ("https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools",),
    _name_pattern(_OPENAI_NAME.pattern, "1 to 64 of a-z, A-Z, 0-9, _ and -"),
)
_ROOT_OBJECT = Rule(
    "root-object",
    "The top level of the parameters must be type: object, without anyOf, oneOf, allOf, not or enum.",
    ("aliargun/mcp-server-gemini#8", "https://platform.openai.com/docs/guides/structured-outputs#supported-schemas"),
    _root_object,
)


@dataclass(frozen=True, slots=True)
class Profile:
    """A host or framework: its name (``--for``), what it is, and its rules in the order they apply."""

    name: str
    title: str
    rules: tuple[Rule, ...]


PROFILES: Final[dict[str, Profile]] = {
    p.name: p
    for p in (
        Profile(
            "claude",
            "Claude Desktop and Claude Code (Anthropic Messages API behind them)",
            (
                Rule(
                    "prefixed-name-64",
                    "Claude Code names a tool mcp__<server>__<tool> and the API refuses a name over 64 characters.",
                    ("anthropics/claude-code#2485", "anthropics/claude-code#20643"),
                    _name_within("mcp__{server}__", 64),
                ),
                Rule(
                    "root-object",
                    "input_schema does not support oneOf, allOf or anyOf at the top level (HTTP 400).",
                    ("aliargun/mcp-server-gemini#8",),
                    _root_object,
                ),
            ),
        ),
        Profile(
            "cursor",
            "Cursor",
            (
                Rule(
                    "server-and-name-60",
                    "Cursor filters out a tool whose server name and tool name together reach 60 characters"
                    " (a 1-character server and a 59-character tool are reported as exceeding the limit).",
                    ("executeautomation/mcp-playwright#145", "ComposioHQ/composio#2788"),
                    _name_within("{server}", 59),
                ),
                Rule(
                    "first-40-tools",
                    "Cursor sends only the first 40 tools to the agent.",
                    ("bun913/mcp-testrail#6", "anyproto/anytype-mcp#5"),
                    _first(40),
                ),
            ),
        ),
        Profile(
            "vscode-copilot",
            "VS Code with GitHub Copilot Chat",
            (
                Rule(
                    "lowercase-name",
                    "VS Code ignores a tool whose name holds anything but a-z, 0-9, _ and -.",
                    ("ArtisanGameworks/SpecialAgentPlugin#4",),
                    _name_pattern(r"[a-z0-9_-]+", "made of a-z, 0-9, _ and - only"),
                ),
                Rule(
                    "prefixed-name-64",
                    "VS Code prefixes the tool name with the server's (mcp_<server>_), and the model API refuses"
                    " names over 64 characters.",
                    ("microsoft/vscode#243602",),
                    _name_within("mcp_{server}_", 64),
                ),
                Rule(
                    "first-128-tools",
                    "Copilot Chat refuses a request with more than 128 tools.",
                    ("microsoft/vscode-copilot-release#11653", "Azure/azure-mcp#372"),
                    _first(128),
                ),
            ),
        ),
        Profile(
            "copilot-cli",
            "GitHub Copilot CLI (any model it offers, Gemini included)",
            (
                Rule(
                    "inline-refs",
                    "$defs fail; every reference is inlined, a recursive one refused.",
                    ("github/copilot-cli#1876",),
                    _inline_refs,
                ),
                Rule(
                    "no-union-items",
                    "An array's items typed as a union with object makes every Gemini request of the session fail"
                    " (HTTP 400, no tool named): [object, null] is narrowed to object, any other union refused.",
                    ("github/copilot-cli#4623", "github/copilot-cli#4155"),
                    _union_items,
                ),
            ),
        ),
        Profile(
            "gemini-cli",
            "Gemini CLI (Gemini API parametersJsonSchema)",
            (
                _INLINE_GEMINI,
                Rule(
                    "gemini-json-schema",
                    "The Gemini API mishandles title, examples, const, format and exclusive bounds: rewritten as the"
                    " gemini export does.",
                    ("googleapis/python-genai#1732", "vercel/ai#19662"),
                    _gemini,
                ),
            ),
        ),
        Profile(
            "bedrock-agentcore",
            "Amazon Bedrock AgentCore Gateway",
            (
                Rule(
                    "inline-refs",
                    "The gateway rejects $ref, $defs, $anchor, $dynamicRef and $dynamicAnchor (Invalid tool schema,"
                    " $ref is not supported): every reference is inlined, a recursive one refused.",
                    ("PrefectHQ/fastmcp#3655", "awslabs/mcp#2442", "PrefectHQ/fastmcp#3141"),
                    _inline_refs,
                ),
            ),
        ),
        Profile(
            "openai-agents",
            "OpenAI Agents SDK (MCP tools as function tools; strict only with convert_schemas_to_strict)",
            (_OPENAI_NAMES, _LIMIT_DESCRIPTION, _ROOT_OBJECT),
        ),
        Profile(
            "openai-responses-mcp",
            "OpenAI Responses API, remote MCP tool (type: mcp)",
            (_OPENAI_NAMES, _LIMIT_DESCRIPTION, _ROOT_OBJECT),
        ),
        Profile(
            "langchain-mcp-adapters",
            "LangChain MCP adapters bound to an OpenAI model by createAgent (strict: true)",
            (
                _OPENAI_NAMES,
                _LIMIT_DESCRIPTION,
                Rule(
                    "openai-strict",
                    "createAgent binds MCP tools with strict: true: the schema is rewritten as the openai export's"
                    " strict form, and a schema that cannot be strict is refused (HTTP 400).",
                    ("langchain-ai/langchainjs#9496", "langchain-ai/langchain#34596"),
                    _openai_strict,
                ),
            ),
        ),
        Profile(
            "pydantic-ai",
            "pydantic-ai (MCP toolsets; per-model schema transformers)",
            (
                _OPENAI_NAMES,
                _LIMIT_DESCRIPTION,
                Rule(
                    "gemini-drops-title-examples",
                    "pydantic-ai's Gemini transformer silently drops title and examples.",
                    ("pydantic/pydantic-ai#6353",),
                    _drop(("title", "examples"), "pydantic-ai's Gemini transformer drops it; documentation only"),
                ),
            ),
        ),
    )
}
"""Every profile, by name."""


@dataclass(frozen=True, slots=True)
class Applied:
    """One tool under one profile: the definition the host accepts (None when refused), what changed, and why not."""

    tool: str
    definition: dict[str, Any] | None
    losses: tuple[Loss, ...]
    refused: tuple[str, ...]

    @property
    def verdict(self) -> str:
        """``refused``, ``rewritten`` or ``clean``."""
        return "refused" if self.refused else "rewritten" if self.losses else "clean"


def apply_profile(profile: Profile, tools: Sequence[Mapping[str, Any]], server: str) -> list[Applied]:
    """Each tool of one ``tools/list`` (as the mcp export writes it) as the host of ``profile`` takes it.

    Args:
        profile: the host's profile.
        tools: the tools' MCP definitions, in the order the server lists them.
        server: the name the host gives the server (some hosts prefix tool names with it).
    """
    out: list[Applied] = []
    for index, definition in enumerate(tools):
        tool = _Tool(json.loads(json.dumps(definition)))
        ctx = Context(profile.name, server, index)
        for rule in profile.rules:
            rule.apply(tool, ctx)
        refused = tuple(dict.fromkeys(tool.refused))
        out.append(Applied(definition["name"], None if refused else tool.definition, tuple(tool.losses), refused))
    return out
