"""conform's reading of resource and prompt answers (``testing/offered.py``): no wrong answer passes by accident."""

from __future__ import annotations

from typing import Final

import pytest

from toolproof.runtime.serve.offers import ERROR_DATA_KEY
from toolproof.runtime.spec import ToolSpec, load_specs
from toolproof.testing.offered import listing_problems, read_offered, refused_offered, request_of
from toolproof.testing.replay import ExampleFailure

SPECS: Final = {s.name: s for s in load_specs("tests.conformance_project.generated")}
DATA: Final = SPECS["template_data"]
PROMPT: Final = SPECS["test_prompt_with_arguments"]
TEXT: Final = '{"id":"7","templateTest":true,"data":"Data for ID: 7"}'


def _read(spec: ToolSpec, raw: object, uri: str = "test://template/7/data") -> object:
    return read_offered(spec, raw, {"uri": uri}, "ex").output


def test_an_example_reads_the_uri_its_input_expands_to_or_gets_the_prompt_with_its_arguments() -> None:
    assert request_of(DATA, {"id": "7"}) == ("resources/read", {"uri": "test://template/7/data"})
    assert request_of(PROMPT, {"arg1": "a", "arg2": "b"}) == (
        "prompts/get",
        {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}},
    )


def test_a_read_of_the_contracts_uri_and_mime_type_gives_its_text_as_the_output() -> None:
    raw = {"contents": [{"uri": "test://template/7/data", "mimeType": "application/json", "text": TEXT}]}

    assert _read(DATA, raw) == {"text": TEXT}


@pytest.mark.parametrize(
    ("item", "why"),
    [
        ({"uri": "test://template/8/data", "mimeType": "application/json", "text": TEXT}, "uri"),
        ({"uri": "test://template/7/data", "mimeType": "text/plain", "text": TEXT}, "mimeType"),
        ({"uri": "test://template/7/data", "mimeType": "application/json", "blob": "eA=="}, "breaks its contract"),
    ],
)
def test_a_read_of_another_uri_mime_type_or_encoding_fails(item: dict[str, str], why: str) -> None:
    with pytest.raises(ExampleFailure, match=why):
        _read(DATA, {"contents": [item]})


def test_an_empty_read_fails() -> None:
    with pytest.raises(ExampleFailure, match="no content item"):
        _read(DATA, {"contents": []})


def test_a_prompt_answer_must_hold_messages_its_schema_accepts() -> None:
    good = {"messages": [{"role": "user", "content": {"type": "text", "text": "x"}}]}

    assert read_offered(PROMPT, good, {}, "ex").output == good
    with pytest.raises(ExampleFailure, match="breaks its contract"):
        read_offered(PROMPT, {"messages": [{"role": "system", "content": {"type": "text", "text": "x"}}]}, {}, "ex")


def test_an_error_naming_a_catalogued_code_passes_only_with_a_message_its_template_fits() -> None:
    named = {
        "code": -32602,
        "message": "m",
        "data": {ERROR_DATA_KEY: {"code": "unknown_id", "message": "No data for id 'x'"}},
    }
    wrong = {"code": -32602, "message": "m", "data": {ERROR_DATA_KEY: {"code": "unknown_id", "message": "nope"}}}
    foreign = {"code": -32602, "message": "m", "data": {ERROR_DATA_KEY: {"code": "made_up", "message": "nope"}}}

    result = refused_offered(DATA, named, None, "ex")

    assert result.error is not None and (result.error.code, result.error.message) == (
        "unknown_id",
        "No data for id 'x'",
    )
    with pytest.raises(ExampleFailure, match="does not fit"):
        refused_offered(DATA, wrong, None, "ex")
    with pytest.raises(ExampleFailure, match="the catalogue lacks"):
        refused_offered(DATA, foreign, None, "ex")


def test_an_error_naming_no_code_passes_only_where_its_message_fits_the_expected_error() -> None:
    plain = {"code": -32602, "message": "No data for id 'x'"}

    assert refused_offered(DATA, plain, "unknown_id", "ex").error is not None
    with pytest.raises(ExampleFailure, match="names no catalogued error"):
        refused_offered(DATA, plain, None, "ex")
    with pytest.raises(ExampleFailure, match="does not fit"):
        refused_offered(DATA, {"code": -32602, "message": "Resource not found"}, "unknown_id", "ex")


def test_the_listing_must_carry_the_contracts_uri_mime_type_and_arguments() -> None:
    listed = {"name": "template_data", "uriTemplate": "test://template/{id}/data", "mimeType": "application/json"}
    arguments = [{"name": "arg1", "required": True}, {"name": "arg2", "required": True}]

    assert listing_problems(DATA, listed) == []
    assert listing_problems(DATA, {**listed, "mimeType": "text/plain"}) == [
        "mimeType 'text/plain', not 'application/json'"
    ]
    assert listing_problems(PROMPT, {"name": PROMPT.name, "arguments": arguments}) == []
    assert listing_problems(PROMPT, {"name": PROMPT.name, "arguments": arguments[:1]}) != []
