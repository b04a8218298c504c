"""One place escapes untrusted text: every character that could forge, reorder or hide what a reader sees."""

from __future__ import annotations

import re

import pytest

from toolproof.runtime.printable import encodable, is_printable, one_line, printable, printable_field

HOSTILE = [
    ("a\nINFO toolproof.audit: forged", "a\\x0aINFO toolproof.audit: forged"),
    ("a\r\nb", "a\\x0d\\x0ab"),
    ("\x1b[31mred", "\\x1b[31mred"),
    ("\x00", "\\x00"),
    ("\x85next line", "\\x85next line"),
    ("\u2028sep", "\\u2028sep"),
    ("abc\u202edcba", "abc\\u202edcba"),
    ("\u2066isolate\u2069", "\\u2066isolate\\u2069"),
    ("zero\u200bwidth", "zero\\u200bwidth"),
    ("join\u200dme", "join\\u200dme"),
    ("soft\xadhyphen", "soft\\xadhyphen"),
    ("\ufeffbom", "\\ufeffbom"),
    ("tag\U000e0041\U000e0042smuggled", "tag\\U000e0041\\U000e0042smuggled"),
    ("lone \udcff surrogate", "lone \\udcff surrogate"),
    ("back\\slash", "back\\\\slash"),
]


@pytest.mark.parametrize(("text", "shown"), HOSTILE, ids=[repr(t)[:30] for t, _ in HOSTILE])
def test_a_hostile_character_is_escaped_visibly(text: str, shown: str) -> None:
    assert printable(text) == shown
    assert not is_printable(text)
    assert printable(text).isprintable()


@pytest.mark.parametrize("text", ["plain", "é ü → ß", "😀 emoji", "tab\tinside", "日本語", ""])
def test_ordinary_text_is_left_alone(text: str) -> None:
    expected = text.replace("\t", "\\x09")
    assert printable(text) == expected


def test_escapes_keep_distinct_inputs_distinct() -> None:
    assert printable("\\x0a") != printable("\n")


def test_one_line_folds_white_space_and_escapes_the_rest() -> None:
    assert one_line("  first\n\n# SYSTEM NOTICE \u202e x  ") == "first # SYSTEM NOTICE \\u202e x"


def test_encodable_only_repairs_lone_surrogates() -> None:
    assert encodable("ok \udc80 \n") == "ok \ufffd \n"
    assert encodable("fine\n") == "fine\n"


@pytest.mark.parametrize("code", range(128))
def test_every_ascii_character_is_judged_as_the_unsafe_pattern_judges_it(code: int) -> None:
    """ASCII text skips the pattern (compiling it costs start-up): the answers must be the pattern's."""
    from toolproof.runtime.printable import _UNSAFE, _escape

    text = f"a{chr(code)}b"

    assert printable(text) == _UNSAFE.compiled.sub(_escape, text)
    assert is_printable(text) is (_UNSAFE.compiled.search(text) is None)
    safe = printable(text)
    quoted = not safe or re.search('[ "=]', safe) is not None  # printable_field's rule, as the pattern it was
    assert printable_field(text) == ('"' + safe.replace('"', "\\x22") + '"' if quoted else safe)
