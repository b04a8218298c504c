"""The 4,096-character limit applies to what the caller wrote (path, cwd), never to the host's root.

read_file opens a path beneath the root's real path, spelled in full for the
walk to check again; that spelling is the host's, and a path the caller could
write relative to the root is no longer for being read there.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.builtin.handlers.host import Host, error_of, open_host
from tests.builtin.trees import call as _call
from tests.builtin.trees import error as _error
from tests.builtin.trees import runtime_over as _runtime
from toolproof.builtin.files.access import MAX_PATH_CHARS
from toolproof.runtime.errors import shown

DEPTH = 2040
"""Folders ``d`` deep: ``d/`` * 2040 + ``f.txt`` is 4,085 characters, within the limit."""


def _make_deep(root: Path, depth: int) -> None:
    """``root/d/d/.../d/f.txt`` (``depth`` folders), made with descriptors: the path is longer than PATH_MAX."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = child
        leaf = os.open("f.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, b"deep\n")
        os.close(leaf)
    finally:
        os.close(fd)


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A root holding ``d/`` * ``DEPTH`` ``f.txt``, removed by ``rm -rf`` (``shutil.rmtree`` recurses)."""
    root = tmp_path_factory.mktemp("deep") / "ws"
    root.mkdir()
    _make_deep(root, DEPTH)
    yield root
    subprocess.run(["rm", "-rf", str(root)], check=True, timeout=120)


@pytest.fixture(scope="module")
def host(deep: Path) -> Host:
    return open_host(deep)


def test_read_file_reads_a_relative_path_within_the_limit_however_long_the_root(host: Host) -> None:
    path = "d/" * DEPTH + "f.txt"
    assert len(path) <= MAX_PATH_CHARS

    assert host.call("read_file", {"path": path}).text == "1\tdeep"
    assert host.call("file-read", {"path": path}).output["content"] == "1 | deep"


def test_read_file_reads_a_cwd_and_a_path_each_within_the_limit(host: Host, deep: Path) -> None:
    cwd = f"{deep}/" + "/".join(["d"] * 1000)
    path = "d/" * (DEPTH - 1000) + "f.txt"
    assert len(cwd) + len(path) > MAX_PATH_CHARS

    assert host.call("read_file", {"path": path, "cwd": cwd}).text == "1\tdeep"


def test_read_file_reads_a_cwd_and_a_path_each_near_the_limit_that_together_pass_it(host: Host) -> None:
    cwd = "/".join(["d"] * 2000)
    path = "../d/" * 800 + "d/" * (DEPTH - 2000) + "f.txt"
    assert max(len(cwd), len(path)) <= MAX_PATH_CHARS < len(cwd) + len(path)

    assert host.call("read_file", {"path": path, "cwd": cwd}).text == "1\tdeep"


def test_read_file_still_refuses_a_path_the_caller_wrote_too_long(host: Host) -> None:
    path = "d/" * DEPTH + "d/d/" + "x" * 20

    code, message = error_of(host.call("read_file", {"path": path}))

    assert (code, message) == (
        "read_failed",
        f"Cannot read {shown(path)}: the path is longer than {MAX_PATH_CHARS} characters",
    )


def test_read_file_still_refuses_a_cwd_the_caller_wrote_too_long(host: Host) -> None:
    cwd = "d/" * 2049

    result = host.call("read_file", {"path": "f.txt", "cwd": cwd})

    assert error_of(result) == (
        "read_failed",
        f"Cannot read f.txt: cwd is not a valid path: the path is longer than {MAX_PATH_CHARS} characters",
    )


def test_file_read_counts_an_absolute_path_in_the_roots_short_spelling_as_written(tmp_path: Path) -> None:
    real = tmp_path / ("r" * 200) / ("e" * 200) / ("a" * 200) / ("l" * 200) / ("x" * 200)
    real.mkdir(parents=True)
    link = tmp_path / "ws"
    link.symlink_to(real)
    _make_deep(real, 1900)
    path = f"{link}/" + "d/" * 1900 + "f.txt"
    assert len(path) <= MAX_PATH_CHARS < len(str(real)) + len(path) - len(str(link))
    host = open_host(link)

    try:
        assert host.call("file-read", {"path": path}).output["content"] == "1 | deep"
        assert host.call("read_file", {"path": path}).text == "1\tdeep"
    finally:
        subprocess.run(["rm", "-rf", str(real / "d")], check=True, timeout=120)


def test_file_read_refuses_an_overlong_path_for_its_length_as_read_file_does(tree: Path) -> None:
    runtime = _runtime(tree)

    assert _error(_call(runtime, "file-read", path="a" * 5000)) == (
        "read_failed",
        "Failed to read file: the path is longer than 4096 characters",
    )
    assert _error(_call(runtime, "read_file", path="a" * 5000))[1].endswith("the path is longer than 4096 characters")
