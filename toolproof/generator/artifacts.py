"""Language-neutral artifacts: JSON Schemas per tool and replayable test vectors."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from toolproof.generator.model import Contract
from toolproof.generator.published import CONTRACT_FORMAT_ID, FORMAT_VERSION
from toolproof.generator.transforms import lifted_defs
from toolproof.runtime.errors import inherited_errors

__all__ = ["VECTORS_FORMAT", "json_schemas", "vectors"]

VECTORS_FORMAT: Final = "toolproof-vectors/1"
_DIALECT: Final = "https://json-schema.org/draft/2020-12/schema"

CONVENTIONS: Final = {
    "folders": (
        "Run each example in a fresh, empty test folder. Lay down given.files under it (paths are relative to it), "
        "create skills/ and workspace/ (and every folder named in workspaces), and allow only those folders: "
        "workspaces (default [workspace]) as workspace roots, skills/ as the skills folder. Files beside them must "
        "stay out of reach."
    ),
    "fixtures": (
        "A string is UTF-8 text. An object has one kind: text, base64, repeat+times (the string repeated), symlink "
        "(the target, written as is), hardlink (another name for a file laid down before it, given by its path in "
        "the test folder), fifo, dir, or delete (remove what is there); mode (octal string) is applied last, and "
        "must hold even for a privileged process."
    ),
    "after_start": "Apply given.after_start likewise once the host has started (found its skills), before the call.",
    "test_dir": "Replace ${TEST_DIR} in every string of input and expect with the test folder's absolute path.",
    "call": "Send input as the tool's arguments (a JSON object) in session (default 'conformance').",
    "skill_token": (
        "For a gated tool, put a token in the input's token field: valid = first 32 hex digits of "
        "HMAC-SHA256(key='toolproof-conformance', msg=session + '\\u0000' + SHA-256(SKILL.md bytes)); other_session = "
        "the same for session + '-other'; stale = the same with 32 zero bytes for the SHA-256."
    ),
    "expect": (
        "output: the structured result equals it; output_includes: those fields equal; output_has: those fields exist; "
        "text: the text the model reads equals it; text_contains: each part occurs in it; error: the error code; "
        "message: the exact error message; error_output: the error's structured object equals it."
    ),
}


def _error_schema(c: Contract) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "code": {"enum": [e.code for e in c.errors] + list(inherited_errors(bool(c.asks)))},
            "message": {"type": "string"},
            "hint": {"type": "string"},
            "output": {"type": "object", "description": "The error as the contract's render.error_output builds it."},
        },
        "required": ["code", "message"],
        "additionalProperties": False,
    }


def json_schemas(c: Contract, input_schema: Mapping[str, Any]) -> dict[str, Any]:
    """One document with the tool's input, output and error schemas under ``$defs``.

    Definitions of the input and output move beside them (``InputAddress``, ``OutputMoney``), so
    every ``$ref`` resolves within the document, whichever of its schemas a reader starts from.
    """
    moved: dict[str, Any] = {}
    own = {
        "Input": lifted_defs(input_schema, "Input", moved),
        "Output": lifted_defs(c.output_schema, "Output", moved),
        "Error": _error_schema(c),
    }
    return {
        "$schema": _DIALECT,
        "$id": f"urn:toolproof:{c.name}:{c.version}",
        "title": c.title,
        "description": c.description,
        "$defs": {**own, **moved},
    }


def vectors(c: Contract) -> dict[str, Any]:
    """The contract's examples, fixtures included, with the rules to replay them anywhere.

    ``contract`` names the published contract document (``published.published_contract``) the
    examples come from: its format and version, and the command that prints it.
    """
    return {
        "format": VECTORS_FORMAT,
        "tool": c.name,
        "version": c.version,
        "contract": {
            "$schema": CONTRACT_FORMAT_ID,
            "format_version": FORMAT_VERSION,
            "export": f"toolproof export --format contract --tool {c.name}",
        },
        "conventions": dict(CONVENTIONS),
        "skill_gate": dict(c.skill_gate) if c.skill_gate else None,
        "examples": list(c.examples),
    }
