"""A file that ends in a byte UTF-8 never ends in is not UTF-8, however short.

The encoding is chosen from the first 64 KiB; a character cut in two by that
boundary is not held against the file, but a file read whole has no boundary:
``caf\\xe9`` without a line end is as much cp1252 as ``caf\\xe9\\n``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin.handlers.host import Host, error_of, open_host

HEAD = 64 * 1024


@pytest.fixture
def host(tmp_path: Path) -> Host:
    return open_host(tmp_path)


@pytest.mark.parametrize("data", [b"caf\xe9", b"caf\xe9\n"])
def test_file_read_decodes_a_short_legacy_file_with_or_without_a_final_line_end(
    host: Host, tmp_path: Path, data: bytes
) -> None:
    (tmp_path / "menu.txt").write_bytes(data)

    result = host.call("file-read", {"path": "menu.txt"})

    assert result.ok, result.text
    assert (result.output["content"], result.output["encoding"]) == ("1 | café", "windows-1252")


def test_read_file_refuses_a_short_legacy_file_that_ends_in_a_lead_byte_as_not_utf8(host: Host, tmp_path: Path) -> None:
    (tmp_path / "menu.txt").write_bytes(b"caf\xe9")

    assert error_of(host.call("read_file", {"path": "menu.txt"})) == (
        "not_utf8",
        "Files that cannot be decoded as UTF-8 are rejected: menu.txt",
    )


def test_a_short_file_of_control_bytes_ending_in_a_lead_byte_is_binary_for_both_tools(
    host: Host, tmp_path: Path
) -> None:
    (tmp_path / "blob").write_bytes(b"\x01\x02\x03\x04abc\xe9")

    assert error_of(host.call("file-read", {"path": "blob"})) == (
        "read_failed",
        "Failed to read file: the file is binary, not text",
    )
    assert error_of(host.call("read_file", {"path": "blob"})) == ("binary", "Binary files are rejected: blob")


def test_a_character_cut_by_the_end_of_the_first_64_kib_is_still_utf8(host: Host, tmp_path: Path) -> None:
    lines = b"x" * 99 + b"\n"
    data = lines * 655 + b"x" * 35 + "é\n".encode()  # é's two bytes straddle the end of the first 64 KiB
    assert data.index("é".encode()) == HEAD - 1
    (tmp_path / "long.txt").write_bytes(data)

    file_read = host.call("file-read", {"path": "long.txt", "start_line": 656})
    read_file = host.call("read_file", {"path": "long.txt", "offset": 656})

    assert (file_read.output["encoding"], file_read.output["content"]) == ("utf-8", "656 | " + "x" * 35 + "é")
    assert read_file.text == "656\t" + "x" * 35 + "é"


def test_a_file_of_exactly_64_kib_ending_in_a_lead_byte_is_not_utf8(host: Host, tmp_path: Path) -> None:
    (tmp_path / "edge.txt").write_bytes(b"x" * (HEAD - 1) + b"\xe9")

    result = host.call("file-read", {"path": "edge.txt", "include_line_numbers": False})

    assert result.ok, result.text[:200]
    assert result.output["encoding"] != "utf-8"
    assert result.output["content"].endswith("xé")
