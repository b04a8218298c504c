"""A NUL byte in what a tool reads makes the file binary, for both tools, before any UTF-8 verdict.

read_file (seed 004) rejects binary files and files that are not UTF-8; a file
with a NUL byte is binary even when its bytes are not UTF-8 either. file-read
(seed 003) decodes legacy encodings, and must not hand a model text with a NUL.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin.handlers.host import Host, error_of, open_host

TEXT_LINE = b"x" * 99 + b"\n"
BINARY = bytes(range(256)) * 4
"""NUL bytes and bytes that are not UTF-8."""


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return tmp_path


@pytest.fixture
def host(ws: Path) -> Host:
    return open_host(ws)


def _both(host: Host, name: str) -> tuple[tuple[str, str], tuple[str, str]]:
    return error_of(host.call("read_file", {"path": name})), error_of(host.call("file-read", {"path": name}))


def test_text_then_binary_past_the_first_64_kib_is_binary_for_both_tools(host: Host, ws: Path) -> None:
    (ws / "mixed.bin").write_bytes(TEXT_LINE * 700 + BINARY)  # 70 KB of text, then binary

    read_file, file_read = _both(host, "mixed.bin")

    assert read_file == ("binary", "Binary files are rejected: mixed.bin")
    assert file_read == ("read_failed", "Failed to read file: the file is binary (it contains NUL bytes)")


def test_a_nul_past_the_first_8_kib_among_bytes_that_are_not_utf8_is_binary_for_both_tools(
    host: Host, ws: Path
) -> None:
    (ws / "late.bin").write_bytes(TEXT_LINE * 100 + b"\xff\xfe\x00\x00binary\x00" + TEXT_LINE * 700)

    read_file, file_read = _both(host, "late.bin")

    assert read_file == ("binary", "Binary files are rejected: late.bin")
    assert file_read[0] == "read_failed" and "binary" in file_read[1]


def test_a_nul_in_the_first_64_kib_is_binary_even_outside_the_lines_asked_for(host: Host, ws: Path) -> None:
    (ws / "head.bin").write_bytes(TEXT_LINE * 100 + b"\x00" + TEXT_LINE)

    read_file = host.call("read_file", {"path": "head.bin", "limit": 5})
    file_read = host.call("file-read", {"path": "head.bin", "end_line": 5})

    assert error_of(read_file)[0] == "binary"
    assert error_of(file_read)[0] == "read_failed"


def test_file_read_calls_a_legacy_file_with_a_nul_past_its_sample_binary(host: Host, ws: Path) -> None:
    (ws / "legacy.txt").write_bytes("café crème\n".encode("cp1252") * 7000 + b"tail\x00end\n")

    result = host.call("file-read", {"path": "legacy.txt"})

    assert error_of(result) == ("read_failed", "Failed to read file: the file is binary (it contains NUL bytes)")
    assert "\x00" not in result.text


def test_read_file_still_calls_text_that_is_not_utf8_not_utf8(host: Host, ws: Path) -> None:
    (ws / "legacy.txt").write_bytes("café crème\n".encode("cp1252") * 7000)

    assert error_of(host.call("read_file", {"path": "legacy.txt"}))[0] == "not_utf8"
