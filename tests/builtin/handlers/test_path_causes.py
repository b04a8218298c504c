"""Each refused path gets its true cause, and file-read's pattern check covers what the caller chose.

file-read (seed 003) refuses ``..``, ``~``, ``|``, ``>``, ``<`` and ``$(`` in the part
of an absolute path below the workspace as in a relative one; the host's own
workspace path may hold them (a deliberate difference: the seed re-roots every
absolute path under the workspace and so checks all of it). read_file (seed 004)
says nothing of ``~``: a path resolves from cwd, so ``~x`` is a file there.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin.handlers.host import Host, error_of, open_host
from toolproof.runtime.errors import shown

MARKER = "SECRET-90b2"
LONG_NAME = "n" * 300
"""Longer than any file system allows a name to be (255 bytes): ENAMETOOLONG."""
PATTERN_NAMES = ["a|b.txt", "a>b.txt", "a<b.txt", "$(id).txt", "~y", "x..y.txt"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``ws/`` (the root) with ``notes.txt``, ``sub/``, ``~x``, a link out and files named with each pattern."""
    ws = tmp_path / "ws"
    (ws / "sub").mkdir(parents=True)
    (ws / "notes.txt").write_text("hello\n", encoding="utf-8")
    (ws / "~x").write_text("tilde\n", encoding="utf-8")
    for name in PATTERN_NAMES:
        (ws / name).write_text("patterned\n", encoding="utf-8")
    (tmp_path / "ws_evil").mkdir()
    (tmp_path / "ws_evil" / "x.txt").write_text(f"{MARKER}\n", encoding="utf-8")
    (ws / "out").symlink_to(tmp_path / "ws_evil")
    return tmp_path


@pytest.fixture
def host(tree: Path) -> Host:
    return open_host(tree / "ws")


@pytest.mark.parametrize("name", PATTERN_NAMES)
def test_file_read_refuses_a_suspicious_pattern_below_the_workspace_in_an_absolute_path(
    host: Host, tree: Path, name: str
) -> None:
    relative = host.call("file-read", {"path": name})
    absolute = host.call("file-read", {"path": f"{tree}/ws/{name}"})

    assert error_of(relative) == error_of(absolute) == ("invalid_path", "Path contains invalid characters or patterns.")


def test_file_read_checks_the_pattern_after_lexical_dot_dot_as_for_a_relative_path(host: Host, tree: Path) -> None:
    result = host.call("file-read", {"path": f"{tree}/ws/sub/../a|b.txt"})
    fine = host.call("file-read", {"path": f"{tree}/ws/sub/../notes.txt"})

    assert error_of(result)[0] == "invalid_path"
    assert fine.output["content"] == "1 | hello"


def test_file_read_does_not_hold_the_hosts_own_workspace_path_against_the_caller(tmp_path: Path) -> None:
    ws = tmp_path / "my~ws $(x) a|b"
    ws.mkdir()
    (ws / "notes.txt").write_text("hello\n", encoding="utf-8")
    host = open_host(ws)

    result = host.call("file-read", {"path": f"{ws}/notes.txt"})

    assert result.ok, result.text
    assert result.output["content"] == "1 | hello"


def test_read_file_calls_a_blank_path_a_blank_path(host: Host) -> None:
    assert error_of(host.call("read_file", {"path": "   "})) == ("read_failed", "Cannot read    : the path is blank")


def test_read_file_calls_a_name_too_long_for_the_file_system_what_it_is(host: Host) -> None:
    code, message = error_of(host.call("read_file", {"path": LONG_NAME}))

    assert (code, message) == ("read_failed", f"Cannot read {shown(LONG_NAME)}: a path component is too long")


def test_file_read_calls_a_name_too_long_for_the_file_system_what_it_is(host: Host) -> None:
    result = host.call("file-read", {"path": LONG_NAME})

    assert error_of(result) == ("read_failed", "Failed to read file: a path component is too long")


def test_file_read_still_refuses_an_overlong_path_before_any_open_for_its_length(host: Host) -> None:
    assert error_of(host.call("file-read", {"path": "x" * 5000})) == (
        "read_failed",
        "Failed to read file: the path is longer than 4096 characters",
    )


def test_read_file_reads_a_file_whose_name_starts_with_a_tilde(host: Host, tree: Path) -> None:
    assert host.call("read_file", {"path": "~x"}).text == "1\ttilde"
    assert host.call("read_file", {"path": "~x", "cwd": str(tree / "ws")}).text == "1\ttilde"


@pytest.mark.parametrize("path", ["~/.ssh/id_rsa", "~", "~root/.bashrc"])
def test_read_file_expands_no_home_folder_a_tilde_path_is_looked_for_in_cwd(host: Host, path: str) -> None:
    assert error_of(host.call("read_file", {"path": path})) == ("not_found", f"File not found: {path}")


@pytest.mark.parametrize("cwd", ["BASE/ws/../ws_evil", "BASE/ws/sub/../../ws_evil", "BASE/ws/out"])
def test_read_file_blames_a_cwd_that_leads_out_of_the_root_not_the_path(host: Host, tree: Path, cwd: str) -> None:
    cwd = cwd.replace("BASE", str(tree))

    result = host.call("read_file", {"path": "x.txt", "cwd": cwd})

    assert error_of(result) == ("cwd_not_allowed", f"cwd '{cwd}' is not inside an allowed directory.")
    assert MARKER not in result.text


def test_read_file_blames_the_path_when_it_climbs_out_of_a_good_cwd(host: Host, tree: Path) -> None:
    result = host.call("read_file", {"path": "../../ws_evil/x.txt", "cwd": f"{tree}/ws/sub"})

    assert error_of(result) == ("outside_allowed", "Path '../../ws_evil/x.txt' is outside the allowed directories.")


def test_read_file_calls_a_blank_cwd_what_it_is(host: Host) -> None:
    result = host.call("read_file", {"path": "notes.txt", "cwd": "  "})

    assert error_of(result) == ("read_failed", "Cannot read notes.txt: cwd is not a valid path: the path is blank")


@pytest.mark.parametrize(("tool", "path"), [("read_file", "BASE/ws"), ("file-read", "BASE/ws"), ("file-read", "/")])
def test_a_path_naming_the_root_itself_is_a_directory(host: Host, tree: Path, tool: str, path: str) -> None:
    code, _ = error_of(host.call(tool, {"path": path.replace("BASE", str(tree))}))

    assert code == {"read_file": "is_directory", "file-read": "not_a_file"}[tool]
