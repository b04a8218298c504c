"""Python literals and layouts the templates write: the value read back is the value written, within the width."""

from __future__ import annotations

import ast

from hypothesis import given
from hypothesis import strategies as st

from toolproof.generator.pysource import Call, Str, annotation, docstring, layout, pystr


@given(st.text())
def test_a_literal_reads_back_as_the_text_it_was_made_of(text: str) -> None:
    literal = pystr(text)

    assert ast.literal_eval(literal) == text
    assert literal.isascii() and literal.isprintable()


def test_a_literal_takes_the_quotes_ruff_prefers() -> None:
    assert pystr('say "hi"') == "'say \"hi\"'"
    assert pystr('it\'s "x"') == "'it\\'s \"x\"'"
    assert pystr("line\u2028break") == '"line\\u2028break"'


@given(st.text(min_size=1, max_size=400), st.integers(min_value=60, max_value=140))
def test_a_long_string_argument_splits_into_parts_that_read_back_whole_and_fit(text: str, width: int) -> None:
    source = layout(Call("f(", [Str(text)]), 0, width)

    inner = source.removeprefix("f(").removesuffix(")").strip().rstrip(",")
    assert ast.literal_eval(f"({inner})") == text
    assert max(len(line) for line in source.splitlines()) <= width


@given(st.text(max_size=300))
def test_a_docstring_reads_back_as_its_words(text: str) -> None:
    source = docstring(text, 4, 88)

    assert " ".join(ast.literal_eval(source).split()) == " ".join(" ".join(text.split()).split())


def test_an_annotation_breaks_at_its_subscripts_and_keeps_string_values() -> None:
    parsed = annotation('NotRequired[dict[str, Literal["a, b", "c]"]]]')

    assert isinstance(parsed, Call)
    assert layout(parsed, 0, 20).splitlines() == [
        "NotRequired[",
        "    dict[",
        "        str,",
        "        Literal[",
        '            "a, b",',
        '            "c]",',
        "        ],",
        "    ]",
        "]",
    ]
    assert annotation("str | None") == "str | None"
