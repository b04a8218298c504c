"""Read untrusted YAML safely and within bounds.

Two dangers come with YAML from a disk. libyaml's C parser overflows its stack
on some tens of thousands of nesting levels (a SKILL.md of 60 KB can hold
them) and takes the process down with a segfault, which no ``except``
catches: ``too_deep`` refuses such text before it is parsed. And PyYAML's
YAML 1.1 resolvers and constructors trust what they read: ``2024-02-30``,
``!!int nope`` or a 5,000-digit integer raise ValueError or AttributeError,
merge keys (``<<``) expand exponentially and base-60 integers (``1:59:59``)
convert in quadratic time.

``load_bounded`` therefore takes only libyaml's parser events and builds the
values itself, under the YAML 1.2 core schema: a plain scalar becomes str,
int, float, bool or None by the core rules and nothing else (no timestamps,
no sexagesimal numbers, no ``yes``/``no``, no merge keys), tags beyond the
core ones are ignored, and numbers are bounded in length. The text has a size
budget and the values a node and an alias budget (an alias counts as every
value it stands for), checked as the events arrive, so a load stops within
its budget whatever the text. A value it cannot take as written is kept as
text with a note; a text past a budget, or not YAML, is refused. Nothing else
is raised.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, Final, Literal

import yaml

__all__ = [
    "MAX_ALIASES",
    "MAX_DEPTH",
    "MAX_NODES",
    "MAX_NUMBER_CHARS",
    "Loaded",
    "Refusal",
    "YamlNote",
    "load_bounded",
    "too_deep",
]

MAX_DEPTH: Final = 200
"""Most nesting levels read, as brackets or indentation in the text and as values once aliases expand."""
MAX_NODES: Final = 10_000
"""Most values one load builds, each alias counted as the values it expands to."""
MAX_ALIASES: Final = 100
"""Most aliases (``*name``) one load follows."""
MAX_NUMBER_CHARS: Final = 100
"""Longest integer or float read as a number; a longer one is kept as text."""

Refusal = Literal["syntax", "too_large", "too_deep", "too_many_nodes", "too_many_aliases"]

_BRACKETS = re.compile(r"[\[\]{}]")

_CORE = "tag:yaml.org,2002:"
_STR, _NULL, _BOOL, _INT, _FLOAT = (f"{_CORE}{name}" for name in ("str", "null", "bool", "int", "float"))
_SEQ, _MAP = f"{_CORE}seq", f"{_CORE}map"
# The YAML 1.2 core schema (spec 1.2.2, section 10.3.2), each rule with the first characters it can start with.
_NULL_FORM = re.compile(r"(?:~|null|Null|NULL|)\Z")
_BOOL_FORM = re.compile(r"(?:true|True|TRUE|false|False|FALSE)\Z")
_INT_FORM = re.compile(r"(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z")
_FLOAT_FORM = re.compile(
    r"(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))\Z"
)
_RULES: Final = (
    (_NULL, _NULL_FORM, ["~", "n", "N", ""]),
    (_BOOL, _BOOL_FORM, list("tTfF")),
    (_INT, _INT_FORM, list("-+0123456789")),
    (_FLOAT, _FLOAT_FORM, list("-+.0123456789")),
)

_Parser: type[Any] = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser, when PyYAML has it


@dataclass(frozen=True, slots=True)
class YamlNote:
    """A value ``load_bounded`` could not take as written, and what it did instead (1-based line and column)."""

    line: int
    column: int
    message: str


@dataclass(frozen=True, slots=True)
class Loaded:
    """What ``load_bounded`` made of a text.

    ``data`` is None when ``refused`` says why the text was not read;
    ``detail`` then holds the parser's first line (for ``syntax``) or the size found.
    """

    data: Any = None
    notes: tuple[YamlNote, ...] = ()
    refused: Refusal | None = None
    detail: str = ""


def too_deep(text: str, limit: int = MAX_DEPTH) -> bool:
    """Whether ``text`` may nest more than ``limit`` levels, as flow brackets or as block indentation.

    Conservative: brackets inside quoted strings count too, and a line's
    leading run of spaces and indicators (``-``, ``?``, ``:``) counts as its
    block depth bound.
    """
    depth = 0
    for match in _BRACKETS.finditer(text):
        depth += 1 if match.group() in "[{" else -1
        if depth > limit:
            return True
    # One search for a run too long, not a match per line: 64 KiB of empty lines would be 65,536 matches.
    return _leading_run(4 * limit + 1).search(text) is not None


@functools.cache
def _leading_run(length: int) -> re.Pattern[str]:
    """A line's leading run of blanks and block indicators, ``length`` long."""
    return re.compile(rf"^[ \t\-?:]{{{length}}}", re.MULTILINE)


def load_bounded(text: str, *, max_bytes: int, max_nodes: int = MAX_NODES, max_aliases: int = MAX_ALIASES) -> Loaded:
    """Read one YAML document into str, int, float, bool, None, lists and dicts, within the budgets.

    Args:
        text: the YAML.
        max_bytes: the most UTF-8 bytes read; a longer text is refused unread.
        max_nodes: the most values built, each alias counted as the values it stands for.
        max_aliases: the most aliases followed.

    Returns:
        The data and the notes, or (data None) the refusal: ``too_deep`` (checked
        first, before any parsing), ``too_large``, ``syntax``, ``too_many_nodes``
        or ``too_many_aliases``. An alias shares the value of its anchor.
    """
    if too_deep(text):
        return Loaded(refused="too_deep")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > max_bytes:
        return Loaded(refused="too_large", detail=str(size))
    builder = _Builder(max_nodes, max_aliases)
    try:
        for event in yaml.parse(text, Loader=_Parser):
            builder.feed(event)
    except _Refused as exc:
        return Loaded(refused=exc.reason, detail=exc.detail)
    except yaml.YAMLError as exc:
        return Loaded(refused="syntax", detail=str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
    except UnicodeError:  # a lone surrogate, which no file decoded from UTF-8 holds
        return Loaded(refused="syntax", detail="the text holds characters that UTF-8 cannot carry")
    return Loaded(builder.root, tuple(builder.notes))


class _Refused(Exception):
    def __init__(self, reason: Refusal, detail: str = "") -> None:
        super().__init__(reason)
        self.reason: Refusal = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class _Anchored:
    """A finished anchored value: what an alias to it adds (values counted, levels of nesting)."""

    value: Any
    nodes: int
    height: int
    scalar: bool


@dataclass(slots=True)
class _Open:
    """A list or mapping being built; for a mapping, ``key`` holds the key waiting for its value."""

    value: list[Any] | dict[Any, Any]
    anchor: str | None
    first_node: int
    height: int = 1
    key: Any = None
    has_key: bool = False
    skip: bool = False


class _Builder:
    """Plain values from parser events, built once; aliases share their anchor's value but count its size."""

    def __init__(self, max_nodes: int, max_aliases: int) -> None:
        self.max_nodes = max_nodes
        self.max_aliases = max_aliases
        self.nodes = 0
        self.aliases = 0
        self.documents = 0
        self.anchors: dict[str, _Anchored | None] = {}  # None while the anchored value is still open
        self.stack: list[_Open] = []
        self.root: Any = None
        self.notes: list[YamlNote] = []

    def _note(self, event: yaml.Event, message: str) -> None:
        mark = event.start_mark
        self.notes.append(YamlNote(mark.line + 1 if mark else 1, mark.column + 1 if mark else 1, message))

    def _count(self, nodes: int) -> None:
        self.nodes += nodes
        if self.nodes > self.max_nodes:
            raise _Refused("too_many_nodes")

    def feed(self, event: yaml.Event) -> None:
        if isinstance(event, yaml.ScalarEvent):
            self._count(1)
            value = self._scalar(event)
            if event.anchor is not None:
                self.anchors[event.anchor] = _Anchored(value, 1, 0, scalar=True)
            self._put(event, value, scalar=True)
        elif isinstance(event, yaml.AliasEvent):
            self._alias(event)
        elif isinstance(event, yaml.SequenceStartEvent | yaml.MappingStartEvent):
            self._count(1)
            if len(self.stack) >= MAX_DEPTH:
                raise _Refused("too_deep")
            default = _SEQ if isinstance(event, yaml.SequenceStartEvent) else _MAP
            if event.tag not in (None, "!", default):
                self._note(event, f"the tag {_preview(_shown(event.tag))} is ignored on a list or mapping")
            if event.anchor is not None:
                self.anchors[event.anchor] = None
            empty: list[Any] | dict[Any, Any] = [] if default == _SEQ else {}
            self.stack.append(_Open(empty, event.anchor, self.nodes))
        elif isinstance(event, yaml.SequenceEndEvent | yaml.MappingEndEvent):
            done = self.stack.pop()
            if done.anchor is not None:
                self.anchors[done.anchor] = _Anchored(
                    done.value, self.nodes - done.first_node + 1, done.height, scalar=False
                )
            if self.stack:
                self.stack[-1].height = max(self.stack[-1].height, done.height + 1)
            self._put(event, done.value, scalar=False)
        elif isinstance(event, yaml.DocumentStartEvent):
            self.documents += 1
            if self.documents > 1:
                raise _Refused("syntax", "the text holds more than one YAML document")

    def _alias(self, event: yaml.AliasEvent) -> None:
        anchored = self.anchors.get(event.anchor or "", _UNDEFINED)
        if anchored is _UNDEFINED:
            raise _Refused("syntax", f"the alias {_preview(event.anchor or '')} names no anchor before it")
        if not isinstance(anchored, _Anchored):  # an alias inside what it names: endless nesting
            raise _Refused("too_deep")
        self.aliases += 1
        if self.aliases > self.max_aliases:
            raise _Refused("too_many_aliases")
        self._count(anchored.nodes)
        if len(self.stack) + anchored.height > MAX_DEPTH:
            raise _Refused("too_deep")
        if self.stack:
            self.stack[-1].height = max(self.stack[-1].height, anchored.height + 1)
        self._put(event, anchored.value, scalar=anchored.scalar)

    def _put(self, event: yaml.Event, value: Any, *, scalar: bool) -> None:
        if not self.stack:
            self.root = value
            return
        top = self.stack[-1]
        if isinstance(top.value, list):
            top.value.append(value)
        elif not top.has_key:
            top.has_key, top.key, top.skip = True, value, not scalar
            if not scalar:
                self._note(event, "a key must be a single value, not a list or mapping; the entry is left out")
            elif value == "<<" and isinstance(event, yaml.ScalarEvent) and not event.style:
                self._note(event, "'<<' is an ordinary key here: YAML 1.2 has no merge keys")
            elif value in top.value:
                self._note(event, f"duplicate key {_preview(str(value))}; the last value is kept")
        else:
            if not top.skip:
                top.value[top.key] = value
            top.has_key, top.key, top.skip = False, None, False

    def _scalar(self, event: yaml.ScalarEvent) -> Any:
        text, tag = event.value, event.tag
        if tag == "!" or (tag is None and not event.implicit[0]):
            return text
        if tag is None:
            tag = next((rule for rule, form, first in _RULES if (text[:1] in first) and form.match(text)), _STR)
        if tag == _STR:
            return text
        kind = _KINDS.get(tag)
        if kind is None:
            problem = f"the tag {_preview(_shown(tag))} is not a YAML core tag; the value is read as text"
        elif tag in (_INT, _FLOAT) and len(text) > MAX_NUMBER_CHARS:
            problem = f"a number of {len(text)} characters is read as text (at most {MAX_NUMBER_CHARS})"
        else:
            value = _core_value(tag, text)
            if value is not _NOT_CORE:
                return value
            problem = f"{_preview(text)} is not a YAML 1.2 {kind}; it is read as text"
        self._note(event, problem)
        return text


def _shown(tag: str) -> str:
    return "!!" + tag.removeprefix(_CORE) if tag.startswith(_CORE) else tag


def _preview(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:40] + "…")


_UNDEFINED: Final = object()
_NOT_CORE: Final = object()
_KINDS: Final = {_NULL: "null", _BOOL: "boolean", _INT: "integer", _FLOAT: "float"}


def _core_value(tag: str, text: str) -> Any:
    """The value of ``text`` under core tag ``tag``, or ``_NOT_CORE`` when the core schema has no such form."""
    if tag == _NULL:
        return None if _NULL_FORM.match(text) else _NOT_CORE
    if tag == _BOOL:
        return text.lower() == "true" if _BOOL_FORM.match(text) else _NOT_CORE
    if tag == _INT:
        if not _INT_FORM.match(text):
            return _NOT_CORE
        if text.startswith(("0o", "0x")):
            return int(text[2:], 8 if text[1] == "o" else 16)
        return int(text)
    if not _FLOAT_FORM.match(text):
        return _NOT_CORE
    lowered = text.lower()
    if lowered.endswith(".nan"):
        return float("nan")
    if lowered.endswith(".inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    return float(text)
