"""What the exports show of a contract's examples: only calls that succeed as a demonstration, expectations as written.

Anthropic shows ``input_examples`` to the model as how to call the tool, and an
OpenAPI request example is a request to copy: neither may show a refused input.
The docs show each example with what it expects, a partial output as partial.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from tests.conftest import MakeProject
from toolproof.cli import cli
from toolproof.generator import load_project
from toolproof.generator.exports import export_definitions
from toolproof.generator.openapi import ApiInfo, openapi_document
from toolproof.runtime.project import builtin_project

SHOP = """\
name: order
version: 1.0.0
title: Order
description: Order an item by its SKU.
annotations: {read_only: false, destructive: false, idempotent: false, open_world: false}
input:
  type: object
  properties:
    sku: {type: string, minLength: 1}
    quantity: {type: integer, minimum: 1}
  required: [sku]
  additionalProperties: false
output:
  type: object
  properties:
    total: {type: integer}
    sku: {type: string}
  required: [total, sku]
errors:
  unknown_sku:
    message: "No item has the SKU '{sku}'"
    hint: List the catalogue first.
render:
  result: "{total} x {sku}"
examples:
  - name: orders one item
    input: {sku: A-1}
    expect: {output_includes: {total: 1}}
  - name: an unknown SKU is refused
    input: {sku: NOPE}
    expect: {error: unknown_sku}
  - name: a quantity of zero is invalid
    input: {sku: A-1, quantity: 0}
    expect: {error: invalid_arguments}
  - name: a SKU from the test folder
    input: {sku: "${TEST_DIR}/A-1"}
    expect: {output_has: [total]}
  - name: orders three
    input: {sku: A-1, quantity: 3}
    expect: {output: {total: 3, sku: A-1}, text: "3 x A-1"}
"""


def _shop(make_project: MakeProject) -> Path:
    return make_project({"order.yaml": SHOP})


def _export(runner: CliRunner, project: Path, fmt: str) -> str:
    result = runner.invoke(cli, ["export", "--project", str(project), "--format", fmt])
    assert result.exit_code == 0, result.output + result.stderr
    return result.stdout


def test_anthropic_input_examples_are_only_the_calls_that_succeed(runner: CliRunner, make_project: MakeProject) -> None:
    (tool,) = json.loads(_export(runner, _shop(make_project), "anthropic"))

    assert tool["input_examples"] == [{"sku": "A-1"}, {"sku": "A-1", "quantity": 3}]


def test_a_tool_with_no_example_that_succeeds_has_no_input_examples_field(make_project: MakeProject) -> None:
    text = SHOP.replace("    expect: {output_includes: {total: 1}}", "    expect: {error: unknown_sku}").replace(
        '    expect: {output: {total: 3, sku: A-1}, text: "3 x A-1"}', "    expect: {error: unknown_sku}"
    )
    project = load_project(make_project({"order.yaml": text}))
    assert project.ok, [str(p) for p in project.problems]

    (tool,) = export_definitions("anthropic", project.contracts, {}).data

    assert "input_examples" not in tool


def test_the_builtin_tools_show_the_model_no_refused_attack_or_token_calls() -> None:
    project = load_project(builtin_project())
    assert project.ok, [str(p) for p in project.problems]

    shown = {
        t["name"]: t.get("input_examples", [])
        for t in export_definitions("anthropic", project.contracts, project.enum_sources()).data
    }

    assert {"skill_name": "../../../etc/passwd"} not in shown["get_skill"]
    assert {"skill_name": "calc\\ulator"} not in shown["get_skill"]
    assert not [e for e in shown["read_file_in_skill"] if "../" in e["file_path"]]
    # Without the token a read fails; a made-up token is refused; a real one exists only at run time.
    assert shown["read_file"] == [
        {"path": "builtin://read_file/SKILL.md"},
        {"path": "builtin://read_file/SKILL.md", "offset": 5, "limit": 3},
    ]


def _request_examples(document: dict[str, Any], tool: str) -> dict[str, Any]:
    body = document["paths"][f"/tools/{tool}"]["post"]["requestBody"]["content"]["application/json"]
    return dict(body.get("examples", {}))


def test_openapi_request_examples_are_only_the_calls_that_succeed(make_project: MakeProject) -> None:
    project = load_project(_shop(make_project))
    assert project.ok, [str(p) for p in project.problems]

    document = openapi_document(project.contracts, {}, ApiInfo("order", "1.0.0"))

    assert _request_examples(document, "order") == {
        "example1": {"summary": "orders one item", "value": {"sku": "A-1"}},
        "example5": {"summary": "orders three", "value": {"sku": "A-1", "quantity": 3}},
    }


def test_docs_show_a_partial_output_as_the_fields_it_includes(runner: CliRunner, make_project: MakeProject) -> None:
    docs = _export(runner, _shop(make_project), "docs")

    first = docs[docs.index("### 1. orders one item") : docs.index("### 2.")]
    assert "**Output**" not in first
    assert (
        '**Output includes** (these fields with these values, among others):\n```json\n{\n  "total": 1\n}\n```' in first
    )
    fourth = docs[docs.index("### 4. a SKU from the test folder") : docs.index("### 5.")]
    assert "**Output has**: `total` (any value)" in fourth
    fifth = docs[docs.index("### 5. orders three") :]
    assert '**Output**:\n```json\n{\n  "total": 3,\n  "sku": "A-1"\n}\n```' in fifth
    assert "**Output includes**" not in fifth


def test_docs_put_an_error_and_the_text_the_model_reads_in_separate_paragraphs() -> None:
    project = load_project(builtin_project())
    page = project.render()["toolproof/builtin/generated/docs/read_file.md"]

    assert "**Error**: `skill_token_required`\n\n**The model reads**:" in page
    assert "**Token**: the session's current `skillToken` is put into the input." in page
    assert '**The text the model reads contains** (as JSON strings):\n```json\n[\n  "\\n\\nskillToken: ",' in page
