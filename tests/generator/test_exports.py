"""Every exported format is accepted by the provider's own typed models, and follows the published rules."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any, get_type_hints

import pytest
from pydantic import TypeAdapter

ROOT = Path(__file__).parents[2]
EXPORTS = ROOT / "toolproof/builtin/generated" / "exports"
SETS = sorted(p.stem for p in (EXPORTS / "openai").glob("*.json") if p.stem != "losses")
TSC = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "tsc"

OPENAI_STRICT_UNSUPPORTED = {
    "minLength", "maxLength", "patternProperties", "unevaluatedProperties", "propertyNames", "minProperties",
    "maxProperties", "unevaluatedItems", "contains", "uniqueItems", "allOf", "not", "if", "then", "else",
    "dependentRequired", "dependentSchemas", "default", "title", "oneOf",
}  # fmt: skip
ANTHROPIC_STRICT_UNSUPPORTED = {
    "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength", "maxLength",
    "maxItems", "uniqueItems", "contains", "patternProperties", "propertyNames", "oneOf", "title",
}  # fmt: skip


def _load(fmt: str, name: str) -> Any:
    return json.loads((EXPORTS / fmt / f"{name}.json").read_text(encoding="utf-8"))


def _keys(typed_dict: Any) -> set[str]:
    return set(get_type_hints(typed_dict))


def _nodes(schema: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            out.append(node)
            for key in ("properties", "$defs"):
                stack.extend(node.get(key, {}).values())
            for key in ("items", "additionalProperties"):
                if isinstance(node.get(key), dict):
                    stack.append(node[key])
            for key in ("anyOf", "oneOf", "allOf"):
                stack.extend(node.get(key, []))
    return out


def _openai_strict_rules(schema: dict[str, Any]) -> None:
    assert schema["type"] == "object"
    for node in _nodes(schema):
        assert not OPENAI_STRICT_UNSUPPORTED & set(node), node
        if node.get("type") == "object" or "properties" in node:
            assert node.get("additionalProperties") is False, node
            assert sorted(node.get("required", [])) == sorted(node.get("properties", {})), node


@pytest.mark.parametrize("toolset", SETS)
def test_openai_chat_definitions_validate_and_follow_strict_rules(toolset: str) -> None:
    from openai.types.chat import ChatCompletionFunctionToolParam
    from openai.types.shared_params import FunctionDefinition

    for tool in _load("openai", toolset):
        TypeAdapter(ChatCompletionFunctionToolParam).validate_python(tool)
        assert set(tool) <= _keys(ChatCompletionFunctionToolParam)
        assert set(tool["function"]) <= _keys(FunctionDefinition)
        assert "strict" in tool["function"], "strict is always explicit"
        if tool["function"]["strict"]:
            _openai_strict_rules(tool["function"]["parameters"])


@pytest.mark.parametrize("toolset", SETS)
def test_openai_responses_definitions_validate(toolset: str) -> None:
    from openai.types.responses import FunctionToolParam

    for tool in _load("openai-responses", toolset):
        TypeAdapter(FunctionToolParam).validate_python(tool)
        assert set(tool) <= _keys(FunctionToolParam)
        assert isinstance(tool["strict"], bool)
        if tool["strict"]:
            _openai_strict_rules(tool["parameters"])


@pytest.mark.parametrize("toolset", SETS)
def test_anthropic_definitions_validate_and_keep_to_request_budgets(toolset: str) -> None:
    from anthropic.types import ToolParam

    strict_tools = optional = 0
    for tool in _load("anthropic", toolset):
        TypeAdapter(ToolParam).validate_python(tool)
        assert set(tool) <= _keys(ToolParam)
        assert tool["input_schema"]["type"] == "object"
        if tool["strict"]:
            strict_tools += 1
            for node in _nodes(tool["input_schema"]):
                assert not ANTHROPIC_STRICT_UNSUPPORTED & set(node), node
                if node.get("type") == "object":
                    assert node["additionalProperties"] is False
                    optional += len(set(node.get("properties", {})) - set(node.get("required", [])))
        for example in tool.get("input_examples", []):
            from jsonschema import Draft202012Validator

            assert Draft202012Validator(tool["input_schema"]).is_valid(example), example
    assert strict_tools <= 20 and optional <= 24


@pytest.mark.parametrize("toolset", SETS)
def test_mcp_definitions_validate_with_all_four_hints(toolset: str) -> None:
    from mcp import types

    listing = types.ListToolsResult.model_validate(_load("mcp", toolset))
    for tool in listing.tools:
        assert tool.input_schema["type"] == "object"
        assert tool.output_schema is not None and tool.output_schema["type"] == "object"
        assert tool.annotations is not None
        hints = tool.annotations.model_dump(exclude_none=True)
        assert {"read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"} <= set(hints)


@pytest.mark.parametrize("fmt", ["gemini", "gemini-openapi"])
@pytest.mark.parametrize("toolset", SETS)
def test_gemini_definitions_validate_against_the_sdk(fmt: str, toolset: str) -> None:
    from google.genai import types

    tool = types.Tool.model_validate(_load(fmt, toolset))

    assert tool.function_declarations
    for declaration in tool.function_declarations:
        if fmt == "gemini":
            assert declaration.parameters_json_schema is not None and declaration.parameters is None
        else:
            assert declaration.parameters is not None and declaration.parameters_json_schema is None


def test_every_loss_is_explained_and_no_limit_is_broken() -> None:
    for report_path in EXPORTS.glob("*/losses.json"):
        report = json.loads(report_path.read_text(encoding="utf-8"))
        for name, entry in report.items():
            assert entry["limits"] == [], (report_path, name)
            for loss in entry["losses"]:
                assert loss["action"] and len(loss["detail"]) > 20, loss


def test_the_dynamic_enum_lists_the_builtin_skills_in_every_export() -> None:
    openai = {t["function"]["name"]: t for t in _load("openai", "all")}
    mcp = {t["name"]: t for t in _load("mcp", "all")["tools"]}

    assert openai["read_skill"]["function"]["parameters"]["properties"]["skill_name"]["enum"] == [
        "data_analysis",
        "test_data_factory",
    ]
    assert mcp["read_skill"]["inputSchema"]["properties"]["skill_name"]["enum"] == [
        "data_analysis",
        "test_data_factory",
    ]


def test_json_schema_exports_are_valid_2020_12_documents() -> None:
    from jsonschema import Draft202012Validator

    for path in (EXPORTS / "jsonschema").glob("*.json"):
        document = json.loads(path.read_text(encoding="utf-8"))
        Draft202012Validator.check_schema(document)
        assert set(document["$defs"]) == {"Input", "Output", "Error"}
        assert "internal_error" in document["$defs"]["Error"]["properties"]["code"]["enum"]


def test_typescript_declarations_compile_under_strict() -> None:
    files = sorted(str(p) for p in (EXPORTS / "typescript").glob("*.d.ts"))
    golden = sorted(str(p) for p in (ROOT / "tests/generator/cases").glob("*/generated/exports/typescript/*.d.ts"))
    assert TSC.exists(), "the TypeScript compiler is installed by `make gen` (npm, into .venv/node)"

    done = subprocess.run(
        [str(TSC), "--noEmit", "--strict", *files, *golden], capture_output=True, text=True, timeout=300, check=False
    )

    assert done.returncode == 0, done.stdout + done.stderr


def test_every_tool_has_a_doc_in_the_shape_of_the_seed_documents() -> None:
    for module in ("read_file_in_skill", "get_skill", "read_skill", "file_read", "read_file"):
        text = (ROOT / "toolproof/builtin/generated" / "docs" / f"{module}.md").read_text(encoding="utf-8")
        for heading in ("## Tool Definition", "## Input", "## Output", "## Errors", "## Examples"):
            assert heading in text, (module, heading)
