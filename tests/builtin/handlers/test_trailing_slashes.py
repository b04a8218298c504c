"""``x/`` names a folder: a file followed by a slash is not found, a folder so named is still one."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import pytest

from toolproof.builtin.files.access import Directory, FileAccessError
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import builtin_runtime

SECRET: Final = b"review-test-secret-0123456789"


def _skill(folder: Path, name: str, body: str = "Body.\n") -> Path:
    (folder / name).mkdir(parents=True)
    (folder / name / "SKILL.md").write_text(f"---\nname: x\ndescription: A skill.\n---\n{body}", encoding="utf-8")
    return folder / name


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """ws/ten.txt, sk/calc/SKILL.md, and outside.txt beside them."""
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "ten.txt").write_text("".join(f"{i}\n" for i in range(1, 11)), encoding="utf-8")
    _skill(tmp_path / "sk", "calc")
    (tmp_path / "outside.txt").write_text("S\n", encoding="utf-8")
    return tmp_path


def _runtime(tree: Path) -> Runtime:
    return builtin_runtime(workspace=[tree / "ws"], skills=[tree / "sk"], gate_secret=SECRET)


def _call(runtime: Runtime, tool: str, **args: Any) -> ToolResult:
    if tool == "read_file":
        gate = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"})
        assert gate.output is not None
        args = {**args, "skillToken": gate.output["skillToken"]}
    return runtime.call(tool, args)


def _error(result: ToolResult) -> tuple[str, str]:
    assert result.error is not None, result.output
    return result.error.code, result.error.message


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
