"""Reading through the file layer writes an audit record before returning content."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.runtime.context import Resources, ToolContext
from toolproof.runtime.files.access import Directory, FileAccessError
from toolproof.runtime.files.audit import Audit, AuditRecord
from toolproof.runtime.files.decoding import DecodeError
from toolproof.runtime.files.reading import read_lines, read_text


def _ctx(records: list[AuditRecord]) -> ToolContext:
    return ToolContext("tool", "session-1", resources=Resources([Audit(records.append)]))


def test_a_read_is_audited_with_its_resolved_path_and_size(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("hello\n", encoding="utf-8")
    records: list[AuditRecord] = []

    with Directory.open(tmp_path) as root:
        text = read_text(_ctx(records), root, "./a.txt", max_bytes=100)

    assert text.decoded.text == "hello\n"
    (record,) = records
    assert (record.tool, record.session, record.path, record.outcome, record.bytes) == (
        "tool",
        "session-1",
        str(tmp_path.resolve() / "a.txt"),
        "ok",
        6,
    )
    assert record.duration_ms >= 0


def test_a_refusal_is_audited_with_its_reason(tmp_path: Path) -> None:
    records: list[AuditRecord] = []

    with Directory.open(tmp_path) as root, pytest.raises(FileAccessError):
        read_text(_ctx(records), root, "../x", max_bytes=100)

    assert [r.outcome for r in records] == ["outside_root"]


def test_a_decode_failure_is_audited(tmp_path: Path) -> None:
    (tmp_path / "b.bin").write_bytes(b"\x00\x01\x02")
    records: list[AuditRecord] = []

    with Directory.open(tmp_path) as root, pytest.raises(DecodeError):
        read_text(_ctx(records), root, "b.bin", max_bytes=100)

    assert [r.outcome for r in records] == ["binary"]


def test_read_lines_reports_encoding_bom_and_newlines(tmp_path: Path) -> None:
    (tmp_path / "w.txt").write_bytes(b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n")
    records: list[AuditRecord] = []

    with Directory.open(tmp_path) as root:
        window = read_lines(_ctx(records), root, "w.txt", start=1, limit=2, max_bytes=1000)

    assert (window.lines, window.total, window.more) == (["one", "two"], 3, True)
    assert (window.encoding, window.bom, window.newline) == ("utf-8", True, "crlf")
    assert records[0].outcome == "ok"


def test_read_lines_cuts_long_lines_by_characters(tmp_path: Path) -> None:
    (tmp_path / "long.txt").write_text("é" * 30 + "\nshort\n", encoding="utf-8")

    with Directory.open(tmp_path) as root:
        window = read_lines(_ctx([]), root, "long.txt", start=1, limit=5, max_bytes=1000, max_line_chars=10)

    assert window.lines == ["é" * 10, "short"]
    assert window.cut == frozenset({0})


def test_read_lines_refuses_invalid_utf8_inside_the_window_when_asked(tmp_path: Path) -> None:
    (tmp_path / "late.txt").write_bytes(b"fine\n" * 20000 + b"caf\xe9\n")

    with Directory.open(tmp_path) as root, pytest.raises(DecodeError) as info:
        read_lines(_ctx([]), root, "late.txt", start=20001, limit=1, max_bytes=10**6, utf8_only=True)

    assert info.value.reason == "not_utf8"
