"""A tool's Markdown page: its definition, parameters, errors and examples."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any, Final

from toolproof.generator.environment import environment
from toolproof.generator.jsontext import dump_json
from toolproof.generator.layout import Layout
from toolproof.generator.markdown import md_code, md_text
from toolproof.generator.model import Contract

__all__ = ["render_docs"]


def _fence(text: str) -> str:
    """The backticks that open and close a code block of ``text``: more than any run of them inside it."""
    return "`" * max([3, *(len(run) + 1 for run in re.findall(r"`+", text))])


def _schema_type(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "any"
    if "enum" in schema:
        return " \\| ".join(md_code(json.dumps(v, ensure_ascii=False), table=True) for v in schema["enum"])
    if "const" in schema:
        return md_code(json.dumps(schema["const"], ensure_ascii=False), table=True)
    kind = schema.get("type", "any")
    return " \\| ".join(map(md_text, kind)) if isinstance(kind, list) else md_text(kind)


def _fields(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    required = set(schema.get("required", ()))
    return [
        {
            "name": name,
            "type": _schema_type(sub),
            "required": name in required,
            "description": md_text(sub.get("description", "")) if isinstance(sub, Mapping) else "",
        }
        for name, sub in schema.get("properties", {}).items()
    ]


def _pretty(value: Any) -> str:
    return dump_json(value).removesuffix("\n")


_GATE_TOKENS: Final = {
    "valid": "the session's current {arg}",
    "other_session": "a {arg} handed to another session",
    "stale": "a {arg} from before {document} changed",
}
"""What each ``skill_token`` of an example puts into its input, as the docs say it."""


def _gate_token(c: Contract, example: Mapping[str, Any]) -> str | None:
    """The skill token an example's conformance test puts into its input, in words; None when it puts none."""
    said = _GATE_TOKENS.get(example.get("skill_token", ""))
    if said is None or c.skill_gate is None:
        return None
    return said.format(arg=md_code(c.skill_gate["token_argument"]), document=md_code(c.skill_gate["document"]))


def render_docs(c: Contract, definition: Any, layout: Layout | None = None) -> str:
    """A tool's Markdown page: its definition, parameters, errors and examples.

    Each example shows what it expects as the contract says it: an exact ``output``, or only the fields
    ``output_includes`` or ``output_has`` name (which are not a whole output), the exact text or the parts
    it contains, or an error.

    Args:
        c: the contract.
        definition: its exported tool definition, shown as is (``make gen`` passes the OpenAI one).
        layout: the command the page's header names.

    Returns:
        The page's Markdown text.
    """
    examples = []
    for ex in c.examples:
        expect = ex["expect"]
        examples.append(
            {
                "name": ex["name"],
                "files": [md_code(p) for p in ex.get("given", {}).get("files", {})],
                "token": _gate_token(c, ex),
                "input": _pretty(ex["input"]),
                "error": expect.get("error"),
                "message": expect.get("message"),
                "output": _pretty(expect["output"]) if "output" in expect else None,
                "output_includes": _pretty(expect["output_includes"]) if "output_includes" in expect else None,
                "output_has": [md_code(name) for name in expect.get("output_has", ())],
                "text": expect.get("text"),
                "fence": _fence(str(expect.get("text", ""))),
                "text_contains": _pretty(expect["text_contains"]) if "text_contains" in expect else None,
            }
        )
    errors = [{"code": e.code, "message": md_text(e.message), "hint": md_text(e.hint or "")} for e in c.errors]
    return (
        environment()
        .get_template("tool.md.jinja")
        .render(
            c=c,
            layout=layout or Layout(),
            definition=_pretty(definition),
            inputs=_fields(c.input_schema),
            outputs=_fields(c.output_schema),
            errors=errors,
            examples=examples,
        )
    )
