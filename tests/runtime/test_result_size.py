"""Sizing a result as JSON without writing it: exact under the cap, and cheap when far over it."""

from __future__ import annotations

import tracemalloc
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolproof.runtime.context import ToolContext
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import RESPONSE_TOO_LARGE
from toolproof.runtime.json_writer import json_bytes, json_size
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec

_SPECIAL = st.sampled_from(['"', "\\", "\x00", "\x1f", "\x7f", "\u2028", "é", "😀"])
_PIECES = _SPECIAL | st.text(min_size=1, max_size=3)
_LONG = st.builds(lambda piece, times: piece * times, _PIECES, st.integers(1400, 25_000))
"""Strings past the 4 KiB that are sized by writing them, some past the 64 Ki characters sized a slice at a time."""
_TEXT = st.text(st.characters(codec="utf-8") | _SPECIAL) | _LONG
_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(1 << 63), (1 << 64) - 1)
    | st.floats(allow_nan=True, allow_infinity=True)
    | _TEXT
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=5) | st.lists(inner, max_size=5).map(tuple) | st.dictionaries(_TEXT, inner, max_size=5)
    ),
    max_leaves=40,
)


@settings(max_examples=500, deadline=None)
@given(value=_VALUES)
def test_the_counted_size_is_the_length_of_the_written_json(value: Any) -> None:
    assert json_size(value, 1 << 30) == len(json_bytes(value))


@settings(max_examples=300, deadline=None)
@given(value=_VALUES, limit=st.integers(0, 400))
def test_under_the_limit_the_size_is_exact_and_over_it_the_count_is_past_the_limit(value: Any, limit: int) -> None:
    exact = len(json_bytes(value))
    counted = json_size(value, limit)

    assert counted is not None
    if exact <= limit:
        assert counted == exact
    else:
        assert limit < counted <= exact


def test_what_only_writing_can_size_is_none() -> None:
    assert json_size({"name": "t\udcff.txt"}, 1000) is None  # a lone surrogate
    assert json_size([1 << 64], 1000) is None  # beyond orjson's integers
    assert json_size({1: "a"}, 1000) is None  # a key that is not a string
    assert json_size({"a"}, 1000) is None  # no JSON form
    nested: Any = 1
    for _ in range(201):
        nested = [nested]
    assert json_size(nested, 1 << 20) is None


_SHORT_TEXT = st.text(st.characters(codec="utf-8") | _SPECIAL, max_size=20)
_FLAT = st.dictionaries(
    _SHORT_TEXT,
    st.none() | st.booleans() | st.integers(-(1 << 63), (1 << 64) - 1) | st.floats() | _SHORT_TEXT,
    max_size=10,
)
"""Outputs as most tools return them: a few short fields, small enough to be sized by writing them."""


@settings(max_examples=300, deadline=None)
@given(value=_FLAT, limit=st.integers(0, 400))
def test_a_few_short_fields_are_sized_exactly_past_the_limit_too(value: Any, limit: int) -> None:
    assert json_size(value, limit) == len(json_bytes(value))


class _Text(str):
    """A string of a type of its own, which only writing can size."""


@pytest.mark.parametrize(
    "value",
    [
        {"name": "t\udcff.txt", "size": 3},  # a lone surrogate
        {"size": 1 << 64},  # beyond orjson's integers
        {True: "a"},  # a key that is not a string
        {_Text("name"): "a"},
        {"name": _Text("a")},
        {"name": ["a"], 1: "b"},
    ],
)
def test_a_few_fields_only_writing_can_size_are_none(value: Any) -> None:
    assert json_size(value, 1000) is None


def test_a_few_fields_with_a_long_string_are_sized_exactly() -> None:
    value = {"ok": True, "content": "\x01" * 5000, "size": 5000}

    assert json_size(value, 1 << 20) == len(json_bytes(value)) == 36 + 6 * 5000


CONTROL_BYTES = "\x01" * (14 << 20)
"""14 MiB of a control byte: 84 MiB as JSON (``\\u0001`` each), over the 80 MiB cap."""


def _spec() -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": "dump",
            "module": "dump",
            "handler": "tests:dump",
            "input": {"type": "object"},
            "output": {"type": "object", "properties": {"content": {"type": "string"}}, "required": ["content"]},
            "errors": {},
            "render": {"result": "{content}", "error": "ERROR: {message}"},
            "examples": [],
            "source": "contracts/dump.yaml",
        }
    )


def _dump(args: Any, ctx: ToolContext) -> Any:
    return {"content": CONTROL_BYTES}


def test_a_14_mib_control_byte_output_is_refused_without_writing_its_84_mib_of_json() -> None:
    runtime = Runtime(tools=[BoundTool.build(_spec(), _dump)])

    tracemalloc.start()
    try:
        result = runtime.call("dump", {})
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert result.error is not None
    assert result.error.code == RESPONSE_TOO_LARGE
    assert result.error.message == (
        f"The result is too large to return: about {6 * (14 << 20) + 14} bytes; the limit is {80 << 20}."
    )
    assert peak < 2 << 20, f"peak {peak} bytes"


def test_a_14_mib_field_among_short_ones_is_sized_without_writing_it() -> None:
    tracemalloc.start()
    try:
        size = json_size({"ok": True, "content": CONTROL_BYTES, "size": 1}, 80 << 20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert size is not None and size > 80 << 20
    assert peak < 2 << 20, f"peak {peak} bytes"
