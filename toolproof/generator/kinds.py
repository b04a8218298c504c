"""The three kinds of contract: tools, resources and prompts, and what a resource or prompt implies.

A contract says its kind with ``kind:`` (``tool`` when absent). A resource or
prompt contract is a tool contract with parts the kind fixes, so every check,
the model, the stubs and the generated tests treat it as they treat a tool:

- its ``output`` is implied: a resource's handler returns ``{text}`` (a textual
  MIME type) or ``{blob}`` (base64, any other), a prompt's returns
  ``{messages: [{role, content}], description?}`` with MCP content blocks;
- its tool ``annotations`` are implied (read-only, non-destructive,
  idempotent, closed-world): reading a resource or getting a prompt changes
  nothing, and the generated properties test holds the handler to it;
- a resource's ``input`` is the schema of its URI template's parameters, a
  prompt's that of its arguments; either may be left out when there are none.

``implied`` writes those parts into a checked YAML mapping; the meta-schema
refuses a contract that writes them itself.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "IMPLIED_ANNOTATIONS",
    "IMPLIED_KEYS",
    "KINDS",
    "PROMPT_OUTPUT",
    "implied",
    "is_textual",
    "kind_of",
    "resource_output",
]

KINDS: Final = ("tool", "resource", "prompt")

IMPLIED_ANNOTATIONS: Final = {"read_only": True, "destructive": False, "idempotent": True, "open_world": False}
"""A resource read or a prompt get changes nothing; the properties test checks the handler keeps to it."""

IMPLIED_KEYS: Final = ("output", "annotations", "render", "skill_gate", "attaches", "same_answer")
"""What a resource or prompt contract may not write: its kind implies it, or it has no such thing."""

_TEXT_SUFFIXES: Final = ("+json", "+xml", "+yaml")
_TEXT_TYPES: Final = frozenset(
    {
        "application/json",
        "application/xml",
        "application/yaml",
        "application/x-yaml",
        "application/javascript",
        "application/toml",
        "application/sql",
    }
)

_CONTENT: Final = {
    "description": "An MCP content block: text {type, text}, image or audio {type, data, mimeType}, "
    "resource {type, resource: {uri, mimeType?, text | blob}} or resource_link {type, uri, name}.",
    "type": "object",
    "required": ["type"],
    "properties": {
        "type": {"enum": ["text", "image", "audio", "resource", "resource_link"]},
        "text": {"type": "string"},
        "data": {"type": "string"},
        "mimeType": {"type": "string"},
        "resource": {"type": "object"},
        "uri": {"type": "string"},
        "name": {"type": "string"},
    },
}

PROMPT_OUTPUT: Final = {
    "type": "object",
    "required": ["messages"],
    "additionalProperties": False,
    "properties": {
        "description": {"type": "string", "description": "What this rendering of the prompt is for."},
        "messages": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["role", "content"],
                "additionalProperties": False,
                "properties": {"role": {"enum": ["user", "assistant"]}, "content": _CONTENT},
            },
        },
    },
}
"""What a prompt's handler returns: MCP ``prompts/get``'s result."""


def kind_of(data: Mapping[str, Any]) -> str:
    """The kind a contract mapping says (``tool`` when it says none)."""
    kind = data.get("kind", "tool")
    return kind if isinstance(kind, str) else "tool"


def is_textual(mime_type: str) -> bool:
    """Whether content of ``mime_type`` is read as text (``{text}``) rather than base64 (``{blob}``)."""
    essence = mime_type.split(";", 1)[0].strip().lower()
    return essence.startswith("text/") or essence in _TEXT_TYPES or essence.endswith(_TEXT_SUFFIXES)


def resource_output(mime_type: str) -> dict[str, Any]:
    """What a resource's handler returns: its content, as text or as base64."""
    if is_textual(mime_type):
        field = {"type": "string", "description": "The resource's content, as text."}
        key = "text"
    else:
        field = {"type": "string", "contentEncoding": "base64", "description": "The resource's bytes, base64."}
        key = "blob"
    return {"type": "object", "required": [key], "additionalProperties": False, "properties": {key: field}}


def implied(data: dict[str, Any]) -> None:
    """Write into a contract mapping that passed the meta-schema what its kind implies (idempotent; a tool: nothing)."""
    kind = kind_of(data)
    if kind == "tool":
        return
    data.setdefault("annotations", dict(IMPLIED_ANNOTATIONS))
    data.setdefault("input", {"type": "object", "properties": {}, "additionalProperties": False})  # no parameters
    if kind == "resource":
        data.setdefault("output", resource_output(data["resource"]["mime_type"]))
    else:
        data.setdefault("output", PROMPT_OUTPUT)
