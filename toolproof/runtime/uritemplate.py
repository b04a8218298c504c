"""RFC 6570 URI templates as resource contracts use them: expand parameters into a URI, match a URI back.

Two expression forms are supported, the two that can be matched back without
guessing: simple string expansion ``{name}`` (a value of unreserved characters
and percent-escapes: it never spans a ``/``, ``?`` or ``#``) and reserved
expansion ``{+name}`` (any characters, ``/`` included). Each expression names
one variable. Lint refuses a contract whose template uses any other form
(``{/name}``, ``{?a,b}``, explode and prefix modifiers).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final
from urllib.parse import quote, unquote

from toolproof.runtime.lazy import LazyPattern

__all__ = ["UriTemplate", "UriTemplateError"]

_EXPRESSION: Final = LazyPattern(r"\{([^{}]*)\}")
_VARIABLE: Final = LazyPattern(r"^(\+?)([A-Za-z0-9_]+)$")
_UNRESERVED: Final = "-._~"
_RESERVED: Final = ":/?#[]@!$&'()*+,;="


class UriTemplateError(ValueError):
    """A template uses a form this module does not match (lint: resource-uri-template)."""


class UriTemplate:
    """One parsed URI template.

    Args:
        text: the template (``skill://{name}/SKILL.md``); a text with no expression is a fixed URI.

    Raises:
        UriTemplateError: an expression is not ``{name}`` or ``{+name}``, a brace is unmatched, or a
            variable appears twice.
    """

    __slots__ = ("_pattern", "_reserved", "text", "variables")

    def __init__(self, text: str) -> None:
        self.text = text
        parts: list[str] = []
        variables: list[str] = []
        reserved: set[str] = set()
        end = 0
        for found in _EXPRESSION.finditer(text):
            literal = text[end : found.start()]
            if "{" in literal or "}" in literal:
                raise UriTemplateError(f"unmatched brace in {text!r}")
            parts.append(re.escape(literal))
            form = _VARIABLE.match(found.group(1))
            if form is None:
                raise UriTemplateError(
                    f"expression {found.group(0)!r} is not supported: write {{name}} or {{+name}}, one variable each"
                )
            plus, name = form.groups()
            if name in variables:
                raise UriTemplateError(f"variable {name!r} appears twice")
            variables.append(name)
            if plus:
                reserved.add(name)
            parts.append(f"(?P<{name}>.*?)" if plus else f"(?P<{name}>[^/?#]*?)")
            end = found.end()
        tail = text[end:]
        if "{" in tail or "}" in tail:
            raise UriTemplateError(f"unmatched brace in {text!r}")
        parts.append(re.escape(tail))
        self.variables: tuple[str, ...] = tuple(variables)
        self._reserved = frozenset(reserved)
        self._pattern = re.compile("".join(parts), re.DOTALL)

    @property
    def is_fixed(self) -> bool:
        """Whether the template has no expression (one fixed URI)."""
        return not self.variables

    def match(self, uri: str) -> dict[str, str] | None:
        """The variables of ``uri`` (percent-decoded), or None when it is not one of this template's URIs."""
        found = self._pattern.fullmatch(uri)
        if found is None:
            return None
        return {name: unquote(value) for name, value in found.groupdict().items()}

    def expand(self, values: Mapping[str, object]) -> str:
        """The URI of ``values`` (each turned to text and percent-encoded as its form asks)."""

        def one(found: re.Match[str]) -> str:
            plus, name = found.group(1)[:1] == "+", found.group(1).lstrip("+")
            value = values.get(name, "")
            text = value if isinstance(value, str) else str(value)
            return quote(text, safe=_UNRESERVED + (_RESERVED if plus else ""))

        return _EXPRESSION.sub(one, self.text)
