"""A long text cut short is not JSON, whatever the reader gave up on first: every reader says so."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.asgi import post_bytes
from toolproof.runtime.json_reader import JsonBeyondLimits, json_value
from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.toolbox import builtin_runtime

UNCLOSED = "[" * 70_000
DEEP_BUT_JSON = "[" * 70_000 + "]" * 70_000


@pytest.mark.parametrize("text", [UNCLOSED, '{"a": "' + "x" * 70_000, "[" * 40_000 + "1" + "]" * 39_999])
def test_a_long_text_that_does_not_close_is_not_json(text: str) -> None:
    with pytest.raises(ValueError) as refused:
        json_value(text)

    assert not isinstance(refused.value, JsonBeyondLimits)  # not "holds too much": it is cut short


def test_a_long_text_of_json_too_deep_to_read_is_still_refused_as_such() -> None:
    with pytest.raises(JsonBeyondLimits):
        json_value(DEEP_BUT_JSON)


def test_rest_calls_a_long_unclosed_body_invalid_json_not_too_deep(tmp_path: Path) -> None:
    app = HttpApp(builtin_runtime(workspace=[tmp_path]))

    status, body = post_bytes(app, "/tools/file-read", UNCLOSED.encode())

    assert status == 400, body
    assert "not valid JSON" in body["message"] and "too deeply" not in body["message"]
