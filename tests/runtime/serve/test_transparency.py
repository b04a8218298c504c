"""The lines a host prints for ``-v`` (``serve/transparency.py``): one printable line a call, its result indented."""

from __future__ import annotations

import re
from typing import Any, Final

import pytest

from toolproof.runtime.result import ToolResult
from toolproof.runtime.serve.transparency import call_line, result_line

FORGED: Final = (
    "\nINFO toolproof.audit: tool=read_file session=None path=/etc/shadow outcome=ok bytes=1 duration_ms=0.1"
)


_RAW_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "x" + FORGED}),
        ("read_file", '{"path": "x\\nINFO toolproof.audit: forged"}'),
        ("read_file", "{not json" + FORGED),
        ("read_file" + FORGED, {}),
        ("read_file", {"a\nINFO toolproof.audit: forged": 1}),
        ("read_file", {'x="1", y': 2}),
        ("read_file", {"path": "\u202etxt.exe\u2028\x85\x1b[2K\udcff"}),
        ("read_file", ["\u2029", "\udcff"]),
        ("read_file", "[" * 100_000),
    ],
    ids=[
        "argument_value_forging_an_audit_record",
        "argument_text_forging_an_audit_record",
        "unparsable_argument_text_forging_an_audit_record",
        "tool_name_forging_an_audit_record",
        "argument_name_forging_an_audit_record",
        "argument_name_forging_another_argument",
        "controls_bidi_and_lone_surrogate_in_a_value",
        "arguments_that_are_not_an_object",
        "argument_text_nested_too_deeply",
    ],
)
def test_a_call_line_is_one_printable_line(tool: str, arguments: Any) -> None:
    line = call_line(tool, arguments)

    assert line.startswith("[Tool Call] ")
    assert "\n" not in line and _RAW_UNSAFE.search(line) is None, line
    line.encode("utf-8")


def test_an_argument_name_cannot_fake_another_argument() -> None:
    assert call_line("t", {'x="1", y': 2}) == '[Tool Call] t("x=\\"1\\", y"=2)'


@pytest.mark.parametrize(
    "text",
    [
        "one" + FORGED,
        "a\r\nb\rINFO toolproof.audit: forged",
        "tab\tkept\n\x1b[2Kwiped",
        "\u2028INFO toolproof.audit: x",
    ],
    ids=["text_forging_an_audit_record", "carriage_returns", "terminal_escape", "line_separator"],
)
def test_a_result_line_indents_every_line_of_the_text_after_the_first(text: str) -> None:
    lines = result_line(ToolResult("t", {}, None, text)).split("\n")

    assert lines[0].startswith("[Tool Result] ")
    assert all(line.startswith("    ") for line in lines[1:])
    assert all(_RAW_UNSAFE.search(line.replace("\t", "")) is None for line in lines)
