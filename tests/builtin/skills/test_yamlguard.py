"""The YAML guard: nesting deep enough to crash libyaml is refused, and the bounded YAML 1.2 loader."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest

from toolproof.builtin.skills.catalog import SkillCatalog
from toolproof.builtin.skills.frontmatter import parse_skill
from toolproof.builtin.skills.yamlguard import Loaded, YamlNote, load_bounded, too_deep

DEEP_FLOW = "a: " + "[" * 50_000 + "]" * 50_000 + "\n"
DEEP_BLOCK = "a:\n" + "".join(" " * i + "-\n" for i in range(0, 3000, 2))


@pytest.mark.parametrize(
    ("text", "deep"),
    [
        (DEEP_FLOW, True),
        (DEEP_BLOCK, True),
        ("- " * 5000 + "x\n", True),
        ("a: [1, [2, {b: [3]}]]\nc:\n  - d\n  - e: f\n", False),
        ("description: 'brackets [in] quotes {are} fine'\n", False),
    ],
)
def test_nesting_depth_is_bounded(text: str, deep: bool) -> None:
    assert too_deep(text) is deep


def test_a_hostile_skill_md_is_reported_not_a_crash(tmp_path: Path) -> None:
    (tmp_path / "bomb").mkdir()
    (tmp_path / "bomb" / "SKILL.md").write_text(
        "---\nname: bomb\ndescription: " + DEEP_FLOW[3:] + "---\nx\n", encoding="utf-8"
    )
    script = (
        "import sys; from toolproof.builtin.skills.catalog import SkillCatalog; "
        f"c = SkillCatalog.discover([{str(tmp_path)!r}]); print(c.problems())"
    )

    # In a child process: before the guard, libyaml segfaulted and took the interpreter with it.
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, check=False)

    assert done.returncode == 0, done.stderr
    assert "the frontmatter nests too deeply to be read" in done.stdout
    assert SkillCatalog.discover([tmp_path]).names() == ["bomb"]


def test_a_deep_frontmatter_keeps_its_body() -> None:
    doc = parse_skill("---\nname: x\ndescription: " + DEEP_FLOW[3:] + "---\nBody\n", "x")

    assert doc.body == "Body\n"
    assert doc.problems[0] == "the frontmatter nests too deeply to be read"


def _load(text: str, **budgets: int) -> Loaded:
    return load_bounded(text, max_bytes=budgets.pop("max_bytes", 1 << 20), **budgets)


@pytest.mark.parametrize(
    ("text", "refused", "detail"),
    [
        (DEEP_FLOW, "too_deep", ""),
        ("a: &a [*a]\n", "too_deep", ""),
        ("a: &a {b: *a}\n", "too_deep", ""),
        ("a: *nowhere\n", "syntax", "the alias 'nowhere' names no anchor before it"),
        ("a: 1\n--- b\n", "syntax", "the text holds more than one YAML document"),
        ("a: [1\n", "syntax", "while parsing a flow sequence"),
        ("a: \x01\n", "syntax", "unacceptable character #x0001: control characters are not allowed"),
        ("a: \ud800\n", "syntax", "the text holds characters that UTF-8 cannot carry"),
        ("a: &a x\nb: [" + "*a, " * 101 + "]\n", "too_many_aliases", ""),
        ("a: [" + "x, " * 10_001 + "]\n", "too_many_nodes", ""),
    ],
)
def test_what_the_bounded_loader_cannot_read_is_refused_with_a_reason(text: str, refused: str, detail: str) -> None:
    loaded = _load(text)

    assert (loaded.data, loaded.refused, loaded.detail) == (None, refused, detail)


def test_a_text_over_the_byte_budget_is_refused_before_parsing() -> None:
    assert _load("a: [" * 10 + "é" * 100, max_bytes=100) == Loaded(refused="too_large", detail="240")


@pytest.mark.parametrize("levels", [20, 26, 40])
def test_alias_bombs_stop_at_the_node_budget_in_bounded_time(levels: int) -> None:
    merge = "x0: &x0 {a: 1}\n" + "".join(f"x{i}: &x{i} {{<<: [*x{i - 1}, *x{i - 1}]}}\n" for i in range(1, levels))
    laughs = "a0: &a0 [lol]\n" + "".join(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]\n" for i in range(1, levels))

    for text in (merge, laughs):
        started = time.perf_counter()
        assert _load(text, max_nodes=1000).refused == "too_many_nodes"
        assert time.perf_counter() - started < 0.5


def test_an_alias_counts_every_value_it_stands_for() -> None:
    text = "a: &a [1, 2, 3]\nb: *a\n"  # 1 map + 2 keys + (1 list + 3 items) + 4 via the alias = 11

    assert _load(text, max_nodes=11).data == {"a": [1, 2, 3], "b": [1, 2, 3]}
    assert _load(text, max_nodes=10).refused == "too_many_nodes"


def test_large_numbers_are_kept_as_text_with_a_note() -> None:
    loaded = _load(f"a: {'7' * 101}\nb: {'7' * 100}\nc: 1{'0' * 400}.5\n")

    assert loaded.data == {"a": "7" * 101, "b": int("7" * 100), "c": "1" + "0" * 400 + ".5"}
    assert loaded.notes == (
        YamlNote(1, 4, "a number of 101 characters is read as text (at most 100)"),
        YamlNote(3, 4, "a number of 403 characters is read as text (at most 100)"),
    )


def test_only_core_tags_are_honoured() -> None:
    loaded = _load("a: !!int nope\nb: !!binary aGk=\nc: !!set {x}\nd: !!int 0x10\ne: !<tag:yaml.org,2002:bool> true\n")

    assert loaded.data == {"a": "nope", "b": "aGk=", "c": {"x": None}, "d": 16, "e": True}
    assert [note.message for note in loaded.notes] == [
        "'nope' is not a YAML 1.2 integer; it is read as text",
        "the tag '!!binary' is not a YAML core tag; the value is read as text",
        "the tag '!!set' is ignored on a list or mapping",
    ]


def test_keys_that_are_lists_or_mappings_are_left_out_with_a_note() -> None:
    loaded = _load("? [a]\n: b\n? {c: d}\n: e\nf: g\n")

    assert loaded.data == {"f": "g"}
    assert [note.line for note in loaded.notes] == [1, 3]


def test_an_empty_text_is_none_and_a_scalar_text_is_that_scalar() -> None:
    assert _load("") == Loaded()
    assert _load("# only a comment\n") == Loaded()
    assert _load("just text\n").data == "just text"


def test_the_values_built_are_plain_json_types_only() -> None:
    text = "a: 2024-01-01\nb: 12:30:00\nc: [yes, no, ~, 1.5, 0o7]\nd: {e: &x f, g: *x}\n"

    def kinds(value: object) -> set[type]:
        if isinstance(value, dict):
            return {dict}.union(*(kinds(k) | kinds(v) for k, v in value.items()))
        if isinstance(value, list):
            return {list}.union(*(kinds(item) for item in value))
        return {type(value)}

    assert kinds(_load(text).data) <= {dict, list, str, int, float, bool, type(None)}
