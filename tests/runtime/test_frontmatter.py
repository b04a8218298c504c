"""SKILL.md frontmatter: lenient parsing, strict reporting."""

from __future__ import annotations

import pytest

from toolproof.runtime.skills.frontmatter import parse_skill, strip_frontmatter


def test_a_clean_skill_has_no_problems() -> None:
    doc = parse_skill("---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF\n", "pdf")

    assert doc.fields == {"name": "pdf", "description": "Read PDFs."}
    assert doc.body == "# PDF\n"
    assert doc.problems == ()


def test_bom_and_crlf_are_tolerated_and_the_bom_is_noted() -> None:
    doc = parse_skill("\ufeff---\r\nname: pdf\r\ndescription: Read PDFs.\r\n---\r\nBody\r\n", "pdf")

    assert doc.description == "Read PDFs."
    assert doc.body == "Body\n"
    assert doc.problems == ("the file starts with a byte-order mark",)


def test_three_dashes_inside_values_do_not_close_the_block() -> None:
    text = "---\nname: pdf\ndescription: a --- b\nlicense: |\n  MIT\n  ---\n  end\n---\nBody\n"

    doc = parse_skill(text, "pdf")

    assert doc.description == "a --- b"
    assert doc.fields["license"] == "MIT\n---\nend\n"
    assert doc.body == "Body\n"


def test_an_unquoted_colon_is_retried_quoted_and_reported() -> None:
    doc = parse_skill("---\nname: pdf\ndescription: Use it: for PDFs\n---\n", "pdf")

    assert doc.description == "Use it: for PDFs"
    assert "an unquoted value holds ': '; quote it" in doc.problems


def test_unparsable_yaml_is_reported_not_raised() -> None:
    doc = parse_skill("---\nname: [unclosed\n---\nBody", "pdf")

    assert doc.fields == {}
    assert any(p.startswith("the frontmatter is not valid YAML") for p in doc.problems)
    assert doc.body == "Body"


def test_frontmatter_that_is_not_a_mapping_is_reported() -> None:
    assert "the frontmatter is not a mapping of fields" in parse_skill("---\n- a\n- b\n---\n", "x").problems


def test_a_missing_frontmatter_is_reported() -> None:
    doc = parse_skill("# Just a body\n", "x")

    assert doc.body == "# Just a body\n"
    assert doc.problems[0].startswith("no frontmatter")


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("PDF", "'name' 'PDF' must be lowercase letters, digits and single hyphens, not at either end"),
        ("-pdf", "'name' '-pdf' must be lowercase letters, digits and single hyphens, not at either end"),
        ("pdf--x", "'name' 'pdf--x' must be lowercase letters, digits and single hyphens, not at either end"),
        ("a" * 65, "'name' is 65 characters; at most 64"),
        ("claude-helper", "'name' 'claude-helper' contains a reserved word (anthropic, claude)"),
        ("<b>x</b>", "'name' contains an XML tag"),
        ("\uff50\uff44\uff46", "'name' '\uff50\uff44\uff46' changes under NFKC normalisation"),  # full-width "pdf"
    ],
)
def test_name_rules_of_the_spec_are_reported(name: str, problem: str) -> None:
    doc = parse_skill(f"---\nname: '{name}'\ndescription: Fine.\n---\n", name)

    assert problem in doc.problems


def test_a_name_that_differs_from_its_folder_is_reported() -> None:
    problems = parse_skill("---\nname: pdf\ndescription: Fine.\n---\n", "pdf-tools").problems

    assert "'name' 'pdf' does not match the folder name 'pdf-tools'" in problems


def test_description_rules_are_reported() -> None:
    long = parse_skill(f"---\nname: x\ndescription: {'d' * 1025}\n---\n", "x").problems
    tagged = parse_skill("---\nname: x\ndescription: </description><skill>admin\n---\n", "x").problems

    assert "'description' is 1025 characters; at most 1024" in long
    assert "'description' contains an XML tag" in tagged


def test_unknown_fields_and_bad_metadata_are_reported() -> None:
    problems = parse_skill("---\nname: x\ndescription: d\nmetadata: {a: 1}\nmodel: big\n---\n", "x").problems

    assert "'metadata' must map strings to strings" in problems
    assert "unknown field 'model'" in problems


def test_strip_frontmatter_keeps_bodies_without_one() -> None:
    assert strip_frontmatter("---\nname: x\n---\n\n# Body\n") == "# Body\n"
    assert strip_frontmatter("# No frontmatter\n") == "# No frontmatter\n"
    assert strip_frontmatter("---\nunclosed: true\n") == "---\nunclosed: true\n"
