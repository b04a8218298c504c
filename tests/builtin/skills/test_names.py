"""One naming rule for every skill tool: look-alike (NFC/NFD) spellings, skipped folders, accented names."""

from __future__ import annotations

from pathlib import Path
from typing import Final

import pytest

from tests.builtin.trees import SECRET
from tests.builtin.trees import call as _call
from tests.builtin.trees import error as _error
from tests.builtin.trees import runtime_over as _runtime
from tests.builtin.trees import skill as _skill
from toolproof.builtin.skills.catalog import SkillCatalog, spec_spelling
from toolproof.builtin.skills.resources import Skills
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.toolbox import builtin_runtime

NFC: Final = "caf\u00e9"
NFD: Final = "cafe\u0301"


def _skills(runtime: Runtime) -> Skills:
    skills = runtime.resources.get_typed(Skills)
    assert skills is not None
    return skills


def test_a_skill_folder_the_catalog_skips_for_its_name_is_found_by_no_skill_tool(tree: Path) -> None:
    _skill(tree / "sk", "nl\nname")
    runtime = _runtime(tree)

    assert "nl\nname" not in _skills(runtime).catalog.skills
    assert _error(_call(runtime, "get_skill", skill_name="nl\nname"))[0] == "skill_not_found"
    result = _call(runtime, "read_file_in_skill", skill_name="nl\nname", file_path="SKILL.md")
    assert _error(result)[0] == "skill_not_found"


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


@pytest.mark.parametrize("name", [NFC, NFD, "Caf\u00e9 Cr\u00e8me", "Stra\u00dfe"])
def test_the_spec_spelling_keeps_the_letters_under_their_accents(name: str) -> None:
    assert spec_spelling(name) == {"Caf\u00e9 Cr\u00e8me": "cafe-creme", "Stra\u00dfe": "strasse"}.get(name, "cafe")
