"""Reading through the file layer writes an audit record before returning content."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from toolproof.builtin.files.access import Directory, FileAccessError
from toolproof.builtin.files.audit import Audit, AuditRecord
from toolproof.builtin.files.decoding import DecodeError
from toolproof.builtin.files.reading import read_lines, read_text
from toolproof.runtime.context import Resources, ToolContext


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


def test_a_file_with_cr_line_ends_in_its_first_64_kib_and_lf_after_is_numbered_as_splitlines(tmp_path: Path) -> None:
    data = b"".join(b"mac %d\r" % i for i in range(1, 20001)) + b"".join(b"unix %d\n" % i for i in range(1, 11))
    (tmp_path / "mixed.txt").write_bytes(data)
    assert data.find(b"\n") > 64 * 1024

    with Directory.open(tmp_path) as root:
        window = read_lines(_ctx([]), root, "mixed.txt", start=19999, limit=4, max_bytes=10**6, utf8_only=True)

    assert window.lines == ["mac 19999", "mac 20000", "unix 1", "unix 2"]
    assert (window.total, window.more) == (20010, True) == (len(data.splitlines()), True)


def test_a_crlf_file_read_again_keeps_its_numbering(tmp_path: Path) -> None:
    data = b"".join(b"line %d\r\n" % i for i in range(1, 50001))
    (tmp_path / "win.txt").write_bytes(data)

    with Directory.open(tmp_path) as root:
        first = read_lines(_ctx([]), root, "win.txt", start=40000, limit=2, max_bytes=10**6)
        again = read_lines(_ctx([]), root, "win.txt", start=40000, limit=2, max_bytes=10**6)

    assert first.lines == again.lines == ["line 40000", "line 40001"]
    assert first.total == again.total == 50000


def test_a_file_with_several_names_is_refused_when_the_contract_denies_hard_links(tmp_path: Path) -> None:
    from toolproof.runtime.spec import load_specs

    outside = tmp_path / "outside.txt"
    outside.write_text("SECRET\n", encoding="utf-8")
    root_dir = tmp_path / "root"
    root_dir.mkdir()
    os.link(outside, root_dir / "inside.txt")
    spec = next(spec for spec in load_specs() if spec.name == "read_file")
    denying = ToolContext("read_file", spec=replace(spec, settings={**spec.settings, "hardlinks": "deny"}))
    allowing = ToolContext("read_file", spec=replace(spec, settings={**spec.settings, "hardlinks": "allow"}))

    with Directory.open(root_dir) as root, pytest.raises(FileAccessError) as info:
        read_text(denying, root, "inside.txt", max_bytes=100)
    with Directory.open(root_dir) as root, pytest.raises(FileAccessError) as lines_info:
        read_lines(denying, root, "inside.txt", start=1, limit=1, max_bytes=100)
    with Directory.open(root_dir) as root:
        assert read_text(allowing, root, "inside.txt", max_bytes=100).decoded.text == "SECRET\n"

    assert info.value.reason == lines_info.value.reason == "hardlink"
