"""Read a contract's YAML into plain JSON data, remembering where every node stands."""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import yaml

from toolproof.builtin.skills.yamlguard import MAX_DEPTH, too_deep
from toolproof.generator.problems import Level, Problem, rule
from toolproof.runtime.regular import NotRegular, TooLarge, read_regular

__all__ = ["MAX_CONTRACT_BYTES", "Interned", "JsonPath", "Source", "load_source"]

MAX_CONTRACT_BYTES = 8 * 1024 * 1024
"""The largest contract read: far more than any tool's needs, and a bound on what a bad file can cost."""

JsonPath = tuple[str | int, ...]
Interned = dict[tuple[Any, ...], Any]
"""Paths and positions (line, column) met so far, each stored once: see ``load_source``."""

_STR_TAG = "tag:yaml.org,2002:str"


class _Resolver(yaml.resolver.Resolver):
    """PyYAML's safe resolver, the same tags at less cost: it is called back for every node.

    Path resolvers, which no safe loader registers, are skipped unless some are; the
    implicit resolvers' regexes run once per distinct plain scalar (the tag depends on
    the text alone), and a quoted scalar, a list or a mapping takes its default tag.
    """

    _plain: ClassVar[dict[str, str]] = {}
    """The tag of each plain scalar met so far, in any load (at most ``_PLAIN_MAX``, short ones)."""
    _PLAIN_MAX: ClassVar = 20_000

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        if self.yaml_path_resolvers:
            super().descend_resolver(current_node, current_index)

    def ascend_resolver(self) -> None:
        if self.yaml_path_resolvers:
            super().ascend_resolver()

    def resolve(self, kind: type[yaml.Node], value: Any, implicit: Any) -> Any:
        if self.yaml_path_resolvers:
            return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
        if kind is yaml.MappingNode:
            return self.DEFAULT_MAPPING_TAG
        if kind is yaml.SequenceNode:
            return self.DEFAULT_SEQUENCE_TAG
        if not implicit[0]:  # quoted, or tagged '!'
            return self.DEFAULT_SCALAR_TAG
        tag = self._plain.get(value)
        if tag is None:
            tag = super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]
            if len(self._plain) < self._PLAIN_MAX and len(value) <= 64:
                self._plain[value] = tag
        return tag


def _loader() -> type[Any]:
    """libyaml's parser composing nodes with :class:`_Resolver`; PyYAML's safe loader when it lacks libyaml."""
    try:
        from yaml._yaml import CParser
    except ImportError:
        return yaml.SafeLoader

    class _Loader(CParser, _Resolver):
        def __init__(self, stream: str) -> None:
            CParser.__init__(self, stream)
            _Resolver.__init__(self)

    return _Loader


_Loader = _loader()

_MAX_DEPTH = 64
_MAX_NODES = 200_000
"""More nodes than any contract needs: YAML aliases can expand a small file exponentially."""


_TABS = "YAML does not allow tabs for indentation; use spaces"


class _TooManyNodes(Exception):
    pass


@dataclass(slots=True)
class Source:
    """One contract file: its text, hash, data and the position of every node (1-based)."""

    path: str
    text: str
    sha256: str
    data: Any = None
    marks: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    key_marks: dict[JsonPath, tuple[int, int]] = field(default_factory=dict)
    foreign: dict[JsonPath, tuple[Source, JsonPath]] = field(default_factory=dict)
    """Definitions copied in from elsewhere (``shared.bundle``): where each copy stands, and the file and path of
    what it copies; a problem inside a copy is reported there."""
    shared: dict[str, Any] = field(default_factory=dict)
    """Each ``$defs`` name bundled from a shared file: its ``shared.Definition``."""
    settled: set[JsonPath] = field(default_factory=set)
    """References whose problem bundling reported already: the schema checks leave them alone."""

    def _origin(self, path: JsonPath) -> tuple[Source, JsonPath]:
        """The file and path that hold the node at ``path``: this one, or the one a bundled copy came from."""
        if self.foreign:
            for end in range(len(path), 0, -1):
                found = self.foreign.get(path[:end])
                if found is not None:
                    other, base = found
                    return other._origin((*base, *path[end:])) if other is not self else (self, (*base, *path[end:]))
        return self, path

    def where(self, path: JsonPath, *, key: bool = False) -> tuple[int, int]:
        """Line and column of the node at ``path``, or of its nearest ancestor that exists."""
        if key and path in self.key_marks:
            return self.key_marks[path]
        for end in range(len(path), -1, -1):
            mark = self.marks.get(path[:end])
            if mark is not None:
                return mark
        return (1, 1)

    def problem(
        self, path: JsonPath, rule_name: str, message: str, *, key: bool = False, level: Level | None = None
    ) -> Problem:
        """A problem the rule called ``rule_name`` found at ``path`` (its key when ``key``) in this file.

        Inside a bundled copy of a definition, the problem is located where the definition is written.
        """
        source, path = self._origin(path)
        line, column = source.where(path, key=key)
        return rule(rule_name).at(source.path, line, column, message, level)

    def char_mark(self, path: JsonPath, text: str, index: int, *, key: bool = False) -> tuple[int, int]:
        """Line and column of character ``index`` of the string ``text`` written at ``path`` (its key when ``key``).

        Exact for a scalar written on one line, plain or quoted; otherwise where the scalar starts.
        """
        line, column = self.where(path, key=key)
        lines = self.text.splitlines()
        if line > len(lines):
            return line, column
        offsets = _raw_offsets(lines[line - 1][column - 1 :], text)
        if offsets is None or not 0 <= index < len(offsets):
            return line, column
        return line, column + offsets[index]


_ESCAPES = {"0": "\0", "a": "\a", "b": "\b", "t": "\t", "\t": "\t", "n": "\n", "v": "\v", "f": "\f", "r": "\r"}
_ESCAPES |= {"e": "\x1b", " ": " ", '"': '"', "/": "/", "\\": "\\", "N": "\x85", "_": "\xa0"}
_ESCAPES |= {"L": "\u2028", "P": "\u2029"}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def _raw_offsets(raw: str, text: str) -> list[int] | None:
    """Where each character of ``text`` stands in ``raw``, the line from the scalar's start; None if unknown."""
    if raw.startswith(text):
        return list(range(len(text)))
    if not raw or raw[0] not in "'\"":
        return None
    offsets: list[int] = []
    decoded: list[str] = []
    i = 1
    while i < len(raw) and len(decoded) < len(text):
        char = raw[i]
        offsets.append(i)
        if raw[0] == "'" and raw.startswith("''", i):
            decoded.append("'")
            i += 2
        elif raw[0] == '"' and char == "\\" and i + 1 < len(raw):
            code = raw[i + 1]
            width = _HEX_ESCAPES.get(code, 0)
            try:
                decoded.append(chr(int(raw[i + 2 : i + 2 + width], 16)) if width else _ESCAPES[code])
            except (KeyError, ValueError):
                return None
            i += 2 + width
        elif char == raw[0]:
            return None
        else:
            decoded.append(char)
            i += 1
    return offsets if "".join(decoded) == text else None


_MAX_SCALAR_DIGITS = 100
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"


class _Builder:
    def __init__(self, source: Source, interned: Interned) -> None:
        self.source = source
        self.interned = interned
        self.problems: list[Problem] = []
        self.constructor = yaml.constructor.SafeConstructor()
        self.nodes = 0
        self.marks = source.marks
        self.key_marks = source.key_marks

    def _problem(self, node: yaml.Node, rule_name: str, message: str) -> None:
        mark = node.start_mark
        self.problems.append(rule(rule_name).at(self.source.path, mark.line + 1, mark.column + 1, message))

    def _scalar(self, node: yaml.Node) -> Any:
        """The value of a scalar as YAML reads it, or its text with a problem when YAML cannot read it.

        PyYAML's resolvers raise on values such as ``2024-02-30`` (no such day),
        ``!!int nope`` or a 5,000-digit integer, and parse a long ``1:59:59:...``
        in quadratic time: those are refused here, where the contract can be fixed.
        """
        text = node.value if isinstance(node.value, str) else ""
        if len(text) > _MAX_SCALAR_DIGITS and node.tag in (_INT_TAG, _FLOAT_TAG):
            self._problem(node, "not-json-value", f"a number of {len(text)} characters; quote it to keep it a string")
            return text
        try:
            return self.constructor.construct_object(node)
        except (ValueError, TypeError, AttributeError, KeyError, OverflowError, yaml.YAMLError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if isinstance(exc, KeyError):  # !!bool maybe
                reason = f"not a {node.tag.rsplit(':', 1)[-1]} value"
            self._problem(node, "not-json-value", f"'{text[:80]}' cannot be read as YAML ({reason}); quote it")
            return text

    def build(self, node: yaml.Node, path: JsonPath) -> Any:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise _TooManyNodes
        start = node.start_mark
        position = (start.line + 1, start.column + 1)
        self.marks[path] = self.interned.setdefault(position, position)
        if len(path) > _MAX_DEPTH:
            self._problem(node, "yaml-too-deep", f"nesting deeper than {_MAX_DEPTH} levels")
            return None
        kind = type(node)
        if kind is yaml.ScalarNode:
            # A string is its text (what SafeConstructor returns): the constructor runs only for other tags.
            return node.value if node.tag == _STR_TAG else self._value(node)
        if kind is yaml.MappingNode:
            return self._mapping(node, path)
        if kind is yaml.SequenceNode:
            return [self._item(item, path, i) for i, item in enumerate(node.value)]
        return self._value(node)

    def _item(self, node: yaml.Node, path: JsonPath, index: int) -> Any:
        at = (*path, index)
        return self.build(node, self.interned.setdefault(at, at))

    def _mapping(self, node: yaml.Node, path: JsonPath) -> dict[str, Any]:
        out: dict[str, Any] = {}
        key_marks = self.key_marks
        for key_node, value_node in node.value:
            if type(key_node) is yaml.ScalarNode and key_node.tag == _STR_TAG:
                key = key_node.value
            else:
                key = self._scalar(key_node) if isinstance(key_node, yaml.ScalarNode) else None
                if not isinstance(key, str):
                    self._problem(
                        key_node,
                        "non-string-key",
                        f"mapping keys must be strings, not {type(key).__name__} ({key!r}); quote it",
                    )
                    continue
            if key in out:
                self._problem(key_node, "duplicate-key", f"duplicate key '{key}'")
            at = (*path, key)
            at = self.interned.setdefault(at, at)
            start = key_node.start_mark
            position = (start.line + 1, start.column + 1)
            key_marks[at] = self.interned.setdefault(position, position)
            out[key] = self.build(value_node, at)
        return out

    def _value(self, node: yaml.Node) -> Any:
        """A scalar that is not a string: its JSON value, or its text or None with a problem."""
        value = self._scalar(node)
        if isinstance(value, (datetime.date, datetime.datetime)):
            self._problem(
                node, "unquoted-date", f"'{node.value}' reads as a date in YAML; quote it to keep it a string"
            )
            return node.value
        if isinstance(value, float) and value != value:  # NaN is not JSON
            self._problem(node, "not-json-value", "NaN is not JSON")
            return None
        if isinstance(value, bytes):
            self._problem(node, "not-json-value", "binary YAML values are not JSON; use a base64 string")
            return None
        if isinstance(value, float) and value in (float("inf"), float("-inf")):
            self._problem(node, "not-json-value", "infinity is not JSON")
            return None
        return value


def _problem(display: str, rule_name: str, message: str, line: int = 1, column: int = 1) -> Problem:
    return rule(rule_name).at(display, line, column, message)


def _read(path: Path, within: Sequence[Path]) -> bytes | str:
    """The bytes of the regular file at ``path``, or why they are not read.

    A FIFO, a device or a socket is never read: opened without blocking, it is refused
    once ``fstat`` says what it is (reading a FIFO waits for a writer, ``/dev/zero`` never
    ends). A link may lead to a file inside ``within``, not outside: a contract from a
    pull request must not make CI read, and print in problems or generated files, a file
    of the machine it runs on. More than ``MAX_CONTRACT_BYTES`` is refused unread.
    """
    if within:
        try:
            target = path.resolve(strict=True)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a loop of links (Python < 3.13)
            return f"cannot read the file: {getattr(exc, 'strerror', None) or 'a loop of links'}"
        if not any(target.is_relative_to(folder.resolve()) for folder in within):
            return f"a link to {target}, outside the project; a contract must lie inside it"
    try:
        return read_regular(path, MAX_CONTRACT_BYTES)
    except OSError as exc:
        return f"cannot read the file: {exc.strerror}"
    except NotRegular as exc:
        return str(exc)
    except TooLarge:
        return f"larger than {MAX_CONTRACT_BYTES // (1024 * 1024)} MiB, the most a contract may hold"


def _too_deep(text: str) -> bool:
    """``too_deep(text)``, read only where the text could nest that deep: most contracts cannot.

    Nesting more than ``MAX_DEPTH`` levels takes more opening brackets than that, or a line
    longer than that (each level of indentation takes a character at least).
    """
    if text.count("[") + text.count("{") > MAX_DEPTH:
        return too_deep(text)
    long_lines = [line for line in text.split("\n") if len(line) > MAX_DEPTH]
    return bool(long_lines) and too_deep("\n".join(long_lines))


def _tab(text: str, line: int, column: int) -> tuple[int, int] | None:
    """Where a tab indents the line a YAML error points at (0-based mark), 1-based; None if none does."""
    lines = text.split("\n")
    if line >= len(lines):
        return None
    here = lines[line]
    if here[column : column + 1] == "\t":
        return line + 1, column + 1
    indent = here[: len(here) - len(here.lstrip(" \t"))]
    return (line + 1, indent.index("\t") + 1) if "\t" in indent else None


def load_source(
    path: Path, display: str, *, within: Sequence[Path] = (), interned: Interned | None = None
) -> tuple[Source | None, list[Problem]]:
    """Read and parse one contract file.

    Args:
        path: where the file is.
        display: the path to print in problems (relative to the project).
        within: the folders the file must lie in once its links are followed (the project and its
            contracts folder); none: anywhere.
        interned: a table the files of one load share, so that a path or a line and column
            found in many of them is one tuple: fewer objects to keep and for the garbage
            collector to visit (equal tuples are interchangeable).

    Returns:
        The source (None when the file cannot be read or parsed) and the problems found.
    """
    raw = _read(path, within)
    if isinstance(raw, str):
        return None, [_problem(display, "unreadable-file", raw)]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [_problem(display, "unreadable-file", f"the file is not UTF-8 (byte {exc.start})")]
    source = Source(display, text, hashlib.sha256(raw).hexdigest())
    if _too_deep(text):
        return None, [_problem(display, "yaml-too-deep", f"the YAML nests more than {MAX_DEPTH} levels deep")]
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        tab = _tab(text, mark.line, mark.column) if mark else None
        if tab is not None:
            return None, [_problem(display, "yaml-tab-indent", _TABS, *tab)]
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        detail = " ".join(part for part in (exc.context, exc.problem) if part)
        return None, [_problem(display, "yaml-syntax", f"YAML syntax error: {detail}", line, column)]
    except yaml.YAMLError as exc:
        return None, [_problem(display, "yaml-syntax", f"YAML error: {exc}")]
    if node is None:
        return None, [_problem(display, "empty-file", "the file is empty")]
    builder = _Builder(source, {} if interned is None else interned)
    try:
        source.data = builder.build(node, ())
    except yaml.YAMLError as exc:
        return None, [_problem(display, "yaml-syntax", f"YAML error: {exc}")]
    except RecursionError:
        return None, [_problem(display, "yaml-too-deep", "YAML nesting is too deep (or recursive anchors)")]
    except _TooManyNodes:
        return None, [
            _problem(display, "yaml-too-large", f"the YAML expands to more than {_MAX_NODES} nodes (aliases?)")
        ]
    return source, builder.problems
