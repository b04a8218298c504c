"""Read a contract's YAML into plain JSON data, remembering where every node stands."""

from __future__ import annotations

import datetime
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from toolproof.generator.problems import Problem
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

    def problem(self, path: JsonPath, message: str, *, key: bool = False, **kw: Any) -> Problem:
        """A problem located at ``path`` in this file."""
        line, column = self.where(path, key=key)
        return Problem(self.path, line, column, message, **kw)


class _Builder:
    def __init__(self, source: Source) -> None:
        self.source = source
        self.problems: list[Problem] = []
        self.constructor = yaml.constructor.SafeConstructor()
        self.nodes = 0

    def _problem(self, node: yaml.Node, message: str) -> None:
        mark = node.start_mark
        self.problems.append(Problem(self.source.path, mark.line + 1, mark.column + 1, message))

    def build(self, node: yaml.Node, path: JsonPath) -> Any:
        self.nodes += 1
        if self.nodes > _MAX_NODES:
            raise _TooManyNodes
        self.source.marks[path] = (node.start_mark.line + 1, node.start_mark.column + 1)
        if len(path) > _MAX_DEPTH:
            self._problem(node, f"nesting deeper than {_MAX_DEPTH} levels")
            return None
        if isinstance(node, yaml.MappingNode):
            out: dict[str, Any] = {}
            for key_node, value_node in node.value:
                key = self.constructor.construct_object(key_node)
                if not isinstance(key, str):
                    self._problem(
                        key_node, f"mapping keys must be strings, not {type(key).__name__} ({key!r}); quote it"
                    )
                    continue
                if key in out:
                    self._problem(key_node, f"duplicate key '{key}'")
                self.source.key_marks[(*path, key)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                out[key] = self.build(value_node, (*path, key))
            return out
        if isinstance(node, yaml.SequenceNode):
            return [self.build(item, (*path, i)) for i, item in enumerate(node.value)]
        value = self.constructor.construct_object(node)
        if isinstance(value, (datetime.date, datetime.datetime)):
            self._problem(node, f"'{node.value}' reads as a date in YAML; quote it to keep it a string")
            return node.value
        if isinstance(value, float) and value != value:  # NaN is not JSON
            self._problem(node, "NaN is not JSON")
            return None
        if isinstance(value, bytes):
            self._problem(node, "binary YAML values are not JSON; use a base64 string")
            return None
        if isinstance(value, float) and value in (float("inf"), float("-inf")):
            self._problem(node, "infinity is not JSON")
            return None
        return value


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
        return None, [Problem(display, 1, 1, f"cannot read the file: {exc.strerror}")]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [Problem(display, 1, 1, f"the file is not UTF-8 (byte {exc.start})")]
    source = Source(display, text, hashlib.sha256(raw).hexdigest())
    if too_deep(text):
        return None, [Problem(display, 1, 1, f"the YAML nests more than {MAX_DEPTH} levels deep")]
    try:
        node = yaml.compose(text, Loader=_Loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        detail = " ".join(part for part in (exc.context, exc.problem) if part)
        return None, [Problem(display, line, column, f"YAML syntax error: {detail}")]
    except yaml.YAMLError as exc:
        return None, [Problem(display, 1, 1, f"YAML error: {exc}")]
    if node is None:
        return None, [Problem(display, 1, 1, "the file is empty")]
    builder = _Builder(source)
    try:
        source.data = builder.build(node, ())
    except yaml.YAMLError as exc:
        return None, [Problem(display, 1, 1, f"YAML error: {exc}")]
    except RecursionError:
        return None, [Problem(display, 1, 1, "YAML nesting is too deep (or recursive anchors)")]
    except _TooManyNodes:
        return None, [Problem(display, 1, 1, f"the YAML expands to more than {_MAX_NODES} nodes (aliases?)")]
    return source, builder.problems
