"""TypeScript of each tool (declarations, the module a TypeScript project runs) and the runtime it imports."""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from toolproof.generator.model import Contract, shared_class
from toolproof.generator.naming import class_name
from toolproof.generator.refs import ref_name, resolve
from toolproof.generator.transforms import merged_all_of
from toolproof.runtime.errors import inherited_errors
from toolproof.runtime.template import Template, TemplateSyntaxError

__all__ = [
    "PROVIDER_PACKAGES",
    "PROVIDER_TYPES",
    "RUNTIME_SOURCES",
    "RuntimeSource",
    "provider_package",
    "runtime_package",
    "runtime_sources",
    "shared_declarations",
    "tsdoc",
    "tsstr",
    "typescript_declarations",
    "typescript_literal",
    "typescript_module",
]

PROVIDER_TYPES: Final = {
    "openai": ("ChatCompletionTool", "openai/resources/chat/completions", "OpenAI Chat Completions"),
    "openai-responses": ("FunctionTool", "openai/resources/responses/responses", "OpenAI Responses"),
    "anthropic": ("Tool", "@anthropic-ai/sdk/resources/messages", "Anthropic Messages"),
}
"""Per exported provider format: the official SDK's type of one tool definition, its module, and the API's name.

Gen writes ``typescript/providers/<format>.ts`` for each one a TypeScript project exports; the project installs the
SDK (``PROVIDER_PACKAGES``) to compile it."""

PROVIDER_PACKAGES: Final = {"openai": "openai@7.55.0", "@anthropic-ai/sdk": "@anthropic-ai/sdk@1.10.0"}
"""Each SDK package a provider module imports, with the version toolproof's tests compile against (the Makefile)."""


def provider_package(fmt: str) -> str:
    """The npm package whose types ``typescript/providers/<fmt>.ts`` imports (``openai``, ``@anthropic-ai/sdk``)."""
    module = PROVIDER_TYPES[fmt][1]
    parts = module.split("/")
    return "/".join(parts[:2]) if module.startswith("@") else parts[0]


RUNTIME_SOURCES: Final = "toolproof/generator/typescript_runtime"
"""Where the TypeScript runtime's sources are in toolproof's tree (package data, shipped in the wheel)."""


@dataclass(frozen=True, slots=True)
class RuntimeSource:
    """One file of the TypeScript runtime, as gen copies it into ``typescript/runtime/``."""

    name: str
    """Its file name (``tool.ts``)."""
    text: str
    sha256: str
    """Of its text, named in the stamped copy's header."""

    @property
    def source(self) -> str:
        """Where it comes from, as the stamped copy's header names it."""
        return f"{RUNTIME_SOURCES}/{self.name}"


@functools.cache
def runtime_sources() -> tuple[RuntimeSource, ...]:
    """The TypeScript runtime the generated modules import by relative path, by file name.

    The project needs no npm package of toolproof's: gen writes these into the generated folder.
    """
    folder = resources.files("toolproof.generator").joinpath("typescript_runtime")
    texts = {f.name: f.read_text(encoding="utf-8") for f in folder.iterdir() if f.name.endswith(".ts")}
    return tuple(
        RuntimeSource(name, text, hashlib.sha256(text.encode("utf-8")).hexdigest())
        for name, text in sorted(texts.items())
    )


RUNTIME_PACKAGE: Final = "@toolproof/runtime"
"""The npm name of the runtime as a package of its own (``runtime_package``)."""


def runtime_package(version: str | None = None) -> dict[str, str]:
    """The runtime as an npm package's source folder, by relative path: ``package.json``, ``tsconfig.json``, ``src/``.

    ``npm install && npx tsc && npm pack`` in it makes a tarball that a hand-written TypeScript server installs
    (``npm install ./toolproof-runtime-<version>.tgz``) and imports as ``@toolproof/runtime``: the same sources gen
    writes into a project's ``generated/typescript/runtime/``, compiled to ``build/`` with their declarations.
    """
    from toolproof import __version__

    manifest = {
        "name": RUNTIME_PACKAGE,
        "version": version or __version__,
        "description": "Run toolproof tools as their contracts say: render results and errors, validate, replay.",
        "license": "MIT",
        "type": "module",
        "main": "build/index.js",
        "types": "build/index.d.ts",
        "exports": {".": {"types": "./build/index.d.ts", "import": "./build/index.js"}},
        "files": ["build", "src"],
        "scripts": {"build": "tsc -p tsconfig.json", "prepack": "tsc -p tsconfig.json"},
        "dependencies": {"ajv": RUNTIME_AJV},
        "devDependencies": {"typescript": "5.9.3", "@types/node": "20.19.9"},
    }
    config = {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "exactOptionalPropertyTypes": True,
            "noUncheckedIndexedAccess": True,
            "declaration": True,
            "rootDir": "src",
            "outDir": "build",
            "skipLibCheck": True,
            "types": ["node"],
        },
        "include": ["src"],
    }
    files = {
        "package.json": json.dumps(manifest, indent=2) + "\n",
        "tsconfig.json": json.dumps(config, indent=2) + "\n",
    }
    files |= {f"src/{source.name}": source.text for source in runtime_sources()}
    return files


RUNTIME_AJV: Final = "8.20.0"
"""The ajv the runtime validates with, as ``toolproof init --lang typescript`` pins it."""


_SCALARS = {"string": "string", "integer": "number", "number": "number", "boolean": "boolean", "null": "null"}


_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
"""A key TypeScript takes bare; Python's ``isidentifier`` admits letters some TypeScript versions do not."""


def tsstr(value: object) -> str:
    """A TypeScript literal of a JSON value; U+2028 and U+2029 escaped, which older parsers take for line ends."""
    return json.dumps(value, ensure_ascii=False).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def tsdoc(text: object) -> str:
    """Contract text as the body of one ``/** ... */`` line: one line of printable text that cannot end the comment.

    Whitespace (newlines, U+2028) is collapsed, other control characters are written as ``\\uXXXX``, and
    ``*/`` is broken as ``*\\/`` (TSDoc's escape; any ``*`` followed by ``/`` ends the comment).
    """
    line = " ".join(str(text).split())
    line = "".join(ch if ch.isprintable() else f"\\u{ord(ch):04x}" for ch in line)
    return line.replace("*/", "*\\/")


def _key(name: str) -> str:
    return name if _IDENTIFIER.fullmatch(name) else tsstr(name)


def _doc(text: str, indent: str) -> str:
    line = tsdoc(text)
    return f"{indent}/** {line} */\n" if line else ""


class _Types:
    """The TypeScript of one schema; ``taken`` holds the type names the file has given already."""

    def __init__(
        self, root: Mapping[str, Any], prefix: str, taken: set[str], whole: str, shared: Mapping[str, str] = {}
    ) -> None:
        self.root = root
        self.prefix = prefix
        self.taken = taken
        self.named: dict[str, str] = {"#": whole}  # a reference to the whole schema names its type
        self.named |= {f"#/$defs/{name}": ts for name, ts in shared.items()}  # one type each, in defs.d.ts
        self.shared = frozenset(shared.values())
        self.imported: set[str] = set()
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
            if self.named.get(key) in self.shared:
                self.imported.add(self.named[key])
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
            return tsstr(schema["const"])
        if "enum" in schema:
            return " | ".join(tsstr(v) for v in schema["enum"])
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


_ALWAYS: Final = frozenset({"code", "message"})
"""The values every error has; ``hint`` may be missing, and so may an argument or a param."""


def _error_output(c: Contract, indent: str) -> str:
    """The type of ``render.error_output``'s object: each key as its entry makes it (``runtime.spec.ErrorOutput``).

    A literal is its own JSON type; ``"{code}"`` is the error code, ``"{message}"`` and any other
    text a string; exactly one other placeholder copies a value the caller or the handler chose (a
    refused call carries what was sent), so it is ``unknown``. A key that may lack its value is optional.
    """
    lines = []
    for key, entry in (c.error_output or {}).items():
        if not isinstance(entry, str):
            kind, optional = tsstr(entry), False
        else:
            try:
                fields = set(Template(entry).fields)
            except TemplateSyntaxError:  # lint refuses it first (TP106)
                fields = set()
            copied = {"{" + name + "}": name for name in fields}.get(entry)  # exactly one placeholder
            kinds = {"code": f"{c.prefix}ErrorCode", "message": "string", None: "string"}
            kind = kinds.get(copied, "unknown")
            optional = not fields <= _ALWAYS
        lines.append(f"{indent}  {_key(key)}{'?' if optional else ''}: {kind};\n")
    return "{\n" + "".join(lines) + indent + "}"


def _error(c: Contract) -> str:
    """The ``<Tool>Error`` interface: code, message and hint, and the contract's error object if it declares one."""
    prefix = c.prefix
    output = ""
    if c.error_output:
        doc = _doc("The error as render.error_output builds it; absent when a value has no JSON form.", "  ")
        output = f"{doc}  output?: {_error_output(c, '  ')};\n"
    fields = f"  code: {prefix}ErrorCode;\n  message: string;\n  hint?: string;\n{output}"
    return f"export interface {prefix}Error {{\n{fields}}}\n"


def typescript_declarations(
    c: Contract, input_schema: Mapping[str, Any], *, import_shared: bool = True, reserved: Sequence[str] = ()
) -> str:
    """Declarations of ``<Tool>Input``, ``<Tool>Output``, ``<Tool>ErrorCode`` and ``<Tool>Error``.

    The types of shared definitions are imported from ``./defs`` (``shared_declarations``), or, without
    ``import_shared``, named as declared beside them in one file. A named schema never takes a name the file
    declares itself, nor one of ``reserved`` (suffixes of ``<Tool>`` the caller declares beside them).
    """
    prefix = c.prefix
    shared = {name: shared_class(name) for name in c.shared}
    names = ("Name", "Input", "Output", "ErrorCode", "Error", *reserved)
    taken = {f"{prefix}{name}" for name in names} | set(shared.values())
    types = _Types(input_schema, prefix, taken, f"{prefix}Input", shared)
    input_type = types.of(input_schema)
    out_types = _Types(c.output_schema, prefix, taken, f"{prefix}Output", shared)
    output_type = out_types.of(c.output_schema)
    codes = [e.code for e in c.errors] + list(inherited_errors(bool(c.asks)))
    imported = sorted(types.imported | out_types.imported)
    parts = [
        f'import type {{ {", ".join(imported)} }} from "./defs";\n\n' if imported and import_shared else "",
        f"/** Tool `{tsdoc(c.name)}` {tsdoc(c.version)}: {tsdoc(c.title)} */\n",
        f"export declare const {prefix}Name: {tsstr(c.name)};\n\n",
        *types.blocks,
        *out_types.blocks,
        _doc(f"Arguments of `{c.name}`.", ""),
        f"export type {prefix}Input = {input_type};\n\n",
        _doc(f"Output of `{c.name}`.", ""),
        f"export type {prefix}Output = {output_type};\n\n",
        _doc("Every code a call can fail with: the catalogue, then the standard codes.", ""),
        f"export type {prefix}ErrorCode =\n" + "".join(f"  | {tsstr(code)}\n" for code in codes).rstrip("\n") + ";\n\n",
        _error(c),
    ]
    return "".join(parts)


def shared_declarations(contracts: Sequence[Contract]) -> str | None:
    """``defs.d.ts``: one type per shared definition the contracts use, which each tool's declarations import."""
    bodies: dict[str, Any] = {}
    for c in contracts:
        bodies |= c.shared_schemas
    if not bodies:
        return None
    shared = {name: shared_class(name) for name in bodies}
    types = _Types({"$defs": bodies}, "", set(shared.values()), "", shared)
    parts = []
    for name, body in bodies.items():
        doc = body.get("description", "") if isinstance(body, Mapping) else ""
        parts.append(f"{_doc(doc, '')}export type {shared[name]} = {types.of(body)};\n")
    return "".join([*types.blocks, *parts])


_PARAM_TYPES: Final = {"str": "string", "int": "number", "float": "number", "bool": "boolean"}
"""An error factory's parameter, from the Python annotation the model gives it; anything else is ``unknown``."""


def typescript_literal(value: object, indent: str = "") -> str:
    """A JSON value as a TypeScript literal over several lines, continued at ``indent``."""
    text = json.dumps(value, ensure_ascii=False, indent=2).replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text.replace("\n", "\n" + indent)


def typescript_module(c: Contract, definition: Mapping[str, Any], nullable: Sequence[str] = ()) -> dict[str, Any]:
    """What ``tool.ts.jinja`` fills: the module of one tool for TypeScript projects.

    Its types (``typescript_declarations``, the name constant a real value), the MCP ``definition``
    as the exports list it, the contract data the runtime's ``Contract`` runs (``runtime_sources``), and a typed
    factory per catalogue entry. Shared definitions are declared in the module itself. ``nullable``: the
    pointers into the input schema that OpenAI strict mode made nullable (the loss list), whose nulls the
    runtime drops.
    """
    module_names = ("Definition", "Contract", "Handler", "Errors")  # what tool.ts.jinja declares beside the types
    declarations = typescript_declarations(c, c.input_schema, import_shared=False, reserved=module_names)
    declared = f"export declare const {c.prefix}Name: {tsstr(c.name)};"
    declarations = declarations.replace(declared, f"export const {c.prefix}Name = {tsstr(c.name)};")
    shared = shared_declarations([c]) if c.shared else None
    data = c.data()
    errors = {
        code: {k: v for k, v in entry.items() if k in ("message", "hint")} for code, entry in data["errors"].items()
    }
    factories = [
        {
            "key": _key(e.code),
            "code": tsstr(e.code),
            "params": "{ "
            + " ".join(f"{_key(p.name)}: {_PARAM_TYPES.get(p.annotation, 'unknown')};" for p in e.params)
            + " }"
            if e.params
            else "Record<string, never>",
        }
        for e in c.errors
    ]
    return {
        "declarations": ((shared or "") + declarations).rstrip("\n"),
        "definition": typescript_literal(definition),
        "catalogue_codes": " | ".join(tsstr(e.code) for e in c.errors) or "never",
        "input": typescript_literal(data["input"], "  "),
        "output": typescript_literal(data["output"], "  "),
        "errors": typescript_literal(errors, "  "),
        "render": typescript_literal(data["render"], "  "),
        "nullable": tsstr(list(nullable)),
        "factories": factories,
    }
