"""Skill discovery at scale: bounded frontmatter parsing, a summary that fills its budget, the tools' file policy."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from toolproof.builtin.skills.catalog import HARDLINKS, MIN_SUMMARY_BUDGET, SYMLINKS, Skill, SkillCatalog, SummaryFormat
from toolproof.builtin.skills.frontmatter import MAX_FRONTMATTER_BYTES, parse_skill, strip_frontmatter
from toolproof.runtime.spec import BUILTIN_PACKAGE, load_specs
from toolproof.runtime.toolbox import builtin_runtime

RUNS_PAST = f"the frontmatter runs past {MAX_FRONTMATTER_BYTES} bytes without a closing '---' line; not read"


def _skill(folder: Path, name: str, description: str) -> None:
    (folder / name).mkdir(parents=True, exist_ok=True)
    (folder / name / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody.\n", "utf-8")


# --- The frontmatter is sought within a bound, and the body is not cut out at discovery. -----------------------

_FENCE = re.compile(r"^---[ \t]*$")
NEVER_CLOSED = "the frontmatter is never closed: end its '---' block with a line that is exactly '---'"
_CLOSE = re.compile(r"^(---|\.\.\.)[ \t]*$")


def _reference(text: str) -> tuple[list[str] | None, str]:
    """(frontmatter lines or None, body) as the unbounded line-by-line split before the bound read them."""
    lines = text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")
    if _FENCE.match(lines[0]):
        for i in range(1, len(lines)):
            if _CLOSE.match(lines[i]):
                return lines[1:i], "\n".join(lines[i + 1 :])
    return None, "\n".join(lines)


_LINES = st.sampled_from(
    ["---", "...", "--- ", "---\t", " ---", "---x", "....", "-- -", "", "name: x", "description: d", "k: a --- b"]
)


@given(st.lists(_LINES, max_size=8), st.sampled_from(["\n", "\r\n", "\r"]), st.booleans(), st.booleans())
@example(["---", "name: x", "..."], "\n", False, False)
@example(["---"], "\n", False, False)
@example(["---", "---"], "\r", True, False)
def test_a_small_skill_md_splits_as_the_unbounded_line_by_line_reading_split_it(
    lines: list[str], end: str, bom: bool, final_end: bool
) -> None:
    text = ("\ufeff" if bom else "") + end.join(lines) + (end if final_end else "")
    head, body = _reference(text)

    document = parse_skill(text, "x")

    assert document.body == body.lstrip("\n")
    assert strip_frontmatter(text) == (body.lstrip("\n") if head is not None else body)
    opened = _FENCE.match(text.removeprefix("\ufeff").replace("\r\n", "\n").replace("\r", "\n").split("\n")[0])
    if head is None and opened:  # a block that starts and never closes is told so, not that there is none
        assert NEVER_CLOSED in document.problems
    elif head is None:
        assert (
            "no frontmatter: the file must start with a '---' block holding name and description" in document.problems
        )
    else:
        assert not any(p.startswith("no frontmatter") for p in document.problems)


def test_a_skill_md_of_a_fence_and_a_megabyte_of_newlines_is_parsed_in_bounded_time() -> None:
    text = "---\n" + "\n" * (1024 * 1024 - 4)

    started = time.perf_counter()
    for _ in range(20):
        document = parse_skill(text, "x")
    elapsed = time.perf_counter() - started

    assert elapsed < 1.0  # the line-by-line split took ~0.2 s each
    assert document.problems[0] == RUNS_PAST
    assert document.fields == {}


def test_a_block_closing_past_the_bound_is_reported_unread_and_keeps_its_body() -> None:
    head = "name: x\ndescription: d\nc: " + "w" * MAX_FRONTMATTER_BYTES + "\n"

    document = parse_skill(f"---\n{head}---\nBody\n", "x")

    assert document.problems == (RUNS_PAST, "'name' is missing", "'description' is missing")
    assert document.body == "Body\n"
    assert strip_frontmatter(f"---\n{head}---\nBody\n") == "Body\n"


def test_a_crlf_block_at_the_bound_is_read_and_one_past_it_is_not() -> None:
    head = "name: x\ndescription: d\n"
    pad = "c: " + "w" * (MAX_FRONTMATTER_BYTES - len(head) - 4)
    assert len(head + pad + "\n") == MAX_FRONTMATTER_BYTES

    at_bound = parse_skill(f"---\n{head}{pad}\n---\nBody\n".replace("\n", "\r\n"), "x")
    past_it = parse_skill(f"---\n{head}{pad}w\n---\nBody\n".replace("\n", "\r\n"), "x")

    assert at_bound.fields["c"] == pad[3:]
    assert at_bound.body == "Body\n"
    assert past_it.problems[0] == RUNS_PAST


def test_a_closing_line_whose_blanks_reach_past_the_bound_still_closes_the_block() -> None:
    head = "name: x\ndescription: d\n"
    pad = "c: " + "w" * (MAX_FRONTMATTER_BYTES - len(head) - 4)

    document = parse_skill(f"---\n{head}{pad}\n---{' ' * 300}\nBody\n", "x")

    assert document.fields["c"] == pad[3:]
    assert document.body == "Body\n"


def test_an_unclosed_block_ending_within_the_bound_is_told_as_never_closed() -> None:
    document = parse_skill("---\nname: x\ndescription: d\n", "x")

    assert document.problems[0] == NEVER_CLOSED
    assert document.body == "---\nname: x\ndescription: d\n"


def test_a_folder_of_hostile_skill_mds_is_discovered_in_bounded_time(tmp_path: Path) -> None:
    data = b"---\n" + b"\n" * (1024 * 1024 - 4)
    for i in range(40):
        (tmp_path / f"s{i:02d}").mkdir()
        (tmp_path / f"s{i:02d}" / "SKILL.md").write_bytes(data)

    started = time.perf_counter()
    catalog = SkillCatalog.discover([tmp_path], log=False)
    elapsed = time.perf_counter() - started

    assert elapsed < 2.0  # ~0.2 s a skill before the bound: 8 s
    assert len(catalog.names()) == 40
    assert f"skill 's00' (workspace): {RUNS_PAST}" in catalog.problems()


def test_discovery_still_leaves_out_a_skill_md_whose_body_is_not_utf8_past_the_bound(tmp_path: Path) -> None:
    (tmp_path / "late").mkdir()
    (tmp_path / "late" / "SKILL.md").write_bytes(
        b"---\nname: late\ndescription: d\n---\n" + b"x" * (2 * MAX_FRONTMATTER_BYTES) + b"\xff\n"
    )
    (tmp_path / "nul").mkdir()
    (tmp_path / "nul" / "SKILL.md").write_bytes(b"---\nname: nul\ndescription: d\n---\n" + b"x" * 200_000 + b"\x00")

    catalog = SkillCatalog.discover([tmp_path], log=False)

    assert catalog.names() == []  # read_skill refuses both: the enum must not offer them
    assert any(note.startswith("skill 'late' skipped: SKILL.md cannot be read") for note in catalog.notes)
    assert any(note.startswith("skill 'nul' skipped: SKILL.md cannot be read") for note in catalog.notes)


# --- The summary fills its budget with skills, in linear time. ------------------------------------------------


def _catalog(count: int, description: str = "Does one thing well; use it when asked.") -> SkillCatalog:
    return SkillCatalog(
        skills={f"skill-{i:05d}": Skill(f"skill-{i:05d}", description, "workspace", "/s") for i in range(count)}
    )


def test_a_summary_of_twelve_hundred_skills_lists_as_many_as_its_budget_holds() -> None:
    summary = _catalog(1200).summary()

    assert len(summary.text) <= 8000
    assert len(summary.included) > 40
    assert summary.included + summary.omitted == tuple(_catalog(1200).skills)
    assert summary.text.endswith(f"  ({len(summary.omitted)} more skills not shown)\n")
    assert summary.text.count("\n  - skill-") == len(summary.included)


def test_a_full_summary_leaves_no_room_for_another_skill() -> None:
    catalog = _catalog(1200)
    summary = catalog.summary()
    next_line = catalog.summary(budget=10**7).text.splitlines(keepends=True)[5 + len(summary.included)]
    tail = f"  ({len(summary.omitted) - 1} more skills not shown)\n"

    assert len(summary.text) - len(summary.text.splitlines(keepends=True)[-1]) + len(next_line) + len(tail) > 8000


def test_the_summary_takes_linear_time_in_the_number_of_skills() -> None:
    catalog = _catalog(5000)

    started = time.perf_counter()
    everything = catalog.summary(budget=10**7)
    half = catalog.summary(budget=len(everything.text) // 2)
    xml = catalog.summary(budget=10**7, fmt="xml")
    elapsed = time.perf_counter() - started

    assert elapsed < 2.0  # the names line rebuilt for each skill: minutes
    assert len(everything.included) == 5000
    assert 0 < len(half.included) < 5000
    assert half.text.endswith(f"  ({len(half.omitted)} more skills not shown: {', '.join(half.omitted)})\n")
    assert len(xml.included) == 5000 and xml.omitted == ()


def test_a_summary_names_the_skills_left_out_when_their_names_fit() -> None:
    catalog = _catalog(12, "A description long enough to take room. " * 3)

    summary = catalog.summary(budget=1200)

    assert summary.included and summary.omitted
    assert summary.text.endswith(f"  ({len(summary.omitted)} more skills not shown: {', '.join(summary.omitted)})\n")
    assert len(summary.text) <= 1200


# --- Discovery reads with the skill tools' file policy. -------------------------------------------------------


def test_the_catalog_reads_with_the_link_policies_of_every_skill_tool_contract() -> None:
    skill_tools = [spec for spec in load_specs(BUILTIN_PACKAGE) if "skills" in spec.needs]

    assert {spec.name for spec in skill_tools} >= {"read_skill", "get_skill", "read_file_in_skill"}
    for spec in skill_tools:
        assert spec.settings.get("symlinks", "within_root") == SYMLINKS, spec.name
        assert spec.settings.get("hardlinks", "allow") == HARDLINKS, spec.name


def test_a_hard_linked_skill_md_is_left_out_of_the_enum_and_the_summary_with_a_warning(tmp_path: Path) -> None:
    outside, skills = tmp_path / "outside.md", tmp_path / "skills"
    outside.write_text("---\nname: hl\ndescription: SECRET FROM OUTSIDE\n---\nBody\n", encoding="utf-8")
    (skills / "hl").mkdir(parents=True)
    os.link(outside, skills / "hl" / "SKILL.md")
    _skill(skills, "fine", "Fine.")

    catalog = SkillCatalog.discover([skills], log=False)

    assert catalog.names() == ["fine"]
    assert "SECRET" not in catalog.summary().text
    assert catalog.problems() == [
        "skill 'hl' skipped: SKILL.md cannot be read: the file has 2 names (hard links), "
        "and files with more than one are not read here"
    ]


def test_a_host_serving_read_skill_does_not_offer_a_hard_linked_skill(tmp_path: Path) -> None:
    outside, skills = tmp_path / "outside.md", tmp_path / "skills"
    outside.write_text("---\nname: hl\ndescription: d\n---\nBody\n", encoding="utf-8")
    (skills / "hl").mkdir(parents=True)
    os.link(outside, skills / "hl" / "SKILL.md")

    runtime = builtin_runtime(skills=[skills], gate_secret=b"skills-test-secret-0123")
    result = runtime.call("read_skill", {"skill_name": "hl"})

    assert result.error is not None
    assert result.error.code == "invalid_arguments"  # not in the enum: never offered, rather than unreadable
    assert result.error.message == (
        "Invalid arguments: $.skill_name: must be one of 'data_analysis', 'test_data_factory' (got 'hl')"
    )


@pytest.mark.parametrize("fmt", ["plain", "xml"])
def test_no_summary_outgrows_its_budget_and_a_budget_too_small_for_its_heading_is_refused(
    tmp_path: Path, fmt: SummaryFormat
) -> None:
    for i in range(300):
        (tmp_path / f"s{i:03d}").mkdir()
        (tmp_path / f"s{i:03d}" / "SKILL.md").write_text(
            f"---\nname: s{i:03d}\ndescription: skill number {i} does a thing\n---\nBody.\n", encoding="utf-8"
        )
    catalog = SkillCatalog.discover([tmp_path], log=False)

    assert all(len(catalog.summary(b, fmt=fmt).text) <= b for b in range(MIN_SUMMARY_BUDGET, 3000, 7))
    with pytest.raises(ValueError, match="at least 400"):
        catalog.summary(MIN_SUMMARY_BUDGET - 1, fmt=fmt)
