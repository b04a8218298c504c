"""The audit record of a file read (``files/audit.py``): a session name is escaped, one record a line."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Final

import pytest

from tests.builtin.trees import lay_hostile as _lay_out
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.json_writer import json_bytes
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import builtin_runtime

SECRET: Final = "hostile-calls-secret-of-32-bytes"


FORGED: Final = (
    "\nINFO toolproof.audit: tool=read_file session=None path=/etc/shadow outcome=ok bytes=1 duration_ms=0.1"
)


_AUDIT_LINE = re.compile(
    r'tool=\S+ session=(?:"[^"]*"|\S+) path=(?:"[^"]*"|\S+) outcome=\S+ bytes=\d+ duration_ms=\d+\.\d{3}'
)


_RAW_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile").resolve()
    _lay_out(folder)
    return folder


def _writable(result: ToolResult) -> None:
    """Every transport can write ``result``: orjson (MCP, HTTP), the standard library (CLI), UTF-8 text."""
    json_bytes(result.to_dict())
    json_bytes(result.to_mcp())
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")
    result.text.encode("utf-8")


def _assert_audit_lines(records: list[logging.LogRecord]) -> None:
    for record in records:
        line = record.getMessage()
        assert _AUDIT_LINE.fullmatch(line), line
        assert _RAW_UNSAFE.search(line) is None, line


@pytest.fixture(scope="module")
def runtime(base: Path) -> Runtime:
    return builtin_runtime(workspace=[base / "ws"], skills=[base / "skills"], gate_secret=SECRET.encode())


@pytest.mark.parametrize(
    "session",
    ["s" + FORGED, "s\udcff", 's" outcome=ok', "\u202esession", ""],
    ids=["forging_an_audit_record", "lone_surrogate", "forging_a_field", "bidi_override", "empty"],
)
def test_a_hostile_session_name_is_escaped_in_the_audit_and_still_gets_its_token(
    session: str, runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="toolproof.audit"):
        doc = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"}, session=session)
        read = runtime.call("read_file", {"path": "notes.txt", "skillToken": doc.output["skillToken"]}, session=session)

    assert read.ok, read.text
    _writable(read)
    records = [r for r in caplog.records if r.name == "toolproof.audit"]
    assert len(records) == 1
    _assert_audit_lines(records)
