"""A root configured through a symbolic link (macOS ``/tmp``) is one root, in both its spellings.

The host names ``link`` (-> ``real``). A model may write paths in the spelling it
was told (``link``) or in the one the tools show it (``real``): both name the
allowed folder, and both are opened beneath its pinned real path, so neither
spelling lets a path out.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.builtin.handlers.host import Host, error_of, open_host, token_of
from toolproof.runtime.toolbox import builtin_runtime

MARKER = "SECRET-5e1d"


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``real/`` (the root, with ``notes.txt`` and ``sub/``), ``link`` -> ``real``, and secrets beside them."""
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "notes.txt").write_text("hello\n", encoding="utf-8")
    (real / "sub" / "deep.txt").write_text("deep\n", encoding="utf-8")
    (tmp_path / "link").symlink_to(real)
    (tmp_path / "secret.txt").write_text(f"{MARKER}\n", encoding="utf-8")
    (tmp_path / "link-evil").mkdir()
    (tmp_path / "link-evil" / "x.txt").write_text(f"{MARKER}\n", encoding="utf-8")
    return tmp_path


@pytest.fixture
def host(tree: Path) -> Host:
    return open_host(tree / "link")


@pytest.mark.parametrize("spelling", ["link", "real"])
def test_read_file_reads_an_absolute_path_in_either_spelling_of_a_symlinked_root(
    host: Host, tree: Path, spelling: str
) -> None:
    result = host.call("read_file", {"path": f"{tree}/{spelling}/notes.txt"})

    assert result.ok, result.text
    assert result.text == "1\thello"
    assert result.output["path"] == f"{tree}/real/notes.txt"


@pytest.mark.parametrize("spelling", ["link", "link/sub", "real", "real/sub"])
def test_read_file_takes_a_cwd_in_either_spelling_of_a_symlinked_root(host: Host, tree: Path, spelling: str) -> None:
    path = "deep.txt" if spelling.endswith("sub") else "sub/deep.txt"

    result = host.call("read_file", {"path": path, "cwd": f"{tree}/{spelling}"})

    assert result.ok, result.text
    assert result.text == "1\tdeep"


@pytest.mark.parametrize("spelling", ["link", "real"])
def test_file_read_reads_an_absolute_path_in_either_spelling_of_a_symlinked_root(
    host: Host, tree: Path, spelling: str
) -> None:
    path = f"{tree}/{spelling}/sub/deep.txt"

    result = host.call("file-read", {"path": path})

    assert result.ok, result.text
    assert result.output["content"] == "1 | deep"
    assert result.output["path"] == path


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("read_file", {"path": "BASE/link/../secret.txt"}, "outside_allowed"),
        ("read_file", {"path": "BASE/link/sub/../../secret.txt"}, "outside_allowed"),
        ("read_file", {"path": "BASE/link-evil/x.txt"}, "outside_allowed"),
        ("read_file", {"path": "BASE/link/../link-evil/x.txt"}, "outside_allowed"),
        ("read_file", {"path": "secret.txt", "cwd": "BASE/link/.."}, "cwd_not_allowed"),
        ("read_file", {"path": "x.txt", "cwd": "BASE/link-evil"}, "cwd_not_allowed"),
        ("read_file", {"path": "../secret.txt", "cwd": "BASE/link"}, "outside_allowed"),
        ("file-read", {"path": "BASE/link/../secret.txt"}, "outside_workspace"),
        ("file-read", {"path": "BASE/link/sub/../../secret.txt"}, "outside_workspace"),
    ],
)
def test_the_configured_spelling_lets_no_path_out_of_the_root(
    host: Host, tree: Path, tool: str, args: dict[str, str], code: str
) -> None:
    result = host.call(tool, {key: value.replace("BASE", str(tree)) for key, value in args.items()})

    assert error_of(result)[0] == code
    assert MARKER not in result.text


def test_a_link_pointed_elsewhere_after_start_still_leads_into_the_pinned_root(host: Host, tree: Path) -> None:
    evil = tree / "evil"
    evil.mkdir()
    (evil / "notes.txt").write_text(f"{MARKER}\n", encoding="utf-8")
    fresh = tree / "link.new"
    fresh.symlink_to(evil)
    os.replace(fresh, tree / "link")

    result = host.call("read_file", {"path": f"{tree}/link/notes.txt"})
    in_cwd = host.call("read_file", {"path": "notes.txt", "cwd": f"{tree}/link"})
    by_file_read = host.call("file-read", {"path": f"{tree}/link/notes.txt"})

    assert MARKER not in result.text + in_cwd.text + by_file_read.text
    assert result.text == in_cwd.text == "1\thello"
    assert by_file_read.output["content"] == "1 | hello"


def test_with_two_symlinked_roots_each_spelling_picks_its_own_root(tmp_path: Path) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.txt").write_text(f"{name}\n", encoding="utf-8")
        (tmp_path / f"{name}-link").symlink_to(tmp_path / name)
    host = open_host(tmp_path / "one-link", tmp_path / "two-link")

    by_path = host.call("read_file", {"path": f"{tmp_path}/two-link/two.txt"})
    by_cwd = host.call("read_file", {"path": "two.txt", "cwd": f"{tmp_path}/two-link"})
    crossing = host.call("read_file", {"path": "../two-link/two.txt", "cwd": f"{tmp_path}/one-link"})

    assert by_path.text == by_cwd.text == "1\ttwo"
    assert error_of(crossing)[0] == "outside_allowed"


def test_builtin_runtime_accepts_the_spelling_of_the_workspace_it_was_given(tree: Path) -> None:
    runtime = builtin_runtime(workspace=[tree / "link"], gate_secret=b"0123456789abcdef0123456789abcdef")
    token = token_of(runtime)

    result = runtime.call("read_file", {"path": f"{tree}/link/notes.txt", "skillToken": token}, session="s1")

    assert result.text == "1\thello"
