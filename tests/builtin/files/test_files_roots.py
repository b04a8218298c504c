"""Roots opened again and again: a replaced, moved or removed root is seen at once, as on its first open.

A root stays where it was: a folder recreated at its real path is followed, one
moved is followed to its new place, but a path made to lead to another folder
elsewhere is refused (``outside_root``).
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path

import pytest

from toolproof.builtin.files.access import Directory, FileAccessError
from toolproof.runtime.toolbox import builtin_runtime
from toolproof.testing.replay import as_unprivileged


def _folder(path: Path, mark: str) -> Path:
    """A folder holding ``id.txt`` = ``mark``."""
    path.mkdir(parents=True)
    (path / "id.txt").write_text(mark, encoding="utf-8")
    return path


def _id(root: str | Path) -> tuple[str, str]:
    """(``id.txt`` beneath ``root``, the real path the open reports), from one ``Directory.open``."""
    with Directory.open(root) as directory, directory.open_file("id.txt") as opened:
        return opened.read_all(1024).decode("utf-8"), directory.real


def _error(root: Path) -> tuple[str, str, str]:
    with pytest.raises(FileAccessError) as info:
        Directory.open(root)
    return info.value.reason, info.value.path, info.value.detail


def _link(target: Path, link: Path) -> None:
    """Point ``link`` at ``target`` in one step (a new link renamed over the old one)."""
    fresh = link.with_name(link.name + ".new")
    fresh.symlink_to(target)
    os.replace(fresh, link)


def test_a_root_opened_again_reads_the_same_folder(tmp_path: Path) -> None:
    root = _folder(tmp_path / "root", "A")

    assert _id(root) == _id(root) == ("A", str(root))


def test_a_root_replaced_by_another_folder_is_followed(tmp_path: Path) -> None:
    root = _folder(tmp_path / "root", "A")
    assert _id(root) == ("A", str(root))
    root.rename(tmp_path / "old")
    _folder(root, "B")

    assert _id(root) == ("B", str(root))


def test_a_root_replaced_by_a_link_elsewhere_is_refused_as_outside_its_root(tmp_path: Path) -> None:
    root = _folder(tmp_path / "root", "A")
    elsewhere = _folder(tmp_path / "elsewhere", "B")
    assert _id(root) == ("A", str(root))
    shutil.rmtree(root)
    root.symlink_to(elsewhere)

    assert _error(root) == (
        "outside_root",
        str(root),
        f"the folder now leads to {elsewhere}, not to {root} where it was; restart the host to follow it",
    )


def test_a_root_pinned_at_start_and_swapped_for_a_link_before_its_first_open_is_refused(tmp_path: Path) -> None:
    root = _folder(tmp_path / "root", "A")
    elsewhere = _folder(tmp_path / "elsewhere", "B")
    Directory.pin(root)
    root.rename(tmp_path / "old")
    root.symlink_to(elsewhere)

    assert _error(root)[0] == "outside_root"


def test_a_workspace_swapped_for_a_link_out_serves_nothing_from_outside(tmp_path: Path) -> None:
    workspace = _folder(tmp_path / "workspace", "inside")
    outside = _folder(tmp_path / "outside", "outside")
    runtime = builtin_runtime(workspace=[workspace], audit=lambda record: None)
    workspace.rename(tmp_path / "old")
    workspace.symlink_to(outside)

    result = runtime.call("file-read", {"path": "id.txt"})

    assert result.error is not None and result.error.code == "outside_workspace", result.text


def test_a_skills_folder_swapped_for_a_link_out_serves_no_skill_from_outside(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    _folder(skills / "calculator", "inside")
    outside = _folder(tmp_path / "outside" / "calculator", "outside").parent
    runtime = builtin_runtime(skills=[skills], audit=lambda record: None)
    arguments = {"skill_name": "calculator", "file_path": "id.txt"}
    assert runtime.call("read_file_in_skill", arguments).text == "inside"
    skills.rename(tmp_path / "old")
    skills.symlink_to(outside)

    result = runtime.call("read_file_in_skill", arguments)

    assert result.error is not None and "outside" not in result.text, result.text


def test_a_root_named_through_a_link_reports_where_its_folder_is_after_a_move(tmp_path: Path) -> None:
    first = _folder(tmp_path / "first", "A")
    link = tmp_path / "link"
    link.symlink_to(first)
    assert _id(link) == ("A", str(first))
    moved = tmp_path / "moved"
    first.rename(moved)  # the same folder (device and inode), now reached by another real path
    _link(moved, link)

    assert _id(link) == ("A", str(moved))


def test_a_removed_root_is_not_found_as_on_its_first_open(tmp_path: Path) -> None:
    never = tmp_path / "never"
    root = _folder(tmp_path / "root", "A")
    _id(root)
    shutil.rmtree(root)

    assert _error(root) == ("not_found", str(root), "the folder does not exist")
    assert _error(never) == ("not_found", str(never), "the folder does not exist")


def test_a_root_replaced_by_a_file_is_not_a_directory(tmp_path: Path) -> None:
    root = _folder(tmp_path / "root", "A")
    _id(root)
    shutil.rmtree(root)
    root.write_text("now a file", encoding="utf-8")

    assert _error(root) == ("not_directory", str(root), "not a folder")


def test_a_root_the_host_may_no_longer_open_is_refused_as_on_its_first_open(tmp_path: Path) -> None:
    root = _folder(tmp_path / "root", "A")
    as_unprivileged(lambda: _id(root))
    root.chmod(0o311)  # searchable, not readable: the root itself cannot be opened
    try:
        reason = as_unprivileged(lambda: _error(root))
    finally:
        root.chmod(0o755)

    assert reason == ("permission_denied", str(root), "permission denied")


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="counts descriptors in /proc")
def test_opening_roots_holds_no_descriptor_once_closed(tmp_path: Path) -> None:
    root = _folder(tmp_path / "root", "A")
    _id(root)
    before = len(os.listdir("/proc/self/fd"))
    for i in range(50):
        _id(root)
        root.rename(tmp_path / f"old{i}")
        _folder(root, "B")

    assert len(os.listdir("/proc/self/fd")) == before


def test_reads_racing_a_root_swap_always_see_one_whole_root(tmp_path: Path) -> None:
    """The descriptor and the real path of an open always name the same folder, however the root is swapped.

    The root, a link flipped between two folders, stays the one it first led to: the other is refused.
    """
    folders = {mark: _folder(tmp_path / mark, mark) for mark in "AB"}
    link = tmp_path / "root"
    link.symlink_to(folders["A"])
    stop = threading.Event()
    seen: set[str] = set()
    wrong: list[object] = []
    refused: list[FileAccessError] = []
    assert _id(link)[0] == "A"

    def swap() -> None:
        while not stop.is_set():
            for folder in folders.values():
                _link(folder, link)

    def read() -> None:
        for _ in range(400):
            try:
                mark, real = _id(link)
            except FileAccessError as exc:
                if exc.reason != "outside_root":
                    wrong.append(exc)
                refused.append(exc)
                continue
            except Exception as exc:  # any other error at all is a failure of the test
                wrong.append(exc)
                continue
            seen.add(mark)
            if real != str(folders[mark]):
                wrong.append((mark, real))

    swapper = threading.Thread(target=swap)
    readers = [threading.Thread(target=read) for _ in range(4)]
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # the threads take turns between any two steps of an open
    try:
        swapper.start()
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
    finally:
        stop.set()
        swapper.join()
        sys.setswitchinterval(interval)

    assert wrong == []
    assert seen == {"A"} and refused


def test_a_skills_folder_replaced_while_the_host_runs_serves_the_new_skill(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    _folder(skills / "calculator", "A")
    (skills / "calculator" / "basic.py").write_text("old = 1\n", encoding="utf-8")
    runtime = builtin_runtime(skills=[skills], audit=lambda record: None)
    arguments = {"skill_name": "calculator", "file_path": "basic.py"}
    assert runtime.call("read_file_in_skill", arguments).text == "old = 1\n"
    skills.rename(tmp_path / "old")
    _folder(skills / "calculator", "B")
    (skills / "calculator" / "basic.py").write_text("new = 2\n", encoding="utf-8")

    assert runtime.call("read_file_in_skill", arguments).text == "new = 2\n"


def test_a_removed_skills_folder_holds_no_skill_as_before(tmp_path: Path) -> None:
    skills = tmp_path / "skills"
    _folder(skills / "calculator", "A")
    runtime = builtin_runtime(skills=[skills], audit=lambda record: None)
    arguments = {"skill_name": "calculator", "file_path": "id.txt"}
    assert runtime.call("read_file_in_skill", arguments).text == "A"
    shutil.rmtree(skills)

    result = runtime.call("read_file_in_skill", arguments)

    assert result.error is not None
    assert result.error.code == "skill_not_found"
    assert result.text == "ERROR: Skill 'calculator' not found in skills folder"
