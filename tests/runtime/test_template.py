"""The template grammar shared by error messages and result rendering."""

from __future__ import annotations

import pytest

from toolproof.runtime.template import Template, TemplateSyntaxError


def test_placeholders_are_filled_from_values() -> None:
    assert (
        Template("File '{path}' not in '{skill}'").render({"path": "a.py", "skill": "calc"})
        == "File 'a.py' not in 'calc'"
    )


def test_non_string_values_render_as_json_as_python_writes_it() -> None:
    template = Template("{n} {flag} {none} {items}")

    assert template.render({"n": 3, "flag": True, "none": None, "items": ["é", 1]}) == '3 true null ["é", 1]'


def test_dollar_stands_for_the_whole_value() -> None:
    assert Template("{$}").render({}, {"a": "ü", "b": [1, 2]}) == '{"a": "ü", "b": [1, 2]}'


def test_the_json_filter_and_known_values_of_a_pattern_are_written_alike() -> None:
    template = Template("{x|json} of {y}")

    assert template.render({"x": {"a": [1, "ü"]}, "y": [None]}) == '{"a": [1, "ü"]} of [null]'
    assert template.pattern({"x": {"a": [1]}, "y": [None]}).fullmatch('{"a": [1]} of [null]')


def test_doubled_braces_are_literal() -> None:
    template = Template("{{not}} {x} }}")

    assert template.fields == ("x",)
    assert template.render({"x": 1}) == "{not} 1 }"


def test_a_template_without_fields_is_returned_as_is() -> None:
    assert Template("plain").render({}) == "plain"


def test_a_missing_value_raises_key_error() -> None:
    with pytest.raises(KeyError):
        Template("{x}").render({})


@pytest.mark.parametrize(
    ("source", "detail"),
    [
        ("{unclosed", "unclosed '{' at offset 0"),
        ("a } b", "single '}' at offset 2"),
        ("{a.b}", "placeholder {a.b} is not a name"),
        ("{}", "placeholder {} is not a name"),
        ("{0}", "placeholder {0} is not a name"),
    ],
)
def test_malformed_templates_are_refused_with_the_reason(source: str, detail: str) -> None:
    with pytest.raises(TemplateSyntaxError) as info:
        Template(source)

    assert info.value.detail == detail


def test_pattern_matches_rendered_text_and_pins_known_values() -> None:
    template = Template("File '{path}' not found in '{skill}'")

    assert template.pattern().fullmatch("File 'x' not found in 'y'")
    assert template.pattern({"skill": "calc"}).fullmatch("File 'x' not found in 'calc'")
    assert not template.pattern({"skill": "calc"}).fullmatch("File 'x' not found in 'other'")
    assert not template.pattern().fullmatch("File 'x' missing")


def test_pattern_requires_a_repeated_name_to_repeat_its_text() -> None:
    pattern = Template("{a} and {a}").pattern()

    assert pattern.fullmatch("x and x")
    assert not pattern.fullmatch("x and y")


def test_json_filter_quotes_and_escapes_strings() -> None:
    template = Template('{{"error": {message|json}}}')

    assert template.fields == ("message",)
    assert template.render({"message": 'can\'t \\ "x"'}) == '{"error": "can\'t \\\\ \\"x\\""}'


def test_unknown_filters_are_refused() -> None:
    with pytest.raises(TemplateSyntaxError):
        Template("{message|upper}")
