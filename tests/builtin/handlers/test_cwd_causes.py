"""read_file blames cwd, not the path, when cwd is what cannot be used.

A cwd that leads out is ``cwd_not_allowed`` (``test_path_causes.py``); one that
does not exist, is a file, or is not a valid path is ``read_failed`` saying so
of cwd. A good cwd with a missing file still blames the path.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin.handlers.host import Host, error_of, open_host


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "s.txt").write_text("s\n", encoding="utf-8")
    (ws / "sub" / "x").write_text("x\n", encoding="utf-8")
    return ws


@pytest.fixture
def host(ws: Path) -> Host:
    return open_host(ws)


def test_a_cwd_with_a_component_too_long_for_the_disk_is_blamed(host: Host, ws: Path) -> None:
    result = host.call("read_file", {"path": "x", "cwd": f"{ws}/{'n' * 300}"})

    assert error_of(result) == ("read_failed", "Cannot read x: cwd is not a valid path: a path component is too long")


@pytest.mark.parametrize("cwd", ["BASE/nosuch", "nosuch", "BASE/nosuch/deeper", "BASE/s.txt/deeper"])
def test_a_cwd_that_does_not_exist_is_blamed(host: Host, ws: Path, cwd: str) -> None:
    cwd = cwd.replace("BASE", str(ws))

    result = host.call("read_file", {"path": "s.txt", "cwd": cwd})

    assert error_of(result) == ("read_failed", f"Cannot read s.txt: cwd '{cwd}' does not exist")


@pytest.mark.parametrize("path", ["x", "../s.txt"])
def test_a_cwd_that_is_a_file_is_blamed(host: Host, ws: Path, path: str) -> None:
    cwd = f"{ws}/s.txt"

    result = host.call("read_file", {"path": path, "cwd": cwd})

    assert error_of(result) == ("read_failed", f"Cannot read {path}: cwd '{cwd}' is not a folder")


def test_a_good_cwd_with_a_missing_file_blames_the_path(host: Host, ws: Path) -> None:
    result = host.call("read_file", {"path": "missing.txt", "cwd": f"{ws}/sub"})

    assert error_of(result) == ("not_found", "File not found: missing.txt")


def test_a_good_cwd_reads(host: Host, ws: Path) -> None:
    assert host.call("read_file", {"path": "x", "cwd": f"{ws}/sub"}).text == "1\tx"
    assert host.call("read_file", {"path": "../s.txt", "cwd": "sub"}).text == "1\ts"
