"""The file layer: containment, symlink policy, file types and caps."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolproof.runtime.files.access import Directory, FileAccessError, split_user_path


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """``<tmp>/root`` with files, a sibling ``root-evil`` and a secret beside it."""
    root = tmp_path / "root"
    (root / "sub" / "deep").mkdir(parents=True)
    (root / "a.txt").write_text("alpha\n", encoding="utf-8")
    (root / "sub" / "b.txt").write_text("beta\n", encoding="utf-8")
    (root / "sub" / "deep" / "c.txt").write_text("gamma\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("SECRET\n", encoding="utf-8")
    (tmp_path / "root-evil").mkdir()
    (tmp_path / "root-evil" / "x.txt").write_text("EVIL\n", encoding="utf-8")
    return root


@pytest.fixture
def root(tree: Path) -> Iterator[Directory]:
    with Directory.open(tree) as directory:
        yield directory


def _read(root: Directory, path: str, **kw: object) -> bytes:
    with root.open_file(path, **kw) as f:  # type: ignore[arg-type]
        return f.read_all(1 << 20)


def _reason(root: Directory, path: str, **kw: object) -> str:
    with pytest.raises(FileAccessError) as info:
        _read(root, path, **kw)
    return info.value.reason


def test_reads_files_at_any_depth(root: Directory) -> None:
    assert _read(root, "a.txt") == b"alpha\n"
    assert _read(root, "sub/deep/c.txt") == b"gamma\n"
    assert _read(root, "./sub//b.txt") == b"beta\n"


def test_open_reports_the_resolved_path(root: Directory, tree: Path) -> None:
    with root.open_file("sub/../sub/b.txt") as f:
        assert f.relpath == "sub/b.txt"
        assert f.path == str((tree / "sub" / "b.txt").resolve())


@pytest.mark.parametrize(
    "path",
    [
        "../secret.txt",
        "sub/../../secret.txt",
        "sub/deep/../../../secret.txt",
        "..",
        "../root-evil/x.txt",
        "..\\secret.txt",
    ],
)
def test_climbing_above_the_root_is_refused(root: Directory, path: str) -> None:
    assert _reason(root, path) == "outside_root"


def test_dot_dot_that_stays_inside_is_allowed(root: Directory) -> None:
    assert _read(root, "sub/deep/../b.txt") == b"beta\n"


@pytest.mark.parametrize(
    "path",
    ["/etc/passwd", "~/.ssh/id_rsa", "~", "file:///etc/passwd", "C:\\Windows\\win.ini", "\\\\srv\\share\\x", "//srv/x"],
)
def test_absolute_home_url_and_windows_paths_are_outside(root: Directory, path: str) -> None:
    assert _reason(root, path) == "outside_root"


def test_an_absolute_path_inside_the_root_is_accepted_when_allowed(root: Directory, tree: Path) -> None:
    inside = str(tree.resolve() / "a.txt")

    assert _read(root, inside, absolute=True) == b"alpha\n"
    assert _reason(root, inside) == "outside_root"


def test_an_absolute_path_in_a_prefix_sibling_is_outside(root: Directory, tree: Path) -> None:
    sibling = str(tree.resolve()) + "-evil/x.txt"

    assert _reason(root, sibling, absolute=True) == "outside_root"


@pytest.mark.parametrize("path", ["a.txt\x00.png", "", "   ", "x" * 5000])
def test_malformed_paths_are_invalid(root: Directory, path: str) -> None:
    assert _reason(root, path) == "invalid_path"


def test_a_too_long_component_is_invalid(root: Directory) -> None:
    assert _reason(root, "n" * 300) == "invalid_path"


def test_missing_files_and_parents_are_not_found(root: Directory) -> None:
    assert _reason(root, "nope.txt") == "not_found"
    assert _reason(root, "nope/a.txt") == "not_found"
    assert _reason(root, "a.txt/child") == "not_found"


def test_a_symlink_out_of_the_root_is_refused(root: Directory, tree: Path) -> None:
    (tree / "leak").symlink_to(tree.parent / "secret.txt")
    (tree / "rel-leak").symlink_to("../secret.txt")

    assert _reason(root, "leak") == "outside_root"
    assert _reason(root, "rel-leak") == "outside_root"


def test_a_symlinked_parent_out_of_the_root_is_refused(root: Directory, tree: Path) -> None:
    (tree / "up").symlink_to(tree.parent)
    (tree / "slash").symlink_to("/")

    assert _reason(root, "up/secret.txt") == "outside_root"
    assert _reason(root, "slash/etc/passwd") == "outside_root"


def test_a_symlink_into_a_prefix_sibling_is_refused(root: Directory, tree: Path) -> None:
    (tree / "evil").symlink_to(str(tree.resolve()) + "-evil/x.txt")

    assert _reason(root, "evil") == "outside_root"


def test_a_symlink_that_stays_inside_is_followed_by_policy(root: Directory, tree: Path) -> None:
    (tree / "short").symlink_to("sub/deep/c.txt")
    (tree / "sub" / "abs").symlink_to(tree.resolve() / "a.txt")
    (tree / "sub" / "deep" / "back").symlink_to("../../a.txt")

    assert _read(root, "short") == b"gamma\n"
    assert _read(root, "sub/abs") == b"alpha\n"
    assert _read(root, "sub/deep/back") == b"alpha\n"
    assert _reason(root, "short", symlinks="deny") == "symlink"


def test_a_dangling_symlink_is_not_found_and_never_checked_by_parent(root: Directory, tree: Path) -> None:
    (tree / "dangling").symlink_to("does-not-exist")
    (tree / "dangling-out").symlink_to(tree.parent / "not-yet")

    assert _reason(root, "dangling") == "not_found"
    assert _reason(root, "dangling-out") == "outside_root"


def test_symlink_loops_end_cleanly(root: Directory, tree: Path) -> None:
    (tree / "loop-a").symlink_to("loop-b")
    (tree / "loop-b").symlink_to("loop-a")
    (tree / "self").symlink_to("self")

    assert _reason(root, "loop-a") == "loop"
    assert _reason(root, "self") == "loop"


def test_magic_links_under_proc_are_not_followed(tree: Path) -> None:
    with Directory.open("/proc/self") as proc:
        assert _reason(proc, "root/etc/passwd") == "outside_root"
        assert _reason(proc, "cwd/anything") == "outside_root"


def test_directories_fifos_sockets_and_devices_are_not_regular(root: Directory, tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tree / "sock"))
    (tree / "null").symlink_to("/dev/null")
    try:
        assert _reason(root, "sub") == "not_regular"
        assert _reason(root, "pipe") == "not_regular"
        assert _reason(root, "sock") == "not_regular"
    finally:
        sock.close()
    with Directory.open("/dev") as dev:
        assert _reason(dev, "null") == "not_regular"
        assert _reason(dev, "zero") == "not_regular"


def test_size_cap_applies_before_reading(root: Directory, tree: Path) -> None:
    (tree / "big.bin").write_bytes(b"x" * 101)

    with root.open_file("big.bin") as f, pytest.raises(FileAccessError) as info:
        f.read_all(100)
    with root.open_file("big.bin") as f:
        assert f.read_all(101) == b"x" * 101

    assert info.value.reason == "too_large"


def test_a_size_that_lies_is_capped_while_reading() -> None:
    with Directory.open("/proc/self") as proc, proc.open_file("environ", symlinks="deny") as f:
        assert f.size == 0
        with pytest.raises(FileAccessError) as info:
            f.read_all(1)
    assert info.value.reason == "too_large"


def test_open_dir_gives_a_new_root_that_cannot_be_climbed_out_of(root: Directory) -> None:
    with root.open_dir("sub") as sub:
        assert _read(sub, "b.txt") == b"beta\n"
        assert _reason(sub, "../a.txt") == "outside_root"


def test_open_dir_of_a_file_is_not_a_directory(root: Directory) -> None:
    with pytest.raises(FileAccessError) as info:
        root.open_dir("a.txt")

    assert info.value.reason == "not_directory"


def test_opening_a_missing_root_is_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileAccessError) as info:
        Directory.open(tmp_path / "missing")

    assert info.value.reason == "not_found"


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a/b", (False, ["a", "b"])),
        ("a\\b", (False, ["a", "b"])),
        ("./a/./b/", (False, ["a", "b"])),
        ("/x/../y", (True, ["x", "..", "y"])),
        ("%2e%2e%2fetc", (False, ["%2e%2e%2fetc"])),
    ],
)
def test_split_user_path(path: str, expected: tuple[bool, list[str]]) -> None:
    assert split_user_path(path) == expected


def test_no_descriptor_leaks_after_refusals(root: Directory, tree: Path) -> None:
    (tree / "up").symlink_to(tree.parent)
    before = len(os.listdir("/proc/self/fd"))

    for _ in range(50):
        for path in ("up/secret.txt", "sub/../../x", "sub/deep/nope", "sub"):
            with pytest.raises(FileAccessError):
                _read(root, path)

    assert len(os.listdir("/proc/self/fd")) == before
