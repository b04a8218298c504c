"""The ``jsonschema`` export: each of Input, Output and Error stands alone, its references resolved in the document.

A reader (ajv, python-jsonschema) starts from ``<$id>#/$defs/Input`` and follows every ``$ref`` against
the document's root, as JSON Schema 2020-12 does: a contract's own ``$defs``, recursive ones
included, must be found there.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from tests.conftest import MakeProject
from toolproof.cli import cli
from toolproof.generator.refs import walk

NODE_MODULES = Path(__file__).parents[2] / ".venv" / "node" / "node_modules"
SCRIPT = Path(__file__).parent / "ajv_resolve.cjs"

ORDER = """\
name: create_order
version: 1.0.0
title: Create an order
description: Create a customer order from catalogue lines.
annotations: {read_only: false, destructive: false, idempotent: false, open_world: false}
input:
  type: object
  $defs:
    line:
      type: object
      properties:
        sku: {type: string, pattern: "^[A-Z]{3}-[0-9]{4}$"}
        quantity: {type: integer, minimum: 1}
      required: [sku, quantity]
      additionalProperties: false
    address:
      type: object
      properties:
        city: {type: string, minLength: 1}
        country: {enum: [FR, DE]}
      required: [city, country]
      additionalProperties: false
  properties:
    shipping: {$ref: "#/$defs/address"}
    lines: {type: array, items: {$ref: "#/$defs/line"}, minItems: 1}
    city: {$ref: "#/$defs/address/properties/city"}
  required: [shipping, lines]
  additionalProperties: false
output:
  type: object
  $defs:
    money:
      type: object
      properties:
        amount: {type: number, minimum: 0}
        currency: {enum: [EUR, USD]}
      required: [amount, currency]
      additionalProperties: false
  properties:
    total: {$ref: "#/$defs/money"}
  required: [total]
  additionalProperties: false
errors: {}
examples:
  - name: orders one line
    input: {shipping: {city: Paris, country: FR}, lines: [{sku: ABC-0001, quantity: 2}], city: Lyon}
    expect: {output: {total: {amount: 20.0, currency: EUR}}}
"""

TREE = """\
name: sum_tree
version: 2.0.0
title: Sum a tree
description: Add up the values of a tree of numbers.
annotations: {read_only: true, destructive: false, idempotent: true, open_world: false}
input:
  type: object
  $defs:
    node:
      $anchor: node
      type: object
      properties:
        value: {type: number}
        children: {type: array, items: {$ref: "#/$defs/node"}}
      required: [value]
      additionalProperties: false
    label-text: {type: string, maxLength: 20}
  properties:
    root: {$ref: "#node"}
    label: {$ref: "#/$defs/label-text"}
    next: {$ref: "#"}
  required: [root]
  additionalProperties: false
output:
  type: object
  $defs:
    node:
      $anchor: node
      type: object
      properties:
        total: {type: number}
        parts: {type: array, items: {$ref: "#node"}}
      required: [total, parts]
      additionalProperties: false
  properties:
    sum: {$ref: "#/$defs/node"}
  required: [sum]
  additionalProperties: false
errors: {}
examples:
  - name: sums a tree
    input:
      root: {value: 1, children: [{value: 2, children: [{value: 3}]}]}
      label: three
      next: {root: {value: 4}}
    expect: {output: {sum: {total: 10, parts: [{total: 6, parts: [{total: 5, parts: []}]}]}}}
"""

BAD_INPUT: dict[str, Any] = {
    "create_order": {"shipping": {"city": "Paris", "country": "FR"}, "lines": [{"sku": "abc", "quantity": 2}]},
    "sum_tree": {"root": {"value": 1, "children": [{"value": 2, "children": [{"value": "three"}]}]}},
}
"""For each tool, an input its contract refuses only deep inside a referenced definition."""
EXAMPLES: dict[str, Any] = {
    "create_order": yaml.safe_load(ORDER)["examples"][0],
    "sum_tree": yaml.safe_load(TREE)["examples"][0],
}


@pytest.fixture
def documents(make_project: MakeProject, runner: CliRunner) -> list[dict[str, Any]]:
    """The ``jsonschema`` export of both contracts."""
    root = make_project({"create_order.yaml": ORDER, "sum_tree.yaml": TREE})

    result = runner.invoke(cli, ["export", "--format", "jsonschema", "--project", str(root)])

    assert result.exit_code == 0, result.output
    exported: list[dict[str, Any]] = json.loads(result.stdout)
    return exported


def _checks(documents: list[dict[str, Any]]) -> list[tuple[str, str, Any, bool]]:
    """(id, URI of a schema, data, whether it is valid): each example's input and output, and a bad input."""
    checks: list[tuple[str, str, Any, bool]] = []
    for document in documents:
        uri = document["$id"]
        tool = uri.split(":")[2]
        example = EXAMPLES[tool]
        checks.append((f"{tool} input", f"{uri}#/$defs/Input", example["input"], True))
        checks.append((f"{tool} output", f"{uri}#/$defs/Output", example["expect"]["output"], True))
        checks.append((f"{tool} bad input", f"{uri}#/$defs/Input", BAD_INPUT[tool], False))
    return checks


def test_the_contract_definitions_stand_beside_input_and_output_and_every_ref_points_into_the_document(
    documents: list[dict[str, Any]],
) -> None:
    order, tree = sorted(documents, key=lambda d: str(d["$id"]))
    assert list(order["$defs"]) == ["Input", "Output", "Error", "InputLine", "InputAddress", "OutputMoney"]
    assert list(tree["$defs"]) == ["Input", "Output", "Error", "InputNode", "InputLabelText", "OutputNode"]
    assert tree["$defs"]["Input"]["properties"] == {
        "root": {"$ref": "#/$defs/InputNode"},
        "label": {"$ref": "#/$defs/InputLabelText"},
        "next": {"$ref": "#/$defs/Input"},
    }
    assert order["$defs"]["Input"]["properties"]["city"] == {"$ref": "#/$defs/InputAddress/properties/city"}
    for document in documents:
        registry: Registry[Any] = Registry().with_resource(document["$id"], Resource.from_contents(document))
        resolver = registry.resolver(base_uri=document["$id"])
        refs = [node["$ref"] for _, node in walk(document) if isinstance(node, dict) and "$ref" in node]
        assert refs
        for ref in refs:
            resolver.lookup(ref)  # raises PointerToNowhere (or Unresolvable) when it points at nothing
        assert not [node for _, node in walk(document) if isinstance(node, dict) and "$anchor" in node]


def test_python_jsonschema_validates_the_examples_against_input_and_output(
    documents: list[dict[str, Any]],
) -> None:
    registry: Registry[Any] = Registry().with_resources(
        (document["$id"], Resource.from_contents(document)) for document in documents
    )
    for document in documents:
        Draft202012Validator.check_schema(document)
    for name, uri, data, valid in _checks(documents):
        validator = Draft202012Validator({"$ref": uri}, registry=registry)
        assert validator.is_valid(data) is valid, name


def test_ajv_strict_compiles_input_and_output_and_validates_the_examples(documents: list[dict[str, Any]]) -> None:
    node = shutil.which("node")
    assert node is not None, "node is needed (the Makefile installs TypeScript and ajv with npm)"
    assert (NODE_MODULES / "ajv").is_dir(), "ajv is installed by `make gen` (npm, into .venv/node)"
    checks = _checks(documents)
    payload = {
        "documents": documents,
        "checks": [{"id": name, "uri": uri, "data": data} for name, uri, data, _ in checks],
    }

    done = subprocess.run(
        [node, str(SCRIPT)],
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={"NODE_PATH": str(NODE_MODULES), "PATH": str(Path(node).parent)},
    )

    results = {r["id"]: (r["valid"], r["error"]) for r in json.loads(done.stdout)}
    assert results == {name: (valid, results[name][1]) for name, _, _, valid in checks}, results
