"""`toolproof conform` reads a server's answers against the contract: listed schemas, outputs, error codes."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from toolproof.runtime.spec import ToolSpec, generated_json, load_specs
from toolproof.testing import ExampleFailure, listing
from toolproof.testing.answers import expectation, read_result
from toolproof.testing.listing import schema_difference


def _builtin(name: str) -> ToolSpec:
    return next(spec for spec in load_specs() if spec.name == name)


def _spec(render_error: str) -> ToolSpec:
    """A contract with two errors whose messages tell them apart, rendered by ``render_error``."""
    return ToolSpec.from_data(
        {
            "name": "lookup",
            "module": "lookup",
            "handler": "handlers.lookup:handle",
            "input": {"type": "object", "properties": {"id": {"type": "string"}}},
            "output": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            "errors": {
                "not_found": {"message": "No item {id}"},
                "bad_cursor": {"message": "The cursor {cursor} has expired"},
            },
            "render": {"result": "{$}", "error": render_error},
            "source": "contracts/lookup.yaml",
        }
    )


def _error(text: str, meta: dict[str, Any] | None = None) -> dict[str, Any]:
    raw: dict[str, Any] = {"content": [{"type": "text", "text": text}], "isError": True}
    if meta is not None:
        raw["_meta"] = {"dev.toolproof/error": meta}
    return raw


def _example(error: str | None = None) -> dict[str, Any]:
    return {"name": "an example", "input": {}, "expect": {"error": error} if error else {"output": {"n": 1}}}


def test_an_error_without_meta_is_read_from_the_text_the_contract_renders() -> None:
    text = '{"error": "Skill \'calc\' not found in skills folder"}'

    result = read_result(_builtin("get_skill"), _error(text), _example("skill_not_found"))

    assert result.error is not None
    assert (result.error.code, result.error.message) == ("skill_not_found", "Skill 'calc' not found in skills folder")


def test_an_error_without_meta_whose_text_is_no_rendering_fails_naming_the_expected_code() -> None:
    with pytest.raises(ExampleFailure) as failure:
        read_result(_builtin("get_skill"), _error("nope"), _example("skill_not_found"))

    assert str(failure.value) == (
        "example 'an example': expected error 'skill_not_found'; the server names no code in"
        " _meta['dev.toolproof/error'], and its text \"nope\" is not the contract's rendering of any"
        " catalogued error (render.error '{{\"error\": {message|json}}}',"
        " message \"Skill '{skill_name}' not found in skills folder\")"
    )


def test_an_error_without_meta_that_names_another_code_in_its_text_fails() -> None:
    text = "ERROR [internal_error]: The tool failed with an internal error. The failure has been logged."

    with pytest.raises(ExampleFailure, match="is the contract's rendering of 'internal_error', not of 'bad_cursor'"):
        read_result(_spec("ERROR [{code}]: {message}"), _error(text), _example("bad_cursor"))


def test_the_default_render_tells_the_codes_apart_by_their_message_templates() -> None:
    spec = _spec("ERROR: {message}")

    found = read_result(spec, _error("ERROR: No item 7"), _example("not_found"))
    with pytest.raises(ExampleFailure, match="is the contract's rendering of 'not_found', not of 'bad_cursor'"):
        read_result(spec, _error("ERROR: No item 7"), _example("bad_cursor"))

    assert found.error is not None and (found.error.code, found.error.message) == ("not_found", "No item 7")


def test_an_error_rendered_as_json_is_read_from_the_whole_error() -> None:
    text = '{"code": "bad_cursor", "message": "The cursor c_1 has expired"}'

    result = read_result(_spec("{$}"), _error(text), _example("bad_cursor"))
    with pytest.raises(ExampleFailure, match="not of 'not_found'"):
        read_result(_spec("{$}"), _error(text), _example("not_found"))

    assert result.error is not None and result.error.message == "The cursor c_1 has expired"


def test_an_error_whose_text_contradicts_its_meta_code_fails() -> None:
    meta = {"code": "not_found", "message": "No item 7"}

    passed = read_result(_spec("ERROR [{code}]: {message}"), _error("ERROR [not_found]: No item 7", meta), _example())
    with pytest.raises(ExampleFailure) as failure:
        read_result(_spec("ERROR [{code}]: {message}"), _error("ERROR: something went wrong", meta), _example())

    assert passed.error is not None and passed.error.code == "not_found"
    assert str(failure.value) == (
        "example 'an example': the text \"ERROR: something went wrong\" is not the contract's rendering of the"
        " error 'not_found' the server names in _meta (render.error 'ERROR [{code}]: {message}')"
    )


def test_a_success_is_its_structured_content_when_the_output_schema_accepts_it() -> None:
    raw = {"content": [{"type": "text", "text": '{"n": 1}'}], "structuredContent": {"n": 1}}

    result = read_result(_spec("ERROR: {message}"), raw, _example())

    assert (result.output, result.error, result.text) == ({"n": 1}, None, '{"n": 1}')


def test_a_success_whose_structured_content_breaks_the_output_schema_fails() -> None:
    raw = {"content": [{"type": "text", "text": "{}"}], "structuredContent": {"m": 1}}

    with pytest.raises(ExampleFailure) as failure:
        read_result(_spec("ERROR: {message}"), raw, _example())

    assert str(failure.value) == (
        "example 'an example': structuredContent breaks the output schema: $.n: required property is missing"
    )


def test_a_success_without_structured_content_fails() -> None:
    raw = {"content": [{"type": "text", "text": '{"n": 1}'}], "isError": False}

    with pytest.raises(ExampleFailure) as failure:
        read_result(_spec("ERROR: {message}"), raw, _example())

    assert str(failure.value) == (
        "example 'an example': a successful result without structuredContent"
        " (MCP requires it of a tool with an outputSchema), got null"
    )


def _exported(name: str) -> dict[str, Any]:
    tools = generated_json("toolproof.builtin.generated", "exports/mcp/all.json")["tools"]
    return copy.deepcopy(next(tool for tool in tools if tool["name"] == name))


@pytest.mark.parametrize("name", [spec.name for spec in load_specs() if spec.kind == "tool"])  # tools/list lists tools
def test_the_exported_entry_of_each_tool_has_the_contracts_schemas(name: str) -> None:
    assert schema_difference(_builtin(name), _exported(name)) is None


def test_a_dynamic_enum_lists_the_servers_own_values() -> None:
    listed = _exported("read_skill")
    listed["inputSchema"]["properties"]["skill_name"].update(enum=["a", "b"], description="Skills found here.")

    assert schema_difference(_builtin("read_skill"), listed) is None


def test_a_listed_input_schema_that_differs_names_the_first_difference() -> None:
    listed = _exported("get_skill")
    listed["inputSchema"]["properties"]["skill_name"]["type"] = "integer"
    listed["inputSchema"]["properties"]["extra"] = {"type": "string"}

    problem = schema_difference(_builtin("get_skill"), listed)

    assert problem == (
        "tools/list gives 'get_skill' an inputSchema other than the contract's:"
        ' $.properties.skill_name.type: the server has "integer", the contract has "string"'
    )


def test_a_listing_without_the_output_schema_differs() -> None:
    listed = _exported("get_skill")
    del listed["outputSchema"]

    problem = schema_difference(_builtin("get_skill"), listed)

    assert problem is not None and problem.startswith(
        "tools/list gives 'get_skill' no outputSchema; the contract's is {"
    )


def test_schemas_compare_numbers_by_value_required_as_a_set_and_booleans_apart() -> None:
    listed = _exported("read_file")
    props = listed["inputSchema"]["properties"]
    props["limit"]["maximum"] = 2000.0
    listed["inputSchema"]["required"] = list(reversed(listed["inputSchema"]["required"]))
    same = schema_difference(_builtin("read_file"), listed)
    props["offset"]["minimum"] = True

    assert same is None
    assert schema_difference(_builtin("read_file"), listed) == (
        "tools/list gives 'read_file' an inputSchema other than the contract's:"
        " $.properties.offset.minimum: the server has true, the contract has 1"
    )


def test_a_listing_without_the_output_schema_is_whole_under_a_revision_before_2025_06_18() -> None:
    listed = _exported("get_skill")
    del listed["outputSchema"]

    assert schema_difference(_builtin("get_skill"), listed, "2025-03-26") is None
    assert schema_difference(_builtin("get_skill"), listed, "2024-11-05") is None
    assert schema_difference(_builtin("get_skill"), listed, "2025-06-18") is not None


def test_an_output_schema_listed_under_an_older_revision_must_still_be_the_contracts() -> None:
    listed = _exported("get_skill")
    listed["outputSchema"]["properties"] = {}

    problem = schema_difference(_builtin("get_skill"), listed, "2025-03-26")

    assert problem is not None and problem.startswith("tools/list gives 'get_skill' an outputSchema other than")


def test_comments_dialect_and_one_element_type_lists_do_not_change_a_listed_schema() -> None:
    listed = _exported("read_file")
    schema = listed["inputSchema"]
    schema.update({"$schema": "http://json-schema.org/draft-07/schema#", "$comment": "by hand"})
    for prop in schema["properties"].values():
        prop["$comment"] = "by hand"
        if isinstance(prop.get("type"), str):
            prop["type"] = [prop["type"]]
    listed["outputSchema"]["$schema"] = "https://json-schema.org/draft/2020-12/schema"

    assert schema_difference(_builtin("read_file"), listed) is None


def test_a_type_list_compares_as_a_set(monkeypatch: pytest.MonkeyPatch) -> None:
    nullable = {"type": "object", "properties": {"id": {"type": ["string", "null"]}}}
    monkeypatch.setattr(listing, "_exported", lambda package: {"lookup": {"inputSchema": nullable}})

    def listed(id_type: object) -> dict[str, Any]:
        return {"inputSchema": {"type": ["object"], "properties": {"id": {"type": id_type}}}}

    assert schema_difference(_spec("ERROR: {message}"), listed(["null", "string"])) is None
    assert schema_difference(_spec("ERROR: {message}"), listed("string")) == (
        "tools/list gives 'lookup' an inputSchema other than the contract's:"
        ' $.properties.id.type: the server has "string", the contract has ["null", "string"]'
    )


@pytest.mark.parametrize(
    ("key", "value", "where"),
    [
        ("title", "Path", "$.properties.path.title"),
        ("$id", "urn:x", '$.properties.path["$id"]'),
        ("description", "Another description.", "$.properties.path.description"),
        ("$schema", "http://json-schema.org/draft-07/schema#", '$.properties.path["$schema"]'),
    ],
)
def test_model_facing_text_ids_and_inner_dialects_still_differ(key: str, value: str, where: str) -> None:
    listed = _exported("read_file")
    listed["inputSchema"]["properties"]["path"][key] = value

    problem = schema_difference(_builtin("read_file"), listed)

    assert problem is not None and f"other than the contract's: {where}: the server has " in problem


def test_an_older_dialect_differs_where_the_contract_uses_a_keyword_it_reads_otherwise(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    exported = _exported("read_file")
    exported["inputSchema"]["properties"]["pair"] = {"type": "array", "prefixItems": [{"type": "string"}]}
    monkeypatch.setattr(listing, "_exported", lambda package: {"read_file": exported})
    listed = copy.deepcopy(exported)
    listed["inputSchema"]["$schema"] = "http://json-schema.org/draft-07/schema#"

    assert schema_difference(_builtin("read_file"), listed) == (
        "tools/list gives 'read_file' an inputSchema other than the contract's:"
        ' $["$schema"]: the server has "http://json-schema.org/draft-07/schema#", the contract has nothing'
    )


def test_under_an_older_revision_a_whole_output_text_is_read_as_the_output() -> None:
    raw = {"content": [{"type": "text", "text": '{"n": 1}'}], "isError": False}

    result = read_result(_spec("ERROR: {message}"), raw, _example(), "2025-03-26")

    assert (result.output, result.error) == ({"n": 1}, None)
    with pytest.raises(ExampleFailure) as failure:
        read_result(
            _spec("ERROR: {message}"), {**raw, "content": [{"type": "text", "text": "{}"}]}, _example(), "2025-03-26"
        )
    assert str(failure.value) == (
        "example 'an example': the output in the text breaks the output schema: $.n: required property is missing"
    )


def test_under_an_older_revision_an_unseen_output_is_checked_through_its_rendered_text() -> None:
    spec = ToolSpec.from_data(
        {
            "name": "count",
            "module": "count",
            "handler": "handlers.count:handle",
            "input": {"type": "object"},
            "output": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
            "errors": {},
            "render": {"result": "{n} items", "error": "ERROR: {message}"},
            "source": "contracts/count.yaml",
        }
    )
    raw = {"content": [{"type": "text", "text": "3 items"}]}
    expect = {"output": {"n": 3}, "output_includes": {"n": 3}}

    result = read_result(spec, raw, {"name": "x", "expect": expect}, "2024-11-05")

    assert result.output is None
    assert expectation(spec, expect, raw, "2024-11-05") == {"text": "3 items"}
    assert expectation(spec, {"output": {"n": 3}, "text": "three"}, raw, "2024-11-05") == {"text": "three"}
    assert expectation(spec, expect, raw, "2025-06-18") == expect
    assert expectation(spec, expect, {**raw, "structuredContent": {"n": 3}}, "2024-11-05") == expect
