"""Whole-number floats in integer parameters reach handlers as ints, through every way in.

JSON Schema counts ``2.0`` as an integer, so validation passes it; the handlers
are typed ``int`` and used to fail with ``internal_error``. Every integer
parameter of every built-in contract is driven here with whole-number floats
through the Python API, the CLI, MCP over stdio, HTTP and every adapter, and
must give exactly the result the same call gives with ints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from mcp import Client, StdioServerParameters

from tests.asgi import post_json
from toolproof.runtime import coercion
from toolproof.runtime.coercion import coerce_integers, plan_for
from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INVALID_ARGUMENTS
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.result import ToolResult
from toolproof.runtime.serve.adapters import (
    anthropic_tool_results,
    gemini_function_responses,
    mcp_tools_call,
    openai_chat_tool_messages,
    openai_responses_outputs,
)
from toolproof.runtime.serve.http import SESSION_HEADER, HttpApp
from toolproof.runtime.spec import ToolSpec, load_specs
from toolproof.runtime.toolbox import builtin_runtime

SECRET = "coercion-test-secret-32-bytes-ok"
SESSION = "coercion"
SKILL_MD = "builtin://read_file/SKILL.md"

BASE: dict[str, dict[str, Any]] = {"file-read": {"path": "notes.txt"}, "read_file": {"path": "notes.txt"}}
"""Arguments that read something, per tool with integer parameters."""

VALUES: dict[tuple[str, str], int] = {
    ("file-read", "start_line"): 2,
    ("file-read", "end_line"): 3,
    ("file-read", "max_lines"): 2,
    ("read_file", "offset"): 2,
    ("read_file", "limit"): 2,
}
"""A value for every integer parameter of every built-in contract."""


def _integer_parameters(schema: Any, path: str = "") -> Iterator[str]:
    if not isinstance(schema, dict):
        return
    kind = schema.get("type")
    if kind == "integer" or (isinstance(kind, list) and "integer" in kind):
        yield path
    for name, sub in (schema.get("properties") or {}).items():
        yield from _integer_parameters(sub, f"{path}.{name}" if path else name)
    yield from _integer_parameters(schema.get("items"), f"{path}[]")


def _cases() -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """(tool, arguments with ints, the same with whole-number floats): one per parameter, and all at once."""
    cases = []
    for tool, base in BASE.items():
        params = {name: value for (owner, name), value in VALUES.items() if owner == tool}
        for name, value in params.items():
            cases.append((tool, {**base, name: value}, {**base, name: float(value)}))
        everything = {name: float(value) for name, value in params.items()}
        cases.append((tool, {**base, **params}, {**base, **everything}))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def roots(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("coercion")
    ws, skills = base / "ws", base / "skills"
    ws.mkdir()
    (ws / "notes.txt").write_text("one\ntwo\nthree\nfour\nfive\n", encoding="utf-8")
    (skills / "calculator").mkdir(parents=True)
    (skills / "calculator" / "SKILL.MD").write_text("# Calculator\n", encoding="utf-8")
    return ws, skills


@pytest.fixture(scope="module")
def runtime(roots: tuple[Path, Path]) -> Runtime:
    ws, skills = roots
    return builtin_runtime(workspace=[ws], skills=[skills], gate_secret=SECRET.encode("utf-8"))


@pytest.fixture(scope="module")
def token(runtime: Runtime) -> str:
    result = runtime.call("read_file", {"path": SKILL_MD}, session=SESSION)
    assert result.output is not None
    return str(result.output["skillToken"])


def _with_token(tool: str, args: dict[str, Any], token: str) -> dict[str, Any]:
    return {**args, "skillToken": token} if tool == "read_file" else args


def _expected(runtime: Runtime, tool: str, ints: dict[str, Any], token: str) -> ToolResult:
    result = runtime.call(tool, _with_token(tool, ints, token), session=SESSION)
    assert result.ok, result
    return result


def test_every_integer_parameter_of_every_builtin_contract_is_driven() -> None:
    found = {(spec.name, path) for spec in load_specs() for path in _integer_parameters(spec.input_schema)}

    assert found == set(VALUES)


def test_a_whole_number_float_in_an_integer_parameter_is_no_internal_error_in_the_python_api(
    runtime: Runtime, token: str
) -> None:
    for tool, ints, floats in CASES:
        result = runtime.call(tool, _with_token(tool, floats, token), session=SESSION)

        assert result.to_dict() == _expected(runtime, tool, ints, token).to_dict(), (tool, floats)


def test_a_whole_number_float_in_an_integer_parameter_is_no_internal_error_as_json_text(
    runtime: Runtime, token: str
) -> None:
    for tool, ints, floats in CASES:
        text = json.dumps(_with_token(tool, floats, token))
        assert ".0" in text
        result = runtime.call(tool, text, session=SESSION)

        assert result.to_dict() == _expected(runtime, tool, ints, token).to_dict(), (tool, text)


def test_a_whole_number_float_in_an_integer_parameter_is_no_internal_error_through_the_cli(
    runtime: Runtime, token: str, roots: tuple[Path, Path]
) -> None:
    ws, skills = roots
    env = {**os.environ, "TOOLPROOF_GATE_SECRET": SECRET}
    for tool, ints, floats in [CASES[-1], *(case for case in CASES if case[0] == "read_file")][:3]:
        command = [
            sys.executable,
            "-m",
            "toolproof",
            "call",
            tool,
            "--args",
            json.dumps(_with_token(tool, floats, token)),
        ]
        command += ["--workspace", str(ws), "--skills", str(skills), "--session", SESSION]
        done = subprocess.run(
            command, capture_output=True, text=True, encoding="utf-8", env=env, timeout=60, check=False
        )

        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout) == _expected(runtime, tool, ints, token).to_dict(), (tool, floats)


def test_a_whole_number_float_in_an_integer_parameter_is_no_internal_error_over_mcp_stdio(
    runtime: Runtime, roots: tuple[Path, Path]
) -> None:
    ws, skills = roots
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "toolproof", "serve", "mcp", "--workspace", str(ws), "--skills", str(skills)],
        env={**os.environ, "TOOLPROOF_GATE_SECRET": SECRET},
    )

    async def session() -> None:
        async with Client(params) as client:
            gate = await client.call_tool("read_file", {"path": SKILL_MD})
            assert gate.structured_content is not None
            mcp_token = str(gate.structured_content["skillToken"])
            for tool, ints, floats in CASES:
                with_floats = await client.call_tool(tool, _with_token(tool, floats, mcp_token))
                with_ints = await client.call_tool(tool, _with_token(tool, ints, mcp_token))

                assert with_floats.is_error is False, (tool, floats, with_floats)
                assert with_floats.content == with_ints.content
                assert with_floats.structured_content == with_ints.structured_content

    anyio.run(session)


def _asgi_post(app: HttpApp, path: str, body: dict[str, Any]) -> tuple[int, Any]:
    """POST ``body`` to ``app`` in process; the status and the parsed answer."""
    return post_json(app, path, body, {SESSION_HEADER: SESSION})


def test_a_whole_number_float_in_an_integer_parameter_is_no_internal_error_over_http(
    runtime: Runtime, token: str
) -> None:
    app = HttpApp(runtime)
    paths = {spec.name: f"/tools/{spec.name}" for spec in runtime.specs}
    for tool, ints, floats in CASES:
        with_floats = _asgi_post(app, paths[tool], _with_token(tool, floats, token))
        with_ints = _asgi_post(app, paths[tool], _with_token(tool, ints, token))

        assert with_floats[0] == 200, (tool, floats, with_floats)
        assert with_floats == with_ints


def test_a_whole_number_float_in_an_integer_parameter_is_no_internal_error_in_every_adapter(
    runtime: Runtime, token: str
) -> None:
    for tool, ints, floats in CASES:
        expected = _expected(runtime, tool, ints, token)
        args = _with_token(tool, floats, token)
        chat = {
            "choices": [
                {"message": {"tool_calls": [{"id": "c", "function": {"name": tool, "arguments": json.dumps(args)}}]}}
            ]
        }
        responses = {"output": [{"type": "function_call", "call_id": "c", "name": tool, "arguments": json.dumps(args)}]}
        anthropic = {"content": [{"type": "tool_use", "id": "c", "name": tool, "input": args}]}
        gemini = {"candidates": [{"content": {"parts": [{"functionCall": {"name": tool, "args": args}}]}}]}
        mcp = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": tool, "arguments": args}}

        assert openai_chat_tool_messages(runtime, chat, session=SESSION)[0]["content"] == expected.text
        assert openai_responses_outputs(runtime, responses, session=SESSION)[0]["output"] == expected.text
        block = anthropic_tool_results(runtime, anthropic, session=SESSION)["content"][0]
        assert block["content"] == expected.text and "is_error" not in block
        part = gemini_function_responses(runtime, gemini, session=SESSION)["parts"][0]
        assert part["functionResponse"]["response"] == {"output": expected.text}
        assert mcp_tools_call(runtime, mcp, session=SESSION)["result"] == expected.to_mcp()


def test_whole_number_floats_become_ints_only_where_the_schema_says_integer() -> None:
    schema = {
        "type": "object",
        "properties": {
            "n": {"type": "integer"},
            "maybe": {"type": ["integer", "null"]},
            "ratio": {"type": "number"},
            "nested": {"type": "object", "properties": {"depth": {"type": "integer"}}},
            "list": {"type": "array", "items": {"type": "integer"}},
            "named": {"type": "string"},
        },
        "additionalProperties": {"type": "integer"},
    }
    plan = plan_for(schema)
    assert plan is not None
    value = {"n": 3.0, "maybe": 4.0, "ratio": 2.0, "nested": {"depth": 1.0}, "list": [1.0, 2.0], "named": 1.0, "x": 5.0}

    fixed = coerce_integers(plan, value)

    assert fixed == {"n": 3, "maybe": 4, "ratio": 2.0, "nested": {"depth": 1}, "list": [1, 2], "named": 1.0, "x": 5}
    assert [type(fixed[k]) for k in ("n", "maybe", "ratio", "named", "x")] == [int, int, float, float, int]
    assert type(fixed["nested"]["depth"]) is int and all(type(i) is int for i in fixed["list"])


def test_nothing_is_copied_when_no_float_stands_for_an_integer() -> None:
    plan = plan_for({"type": "object", "properties": {"n": {"type": "integer"}}})
    assert plan is not None
    value = {"n": 3, "other": 2.5}

    assert coerce_integers(plan, value) is value
    assert coerce_integers(plan, {"n": 2.5}) == {"n": 2.5}
    assert coerce_integers(plan, {"n": True}) == {"n": True}
    assert plan_for({"type": "object", "properties": {"s": {"type": "string"}}}) is None


def _coerced(schema: dict[str, Any], value: Any) -> Any:
    plan = plan_for(schema)
    assert plan is not None, schema
    return coerce_integers(plan, value)


def _types(value: Any) -> Any:
    """``value`` with each number replaced by the name of its Python type, to tell ``2`` from ``2.0``."""
    if isinstance(value, dict):
        return {key: _types(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_types(item) for item in value]
    return type(value).__name__ if type(value) in (int, float) else value


REPEAT: dict[str, Any] = {
    "type": "object",
    "$defs": {
        "count": {"type": "integer", "minimum": 0},
        "line": {
            "type": "object",
            "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}, "price": {"type": "number"}},
            "required": ["sku", "qty"],
        },
    },
    "properties": {
        "word": {"type": "string"},
        "n": {"$ref": "#/$defs/count"},
        "m": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
        "lines": {"type": "array", "items": {"$ref": "#/$defs/line"}},
    },
    "required": ["word", "n"],
}
"""The contract an outside review found the floats in: integers behind ``$ref``, ``anyOf`` and nested items."""


def _repeat(args: Any, ctx: ToolContext) -> Any:
    word = args["word"] * args["n"] * (args["m"] if args.get("m") is not None else 1)
    lines = [f"{line['qty']} x {line['sku']}" for line in args.get("lines", [])]
    return {"text": word, "lines": lines, "types": _types(args)}


def _repeat_runtime() -> Runtime:
    spec = ToolSpec.from_data(
        {
            "name": "repeat",
            "module": "repeat",
            "handler": "tests:repeat",
            "input": REPEAT,
            "output": {"type": "object"},
            "errors": {},
            "render": {"result": "{$}", "error": "{message}"},
            "source": "contracts/repeat.yaml",
        }
    )
    return Runtime(tools=[BoundTool.build(spec, _repeat)])


def test_integers_behind_ref_any_of_and_nested_items_reach_the_handler_as_ints() -> None:
    runtime = _repeat_runtime()
    args = {"word": "a", "n": 2.0, "m": 2.0, "lines": [{"sku": "x", "qty": 2.0, "price": 3.0}]}

    result = runtime.call("repeat", args)

    assert result.ok, result
    assert result.output == {
        "text": "aaaa",
        "lines": ["2 x x"],
        "types": {"word": "a", "n": "int", "m": "int", "lines": [{"sku": "x", "qty": "int", "price": "float"}]},
    }
    assert runtime.call("repeat", json.dumps(args)).to_dict() == result.to_dict()
    refused = runtime.call("repeat", {"word": "a", "n": 2.5}).error
    assert refused is not None and refused.code == INVALID_ARGUMENTS
    assert runtime.call("repeat", {"word": "a", "n": 1.0, "m": None}).output == {
        "text": "a",
        "lines": [],
        "types": {"word": "a", "n": "int", "m": None},
    }


DEFS: dict[str, Any] = {
    "n": {"type": "integer"},
    "a/b": {"type": "integer"},
    "m": {"$anchor": "count", "type": "integer"},
}


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"$ref": "#/$defs/n"}, "int"),
        ({"$ref": "#/$defs/n", "description": "beside"}, "int"),
        ({"$ref": "#/$defs/n", "type": "number"}, "int"),
        ({"$ref": "#count"}, "int"),
        ({"$ref": "#/$defs/a~1b"}, "int"),
        ({"anyOf": [{"type": "integer"}, {"type": "null"}]}, "int"),
        ({"oneOf": [{"type": "integer"}, {"type": "string"}, {"enum": ["auto", None]}]}, "int"),
        ({"anyOf": [{"type": "integer"}, {"type": "number"}]}, "float"),
        ({"anyOf": [{"type": "integer"}, {"minimum": 0}]}, "float"),
        ({"anyOf": [{"type": "integer"}, {"const": 2.5}]}, "float"),
        ({"allOf": [{"minimum": 0}, {"type": "integer"}]}, "int"),
        ({"allOf": [{"type": "number"}, {"type": "integer"}]}, "int"),
        ({"type": "number", "anyOf": [{"type": "integer"}, {"type": "string"}]}, "int"),
        ({"anyOf": [{"$ref": "#/$defs/n"}, {"type": "null"}]}, "int"),
        ({"type": ["integer", "null"]}, "int"),
        ({"type": ["integer", "number"]}, "float"),
    ],
)
def test_a_whole_float_becomes_an_int_where_refs_and_combinators_say_integer_and_no_branch_takes_a_fraction(
    schema: dict[str, Any], expected: str
) -> None:
    wrapped = {"type": "object", "properties": {"v": schema}, "$defs": DEFS}
    plan = plan_for(wrapped)

    fixed = coerce_integers(plan, {"v": 2.0}) if plan is not None else {"v": 2.0}

    assert _types(fixed) == {"v": expected}
    assert jsonschema.Draft202012Validator(wrapped).is_valid(fixed)


def test_objects_and_arrays_inside_branches_are_walked_and_only_branches_naming_a_property_count() -> None:
    point = {"type": "object", "properties": {"x": {"type": "integer"}, "w": {"type": "number"}}}
    schema = {
        "type": "object",
        "properties": {
            "shape": {
                "oneOf": [
                    {"type": "object", "properties": {"kind": {"const": "a"}, "n": {"type": "integer"}}},
                    {"type": "object", "properties": {"kind": {"const": "b"}, "s": {"type": "string"}}},
                ]
            },
            "mixed": {
                "anyOf": [
                    {"type": "object", "properties": {"k": {"type": "integer"}}},
                    {"type": "object", "properties": {"k": {"type": "number"}}},
                ]
            },
            "maybe": {"anyOf": [point, {"type": "null"}]},
            "pairs": {"allOf": [{"type": "array"}, {"prefixItems": [{"type": "string"}, {"type": "integer"}]}]},
        },
    }
    value = {
        "shape": {"kind": "a", "n": 2.0},
        "mixed": {"k": 2.0},
        "maybe": {"x": 1.0, "w": 1.0},
        "pairs": ["a", 3.0, 4.0],
    }

    assert _types(_coerced(schema, value)) == {
        "shape": {"kind": "a", "n": "int"},
        "mixed": {"k": "float"},
        "maybe": {"x": "int", "w": "float"},
        "pairs": ["a", "int", "float"],
    }


def test_pattern_properties_and_additional_properties_decide_the_other_properties() -> None:
    schema = {
        "type": "object",
        "properties": {"n_named": {"minimum": 0}, "ratio": {"type": "number"}},
        "patternProperties": {"^n_": {"type": "integer"}, "_id$": {"$ref": "#/$defs/id"}},
        "additionalProperties": {"type": "number"},
        "$defs": {"id": {"type": ["integer", "string"]}},
    }
    value = {"n_named": 1.0, "ratio": 1.0, "n_other": 2.0, "user_id": 3.0, "n_user_id": 4.0, "free": 5.0}

    assert _types(_coerced(schema, value)) == {
        "n_named": "int",
        "ratio": "float",
        "n_other": "int",
        "user_id": "int",
        "n_user_id": "int",
        "free": "float",
    }


TREE: dict[str, Any] = {
    "$defs": {
        "node": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "weight": {"type": "number"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            },
        }
    },
    "type": "object",
    "properties": {"root": {"$ref": "#/$defs/node"}},
}


def _tree(depth: int) -> dict[str, Any]:
    node: dict[str, Any] = {"value": float(depth), "weight": 1.0, "children": []}
    return node if depth == 0 else {**node, "children": [_tree(depth - 1), {"value": 0.0}]}


def _values(node: dict[str, Any]) -> list[str]:
    return [type(node["value"]).__name__, *(v for child in node.get("children", []) for v in _values(child))]


def test_recursive_references_plan_without_end_and_coerce_at_any_depth() -> None:
    fixed = _coerced(TREE, {"root": _tree(40)})

    assert set(_values(fixed["root"])) == {"int"}
    assert fixed["root"]["children"][0]["children"][0]["value"] == 38
    assert type(fixed["root"]["children"][0]["children"][0]["weight"]) is float
    whole = {"type": "object", "properties": {"n": {"type": "integer"}, "next": {"$ref": "#"}}}
    assert _types(_coerced(whole, {"n": 1.0, "next": {"n": 2.0, "next": {"n": 3.0}}})) == {
        "n": "int",
        "next": {"n": "int", "next": {"n": "int"}},
    }


def test_references_that_only_lead_to_each_other_or_branch_back_are_planned_in_bounded_time() -> None:
    loop = {
        "type": "object",
        "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}},
        "properties": {"x": {"$ref": "#/$defs/a"}, "n": {"type": "integer"}},
    }
    assert _types(_coerced(loop, {"x": 1.0, "n": 1.0})) == {"x": "float", "n": "int"}
    # each place reached a new way: N's child is N or M, M's child is N or an integer, and so on
    tangled = {
        "$defs": {
            "N": {
                "anyOf": [{"properties": {"c": {"$ref": "#/$defs/N"}}}, {"properties": {"c": {"$ref": "#/$defs/M"}}}]
            },
            "M": {"anyOf": [{"properties": {"c": {"$ref": "#/$defs/N"}}}, {"type": "integer"}]},
        },
        "type": "object",
        "properties": {"top": {"$ref": "#/$defs/N"}, "n": {"type": "integer"}},
    }
    value: Any = 1.0
    for _ in range(30):
        value = {"c": value}

    fixed = _coerced(tangled, {"top": value, "n": 1.0})

    assert type(fixed["n"]) is int


def test_schemas_where_no_integer_can_stand_have_no_plan() -> None:
    assert (
        plan_for({"type": "object", "$defs": {"x": {"type": "number"}}, "properties": {"r": {"$ref": "#/$defs/x"}}})
        is None
    )
    assert (
        plan_for({"type": "object", "properties": {"r": {"anyOf": [{"type": "integer"}, {"type": "number"}]}}}) is None
    )
    assert plan_for({"type": "object", "properties": {"r": {"not": {"type": "integer"}}}}) is None
    assert plan_for({"type": "object", "properties": {"r": {"$ref": "https://example.com/int.json"}}}) is None
    assert plan_for(TREE) is not None
    for spec in load_specs():
        assert (plan_for(spec.input_schema) is None) == (spec.name not in {tool for tool, _ in VALUES}), spec.name


def test_a_schema_with_more_places_than_the_planner_takes_is_planned_in_part_not_forever(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(coercion, "_MAX_PLACES", 3)
    wide = {
        "type": "object",
        "properties": {f"p{i}": {"type": "object", "properties": {"n": {"type": "integer"}}} for i in range(9)},
    }

    plan = plan_for(wide)

    assert plan is not None and plan.properties is not None and 0 < len(plan.properties) < 9
    assert _types(coerce_integers(plan, {"p0": {"n": 1.0}, "p8": {"n": 1.0}})) == {
        "p0": {"n": "int"},
        "p8": {"n": "float"},
    }
