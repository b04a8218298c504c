"""A ``LazyPattern`` compiles on first use and answers as the compiled ``re.Pattern`` does."""

from __future__ import annotations

import re

import pytest

from toolproof.runtime.lazy import LazyPattern


def test_a_pattern_is_compiled_by_its_first_use_once() -> None:
    pattern = LazyPattern(r"(\d+)-(\d+)")

    assert pattern._compiled is None
    first = pattern.compiled
    assert pattern.compiled is first
    assert first.pattern == pattern.pattern == r"(\d+)-(\d+)"


@pytest.mark.parametrize("text", ["", "a 12-34 b 5-6", "12-34", "no digits", "1-2-3"])
def test_each_method_answers_as_re_does(text: str) -> None:
    lazy, real = LazyPattern(r"(\d+)-(\d+)"), re.compile(r"(\d+)-(\d+)")

    def groups(match: re.Match[str] | None) -> object:
        return None if match is None else (match.span(), match.groups())

    assert groups(lazy.match(text)) == groups(real.match(text))
    assert groups(lazy.match(text, 2)) == groups(real.match(text, 2))
    assert groups(lazy.fullmatch(text)) == groups(real.fullmatch(text))
    assert groups(lazy.search(text, 1, 8)) == groups(real.search(text, 1, 8))
    assert lazy.findall(text) == real.findall(text)
    assert [m.span() for m in lazy.finditer(text)] == [m.span() for m in real.finditer(text)]
    assert lazy.split(text) == real.split(text)
    assert lazy.split(text, 1) == real.split(text, 1)
    assert lazy.sub("x", text) == real.sub("x", text)
    assert lazy.sub(lambda m: m[2], text, 1) == real.sub(lambda m: m[2], text, 1)


def test_flags_and_bytes_are_kept() -> None:
    pattern = LazyPattern(rb"a.b", re.DOTALL | re.IGNORECASE)

    assert pattern.fullmatch(b"A\nB") is not None
    assert repr(pattern) == "LazyPattern(b'a.b')"
