"""A path or cwd that starts with ``//`` names what it names with one ``/``, as Linux reads it, in both tools.

POSIX leaves the meaning of exactly two leading slashes to the system; Linux
gives them none, and file-read (seed 003) already took ``//ws/a.txt`` as
``/ws/a.txt``. Neither seed says otherwise, so read_file (seed 004) does too,
and a ``//`` path outside the allowed folders is as outside as with one slash.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin.handlers.host import Host, error_of, open_host

MARKER = "SECRET-d0b1"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("a\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text(f"{MARKER}\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(tmp_path / "ws")
    return tmp_path


@pytest.fixture
def host(tree: Path) -> Host:
    return open_host(tree / "link")


@pytest.mark.parametrize("spelling", ["link", "ws"])
def test_both_tools_read_a_double_slash_path_inside_the_root(host: Host, tree: Path, spelling: str) -> None:
    path = f"/{tree}/{spelling}/a.txt"
    assert path.startswith("//")

    assert host.call("read_file", {"path": path}).text == "1\ta"
    assert host.call("file-read", {"path": path}).output["content"] == "1 | a"


def test_read_file_takes_a_double_slash_cwd_inside_the_root(host: Host, tree: Path) -> None:
    assert host.call("read_file", {"path": "a.txt", "cwd": f"/{tree}/link"}).text == "1\ta"


def test_a_double_slash_path_outside_the_root_is_outside(host: Host, tree: Path) -> None:
    path = f"/{tree}/secret.txt"

    result = host.call("read_file", {"path": path})
    cwd = host.call("read_file", {"path": "secret.txt", "cwd": f"/{tree}"})

    assert error_of(result) == ("outside_allowed", f"Path '{path}' is outside the allowed directories.")
    assert error_of(cwd) == ("cwd_not_allowed", f"cwd '/{tree}' is not inside an allowed directory.")
    assert MARKER not in result.text + cwd.text
