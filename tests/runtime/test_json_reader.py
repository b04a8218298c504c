"""The bounded JSON reader (``json_reader.py``): exact integers, nesting named where it starts, linear time."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.json_reader import (
    MAX_INT_DIGITS,
    MAX_JSON_DEPTH,
    JsonBeyondLimits,
    Unreadable,
    _read_bounded,
    json_value,
)
from toolproof.runtime.json_writer import json_bytes
from toolproof.runtime.serve.mcp import (
    McpServer,
    decode_message,
)

NINES = "9" * 4400


@pytest.fixture
def default_recursion_limit() -> Iterator[None]:
    """Python's default recursion limit, which the standard library's reader meets (Hypothesis raises it)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        yield
    finally:
        sys.setrecursionlimit(limit)


def test_integers_of_up_to_4300_digits_stay_exact_both_ways_and_longer_ones_are_named() -> None:
    longest = int("7" * MAX_INT_DIGITS)

    assert json_value(json_bytes({"n": longest})) == {"n": longest}
    assert json_value(json_bytes([-longest])) == [-longest]
    with pytest.raises(JsonBeyondLimits, match=r"^\$\.n: a number with more than 4300 digits$"):
        json_value('{"n": ' + "7" * (MAX_INT_DIGITS + 1) + "}")


@pytest.mark.usefixtures("default_recursion_limit")
def test_nesting_up_to_the_bound_is_read_and_deeper_is_named_where_it_starts() -> None:
    deepest = "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH
    deeper = '{"ok": 1, "deep": [' + "[" * MAX_JSON_DEPTH + "]" * MAX_JSON_DEPTH + "]}"
    with_long_digits = "[" * 1000 + "1" * 30 + "]" * 1000  # read by the bounded reader: too deep for json

    assert isinstance(json_value(deepest), list)
    assert isinstance(json_value(with_long_digits), list)
    with pytest.raises(JsonBeyondLimits, match=r"^\$\.deep: nested more than 1024 levels deep$") as info:
        json_value(deeper)
    assert info.value.value["ok"] == 1


@pytest.mark.parametrize(
    "text",
    ["[1, 2", "[" * 3000 + "1, ]" + "]" * 2999, f"[{NINES}, tru]", f"[{NINES}] x", "[1e400, NaN]", "{1: 2}"],
)
def test_text_that_is_not_json_is_a_value_error_not_beyond_limits(text: str) -> None:
    with pytest.raises(ValueError) as info:
        json_value(text)

    assert not isinstance(info.value, JsonBeyondLimits)


def test_the_bounded_reader_reads_what_the_standard_library_reads() -> None:
    documents: list[Any] = [
        {"a": [1, -0.5, 1e10, 'q"\\\n\u00e9\U0001f600', True, False, None, {}, [], 12345678901234567890123]},
        [[[]], {"k": {"l": []}}, "", 0, -0, 1.5e-300],
        "just a string",
        {"\ud800x": "lone \udc00 surrogates"},
    ]
    for document in documents:
        for text in (json.dumps(document), json.dumps(document, indent=2, ensure_ascii=False)):
            assert _read_bounded(text) == (json.loads(text), None)
            if "\ud800" not in text:
                assert _read_bounded(text.encode()) == (json.loads(text), None)


def test_a_long_text_nested_too_deep_is_refused_whole_without_the_slow_read() -> None:
    half = 2 * 1024 * 1024

    with pytest.raises(JsonBeyondLimits, match=r"^\$: nested too deeply to read .* over 65536 bytes$") as info:
        json_value(b"[" * half + b"]" * half)

    assert isinstance(info.value.value, Unreadable)  # a peer cannot buy seconds of CPU with 4 MiB of brackets


def test_the_bounded_reader_takes_linear_time_on_a_deep_text() -> None:
    half = 256 * 1024
    start = time.monotonic()

    value, problem = _read_bounded(b"[" * half + b"]" * half)

    assert problem == "$[0]: nested more than 1024 levels deep" and isinstance(value, list)
    assert time.monotonic() - start < 60  # a hang bound (~0.5 s): quadratic would be minutes, recursion a crash


def test_a_long_text_with_a_number_beyond_the_bounds_is_named_and_read_no_further() -> None:
    """The hooked re-read and the walk for where are for short texts: a 4 MiB one took 14 s and 4 GB."""
    crowd = "[" * 900 + "[]," * 300_000 + "[]" + "]" * 900
    for tail, what in (("1e400", "a number beyond the range of a float"), ("9" * 5000, "a number with more than 4300")):
        text = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"a": [' + crowd + ", " + tail + "]}}"

        with pytest.raises(
            JsonBeyondLimits, match=rf"^\$: {what} .*in a text over 65536 bytes, read no further\)$"
        ) as info:
            json_value(text)

        assert isinstance(info.value.value, Unreadable)  # the message is not read: no id to answer by
        answer = McpServer(Runtime([]), handshake=False).answer(decode_message(text))
        assert answer is not None and answer["id"] is None and answer["error"]["code"] == -32600
        assert what in answer["error"]["message"]
