"""The published contract format (``generator/published.py``): its schema, and that it holds what conform reads."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from jsonschema import Draft202012Validator

from toolproof.cli import cli
from toolproof.generator import load_project
from toolproof.generator.artifacts import vectors
from toolproof.generator.model import Contract
from toolproof.generator.published import (
    CONTRACT_FORMAT_ID,
    ERROR_META_ID,
    FORMAT_VERSION,
    contract_format_schema,
    error_meta_schema,
    published_contract,
)
from toolproof.runtime.digests import DIGEST_META_KEY, digest
from toolproof.runtime.errors import STANDARD_ERRORS
from toolproof.runtime.project import builtin_project
from toolproof.runtime.result import ToolResult
from toolproof.runtime.serve.mcp import ERROR_META_KEY, MCP_EXPORT, McpServer
from toolproof.runtime.spec import ToolSpec, generated_json, load_specs
from toolproof.runtime.toolbox import builtin_runtime
from toolproof.testing.answers import expectation, read_result
from toolproof.testing.replay import TEST_DIR, check_expectation, run_example, substitute

CASES = Path(__file__).parent / "cases"
META_SCHEMA = json.loads((Path(__file__).parents[2] / "toolproof/generator/contract.schema.json").read_text("utf-8"))


def _builtin() -> tuple[list[Contract], dict[str, list[str]]]:
    project = load_project(builtin_project())
    return list(project.served), project.enum_sources()


def _documents() -> Iterator[tuple[str, dict[str, Any]]]:
    contracts, enums = _builtin()
    for c in contracts:
        yield f"builtin:{c.name}", published_contract(c, enums)
    for case in sorted(p for p in CASES.iterdir() if p.is_dir()):
        project = load_project(case)
        for c in project.served:
            yield f"{case.name}:{c.name}", published_contract(c, project.enum_sources())


DOCUMENTS = dict(_documents())
BUILTIN = {key.removeprefix("builtin:"): doc for key, doc in DOCUMENTS.items() if key.startswith("builtin:")}


def test_the_format_schemas_are_json_schemas_with_their_id() -> None:
    for schema, id_ in ((contract_format_schema(), CONTRACT_FORMAT_ID), (error_meta_schema(), ERROR_META_ID)):
        Draft202012Validator.check_schema(schema)
        assert schema["$id"] == id_


def test_the_golden_cases_include_the_shared_case() -> None:
    assert any(key.startswith("shared:") for key in DOCUMENTS)


@pytest.mark.parametrize("key", sorted(DOCUMENTS))
def test_every_builtin_and_golden_contract_publishes_a_valid_document(key: str) -> None:
    document = DOCUMENTS[key]
    errors = [
        f"{e.json_path}: {e.message}" for e in Draft202012Validator(contract_format_schema()).iter_errors(document)
    ]
    assert errors == []
    assert document["$schema"] == CONTRACT_FORMAT_ID
    assert document["format_version"] == FORMAT_VERSION


def _refs(node: Any) -> Iterator[str]:
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_a_document_is_self_contained_json() -> None:
    for document in DOCUMENTS.values():
        assert json.loads(json.dumps(document)) == document
        for schema in (document["input"], document["output"]):
            assert all(ref.startswith("#") for ref in _refs(schema))  # shared definitions bundled in


def test_the_format_takes_the_contract_meta_schemas_example_rules_as_they_are() -> None:
    schema = contract_format_schema()
    for name in ("example", "given", "fixture", "expect"):
        assert schema["$defs"][name] == META_SCHEMA["$defs"][name], name
    for name in ("name", "version", "title", "description", "annotations"):
        assert schema["properties"][name] == META_SCHEMA["properties"][name], name
    for name in ("symlinks", "hardlinks", "skill_gate"):
        assert schema["properties"]["settings"]["properties"][name] == META_SCHEMA["properties"][name], name


def test_export_format_contract_prints_one_document_per_tool() -> None:
    one = CliRunner().invoke(cli, ["export", "--format", "contract", "--tool", "get_skill"])
    every = CliRunner().invoke(cli, ["export", "--format", "contract"])

    assert one.exit_code == 0, one.output
    assert json.loads(one.output) == BUILTIN["get_skill"]
    assert [d["name"] for d in json.loads(every.output)] == sorted(BUILTIN, key=lambda n: n.replace("-", "_"))


def test_a_dynamic_enum_is_published_as_host_filled_with_its_default() -> None:
    document = BUILTIN["read_skill"]

    assert "enum" not in document["input"]["properties"]["skill_name"]
    assert document["dynamic_enums"]["skill_name"] == {
        "source": "skills",
        "pointer": "/properties/skill_name",
        "default": ["data_analysis", "test_data_factory"],
        "default_from": "generation",
        "note": document["dynamic_enums"]["skill_name"]["note"],
    }


def test_the_vectors_name_the_contract_format_they_come_from() -> None:
    contracts, _ = _builtin()
    made = vectors(next(c for c in contracts if c.name == "get_skill"))

    assert made["contract"] == {
        "$schema": CONTRACT_FORMAT_ID,
        "format_version": FORMAT_VERSION,
        "export": "toolproof export --format contract --tool get_skill",
    }


# --- the round trip: conform's reading code driven from the published document alone ------------------------


def _spec(document: Mapping[str, Any]) -> ToolSpec:
    """The spec conform reads, built from nothing but a published document."""
    return ToolSpec.from_data(
        {
            "name": document["name"],
            "module": "published",
            "handler": "published:handle",
            "input": document["input"],
            "output": document["output"],
            "errors": {code: {k: v for k, v in e.items() if k != "params"} for code, e in document["errors"].items()},
            "render": document["render"],
            "toolsets": document["toolsets"],
            "needs": document["needs"],
            **document["settings"],
            "dynamic_enums": {name: e["source"] for name, e in document["dynamic_enums"].items()},
            "examples": document["examples"],
            "source": "published",
            **({"timeout": document["timeout"]} if document["timeout"] is not None else {}),
            "attaches": document["attaches"],
            **{key: document[key] for key in ("kind", "resource", "completions") if key in document},
        }
    )


def _listed(document: Mapping[str, Any]) -> dict[str, Any]:
    """The MCP tools/list entry the specification page says a server lists for the document's tool."""
    properties = dict(document["input"].get("properties", {}))
    for name, enum in document["dynamic_enums"].items():
        field = {**properties[name], "enum": enum["default"]}
        if "note" in enum:
            field["description"] = f"{field['description']} {enum['note']}" if "description" in field else enum["note"]
        properties[name] = field
    schema = {**document["input"], "properties": properties} if document["dynamic_enums"] else document["input"]
    hints = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")
    keys = ("read_only", "destructive", "idempotent", "open_world")
    entry = {
        "name": document["name"],
        "title": document["title"],
        "description": document["description"],
        "inputSchema": schema,
        "outputSchema": document["output"],
        "annotations": {
            "title": document["title"],
            **{hint: document["annotations"][key] for hint, key in zip(hints, keys, strict=True)},
        },
    }
    # the digest of the entry as a host lists it: `input` as published, each dynamic enum's values left out
    pinned = digest({**entry, "inputSchema": document["input"]}, document["dynamic_enums"])
    return {**entry, "_meta": {DIGEST_META_KEY: pinned}}


@pytest.mark.parametrize("spec", load_specs(), ids=lambda s: s.name)
def test_the_published_document_holds_every_field_conform_reads(spec: ToolSpec) -> None:
    document = BUILTIN[spec.name]
    published = _spec(document)

    for field in ("name", "input_schema", "output_schema", "errors", "render_result", "render_error"):
        assert getattr(published, field) == getattr(spec, field), field
    for field in ("render_error_output", "settings", "dynamic_enums", "examples", "needs", "toolsets", "timeout"):
        assert getattr(published, field) == getattr(spec, field), field
    for field in ("kind", "resource", "completions"):
        assert getattr(published, field) == getattr(spec, field), field
    assert published.attaches == spec.attaches
    standard = {code: (e["message"], e.get("hint"), e["status"]) for code, e in document["standard_errors"].items()}
    assert standard == {code: (s.message, s.hint, s.status) for code, s in STANDARD_ERRORS.items()}


def test_the_published_documents_list_each_tool_as_the_mcp_export_does() -> None:
    exported = {t["name"]: t for t in generated_json("toolproof.builtin.generated", MCP_EXPORT)["tools"]}

    tools = {name: _listed(document) for name, document in BUILTIN.items() if "kind" not in document}
    assert tools == exported


def test_the_published_resource_and_prompt_documents_say_their_kind_as_the_mcp_export_lists_them() -> None:
    exported = generated_json("toolproof.builtin.generated", MCP_EXPORT)
    templates = {t["name"]: t for t in exported["resourceTemplates"]}
    prompts = {p["name"]: p for p in exported["prompts"]}

    resources = {name: d for name, d in BUILTIN.items() if d.get("kind") == "resource"}
    assert {name: (d["resource"]["uri"], d["resource"]["mime_type"]) for name, d in resources.items()} == {
        name: (t["uriTemplate"], t["mimeType"]) for name, t in templates.items()
    }
    published_prompts = {name: d for name, d in BUILTIN.items() if d.get("kind") == "prompt"}
    assert {name: sorted(d["input"]["properties"]) for name, d in published_prompts.items()} == {
        name: sorted(a["name"] for a in p["arguments"]) for name, p in prompts.items()
    }


def _examples() -> Iterator[Any]:
    for name, document in sorted(BUILTIN.items()):
        for example in document["examples"]:
            if example["expect"].get("error") == "unknown_tool":
                continue  # over MCP a tool not served is a JSON-RPC error, which conform reads apart (mcp._refusal)
            yield pytest.param(name, example, id=f"{name}:{example['name']}")


def _payload(result: ToolResult, *, meta: bool) -> dict[str, Any]:
    """The CallToolResult toolproof's MCP server sends for ``result`` (``serve/mcp.py``), with or without _meta."""
    payload = result.to_mcp()
    if meta and result.error is not None:
        payload["_meta"] = {ERROR_META_KEY: result.error.to_dict()}
    return payload


@pytest.mark.parametrize(("tool", "example"), list(_examples()))
def test_conform_reads_each_builtin_answer_by_the_published_document_alone(
    tool: str, example: dict[str, Any], tmp_path: Path
) -> None:
    module = tool.replace("-", "_")
    result = run_example(module, example["name"], tmp_path)
    published = _spec(BUILTIN[tool])
    example = substitute(example, TEST_DIR, str(tmp_path.resolve()))

    for meta in (True, False):
        if not meta and "error_output" in example["expect"]:
            continue  # without _meta the error's output is in no place conform reads (issue 23, item 3)
        raw = _payload(result, meta=meta)
        read = read_result(published, raw, example)
        check_expectation(example["name"], expectation(published, example["expect"], raw), read)


# --- the _meta extension -----------------------------------------------------------------------------------


def _call(server: McpServer, request_id: int, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
    message = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments},
    }
    answer = server.answer(message, modern=False)
    assert answer is not None
    result: dict[str, Any] = answer["result"]
    return result


def test_the_error_meta_schema_accepts_what_our_mcp_server_sends(tmp_path: Path) -> None:
    (tmp_path / "skills" / "calc").mkdir(parents=True)
    (tmp_path / "skills" / "calc" / "SKILL.md").write_text("# Calc\n", encoding="utf-8")
    server = McpServer(builtin_runtime(skills=[tmp_path / "skills"], gate_secret=b"x" * 32), handshake=False)
    validator = Draft202012Validator(error_meta_schema())

    sent = [
        _call(server, 1, "read_file_in_skill", {"skill_name": "calc", "file_path": "../../etc/passwd"}),
        _call(server, 2, "get_skill", {"skill_name": "calc", "extra": 1}),
        _call(server, 3, "get_skill", {"skill_name": "nonexistent"}),
    ]

    for result in sent:
        assert result["isError"] is True
        errors = [e.message for e in validator.iter_errors(result["_meta"][ERROR_META_KEY])]
        assert errors == []
    assert "output" in sent[0]["_meta"][ERROR_META_KEY]  # read_file_in_skill's render.error_output
    assert sent[1]["_meta"][ERROR_META_KEY]["code"] == "invalid_arguments"


def test_the_error_meta_schema_refuses_an_error_without_its_code() -> None:
    validator = Draft202012Validator(error_meta_schema())

    assert not validator.is_valid({"message": "no code"})
    assert not validator.is_valid({"code": "x", "message": "m", "extra": 1})
