"""The path limit counts what a caller wrote, never the root's own path; ``//`` starts an absolute path."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolproof.builtin.files.access import (
    MAX_BELOW_CHARS,
    MAX_PATH_CHARS,
    Directory,
    FileAccessError,
    split_user_path,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "a.txt").write_text("a\n", encoding="utf-8")
    return tmp_path


def _reason(root: Path, path: str, *, absolute: bool) -> tuple[str, str]:
    with Directory.open(root) as directory, pytest.raises(FileAccessError) as caught:
        directory.open_file(path, absolute=absolute).close()
    return caught.value.reason, caught.value.detail


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("//tmp/x", (True, ["tmp", "x"])),
        ("///tmp//x/", (True, ["tmp", "x"])),
        ("\\\\srv\\share\\x", (True, ["srv", "share", "x"])),
        ("/tmp/x", (True, ["tmp", "x"])),
    ],
)
def test_two_leading_slashes_or_more_are_the_root_as_linux_reads_them(
    path: str, expected: tuple[bool, list[str]]
) -> None:
    assert split_user_path(path) == expected


def test_a_drive_letter_is_still_outside() -> None:
    with pytest.raises(FileAccessError) as caught:
        split_user_path("C:\\Windows\\win.ini")

    assert (caught.value.reason, caught.value.detail) == (
        "outside_root",
        "drive letters are outside the allowed folder",
    )


def test_a_path_may_be_as_long_as_the_limit_and_no_longer() -> None:
    split_user_path("x" * MAX_PATH_CHARS)
    with pytest.raises(FileAccessError) as caught:
        split_user_path("x" * (MAX_PATH_CHARS + 1))

    assert (caught.value.reason, caught.value.detail) == (
        "invalid_path",
        f"the path is longer than {MAX_PATH_CHARS} characters",
    )
    assert split_user_path("x" * (MAX_PATH_CHARS + 1), max_chars=None) == (False, ["x" * (MAX_PATH_CHARS + 1)])


def test_an_absolute_walk_counts_only_the_part_below_the_root(root: Path) -> None:
    below = "/".join(["sub"] * (MAX_PATH_CHARS // 4)) + "/../" * (MAX_PATH_CHARS // 4)  # longer than the limit
    path = f"{root.resolve()}/{below}a.txt"
    assert len(path) > MAX_PATH_CHARS

    assert _reason(root, path, absolute=True) == ("not_found", "no such file")  # walked: ``sub`` does not exist


def test_an_absolute_walk_refuses_a_part_below_the_root_longer_than_a_cwd_and_a_path(root: Path) -> None:
    path = f"{root.resolve()}/" + "x/" * (MAX_BELOW_CHARS // 2) + "a.txt"

    assert _reason(root, path, absolute=True) == (
        "invalid_path",
        f"the path below the allowed folder is longer than {MAX_BELOW_CHARS} characters",
    )


@pytest.mark.parametrize("absolute", [False, True])
def test_a_relative_walk_is_held_to_the_limit_either_way(root: Path, absolute: bool) -> None:
    assert _reason(root, "x/" * MAX_PATH_CHARS + "a.txt", absolute=absolute) == (
        "invalid_path",
        f"the path is longer than {MAX_PATH_CHARS} characters",
    )


def test_a_double_slash_path_outside_the_root_is_still_outside(root: Path) -> None:
    assert _reason(root, "//etc/passwd", absolute=True)[0] == "outside_root"
    assert _reason(root, "//etc/passwd", absolute=False)[0] == "outside_root"
