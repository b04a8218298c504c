"""RFC 6570 URI templates, as resource contracts use them (``runtime/uritemplate.py``)."""

from __future__ import annotations

import pytest

from toolproof.runtime.uritemplate import UriTemplate, UriTemplateError


def test_a_simple_expression_matches_one_segment_and_decodes_it() -> None:
    template = UriTemplate("skill://{name}/SKILL.md")

    assert template.variables == ("name",)
    assert template.match("skill://calc/SKILL.md") == {"name": "calc"}
    assert template.match("skill://..%2F..%2Fetc/SKILL.md") == {"name": "../../etc"}
    assert template.match("skill://a/b/SKILL.md") is None  # a / is never part of a simple value
    assert template.match("skill://calc/README.md") is None


def test_an_empty_value_matches_as_rfc_6570_expands_it() -> None:
    template = UriTemplate("skill://{name}/SKILL.md")

    assert template.expand({"name": ""}) == "skill:///SKILL.md"
    assert template.match("skill:///SKILL.md") == {"name": ""}


def test_expansion_encodes_what_matching_decodes() -> None:
    template = UriTemplate("notes://{key}/{+path}")
    values = {"key": "a b/c?", "path": "docs/x y.md"}

    uri = template.expand(values)

    assert uri == "notes://a%20b%2Fc%3F/docs/x%20y.md"
    assert template.match(uri) == {"key": "a b/c?", "path": "docs/x y.md"}


def test_a_text_without_expressions_is_a_fixed_uri() -> None:
    template = UriTemplate("test://static-text")

    assert template.is_fixed and template.match("test://static-text") == {}
    assert template.match("test://static-text2") is None


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("notes://{/path*}", "expression '{/path*}' is not supported"),
        ("notes://{?a,b}", "expression '{?a,b}' is not supported"),
        ("notes://{a}/{a}", "variable 'a' appears twice"),
        ("notes://{a", "unmatched brace"),
        ("notes://a}", "unmatched brace"),
    ],
)
def test_forms_that_cannot_be_matched_back_are_refused_saying_which(text: str, why: str) -> None:
    with pytest.raises(UriTemplateError, match=why.replace("?", r"\?").replace("*", r"\*")):
        UriTemplate(text)
