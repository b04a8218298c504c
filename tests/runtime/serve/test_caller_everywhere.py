"""Who called reaches the audit records and the logs when OAuth is on, and nothing is added when it is off."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from toolproof.builtin.files.access import Directory
from toolproof.builtin.files.audit import Audit, AuditRecord, audit_sink, log_audit
from toolproof.builtin.files.reading import read_text
from toolproof.runtime.context import Caller, Resources, ToolContext, calling_as
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.logs import caller_fields
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import ToolSpec

ALICE = Caller(subject="alice", client_id="app-1", scopes=frozenset({"tools:call", "read"}), issuer="https://as")


def _read(tmp_path: Path, records: list[AuditRecord]) -> None:
    (tmp_path / "a.txt").write_text("hello\n", encoding="utf-8")
    ctx = ToolContext("tool", "s", resources=Resources([Audit(records.append)]))
    with Directory.open(tmp_path) as root:
        read_text(ctx, root, "a.txt", max_bytes=100)


def test_an_audit_record_names_the_oauth_caller_of_the_read(tmp_path: Path) -> None:
    records: list[AuditRecord] = []

    with calling_as(ALICE):
        _read(tmp_path, records)

    assert [record.caller for record in records] == [ALICE]


def test_an_audit_record_names_no_caller_without_oauth(tmp_path: Path) -> None:
    records: list[AuditRecord] = []

    _read(tmp_path, records)

    assert [record.caller for record in records] == [None]


def test_the_default_audit_line_ends_with_the_caller_fields_escaped(caplog: pytest.LogCaptureFixture) -> None:
    hostile = Caller(subject="eve\nINFO forged", client_id=None, scopes=frozenset({"a", "b%s"}))
    record = AuditRecord("read_file", None, "/w/a.txt", "ok", 6, 1.0)
    caplog.set_level(logging.INFO, "toolproof.audit")

    with calling_as(hostile):
        audit_sink(ToolContext("read_file"))(record)
    log_audit(record)

    first, second = (r.getMessage() for r in caplog.records)
    assert first == (
        "tool=read_file session=None path=/w/a.txt outcome=ok bytes=6 duration_ms=1.000"
        ' subject="eve\\x0aINFO forged" client=None scopes="a b%s"'
    )
    assert second == "tool=read_file session=None path=/w/a.txt outcome=ok bytes=6 duration_ms=1.000"


def test_caller_fields_sort_the_scopes_and_quote_what_a_reader_could_split() -> None:
    assert caller_fields(ALICE) == 'subject=alice client=app-1 scopes="read tools:call"'
    assert caller_fields(Caller(None, None, frozenset())) == 'subject=None client=None scopes=""'


def _spec() -> ToolSpec:
    return ToolSpec.from_data(
        {
            "name": "boom",
            "module": "boom",
            "handler": "tests:boom",
            "input": {"type": "object"},
            "output": {"type": "object"},
            "errors": {},
            "render": {"result": "{$}", "error": "ERROR: {message}"},
            "examples": [],
            "source": "contracts/boom.yaml",
        }
    )


def _boom(args: Any, ctx: ToolContext) -> Any:
    raise OSError("disk on fire")


def test_a_handler_failure_is_logged_naming_the_caller_on_its_first_line(caplog: pytest.LogCaptureFixture) -> None:
    runtime = Runtime(tools=[BoundTool.build(_spec(), _boom)])

    with calling_as(ALICE):
        result = runtime.call("boom", {})

    assert result.error is not None and result.error.code == "internal_error"
    (record,) = [r for r in caplog.records if r.name == "toolproof.dispatch"]
    first = record.getMessage().splitlines()[0]
    assert first == 'handler of boom failed: [subject=alice client=app-1 scopes="read tools:call"]'
    assert record.caller == ALICE  # type: ignore[attr-defined]  # for handlers that format records themselves


def test_a_handler_failure_without_oauth_is_logged_as_before(caplog: pytest.LogCaptureFixture) -> None:
    runtime = Runtime(tools=[BoundTool.build(_spec(), _boom)])

    runtime.call("boom", {})

    (record,) = [r for r in caplog.records if r.name == "toolproof.dispatch"]
    assert record.getMessage().splitlines()[0] == "handler of boom failed:"
    assert not hasattr(record, "caller")
