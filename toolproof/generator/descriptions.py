"""Description lint: does each tool's text tell a model what it needs, as the providers' tool-use guidance asks?

Anthropic: "Provide extremely detailed descriptions ... what the tool does, when it should be used (and
when it shouldn't), what each parameter means ... aim for at least 3-4 sentences per tool description"
(docs.claude.com, tool use, "Best practices for tool definitions"); tools that overlap confuse agents and
error responses should "clearly communicate specific and actionable improvements" (anthropic.com/engineering/
writing-tools-for-agents). OpenAI: "Explicitly describe the purpose of the function and each parameter (and
its format), and what the output represents" (platform.openai.com/docs/guides/function-calling, "Best
practices for defining functions"); a description over 1,024 characters is refused (string_above_max_length).

The checks read words, not meaning: each is a heuristic a person can satisfy in one sentence, and a
project can change its level or turn it off (``[tool.toolproof.lint.levels]``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, Final

from toolproof.generator.model import Contract
from toolproof.generator.problems import Problem, rule

__all__ = ["description_problems", "similarity"]

MIN_WORDS: Final = 12
MIN_SENTENCES: Final = 2
MAX_CHARACTERS: Final = 1024
"""OpenAI's limit on a function description; the strictest of the providers'."""
DUPLICATE: Final = 0.5
"""Share of content words two tools' texts have in common from which they read as near-duplicates."""
_WHEN: Final = re.compile(
    r"\b(use|used|using|call|when|whenever|before|after|instead|only if|unless|if you|to get|to find|to check)\b", re.I
)
_RETURNS: Final = re.compile(
    r"\b(returns?|returned|answers?|gives?|yields?|responds?|outputs?|reports?|lists?)\b", re.I
)
_SENTENCE: Final = re.compile(r"[.!?](?:\s|$)")
_WORD: Final = re.compile(r"[A-Za-z0-9]+")
_STOP: Final = frozenset(
    "the a an and or of to in on for with from by is are be it its this that these those as at not no any all"
    " you your can may must will only one each use when into than then which what".split()
)


def _words(text: str) -> list[str]:
    return _WORD.findall(text)


def _content(c: Contract) -> set[str]:
    words = _words(c.name.replace("_", " ").replace("-", " ") + " " + c.description)
    return {w.lower() for w in words if len(w) > 2 and w.lower() not in _STOP}


def similarity(a: Contract, b: Contract) -> float:
    """The share of content words (name and description) two tools have in common (Jaccard)."""
    left, right = _content(a), _content(b)
    return len(left & right) / len(left | right) if left | right else 0.0


def _properties(schema: Any, path: tuple[str | int, ...]) -> Iterator[tuple[tuple[str | int, ...], str, Any]]:
    """Each property of an object schema, nested ones too (through items and anyOf/oneOf branches)."""
    if not isinstance(schema, Mapping):
        return
    props = schema.get("properties")
    if isinstance(props, Mapping):
        for name, sub in props.items():
            yield (*path, "properties", name), name, sub
            yield from _properties(sub, (*path, "properties", name))
    if isinstance(schema.get("items"), Mapping):
        yield from _properties(schema["items"], (*path, "items"))
    for key in ("anyOf", "oneOf", "allOf"):
        branches = schema.get(key)
        if isinstance(branches, list):
            for i, sub in enumerate(branches):
                yield from _properties(sub, (*path, key, i))


def _described(node: Any, root: Mapping[str, Any]) -> bool:
    """Whether a property's schema carries a description, at the reference or at what it points to."""
    if not isinstance(node, Mapping):
        return True  # true / false: nothing a model fills in
    if node.get("description"):
        return True
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/$defs/"):
        target = root.get("$defs", {}).get(ref.removeprefix("#/$defs/"))
        return isinstance(target, Mapping) and bool(target.get("description"))
    return False


def _mentions(text: str, value: str) -> bool:
    """Whether ``text`` names ``value`` as a word of its own (``c++`` too, which ``\\b`` would miss)."""
    return re.search(rf"(?<![\w]){re.escape(value)}(?![\w])", text) is not None


def _tool_text(c: Contract) -> list[Problem]:
    problems: list[Problem] = []
    line, column = c.where(("description",))
    text = c.description.strip()
    words = len(_words(text))
    sentences = len(_SENTENCE.findall(text + " "))
    if words < MIN_WORDS or sentences < MIN_SENTENCES:
        message = (
            f"tool '{c.name}': the description has {words} word(s) in {sentences} sentence(s); say what the tool"
            " does, when to use it and what it returns (Anthropic's guidance: 3-4 sentences)"
        )
        problems.append(rule("thin-description").at(c.source, line, column, message))
    if not _WHEN.search(text):
        message = f"tool '{c.name}': the description never says when to use the tool (or when not to)"
        problems.append(rule("description-without-when").at(c.source, line, column, message))
    if not _RETURNS.search(text):
        message = f"tool '{c.name}': the description never says what the tool returns"
        problems.append(rule("description-without-result").at(c.source, line, column, message))
    if len(c.description) > MAX_CHARACTERS:
        message = (
            f"tool '{c.name}': the description has {len(c.description)} characters; OpenAI refuses a function"
            f" description over {MAX_CHARACTERS} (string_above_max_length), and every host on it with it"
        )
        problems.append(rule("description-too-long").at(c.source, line, column, message))
    return problems


def _parameters(c: Contract) -> list[Problem]:
    problems: list[Problem] = []
    root = c.input_schema
    for path, name, sub in _properties(root, ("input",)):
        line, column = c.where(path)
        if not _described(sub, root):
            message = f"tool '{c.name}': parameter '{name}' has no description; say what it means and its format"
            problems.append(rule("undescribed-parameter").at(c.source, line, column, message))
            continue
        if not isinstance(sub, Mapping) or name in c.dynamic_enums:
            continue  # a host fills a dynamic enum: its values are not the contract's to describe
        values = sub.get("enum")
        if isinstance(values, list) and len(values) > 1:
            text = str(sub.get("description", ""))
            missing = [v for v in values if isinstance(v, str) and not _mentions(text, v)]
            if missing:
                shown = ", ".join(repr(v) for v in missing)
                message = (
                    f"tool '{c.name}': parameter '{name}' never says what {shown} mean(s); describe each enum"
                    " value in the parameter's description"
                )
                problems.append(rule("undescribed-enum-value").at(c.source, line, column, message))
    return problems


def _errors(c: Contract) -> list[Problem]:
    problems: list[Problem] = []
    for error in c.errors:
        line, column = c.where(("errors", error.code))
        if not error.hint:
            message = f"tool '{c.name}': error '{error.code}' has no hint; tell the model what to do next"
        elif len(_words(error.hint)) < 3:
            message = f"tool '{c.name}': error '{error.code}' has a hint of under 3 words; make it an action"
        else:
            continue
        problems.append(rule("error-without-hint").at(c.source, line, column, message))
    return problems


def _duplicates(contracts: Sequence[Contract]) -> list[Problem]:
    """Pairs of tools a request carries together whose texts read alike, neither naming the other."""
    problems: list[Problem] = []
    for i, a in enumerate(contracts):
        for b in contracts[i + 1 :]:
            together = set(a.toolsets) & set(b.toolsets) or (not a.toolsets and not b.toolsets)
            if not together or b.name in a.description or a.name in b.description:
                continue
            share = similarity(a, b)
            if share >= DUPLICATE:
                line, column = b.where(("description",))
                message = (
                    f"tool '{b.name}' reads like '{a.name}' ({share:.0%} of their words in common) and neither"
                    f" description names the other; say when to use '{b.name}' rather than '{a.name}'"
                )
                problems.append(rule("near-duplicate-tool").at(b.source, line, column, message))
    return problems


def description_problems(contracts: Sequence[Contract]) -> list[Problem]:
    """Every description problem of the project's own tools, at the rules' usual levels.

    Resources and prompts are left out: the guidance the rules cite is about the tools a model chooses among, and
    a resource's or prompt's description is read by the person or application that picks it.
    """
    contracts = [c for c in contracts if c.is_tool]
    problems: list[Problem] = []
    for c in contracts:
        problems += _tool_text(c) + _parameters(c) + _errors(c)
    return problems + _duplicates(contracts)
