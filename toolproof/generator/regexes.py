"""Patterns in schemas: read as ECMA-262 (JSON Schema's, the runtime's) and compiled by Python's ``re`` too.

JSON Schema says patterns are ECMA-262 regular expressions; ajv and the
providers compile them with the ``u`` flag, and the runtime validates with
jsonschema-rs, which reads them so too (lint's example checks use the same
validator). The generated fuzz tests draw strings from a pattern with
Python's ``re`` (Hypothesis), so a contract's pattern must also compile in
Python and use nothing ECMA-262's unicode mode refuses. The two agree on most
syntax, lookbehind included (ECMA-262 also allows variable-width lookbehind,
which Python refuses); Python-only syntax such as ``\\Z``, ``(?P<name>...)`` or
possessive quantifiers is reported with the ECMA spelling. jsonschema-rs must
compile it too: it refuses a few escapes both dialects take (``\\0``,
``[\\b]``, surrogate pairs), which are reported with a spelling every engine
reads the same.
"""

from __future__ import annotations

import re
import warnings
from functools import lru_cache
from typing import Final

import jsonschema_rs

__all__ = ["RegexProblem", "compile_pattern", "regex_problem"]

RegexProblem = tuple[str, int, str]
"""A problem in a pattern: the rule name, the index of the offending character, the message."""

_SYNTAX: Final = frozenset("^$\\.*+?()[]{}|/")
"""The characters ECMA-262 unicode mode lets a backslash escape as themselves (and ``-`` inside a class)."""
_LOOKAROUND: Final = ("=", "!", "<=", "<!")
_QUANTIFIER: Final = re.compile(r"\{(\d*)(?:(,)(\d*))?\}")
_SURROGATE_PAIR: Final = re.compile(r"\\u(d[89ab][0-9a-f]{2})\\u(d[c-f][0-9a-f]{2})", re.IGNORECASE)
_PYTHON_NOTES: Final = {
    "look-behind requires fixed-width pattern": "ECMA-262 allows variable-width lookbehind; Python's re does not",
    "unknown extension ?<": "ECMA-262 writes (?<name>...), Python's re (?P<name>...), so a portable pattern "
    "uses an unnamed group",
    "bad escape \\p": "Unicode property escapes are ECMA-262 only",
    "bad escape \\P": "Unicode property escapes are ECMA-262 only",
    "bad escape \\k": "named backreferences are spelled differently in ECMA-262 and Python",
    "bad escape \\c": "control escapes are ECMA-262 only; write \\xHH",
    "incomplete escape \\u": "ECMA-262's \\u{...} is not Python's; write \\uXXXX",
}
_PYTHON_ESCAPES: Final = {
    "A": "'\\A' is Python-only; ECMA-262 writes '^'",
    "Z": "'\\Z' is Python-only; ECMA-262 writes '$'",
    "a": "'\\a' is Python-only; ECMA-262 writes '\\x07'",
    "U": "'\\U' is Python-only; ECMA-262 writes '\\u{...}'",
    "N": "'\\N{...}' is Python-only; write the character itself",
}
_PYTHON_GROUPS: Final = (
    ("P<", "'(?P<name>...)' is Python-only; ECMA-262 writes '(?<name>...)', which Python refuses: use '(...)'"),
    ("P=", "'(?P=name)' is Python-only; use a numbered backreference"),
    ("#", "'(?#...)' comments are Python-only"),
    (">", "atomic groups '(?>...)' are Python-only"),
    ("(", "conditional groups '(?(...)...)' are Python-only"),
)


def compile_pattern(pattern: str) -> re.Pattern[str] | re.error:
    """The pattern compiled by Python's ``re``, or the error saying why it does not compile."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # FutureWarning "possible nested set": a literal '[' in a class is fine
        try:
            return re.compile(pattern)
        except re.error as exc:
            return exc


def regex_problem(pattern: str) -> RegexProblem | None:
    """The first reason ``pattern`` cannot stand in a contract, or None when Python and ECMA-262 both take it."""
    compiled = compile_pattern(pattern)
    if isinstance(compiled, re.error):
        index = compiled.pos or 0
        note = next((n for start, n in _PYTHON_NOTES.items() if compiled.msg.startswith(start)), None)
        reason = f"{compiled.msg} at position {index}" + (f" ({note})" if note else "")
        return "invalid-regex", index, f"pattern '{pattern}' does not compile: {reason}"
    found = _ecma_problem(pattern)
    if found is not None:
        index, why = found
        return "regex-not-ecma", index, f"pattern '{pattern}' is not ECMA-262 (position {index}): {why}"
    refused = _runtime_refuses(pattern)
    if refused is None:
        return None
    index, why = _runtime_problem(pattern, refused)
    return (
        "invalid-regex",
        index,
        f"pattern '{pattern}' does not compile in jsonschema-rs, the runtime's validator: {why}",
    )


@lru_cache(maxsize=4096)
def _runtime_refuses(pattern: str) -> str | None:
    """What jsonschema-rs (the runtime's compiled validator) says of ``pattern``; None when it compiles it."""
    try:
        jsonschema_rs.validator_for({"pattern": pattern}, validate_formats=False)
    except Exception as exc:  # jsonschema_rs.ValidationError: the schema does not compile
        return str(exc).splitlines()[0]
    return None


def _runtime_problem(p: str, refused: str) -> tuple[int, str]:
    """Where in ``p`` jsonschema-rs stops, and the spelling it takes that means the same everywhere."""
    i, in_class = 0, False
    while i < len(p):
        char = p[i]
        if char == "\\":
            code = p[i + 1 : i + 2]
            if code == "0":
                return i, "'\\0' is refused there; write '\\x00', the same character"
            if code == "b" and in_class:
                return i, "'\\b' in a class (backspace) is refused there; write '\\x08', the same character"
            pair = _SURROGATE_PAIR.match(p, i)
            if pair is not None:
                high, low = int(pair[1], 16), int(pair[2], 16)
                character = chr(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                return i, f"a surrogate pair is refused there; write the character itself ('{character}')"
            i += 2
            continue
        if char == "[" and not in_class:
            in_class = True
        elif char == "]" and in_class:
            in_class = False
        i += 1
    return 0, refused


def _ecma_problem(p: str) -> tuple[int, str] | None:
    """The first construct of a pattern Python compiles that ECMA-262 unicode mode refuses or reads otherwise."""
    i, in_class, atom, lookaround = 0, False, False, False
    groups: list[bool] = []  # the open groups, True for each lookaround
    while i < len(p):
        char = p[i]
        if char == "\\":
            why = _escape(p, i, in_class)
            if why is not None:
                return i, why
            i, atom = i + 2, True
        elif in_class:
            in_class, atom, i = char != "]", char == "]", i + 1
        elif char == "[":
            i = i + 2 if p.startswith("[^", i) else i + 1
            if p.startswith("]", i):
                return i, "a ']' first in a class is literal in Python but ends an empty class in ECMA-262: write '\\]'"
            in_class = True
        elif char == "(":
            why, skip = _group(p, i)
            if why is not None:
                return i, why
            groups.append(p.startswith("(?", i) and p.startswith(_LOOKAROUND, i + 2))
            i, atom = i + skip, False
        elif char == ")":
            lookaround = groups.pop() if groups else False
            i, atom = i + 1, True
            continue
        elif char in "*+?{":
            if lookaround:
                return i, "a lookaround cannot take a quantifier in ECMA-262 unicode mode"
            quantifier = _QUANTIFIER.match(p, i) if char == "{" else None
            if char == "{" and (quantifier is None or not atom or quantifier.group(1, 2) == ("", None)):
                return i, "a literal '{' must be escaped as '\\{' in ECMA-262 unicode mode"
            if quantifier is not None and not quantifier.group(1):
                return i, "'{,n}' is Python-only; ECMA-262 writes '{0,n}'"
            i = quantifier.end() if quantifier is not None else i + 1
            if p.startswith("+", i):
                return i, "possessive quantifiers ('*+', '++', '?+', '{n}+') are Python-only"
            i, atom = i + p.startswith("?", i), False
        elif char in "}]":
            return i, f"a literal '{char}' must be escaped as '\\{char}' in ECMA-262 unicode mode"
        else:
            i, atom = i + 1, char not in "^$|"
        lookaround = False
    return None


def _escape(p: str, i: int, in_class: bool) -> str | None:
    code = p[i + 1 : i + 2]
    if code in _PYTHON_ESCAPES:
        return _PYTHON_ESCAPES[code]
    if code.isdigit():
        digits = re.match(r"[0-7]{1,3}", p[i + 1 :])
        if (code == "0" and p[i + 2 : i + 3].isdigit()) or (digits is not None and len(digits.group()) == 3):
            return "octal escapes are Python-only; write '\\xHH'"
        return None
    if code.isascii() and code.isalnum():
        return None  # the letter escapes both dialects share (Python refuses the others)
    if code in _SYNTAX or (in_class and code == "-"):
        return None
    return f"'\\{code}' is not an escape in ECMA-262 unicode mode; write '{code}' without the backslash"


def _group(p: str, i: int) -> tuple[str | None, int]:
    if not p.startswith("(?", i):
        return None, 1
    rest = p[i + 2 :]
    for prefix in (*_LOOKAROUND, ":"):
        if rest.startswith(prefix):
            return None, 2 + len(prefix)
    for prefix, why in _PYTHON_GROUPS:
        if rest.startswith(prefix):
            return why, 0
    return "inline flags such as '(?i)' are Python-only; ECMA-262 sets flags outside the pattern", 0
