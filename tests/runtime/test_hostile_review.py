"""An outside security review of the file and skill tools: each defect it found, as the calls it made.

Echoed arguments are clipped; a hard-link refusal says so; an overlong path is
refused for its length; a root replaced after start-up is the operator's to
read about, in the log; ``x/`` names a folder; one naming rule holds for every
skill tool, look-alike names included; and ``toolproof skills`` tells an
unclosed block and an accented name as they are.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any, Final

import pytest

from toolproof.builtin.files.access import Directory, FileAccessError, names_folder
from toolproof.builtin.skills.catalog import SkillCatalog, spec_spelling
from toolproof.builtin.skills.frontmatter import parse_skill
from toolproof.builtin.skills.resources import Skills
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import MAX_SHOWN_CHARS, shown
from toolproof.runtime.result import ToolResult
from toolproof.runtime.toolbox import builtin_runtime

SECRET: Final = b"review-test-secret-0123456789"
HUGE: Final = "b" * 100_000
HARD_LINK: Final = "the file has 2 names (hard links), and files with more than one are not read here"
NFC: Final = "caf\u00e9"
NFD: Final = "cafe\u0301"


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


# --- 1. Arguments are echoed clipped, in the message, the text and the error's output. --------------------------


def test_shown_keeps_a_value_up_to_the_limit_and_clips_a_longer_one() -> None:
    assert shown("a" * MAX_SHOWN_CHARS) == "a" * MAX_SHOWN_CHARS
    assert shown("a" * (MAX_SHOWN_CHARS + 1)) == "a" * (MAX_SHOWN_CHARS - 3) + "..."


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("get_skill", {"skill_name": HUGE}),
        ("read_file_in_skill", {"skill_name": "calc", "file_path": HUGE}),
        ("read_file_in_skill", {"skill_name": HUGE, "file_path": HUGE}),
        ("read_file_in_skill", {"skill_name": "calc", "file_path": "../" + HUGE}),
        ("read_file", {"path": HUGE}),
        ("read_file", {"path": "missing/" + "c" * 4000}),
        ("read_file", {"path": "x", "cwd": HUGE}),
        ("read_file", {"path": "x", "cwd": "/elsewhere/" + "c" * 4000}),
        ("read_file", {"path": "x", "cwd": "missing/" + "c" * 4000}),
        ("file-read", {"path": HUGE}),
        ("file-read", {"path": "missing/" + "c" * 4000}),
    ],
    ids=lambda value: value if isinstance(value, str) else "-".join(f"{k}:{len(v)}" for k, v in value.items()),
)
def test_an_error_echoes_a_huge_argument_clipped(tree: Path, tool: str, args: dict[str, str]) -> None:
    result = _call(_runtime(tree), tool, **args)

    assert result.error is not None
    assert len(result.error.message) < 2 * MAX_SHOWN_CHARS + 200
    assert len(result.text) < 2 * MAX_SHOWN_CHARS + 400
    assert len(json.dumps(result.error.to_dict())) < 6 * MAX_SHOWN_CHARS + 800  # message, output.error, the echoes


def test_a_short_argument_is_still_echoed_whole(tree: Path) -> None:
    result = _call(_runtime(tree), "read_file_in_skill", skill_name="calc", file_path="missing.txt")

    assert _error(result) == ("file_not_found", "File 'missing.txt' not found in skill 'calc'")
    assert result.error is not None and result.error.output is not None
    assert result.error.output["file_path"] == "missing.txt"


# --- 2. A hard-link refusal gives its true reason in every tool. ------------------------------------------------


def test_every_tool_says_a_hard_link_is_refused_for_being_one(tree: Path) -> None:
    os.link(tree / "outside.txt", tree / "ws" / "hl.txt")
    os.link(tree / "outside.txt", tree / "sk" / "calc" / "hl.txt")
    (tree / "sk" / "hls").mkdir()
    os.link(tree / "outside.txt", tree / "sk" / "hls" / "SKILL.MD")
    runtime = _runtime(tree)
    found = 4  # outside.txt and its three other names
    reason = HARD_LINK.replace("2 names", f"{found} names")

    assert _error(_call(runtime, "read_file", path="hl.txt")) == ("read_failed", f"Cannot read hl.txt: {reason}")
    assert _error(_call(runtime, "file-read", path="hl.txt")) == ("read_failed", f"Failed to read file: {reason}")
    assert _error(_call(runtime, "get_skill", skill_name="hls")) == (
        "unreadable",
        f"SKILL.MD for skill 'hls' cannot be read: {reason}",
    )
    assert _error(_call(runtime, "read_file_in_skill", skill_name="calc", file_path="hl.txt")) == (
        "cannot_read",
        f"Cannot read file 'hl.txt': {reason}",
    )


# --- 3. file-read refuses an overlong path for its length. -------------------------------------------------------


def test_file_read_refuses_an_overlong_path_for_its_length_as_read_file_does(tree: Path) -> None:
    runtime = _runtime(tree)

    assert _error(_call(runtime, "file-read", path="a" * 5000)) == (
        "read_failed",
        "Failed to read file: the path is longer than 4096 characters",
    )
    assert _error(_call(runtime, "read_file", path="a" * 5000))[1].endswith("the path is longer than 4096 characters")


# --- 4. A skills folder replaced after start-up: host paths go to the log, the model reads "not found". --------


def test_read_skill_keeps_host_paths_and_operator_advice_for_the_log(
    tree: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tree / "rs").mkdir()
    real = tree / "rs" / "sk"
    _skill(real, "k")
    _skill(tree / "rs" / "evil", "k")
    link = tree / "rs" / "L"
    link.symlink_to(real)
    runtime = builtin_runtime(skills=[link], gate_secret=SECRET)
    assert _call(runtime, "read_skill", skill_name="k").error is None

    shutil.rmtree(real)
    real.symlink_to(tree / "rs" / "evil")
    with caplog.at_level(logging.WARNING, logger="toolproof.skills"):
        results = [_call(runtime, "read_skill", skill_name="k")]
        results.append(_call(runtime, "get_skill", skill_name="k"))
        results.append(_call(runtime, "read_file_in_skill", skill_name="k", file_path="SKILL.md"))

    codes = [_error(result) for result in results]
    assert codes[0] == ("skill_not_found", "Skill 'k' not found.")
    assert [code for code, _ in codes] == ["skill_not_found"] * 3
    assert not any(str(tree) in result.text or "restart" in result.text for result in results)
    assert any("restart the host" in record.getMessage() for record in caplog.records)


def test_read_skill_still_gives_the_reason_of_a_skill_folder_it_cannot_read(tree: Path) -> None:
    runtime = _runtime(tree)
    assert _call(runtime, "read_skill", skill_name="calc").error is None
    (tree / "sk" / "calc" / "SKILL.md").unlink()
    os.link(tree / "outside.txt", tree / "sk" / "calc" / "SKILL.md")

    assert _error(_call(runtime, "read_skill", skill_name="calc")) == (
        "skill_unreadable",
        f"Skill 'calc' could not be read: {HARD_LINK}",
    )


# --- 5. ``x/`` names a folder: a file there is not found. -------------------------------------------------------


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


# --- 6. One naming rule for every skill tool, look-alikes included. ---------------------------------------------


def test_a_skill_folder_the_catalog_skips_for_its_name_is_found_by_no_skill_tool(tree: Path) -> None:
    _skill(tree / "sk", "nl\nname")
    runtime = _runtime(tree)

    assert "nl\nname" not in _skills(runtime).catalog.skills
    assert _error(_call(runtime, "get_skill", skill_name="nl\nname"))[0] == "skill_not_found"
    result = _call(runtime, "read_file_in_skill", skill_name="nl\nname", file_path="SKILL.md")
    assert _error(result)[0] == "skill_not_found"


def _skills(runtime: Runtime) -> Skills:
    skills = runtime.resources.get_typed(Skills)
    assert skills is not None
    return skills


def test_look_alike_names_are_listed_once_and_the_other_spelling_is_refused_everywhere(tree: Path) -> None:
    _skill(tree / "sk", NFC, body="nfc\n")
    _skill(tree / "sk", NFD, body="nfd\n")
    runtime = _runtime(tree)
    catalog = _skills(runtime).catalog

    assert [name for name in catalog.skills if name.startswith("caf")] == [NFC]
    assert sum(name.startswith("caf") for name in catalog.summary().included) == 1
    assert any("cafe<U+0301>" in note and "caf<U+00E9>" in note for note in catalog.notes)
    assert _call(runtime, "read_skill", skill_name=NFD).error is not None  # not in the enum
    assert _error(_call(runtime, "get_skill", skill_name=NFD))[0] == "skill_not_found"
    assert _error(_call(runtime, "read_file_in_skill", skill_name=NFD, file_path="SKILL.md"))[0] == "skill_not_found"
    got = _call(runtime, "get_skill", skill_name=NFC)
    assert got.output is not None and got.output["documentation"].endswith("nfc\n")


def test_without_an_nfc_spelling_the_first_sorted_look_alike_stands_for_the_rest(tree: Path) -> None:
    first, second = "e\u0302\u0323x", "e\u0323\u0302x"  # two orders of the same marks; NFC is neither
    assert sorted([first, second])[0] == first
    _skill(tree / "sk", first)
    _skill(tree / "sk", second)
    runtime = _runtime(tree)

    assert [name for name in _skills(runtime).catalog.skills if not name.isascii()] == [first]
    assert _call(runtime, "get_skill", skill_name=first).error is None
    assert _error(_call(runtime, "get_skill", skill_name=second))[0] == "skill_not_found"


def test_a_single_nfd_skill_is_found_by_its_own_spelling(tree: Path) -> None:
    _skill(tree / "sk", NFD)
    runtime = _runtime(tree)

    assert NFD in _skills(runtime).catalog.skills
    assert _call(runtime, "get_skill", skill_name=NFD).error is None
    assert _call(runtime, "read_file_in_skill", skill_name=NFD, file_path="SKILL.md").error is None
    assert _error(_call(runtime, "get_skill", skill_name=NFC))[0] == "skill_not_found"  # the catalog lists NFD


def test_a_look_alike_in_an_earlier_skills_folder_shadows_a_later_one(tmp_path: Path) -> None:
    _skill(tmp_path / "a", NFD, body="a\n")
    _skill(tmp_path / "b", NFC, body="b\n")
    catalog = SkillCatalog.discover([tmp_path / "a", tmp_path / "b"], log=False)

    assert [name for name in catalog.skills if not name.isascii()] == [NFD]
    assert any("shadowed" in note and "looks the same" in note for note in catalog.notes)
    runtime = builtin_runtime(skills=[tmp_path / "a", tmp_path / "b"], gate_secret=SECRET)
    assert _error(_call(runtime, "get_skill", skill_name=NFC))[0] == "skill_not_found"


# --- 7. toolproof skills tells an unclosed block and an accented name as they are. -------------------------------


def test_a_block_that_is_never_closed_is_told_so() -> None:
    problems = parse_skill("---\nname: u\ndescription: x\nno close\n", "u").problems

    assert problems[0] == "the frontmatter is never closed: end its '---' block with a line that is exactly '---'"
    assert parse_skill("# no block\n", "u").problems[0].startswith("no frontmatter")


@pytest.mark.parametrize("name", [NFC, NFD, "Caf\u00e9 Cr\u00e8me", "Stra\u00dfe"])
def test_the_spec_spelling_keeps_the_letters_under_their_accents(name: str) -> None:
    assert spec_spelling(name) == {"Caf\u00e9 Cr\u00e8me": "cafe-creme", "Stra\u00dfe": "strasse"}.get(name, "cafe")
