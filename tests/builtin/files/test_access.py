"""The file layer: containment, symlink policy, file types and caps."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from toolproof.builtin.files.access import Directory, FileAccessError, names_folder, split_user_path


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


@pytest.fixture
def deep_root(tmp_path: Path) -> Iterator[Path]:
    """An empty ``<tmp>/root`` for a deep tree, removed afterwards by ``rm -rf`` (``shutil.rmtree`` recurses)."""
    import subprocess

    root = tmp_path / "root"
    root.mkdir()
    yield root
    subprocess.run(["rm", "-rf", str(root)], check=True, timeout=120)


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


_LOW_FD_SCRIPT = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
from toolproof.builtin.files.access import Directory, FileAccessError

out = {}
with Directory.open(sys.argv[1]) as root:
    for label, path in json.loads(sys.argv[2]).items():
        try:
            with root.open_file(path) as f:
                out[label] = f.read_all(100).decode()
        except FileAccessError as exc:
            out[label] = exc.reason
print(json.dumps(out))
"""


def _read_with_64_descriptors(root: Path, paths: dict[str, str]) -> dict[str, str]:
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", _LOW_FD_SCRIPT, str(root), json.dumps(paths)],
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=True,
    )
    result: dict[str, str] = json.loads(done.stdout)
    return result


def test_a_file_2000_folders_deep_reads_with_64_descriptors(deep_root: Path, tmp_path: Path) -> None:
    root = deep_root
    _make_deep(root, 2000)
    (root / "d" / "top.txt").write_text("top\n", encoding="utf-8")
    (tmp_path / "secret.txt").write_text("SECRET\n", encoding="utf-8")

    got = _read_with_64_descriptors(
        root,
        {
            "deep": "d/" * 2000 + "f.txt",
            "climb back": "d/" * 600 + "../" * 599 + "top.txt",
            "climb out": "d/" * 600 + "../" * 601 + "secret.txt",
            "climb out from the bottom": "d/" * 800 + "../" * 801 + "secret.txt",
        },
    )

    assert got == {
        "deep": "deep\n",
        "climb back": "top\n",
        "climb out": "outside_root",
        "climb out from the bottom": "outside_root",
    }


def test_a_deep_walk_holds_a_bounded_number_of_descriptors(deep_root: Path) -> None:
    from toolproof.builtin.files import access

    root = deep_root
    _make_deep(root, 300)
    held: list[int] = []
    real_close = os.close
    opened: set[int] = set()
    real_open = os.open

    def counting_open(*args: object, **kwargs: object) -> int:
        fd = real_open(*args, **kwargs)  # type: ignore[arg-type]
        opened.add(fd)
        held.append(len(opened))
        return fd

    def counting_close(fd: int) -> None:
        opened.discard(fd)
        real_close(fd)

    with Directory.open(root) as directory:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(os, "open", counting_open)
            patch.setattr(os, "close", counting_close)
            with directory.open_file("d/" * 300 + "../" * 150 + "d/" * 150 + "f.txt") as f:
                assert f.read_all(100) == b"deep\n"

    assert max(held) <= access.MAX_OPEN_DIRS + 2


def test_a_walk_that_takes_too_many_steps_ends_in_loop(root: Directory, tree: Path) -> None:
    from toolproof.builtin.files import access

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(access, "MAX_WALK_OPENS", 3)
        assert _read(root, "sub/deep/c.txt") == b"gamma\n"
        assert _reason(root, "sub/deep/../deep/c.txt") == "loop"


def test_a_folder_swapped_for_a_symlink_under_a_deep_walk_is_not_followed(deep_root: Path, tmp_path: Path) -> None:

    root = deep_root
    _make_deep(root, 40)
    (tmp_path / "outside").mkdir()
    real_open = os.open
    swapped: list[bool] = []

    def swapping_open(name: str, flags: int, *args: object, dir_fd: int | None = None) -> int:
        # Once the walk is deep, swap the first folder for a symbolic link out of the root.
        if not swapped and dir_fd is not None and name == "d" and os.path.exists(root / "d"):
            depth = len(os.readlink(f"/proc/self/fd/{dir_fd}").split("/d"))
            if depth > 30:
                os.rename(root / "d", root / "moved")
                (root / "d").symlink_to(tmp_path / "outside")
                swapped.append(True)
        return real_open(name, flags, *args, dir_fd=dir_fd)  # type: ignore[arg-type]

    with Directory.open(root) as directory, pytest.MonkeyPatch.context() as patch:
        patch.setattr(os, "open", swapping_open)
        with pytest.raises(FileAccessError) as info:
            directory.open_file("d/" * 40 + "../" * 39 + "x.txt")

    assert swapped
    assert info.value.reason == "not_found"


def test_not_regular_carries_what_the_path_is(root: Directory, tree: Path) -> None:
    os.mkfifo(tree / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tree / "sock"))
    kinds: dict[str, str | None] = {}
    try:
        for path in ("sub", "pipe", "sock", ".", "sub/.."):
            with pytest.raises(FileAccessError) as info:
                _read(root, path)
            kinds[path] = info.value.kind
    finally:
        sock.close()
    with Directory.open("/dev") as dev, pytest.raises(FileAccessError) as device:
        _read(dev, "null")

    assert kinds == {"sub": "directory", "pipe": "fifo", "sock": "socket", ".": "directory", "sub/..": "directory"}
    assert device.value.kind == "device"
    assert device.value.detail == "the path is a device, not a regular file"


def test_a_hard_link_to_a_file_outside_the_root_is_refused_when_hard_links_are_denied(
    root: Directory, tree: Path
) -> None:
    os.link(tree.parent / "secret.txt", tree / "inside.txt")

    assert _reason(root, "inside.txt", hardlinks="deny") == "hardlink"
    assert _reason(root, "sub/../inside.txt", hardlinks="deny") == "hardlink"
    assert _read(root, "inside.txt") == b"SECRET\n"  # the default reads it: no path check can see the other name
    assert _read(root, "a.txt", hardlinks="deny") == b"alpha\n"


def test_the_hard_link_check_is_made_on_the_opened_file(root: Directory, tree: Path) -> None:
    with root.open_file("a.txt", hardlinks="deny") as opened:
        os.link(tree / "a.txt", tree.parent / "later.txt")  # a second name made after the open changes nothing read
        assert opened.read_all(100) == b"alpha\n"

    assert _reason(root, "a.txt", hardlinks="deny") == "hardlink"


def test_folders_are_not_subject_to_the_hard_link_policy(root: Directory) -> None:
    with root.open_dir("sub") as sub:  # a folder with a sub-folder has three names or more
        assert _read(sub, "deep/c.txt", hardlinks="deny") == b"gamma\n"


def test_names_folder_reads_the_ending_as_posix_does() -> None:
    assert [names_folder(p) for p in ("a/", "a/.", "a\\", "a\\.", "/", "a", "a/..", "a.", ".")] == [
        True,
        True,
        True,
        True,
        True,
        False,
        False,
        False,
        False,
    ]
