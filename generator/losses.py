"""What an exporter had to change to satisfy a provider, recorded instead of done silently."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Loss", "pointer"]


def pointer(path: tuple[str | int, ...]) -> str:
    """A JSON pointer (RFC 6901) for a path of keys and indexes."""
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


@dataclass(frozen=True, slots=True, order=True)
class Loss:
    """One rewrite a provider forced: where, which keyword, what was done, and why it is safe (or not)."""

    format: str
    tool: str
    schema: str
    """``input`` or ``output``: which of the contract's schemas."""
    path: tuple[str | int, ...]
    keyword: str
    action: str
    detail: str

    def pointer(self) -> str:
        """Where in the schema, as a JSON pointer."""
        return pointer(self.path)

    def to_dict(self) -> dict[str, Any]:
        """The loss as JSON data for the report."""
        return {
            "tool": self.tool,
            "schema": self.schema,
            "pointer": pointer(self.path),
            "keyword": self.keyword,
            "action": self.action,
            "detail": self.detail,
        }
