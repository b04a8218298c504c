"""The typed, frozen model between checked YAML and the templates.

Templates and exporters see only these classes; names are cleaned here, once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from toolproof.generator.kinds import implied, kind_of
from toolproof.generator.naming import class_name, is_identifier, module_name, python_name
from toolproof.generator.pytypes import RESERVED_NAMES, TypeBuilder, TypedDictDef, forward_reference
from toolproof.generator.shared import Definition, schema_paths
from toolproof.generator.source import Source
from toolproof.runtime.errors import http_status
from toolproof.runtime.questions import requested_schema
from toolproof.runtime.registry import default_handler_ref
from toolproof.runtime.template import Template

__all__ = [
    *("DEFAULT_ENUM_NOTE", "DEFAULT_RENDER", "Alias", "Contract", "ErrorModel", "HostEnums", "Param"),
    *("SharedTypes", "Stamp", "build_contract", "build_shared_types", "shared_class"),
]

_WORD: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")

DEFAULT_RENDER = {"result": "{$}", "error": "ERROR: {message}"}
"""What the model reads when a contract says nothing: the output as JSON; the error message."""


@dataclass(frozen=True, slots=True)
class Param:
    """A keyword parameter of an error factory."""

    name: str
    """The placeholder's name: the key of the error's params."""
    annotation: str
    arg: str
    """The factory's keyword for it: ``name``, or ``name_`` where that is a Python keyword (``from_``)
    or a name the factory's body uses (``params``)."""


@dataclass(frozen=True, slots=True)
class ErrorModel:
    """A catalogue entry with the parameters its factory takes."""

    code: str
    function: str
    message: str
    hint: str | None
    params: tuple[Param, ...]
    status: int
    param_schemas: Mapping[str, Any] = field(default_factory=dict)
    """The schemas the entry's ``params`` declares, by name (a param it leaves out is typed by its input field)."""


DEFAULT_ENUM_NOTE: Final = (
    "The values listed are the built-in default, known when this was generated; "
    "the tool accepts the values its host finds at start-up (e.g. the skills it is given)."
)
"""Appended to the description of a dynamic-enum field exported with generation-time values."""


class HostEnums(dict[str, list[str]]):
    """Dynamic-enum values a host supplied (``toolproof export --skills DIR``): exported as its own, no note."""


@dataclass(frozen=True, slots=True)
class Contract:
    """One checked contract, ready to render."""

    name: str
    module: str
    prefix: str
    version: str
    title: str
    description: str
    handler: str
    toolsets: tuple[str, ...]
    needs: tuple[str, ...]
    timeout: float | None
    """Seconds a call may run before it ends in ``timed_out``; None: no limit."""
    attaches: tuple[str, ...]
    """Kinds of MCP content block the handler may attach to a result (``image``, ``resource``...)."""
    annotations: Mapping[str, bool]
    same_answer: bool
    """A second identical call must answer as the first did (the generated properties test checks it)."""
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    errors: tuple[ErrorModel, ...]
    render: Mapping[str, str]
    error_output: Mapping[str, Any] | None
    """``render.error_output``: the structured object every error carries; None when the contract has none."""
    symlinks: str
    hardlinks: str | None
    """``allow`` or ``deny`` when the contract says; None leaves the runtime's default (``allow``)."""
    skill_gate: Mapping[str, str] | None
    dynamic_enums: Mapping[str, str]
    metadata: Mapping[str, Any]
    examples: tuple[Mapping[str, Any], ...]
    source: str
    sha256: str
    marks: Mapping[tuple[str | int, ...], tuple[int, int]]
    """Line and column of each node of the contract, for problems found after the model is built."""
    shared: Mapping[str, Definition]
    """Each ``$defs`` name its schemas hold that bundling brought from a shared file (``shared.bundle``)."""
    input_class: str
    output_class: str
    typed_dicts: tuple[TypedDictDef, ...]
    uses_any: bool
    uses_literal: bool
    uses_not_required: bool
    shared_types: tuple[str, ...] = ()
    """The types of shared definitions its stub imports from the generated ``defs`` module."""
    shared_schemas: Mapping[str, Any] = field(default_factory=dict)
    """Each shared definition its schemas hold, bundled (its ``$ref``\\ s reach ``#/$defs/<another>``)."""
    scopes: tuple[str, ...] = ()
    """OAuth scopes a caller's token must hold to call the tool (when the host serves OAuth)."""

    asks: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    """The questions the handler may ask (``ctx.ask``), by name, as the contract declares them."""

    def wire_asks(self) -> dict[str, dict[str, Any]]:
        """Each question as the runtime and the published contract carry it: kind, message and its form."""
        return {
            name: {
                "kind": ask["kind"],
                "message": ask["message"],
                "schema": requested_schema(ask["kind"], ask.get("choices", ()), ask.get("schema")),
            }
            for name, ask in self.asks.items()
        }

    kind: str = "tool"
    """``tool``, ``resource`` or ``prompt`` (``kinds``)."""
    resource: Mapping[str, Any] | None = None
    """A resource's ``uri`` (or URI template), ``mime_type``, ``max_bytes`` and MCP ``annotations``."""
    completions: Mapping[str, str] = field(default_factory=dict)
    """Arguments whose ``completion/complete`` values a host's resource supplies, by source."""

    @property
    def is_tool(self) -> bool:
        """Whether the contract is a tool's (what the tool exports, REST routes and ``tools/list`` hold)."""
        return self.kind == "tool"

    @property
    def sources(self) -> dict[str, str]:
        """The files the contract is made from, each with its sha256: its own and the shared files it uses."""
        return {self.source: self.sha256, **{d.file: d.sha256 for d in self.shared.values()}}

    def where(self, path: tuple[str | int, ...]) -> tuple[int, int]:
        """Line and column of the node at ``path`` (or of its nearest ancestor)."""
        for end in range(len(path), -1, -1):
            mark = self.marks.get(path[:end])
            if mark is not None:
                return mark
        return (1, 1)

    def exported_input(self, enum_sources: Mapping[str, list[str]]) -> dict[str, Any]:
        """The input schema as providers see it: dynamic enums filled from ``enum_sources``.

        Values known at generation time are toolproof's built-in defaults, and
        the field's description says so; values a host supplied (``HostEnums``)
        are its own and exported as they are.
        """
        if not self.dynamic_enums:
            return dict(self.input_schema)
        props = dict(self.input_schema.get("properties", {}))
        for name, source in self.dynamic_enums.items():
            prop = {**props[name], "enum": list(enum_sources.get(source, []))}
            if not isinstance(enum_sources, HostEnums):
                described = prop.get("description")
                prop["description"] = f"{described} {DEFAULT_ENUM_NOTE}" if described else DEFAULT_ENUM_NOTE
            props[name] = prop
        return {**self.input_schema, "properties": props}

    def data(self) -> dict[str, Any]:
        """The contract as the runtime loads it (``<generated>/contracts/<module>.json``).

        Only what the runtime reads, every default already resolved: what a
        client reads (title, description, annotations) is in the exports.
        """
        return {
            **({"kind": self.kind} if self.kind != "tool" else {}),
            **({"resource": dict(self.resource)} if self.resource is not None else {}),
            **({"completions": dict(self.completions)} if self.completions else {}),
            "name": self.name,
            "module": self.module,
            "handler": self.handler,
            "toolsets": list(self.toolsets),
            "needs": list(self.needs),
            **({"scopes": list(self.scopes)} if self.scopes else {}),
            **({"timeout": self.timeout} if self.timeout is not None else {}),
            **({"attaches": list(self.attaches)} if self.attaches else {}),
            **({"asks": self.wire_asks()} if self.asks else {}),
            "input": self.input_schema,
            "output": self.output_schema,
            "errors": {
                e.code: {"message": e.message, **({"hint": e.hint} if e.hint else {}), "status": e.status}
                for e in self.errors
            },
            "render": {**self.render, **({"error_output": dict(self.error_output)} if self.error_output else {})},
            "symlinks": self.symlinks,
            **({"hardlinks": self.hardlinks} if self.hardlinks else {}),
            **({"skill_gate": dict(self.skill_gate)} if self.skill_gate else {}),
            "dynamic_enums": dict(self.dynamic_enums),
            "examples": list(self.examples),
            "source": self.source,
        }


_FACTORY_LOCALS: Final = frozenset({"params", "dict", "str", "object", "ToolError"})
"""Names an error factory's body uses (templates/stub.py.jinja), which no keyword of it may shadow."""


def _param_annotation(
    name: str, error: Mapping[str, Any], input_schema: Mapping[str, Any], types: TypeBuilder, taken: set[str]
) -> str:
    declared = error.get("params", {}).get(name)
    if declared is not None:  # its own schema, in which its $refs resolve
        own = TypeBuilder(declared, taken, types.shared)
        annotation = own.annotation(declared, class_name(name))
        types.defs.extend(own.defs)
        types.imported |= own.imported
        types.uses_any |= own.uses_any
        types.uses_literal |= own.uses_literal
        types.uses_not_required |= own.uses_not_required
        return annotation
    prop = input_schema.get("properties", {}).get(name)
    if prop is not None:
        return types.annotation(prop, class_name(name))
    return "str"


def _params(names: Sequence[str], function: str) -> dict[str, str]:
    """Each placeholder's keyword in the factory: itself when it can be, else escaped apart from the others."""
    avoid = {*_FACTORY_LOCALS, f"_{function.upper()}"}
    args = {n: n for n in names if is_identifier(n) and n not in avoid}
    for n in names:
        if n not in args:
            args[n] = python_name(n, {*avoid, *names, *args.values()})
    return {n: args[n] for n in names}


def _functions(codes: Sequence[str]) -> dict[str, str]:
    """Each code's factory name: the code, or ``code_`` for a keyword (``class_``), no two alike."""
    kept = {c: c for c in codes if is_identifier(c)}
    for code in codes:
        if code not in kept:
            kept[code] = python_name(code, {*codes, *kept.values()})
    return {c: kept[c] for c in codes}


def shared_class(name: str) -> str:
    """The name of the type a shared definition becomes in the generated ``defs`` module."""
    return python_name(class_name(name), set(RESERVED_NAMES))


def build_contract(source: Source, handlers_package: str = "handlers") -> Contract:
    """Build the model of a contract that passed every check.

    Args:
        source: the checked YAML.
        handlers_package: the project's handlers package, for the default ``handler``.
    """
    data = source.data
    implied(data)  # a resource's or prompt's output and annotations (check_source wrote them already)
    module = module_name(data["name"])
    prefix = class_name(module)
    shared = {name: shared_class(name) for name in source.shared}
    taken = set(RESERVED_NAMES) | set(shared.values())  # one module: its classes share one set of names
    functions = _functions(list(data["errors"]))
    taken.update(functions.values())
    types = TypeBuilder(data["input"], taken, shared)
    input_class = types.annotation(data["input"], f"{prefix}Input", f"Arguments of `{data['name']}`.")
    out_types = TypeBuilder(data["output"], taken, shared)
    output_class = out_types.annotation(data["output"], f"{prefix}Output", f"Output of `{data['name']}`.")
    errors = []
    for code, entry in data["errors"].items():
        names = list(dict.fromkeys(Template(entry["message"]).fields))
        args = _params(names, functions[code])
        params = tuple(Param(n, _param_annotation(n, entry, data["input"], types, taken), args[n]) for n in names)
        status = entry.get("status", http_status(code))
        declared = entry.get("params", {})
        errors.append(ErrorModel(code, functions[code], entry["message"], entry.get("hint"), params, status, declared))
    return Contract(
        name=data["name"],
        module=module,
        prefix=prefix,
        version=data["version"],
        title=data["title"],
        description=data["description"],
        handler=data.get("handler") or default_handler_ref(module, handlers_package),
        toolsets=tuple(data.get("toolsets", ())),
        needs=tuple(data.get("needs", ())),
        scopes=tuple(data.get("scopes", ())),
        timeout=data.get("timeout"),
        attaches=tuple(data.get("attaches", ())),
        annotations=data["annotations"],
        same_answer=data.get("same_answer", False),
        input_schema=data["input"],
        output_schema=data["output"],
        errors=tuple(errors),
        render={**DEFAULT_RENDER, **{k: v for k, v in data.get("render", {}).items() if k != "error_output"}},
        error_output=data.get("render", {}).get("error_output"),
        symlinks=data.get("symlinks", "within_root"),
        hardlinks=data.get("hardlinks"),
        skill_gate=data.get("skill_gate"),
        dynamic_enums=data.get("dynamic_enums", {}),
        metadata=data.get("metadata", {}),
        examples=tuple(data["examples"]),
        source=source.path,
        sha256=source.sha256,
        marks=dict(source.marks),
        shared=dict(source.shared),
        input_class=input_class,
        output_class=output_class,
        typed_dicts=tuple(types.defs + out_types.defs),
        uses_any=types.uses_any or out_types.uses_any,
        uses_literal=types.uses_literal or out_types.uses_literal,
        uses_not_required=types.uses_not_required or out_types.uses_not_required,
        shared_types=tuple(sorted(types.imported | out_types.imported)),
        shared_schemas=_shared_schemas(data, source.shared),
        asks=data.get("asks", {}),
        kind=kind_of(data),
        resource=data.get("resource"),
        completions=data.get("completions", {}),
    )


def _shared_schemas(data: Mapping[str, Any], shared: Mapping[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for at in schema_paths(data):
        schema: Any = data
        for part in at:
            schema = schema[part]
        defs = schema.get("$defs") if isinstance(schema, Mapping) else None
        if isinstance(defs, Mapping):
            found |= {name: body for name, body in defs.items() if name in shared}
    return dict(sorted(found.items()))


@dataclass(frozen=True, slots=True)
class Stamp:
    """A file a generated file is made from, as its header names it."""

    source: str
    sha256: str


@dataclass(frozen=True, slots=True)
class Alias:
    """A shared definition that is no object: a type alias (``Status = Literal["open", "closed"]``)."""

    name: str
    annotation: str
    doc: str


@dataclass(frozen=True, slots=True)
class SharedTypes:
    """The generated ``defs`` module: one type per shared definition the contracts use, which their stubs import."""

    sources: tuple[Stamp, ...]
    typed_dicts: tuple[TypedDictDef, ...]
    aliases: tuple[Alias, ...]
    exports: tuple[str, ...]
    typing_imports: tuple[str, ...]


def build_shared_types(contracts: Sequence[Contract]) -> SharedTypes | None:
    """The ``defs`` module of ``contracts``' shared definitions; None when they use none."""
    bodies: dict[str, Any] = {}
    stamps: dict[str, str] = {}
    for c in contracts:
        bodies |= c.shared_schemas
        stamps |= {d.file: d.sha256 for d in c.shared.values()}
    if not bodies:
        return None
    root = {"$defs": bodies}
    names = {name: shared_class(name) for name in bodies}
    taken = set(RESERVED_NAMES) | set(names.values())
    typed: list[TypedDictDef] = []
    aliases: list[Alias] = []
    flags = {"Any": False, "Literal": False, "NotRequired": False}
    for name, body in bodies.items():
        taken.discard(names[name])  # its TypedDict takes the name
        types = TypeBuilder(root, taken, {k: v for k, v in names.items() if k != name})
        annotation = types.annotation(body, names[name])
        taken.add(names[name])
        typed += types.defs
        flags["Any"] |= types.uses_any
        flags["Literal"] |= types.uses_literal
        flags["NotRequired"] |= types.uses_not_required
        if annotation != names[name]:
            doc = " ".join(str(body.get("description", "")).split()) if isinstance(body, Mapping) else ""
            aliases.append(Alias(names[name], annotation, doc or f"The shared definition {name}."))
    ordered: list[Alias] = []
    while aliases:  # an alias is defined after the aliases it names
        pending = {a.name for a in aliases}
        ready = [a for a in aliases if not any(n in pending - {a.name} for n in _WORD.findall(a.annotation))]
        ready = ready or aliases[:1]  # a loop of aliases: Python cannot define it anyway
        ordered += ready
        aliases = [a for a in aliases if a not in ready]
    later = {a.name for a in ordered}  # the module defines its TypedDicts, then its aliases
    for i in reversed(range(len(typed))):  # a functional TypedDict evaluates its fields where it stands
        later.add(typed[i].name)
        if typed[i].functional:
            fields = tuple(replace(f, annotation=forward_reference(f.annotation, later)) for f in typed[i].fields)
            typed[i] = replace(typed[i], fields=fields)
    imports = {"TypedDict"} if typed else set()
    return SharedTypes(
        sources=tuple(Stamp(path, sha) for path, sha in sorted(stamps.items())),
        typed_dicts=tuple(typed),
        aliases=tuple(ordered),
        exports=tuple(sorted({*(t.name for t in typed), *(a.name for a in ordered)})),
        typing_imports=tuple(sorted(imports | {k for k, used in flags.items() if used})),
    )
