"""Text templates for error messages and for what the model reads.

One small grammar serves both: literal text with ``{name}`` placeholders, and
``{{`` / ``}}`` for literal braces. ``{$}`` stands for the whole value being
rendered (a tool's output, say). A string value is inserted as it is; any other
value is inserted as JSON the way Python's ``json.dumps`` writes it (``, ``
and ``: `` between items, non-ASCII kept), so ``{size}`` renders ``42`` and
``{$}`` renders the output object as the seeds' Python tools print theirs
(seed 001's get_skill). ``{name|json}`` inserts any value as the same JSON,
strings quoted and escaped, for templates that build JSON text.

Templates are parsed once (at generation time, and again when the runtime
loads a contract) into literal and field parts, so rendering is a join.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Final

__all__ = ["WHOLE", "Template", "TemplateSyntaxError", "format_value"]

WHOLE: Final = "$"
"""The placeholder name that stands for the whole value being rendered."""

_FIELD = re.compile(r"([A-Za-z_][A-Za-z0-9_]*|\$)(\|json)?")
_as_json: Final = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)``, from one encoder built once (``json.dumps`` with options builds one
per call)."""


class TemplateSyntaxError(ValueError):
    """A template has an unbalanced brace or a placeholder that is not a name."""

    def __init__(self, template: str, detail: str) -> None:
        super().__init__(f"invalid template {template!r}: {detail}")
        self.template = template
        self.detail = detail


def format_value(value: object) -> str:
    """Render one placeholder value: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return _as_json(value)


class Template:
    """A parsed template; immutable and cheap to render."""

    __slots__ = ("_json", "_literals", "fields", "source")

    def __init__(self, source: str) -> None:
        literals: list[str] = []
        fields: list[str] = []
        as_json: list[bool] = []
        buf: list[str] = []
        i, n = 0, len(source)
        while i < n:
            ch = source[i]
            if ch == "{":
                if source.startswith("{{", i):
                    buf.append("{")
                    i += 2
                    continue
                end = source.find("}", i + 1)
                if end < 0:
                    raise TemplateSyntaxError(source, f"unclosed '{{' at offset {i}")
                name = source[i + 1 : end]
                match = _FIELD.fullmatch(name)
                if match is None:
                    raise TemplateSyntaxError(source, f"placeholder {{{name}}} is not a name")
                literals.append("".join(buf))
                buf.clear()
                fields.append(match[1])
                as_json.append(match[2] is not None)
                i = end + 1
            elif ch == "}":
                if source.startswith("}}", i):
                    buf.append("}")
                    i += 2
                    continue
                raise TemplateSyntaxError(source, f"single '}}' at offset {i}")
            else:
                buf.append(ch)
                i += 1
        literals.append("".join(buf))
        self.source = source
        self._literals: tuple[str, ...] = tuple(literals)
        self.fields: tuple[str, ...] = tuple(fields)
        """Placeholder names in order of appearance (repeats included)."""
        self._json: tuple[bool, ...] = tuple(as_json)

    def render(self, values: Mapping[str, object], whole: object = None) -> str:
        """Fill the placeholders from ``values``; ``{$}`` takes ``whole``.

        Raises:
            KeyError: a placeholder names a key that ``values`` lacks.
        """
        lits = self._literals
        fields = self.fields
        if not fields:
            return lits[0]
        if len(fields) == 1 and not self._json[0]:  # the usual "{text}" or "ERROR: {message}": no list, no zip
            name = fields[0]
            value = whole if name == WHOLE else values[name]
            return lits[0] + (value if type(value) is str else format_value(value)) + lits[1]
        out = [lits[0]]
        for name, lit, as_json in zip(self.fields, lits[1:], self._json, strict=True):
            value = whole if name == WHOLE else values[name]
            out.append(_as_json(value) if as_json else format_value(value))
            out.append(lit)
        return "".join(out)

    def pattern(self, known: Mapping[str, object] | None = None) -> re.Pattern[str]:
        """A regex that matches exactly the texts this template can render.

        Placeholders whose value is in ``known`` must match that value; the
        others match any text (the same text wherever the name repeats).
        """
        known = known or {}
        parts = [re.escape(self._literals[0])]
        seen: set[str] = set()
        for name, lit, as_json in zip(self.fields, self._literals[1:], self._json, strict=True):
            group = "whole" if name == WHOLE else name
            if name in known:
                text = _as_json(known[name]) if as_json else format_value(known[name])
                parts.append(re.escape(text))
            elif group in seen:
                parts.append(f"(?P={group})")
            else:
                seen.add(group)
                parts.append(f"(?P<{group}>.*?)")
            parts.append(re.escape(lit))
        return re.compile("".join(parts), re.DOTALL)

    def __repr__(self) -> str:
        return f"Template({self.source!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Template) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)
