"""Read a contract's YAML into plain JSON data, remembering where every node stands."""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from toolproof.generator.problems import Level, Problem, rule
from toolproof.runtime.skills.yamlguard import MAX_DEPTH, too_deep

__all__ = ["JsonPath", "Source", "load_source"]

JsonPath = tuple[str | int, ...]

try:
    _Loader: type[yaml.SafeLoader] = yaml.CSafeLoader  # type: ignore[assignment,unused-ignore]
except AttributeError:  # PyYAML without libyaml
    _Loader = yaml.SafeLoader

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
        """A problem the rule called ``rule_name`` found at ``path`` (its key when ``key``) in this file."""
        line, column = self.where(path, key=key)
        return rule(rule_name).at(self.path, line, column, message, level)

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
    def __init__(self, source: Source) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.constructor = yaml.constructor.SafeConstructor()
        self.nodes = 0

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
        except (ValueError, TypeError, AttributeError, OverflowError, yaml.YAMLError) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            self._problem(node, "not-json-value", f"'{text[:80]}' cannot be read as YAML ({reason}); quote it")
            return text

    def build(self, node: yaml.Node, path: JsonPath) -> Any:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise _TooManyNodes
        self.source.marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if len(path) > _MAX_DEPTH:
            self._problem(node, "yaml-too-deep", f"nesting deeper than {_MAX_DEPTH} levels")
            return None
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
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
                self.source.key_marks[(*path, key)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                out[key] = self.build(value_node, (*path, key))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
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


def load_source(path: Path, display: str) -> tuple[Source | None, list[Problem]]:
    """Read and parse one contract file.

    Args:
        path: where the file is.
        display: the path to print in problems (relative to the project).

    Returns:
        The source (None when the file cannot be read or parsed) and the problems found.
    """
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return None, [_problem(display, "unreadable-file", f"cannot read the file: {exc.strerror}")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [_problem(display, "unreadable-file", f"the file is not UTF-8 (byte {exc.start})")]
    source = Source(display, text, hashlib.sha256(raw).hexdigest())
    if too_deep(text):
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
    builder = _Builder(source)
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
