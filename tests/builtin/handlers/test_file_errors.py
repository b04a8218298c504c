"""Handlers map the file layer's reasons and kinds through tables, never through the wording of a message."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args

import pytest

from toolproof.builtin.files import reading
from toolproof.builtin.files.access import FileAccessError, NotRegularKind, Reason
from toolproof.builtin.files.workspace import Workspace
from toolproof.builtin.handlers import file_read, read_file
from toolproof.runtime.context import Resources, ToolContext
from toolproof.runtime.errors import ToolError


def test_every_kind_of_non_regular_file_has_an_entry_in_each_table() -> None:
    kinds = set(get_args(NotRegularKind))

    assert set(file_read._KINDS) == kinds
    assert set(read_file._NOT_REGULAR) == kinds


def test_the_tables_name_only_reasons_the_file_layer_gives() -> None:
    reasons = set(get_args(Reason))

    assert set(file_read._REFUSALS) <= reasons
    assert set(read_file._REFUSALS) <= reasons
    assert {"hardlink", "symlink", "outside_root", "not_regular"} <= set(read_file._REFUSALS)
    assert {"hardlink", "symlink", "outside_root", "not_regular"} <= set(file_read._REFUSALS)


def _raising(exc: FileAccessError) -> Any:
    def read_lines(*args: object, **kwargs: object) -> None:
        raise exc

    return read_lines


def _ctx(tool: str, root: Path) -> ToolContext:
    return ToolContext(tool, resources=Resources([Workspace.of([root])]))


# A detail that would have fooled the old text parsing: it says "directory" about a FIFO.
MISLEADING = FileAccessError("not_regular", "p", "the path is a directory-like FIFO, or so", kind="fifo")


def test_read_file_maps_a_not_regular_path_by_its_kind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "read_lines", _raising(MISLEADING))

    with pytest.raises(ToolError) as info:
        read_file._read(_ctx("read_file", tmp_path), "p", None, 1, 10)

    assert info.value.code == "not_regular"


def test_file_read_names_the_kind_from_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reading, "read_lines", _raising(MISLEADING))

    with pytest.raises(ToolError) as info:
        file_read._read(_ctx("file-read", tmp_path), {"path": "p"}, 1, 10)

    assert (info.value.code, info.value.message) == ("not_a_file", "Not a regular file: p is a FIFO")


@pytest.mark.parametrize(
    ("kind", "read_file_code", "file_read_message"),
    [
        ("directory", "is_directory", "Not a regular file: p is a directory"),
        ("fifo", "not_regular", "Not a regular file: p is a FIFO"),
        ("socket", "not_regular", "Not a regular file: p is a socket"),
        ("device", "not_regular", "Not a regular file: p is a device"),
        ("symlink", "not_regular", "Not a regular file: p is a symbolic link"),
        ("other", "not_regular", "Not a regular file: p is a special file"),
    ],
)
def test_each_kind_gets_its_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kind: NotRegularKind, read_file_code: str, file_read_message: str
) -> None:
    exc = FileAccessError.not_regular("p", kind)
    monkeypatch.setattr(reading, "read_lines", _raising(exc))
    monkeypatch.setattr(reading, "read_lines", _raising(exc))

    with pytest.raises(ToolError) as gateway:
        read_file._read(_ctx("read_file", tmp_path), "p", None, 1, 10)
    with pytest.raises(ToolError) as aintern:
        file_read._read(_ctx("file-read", tmp_path), {"path": "p"}, 1, 10)

    assert gateway.value.code == read_file_code
    assert aintern.value.message == file_read_message


def test_a_hard_link_refusal_gives_its_own_reason_not_a_permission_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exc = FileAccessError("hardlink", "p", "the file has 2 names (hard links)")
    monkeypatch.setattr(reading, "read_lines", _raising(exc))
    monkeypatch.setattr(reading, "read_lines", _raising(exc))

    with pytest.raises(ToolError) as gateway:
        read_file._read(_ctx("read_file", tmp_path), "p", None, 1, 10)
    with pytest.raises(ToolError) as aintern:
        file_read._read(_ctx("file-read", tmp_path), {"path": "p"}, 1, 10)

    assert (gateway.value.code, aintern.value.code) == ("read_failed", "read_failed")
    assert gateway.value.message == "Cannot read p: the file has 2 names (hard links)"
    assert aintern.value.message == "Failed to read file: the file has 2 names (hard links)"
