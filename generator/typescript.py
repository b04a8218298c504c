"""TypeScript declarations for each tool's input, output and error codes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from toolproof.generator.model import Contract
from toolproof.generator.naming import class_name
from toolproof.generator.refs import ref_name, resolve
from toolproof.generator.transforms import merged_all_of
from toolproof.runtime.errors import STANDARD_ERRORS

__all__ = ["typescript_declarations"]

_SCALARS = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "null": "null"}


def _key(name: str) -> str:
    return name if name.isidentifier() else json.dumps(name)


def _doc(text: str, indent: str) -> str:
    line = " ".join(str(text).split()).replace("*/", "*\\/")
    return f"{indent}/** {line} */\n" if line else ""


class _Types:
    """The TypeScript of one schema; ``taken`` holds the type names the file has given already."""

    def __init__(self, root: Mapping[str, Any], prefix: str, taken: set[str], whole: str) -> None:
        self.root = root
        self.prefix = prefix
        self.taken = taken
        self.named: dict[str, str] = {"#": whole}  # a reference to the whole schema names its type
        self.blocks: list[str] = []

    def of(self, schema: Any, indent: str = "") -> str:
        if schema is False:
            return "never"
        if schema is True or not isinstance(schema, Mapping) or not schema:
            return "unknown"
        if isinstance(schema.get("$ref"), str):
            ref = schema["$ref"]
            found, target = resolve(self.root, ref)
            if not found:
                return "unknown"
            key = "#" if target is self.root else ref
            if key not in self.named:
                name = class_name(self.prefix, ref_name(ref)) or self.prefix
                while name in self.taken:
                    name += "_"
                self.taken.add(name)
                self.named[key] = name
                self.blocks.append(f"export type {name} = {self.of(target)};\n")
            return self.named[key]
        if isinstance(schema.get("allOf"), list):
            return self.all_of(schema, indent)
        if "const" in schema:
            return json.dumps(schema["const"], ensure_ascii=False)
        if "enum" in schema:
            return " | ".join(json.dumps(v, ensure_ascii=False) for v in schema["enum"])
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return " | ".join(dict.fromkeys(self.of(sub, indent) for sub in schema[key]))
        kind = schema.get("type")
        if isinstance(kind, list):
            return " | ".join(self.of({**schema, "type": k}, indent) for k in kind)
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            item = self.of(schema.get("items", True), indent)
            return f"Array<{item}>"
        if kind == "object" or "properties" in schema:
            props: Mapping[str, Any] = schema.get("properties", {})
            extra = schema.get("additionalProperties", True)
            if not props:
                value = "unknown" if extra in (True, {}) else ("never" if extra is False else self.of(extra, indent))
                return f"Record<string, {value}>"
            required = set(schema.get("required", ()))
            inner = indent + "  "
            lines = []
            for name, sub in props.items():
                doc = _doc(sub.get("description", ""), inner) if isinstance(sub, Mapping) else ""
                optional = "" if name in required else "?"
                lines.append(f"{doc}{inner}{_key(name)}{optional}: {self.of(sub, inner)};\n")
            return "{\n" + "".join(lines) + indent + "}"
        return "unknown"

    def all_of(self, schema: Mapping[str, Any], indent: str) -> str:
        """An ``allOf``: one type when its parts merge into one schema (``merged_all_of``), else their intersection."""
        merged = merged_all_of(schema)
        if merged is not None:
            return self.of(merged, indent)
        rest = {k: v for k, v in schema.items() if k != "allOf"}
        types = [self.of(rest, indent), *(self.of(part, indent) for part in schema["allOf"])]
        known = [t for t in dict.fromkeys(types) if t != "unknown"]
        return " & ".join(f"({t})" if " | " in t else t for t in known) or "unknown"


def typescript_declarations(c: Contract, input_schema: Mapping[str, Any]) -> str:
    """Declarations of ``<Tool>Input``, ``<Tool>Output``, ``<Tool>ErrorCode`` and ``<Tool>Error``."""
    prefix = c.prefix
    taken = {f"{prefix}{name}" for name in ("Name", "Input", "Output", "ErrorCode", "Error")}
    types = _Types(input_schema, prefix, taken, f"{prefix}Input")
    input_type = types.of(input_schema)
    out_types = _Types(c.output_schema, prefix, taken, f"{prefix}Output")
    output_type = out_types.of(c.output_schema)
    codes = [e.code for e in c.errors] + list(STANDARD_ERRORS)
    parts = [
        f"/** Tool `{c.name}` {c.version}: {' '.join(c.title.split())} */\n",
        f"export declare const {prefix}Name: {json.dumps(c.name)};\n\n",
        *types.blocks,
        *out_types.blocks,
        _doc(f"Arguments of `{c.name}`.", ""),
        f"export type {prefix}Input = {input_type};\n\n",
        _doc(f"Output of `{c.name}`.", ""),
        f"export type {prefix}Output = {output_type};\n\n",
        _doc("Every code a call can fail with: the catalogue, then the standard codes.", ""),
        f"export type {prefix}ErrorCode =\n"
        + "".join(f"  | {json.dumps(code)}\n" for code in codes).rstrip("\n")
        + ";\n\n",
        f"export interface {prefix}Error {{\n  code: {prefix}ErrorCode;\n  message: string;\n  hint?: string;\n}}\n",
    ]
    return "".join(parts)
