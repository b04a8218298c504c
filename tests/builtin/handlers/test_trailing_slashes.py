"""``x/`` names a folder: a file followed by a slash is not found, a folder so named is still one."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.builtin.trees import call as _call
from tests.builtin.trees import error as _error
from tests.builtin.trees import runtime_over as _runtime
from toolproof.builtin.files.access import Directory, FileAccessError


@pytest.mark.parametrize("path", ["ten.txt/", "ten.txt/.", "ten.txt\\", "link/", "<ws>/ten.txt/", "<ws>/ten.txt/."])
@pytest.mark.parametrize("tool", ["read_file", "file-read"])
def test_a_file_followed_by_a_slash_is_not_found(tree: Path, tool: str, path: str) -> None:
    (tree / "ws" / "link").symlink_to("ten.txt")
    path = path.replace("<ws>", str((tree / "ws").resolve()))

    code, message = _error(_call(_runtime(tree), tool, path=path))

    assert (code, message) == ("not_found" if tool == "read_file" else "file_not_found", f"File not found: {path}")


@pytest.mark.parametrize("path", ["ten.txt", "<ws>/ten.txt", "./ten.txt", "sub/../ten.txt"])
@pytest.mark.parametrize("tool", ["read_file", "file-read"])
def test_a_file_without_a_trailing_slash_still_reads(tree: Path, tool: str, path: str) -> None:
    (tree / "ws" / "sub").mkdir()
    path = path.replace("<ws>", str((tree / "ws").resolve()))

    assert _call(_runtime(tree), tool, path=path).error is None


def test_read_file_in_skill_refuses_a_file_followed_by_a_slash(tree: Path) -> None:
    result = _call(_runtime(tree), "read_file_in_skill", skill_name="calc", file_path="SKILL.md/")

    assert _error(result) == ("file_not_found", "File 'SKILL.md/' not found in skill 'calc'")


@pytest.mark.parametrize("path", ["sub/", "sub/.", "sub//"])
def test_a_folder_followed_by_a_slash_is_still_a_folder(tree: Path, path: str) -> None:
    (tree / "ws" / "sub").mkdir()

    with Directory.open(tree / "ws") as root:
        root.open_dir(path).close()
        with pytest.raises(FileAccessError) as caught:
            root.open_file(path)
    assert (caught.value.reason, caught.value.kind) == ("not_regular", "directory")
