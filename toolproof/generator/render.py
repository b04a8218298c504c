"""Render the model into the files gen owns: stubs, tests, docs, exports, their manifest.

Code and prose come from Jinja templates (``environment``); JSON is built as data and dumped
deterministically (``jsontext``). Writing them and finding drift are ``writer`` and ``drift``.
"""

from __future__ import annotations

import hashlib
import posixpath
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from toolproof import __version__
from toolproof.generator.artifacts import json_schemas, vectors
from toolproof.generator.environment import environment
from toolproof.generator.exports import DEFINITION_FORMATS, Exported, export_definitions, tool_digest
from toolproof.generator.jsontext import dump_json
from toolproof.generator.layout import Layout
from toolproof.generator.losses import MADE_NULLABLE, Loss
from toolproof.generator.model import Contract, ErrorModel, build_shared_types
from toolproof.generator.naming import PACKAGE_ENTRIES, tool_files
from toolproof.generator.openapi import UNNAMED, ApiInfo, openapi_document
from toolproof.generator.published import published_contract
from toolproof.generator.publishing import MCPB_MANIFEST, SERVER_JSON, mcpb_manifest, server_json
from toolproof.generator.pysource import pystr
from toolproof.generator.toolpage import render_docs
from toolproof.generator.typescript import (
    PROVIDER_TYPES,
    runtime_sources,
    shared_declarations,
    typescript_declarations,
    typescript_literal,
    typescript_module,
)
from toolproof.runtime.digests import LOCK_FILE, Pin, lock_document

__all__ = ["export_all", "losses_of", "render_all"]


def _isort_key(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions.
    return (0 if name.isupper() else 1 if name[:1].isupper() else 2, name)


def _stub(c: Contract, layout: Layout) -> str:
    imports = {"Final", "Protocol", "TypedDict", "Literal" if c.errors else "Never"}
    if c.uses_any:
        imports.add("Any")
    if c.uses_literal:
        imports.add("Literal")
    if c.uses_not_required:
        imports.add("NotRequired")
    exports = [
        "NAME",
        "VERSION",
        *(td.name for td in c.typed_dicts),
        *c.shared_types,  # re-exported: handlers may name them from the tool's module
        "ErrorCode",
        *(e.function for e in c.errors),
        "Handler",
    ]
    return (
        environment()
        .get_template("stub.py.jinja")
        .render(
            c=c,
            layout=layout,
            typing_imports=sorted(imports),
            runtime_imports=["Template", "ToolContext", "ToolError"] if c.errors else ["ToolContext"],
            exports=sorted(set(exports), key=_isort_key),
            signature=_signature,
            params=_params,
        )
    )


_PER_TOOL_EXPORTS = frozenset({"typescript", "jsonschema", "vectors", "contract"})
"""The export formats written as a file per tool (``naming.tool_files``); the others are per tool set."""
_PYTHON_FILES = frozenset({"stub", "tests", "properties", "fuzz"})
"""What gen writes per tool only for Python handlers (``naming.tool_files``): the stub and its pytest modules."""
_TOOL_ONLY = frozenset({"typescript"})
"""The files a resource or prompt has not: TypeScript serves tools only."""


def _readme(layout: Layout, paths: Iterable[str]) -> str:
    """The generated folder's README: what it holds (what ``paths`` has of it), that it is generated, how to redo it."""
    inside = {path.removeprefix(f"{layout.folder}/") for path in paths}
    exports = sorted({path.split("/")[1] for path in inside if path.startswith("exports/")})
    return (
        environment()
        .get_template("README.md.jinja")
        .render(layout=layout, exports=exports, has=lambda prefix: any(p.startswith(prefix) for p in inside))
    )


def _signature(e: ErrorModel) -> list[str]:
    """An error factory's parameters, keyword-only."""
    return ["*", *(f"{p.arg}: {p.annotation}" for p in e.params)] if e.params else []


def _params(e: ErrorModel) -> list[str]:
    """The entries of the dict an error factory builds of its arguments."""
    return [f"{pystr(p.name)}: {p.arg}" for p in e.params]


def _conformance_test(c: Contract, layout: Layout, package: str) -> str:
    module, _, attr = c.handler.partition(":")
    return (
        environment()
        .get_template("conformance_test.py.jinja")
        .render(c=c, layout=layout, package=package, handler_module=module, handler_attr=attr or "handle")
    )


def _properties_test(c: Contract, layout: Layout) -> str:
    # Replayed: every example but those of an unknown tool and those that change files once the host started.
    examples = [
        ex["name"]
        for ex in c.examples
        if ex["expect"].get("error") != "unknown_tool" and not ex.get("given", {}).get("after_start")
    ]
    return environment().get_template("properties_test.py.jinja").render(c=c, layout=layout, examples=examples)


def _toolsets(contracts: Sequence[Contract]) -> list[tuple[str, list[str]]]:
    sets: dict[str, list[str]] = {}
    for c in contracts:
        for name in c.toolsets:
            sets.setdefault(name, []).append(c.name)
    return sorted(sets.items())


def _toolset_members(contracts: Sequence[Contract]) -> dict[str, list[Contract]]:
    sets: dict[str, list[Contract]] = {"all": list(contracts)}
    for name, members in _toolsets(contracts):
        if name == "all":
            raise ValueError("'all' is reserved for every tool")
        sets[name] = [c for c in contracts if c.name in members]
    return sets


def export_all(contracts: Sequence[Contract], enums: Mapping[str, list[str]]) -> dict[str, dict[str, Exported]]:
    """Every definition format for every tool set (and ``all``): ``{format: {set: Exported}}``.

    Sets with the same members (a tool set of every tool is common) share one ``Exported``, built once.
    """
    sets = _toolset_members(sorted(contracts, key=lambda c: c.module))
    exports: dict[str, dict[str, Exported]] = {}
    for fmt in DEFINITION_FORMATS:
        built: dict[tuple[int, ...], Exported] = {}
        exports[fmt] = {}
        for name, members in sets.items():
            same = tuple(map(id, members))
            if same not in built:
                built[same] = export_definitions(fmt, members, enums)
            exports[fmt][name] = built[same]
    return exports


def losses_of(exports: Mapping[str, Mapping[str, Exported]]) -> list[Loss]:
    """Every distinct loss over all formats and sets."""
    return sorted({loss for per_set in exports.values() for exported in per_set.values() for loss in exported.losses})


TS_HANDLERS = "src/handlers"
"""Where a TypeScript project's handlers are, relative to the project: ``<module>.ts`` each, exporting ``handle``."""


def _typescript_modules(
    contracts: Sequence[Contract], layout: Layout, exports: Mapping[str, Mapping[str, Exported]]
) -> dict[str, str]:
    """``typescript/<module>.ts`` per tool, ``typescript/tools.ts``, which binds each to its handler, and the runtime.

    The runtime (``typescript/runtime/*.ts``) is copied from toolproof's package, stamped: the modules import it
    by relative path, so a project needs no npm package of toolproof's, only ajv.
    """
    env = environment()
    folder = f"{layout.folder}/typescript"
    contracts = [c for c in contracts if c.is_tool]  # TypeScript serves tools only: a resource or prompt has no module
    mcp = {t["name"]: t for t in exports["mcp"]["all"].data["tools"]}
    nullable: dict[str, set[str]] = {}  # what OpenAI strict mode made nullable, from the loss list: read as absent
    for fmt in ("openai", "openai-responses"):
        for loss in exports[fmt]["all"].losses if fmt in exports and "all" in exports[fmt] else ():
            if loss.schema == "input" and loss.action == MADE_NULLABLE:
                nullable.setdefault(loss.tool, set()).add(loss.pointer())
    files = {
        f"{folder}/{c.module}.ts": env.get_template("tool.ts.jinja").render(
            c=c, layout=layout, **typescript_module(c, mcp[c.name], sorted(nullable.get(c.name, ())))
        )
        for c in contracts
    }
    provider = env.get_template("provider.ts.jinja")
    for fmt, (sdk_type, sdk_module, what) in PROVIDER_TYPES.items():
        if fmt in layout.exports:  # typed by the provider's SDK, which the project installs to compile them
            files[f"{folder}/providers/{fmt}.ts"] = provider.render(
                contracts=contracts,
                layout=layout,
                fmt=fmt,
                sdk_type=sdk_type,
                sdk_module=sdk_module,
                what=what,
                tools=typescript_literal(exports[fmt]["all"].data),
            )
    handlers = posixpath.relpath(TS_HANDLERS, folder)
    bound = [(c, f"{handlers}/{c.module}.js") for c in contracts]
    files[f"{folder}/tools.ts"] = env.get_template("tools.ts.jinja").render(
        contracts=contracts, layout=layout, bound=bound, handlers=TS_HANDLERS
    )
    runtime = env.get_template("runtime.ts.jinja")
    files |= {f"{folder}/runtime/{f.name}": runtime.render(file=f, layout=layout) for f in runtime_sources()}
    return files


def render_all(
    contracts: Sequence[Contract],
    enums: Mapping[str, list[str]] | None = None,
    layout: Layout | None = None,
    builtin: Sequence[Contract] = (),
    exports: Mapping[str, Mapping[str, Exported]] | None = None,
) -> dict[str, str]:
    """Every file ``toolproof gen`` owns, by path relative to the project, with its text.

    Args:
        contracts: the project's own checked contracts.
        enums: values of each dynamic-enum source known at generation time
            (the built-in skills), written into the exported definitions.
        layout: where the files go and the command named in their headers.
        builtin: the built-in contracts the project includes: served, tested
            and exported beside its own, their code already in ``toolproof.builtin.generated``.
        exports: ``export_all`` of the same contracts and enums, when the caller has it already.
    """
    enums = enums or {}
    layout = layout or Layout()
    own = sorted(contracts, key=lambda c: c.module)
    contracts = sorted([*contracts, *builtin], key=lambda c: c.module)
    env = environment()
    out = layout.folder
    files: dict[str, str] = {
        f"{out}/__init__.py": env.get_template("__init__.py.jinja").render(
            contracts=own, toolsets=_toolsets(own), layout=layout
        ),
    }
    python = "python" in layout.languages  # else no stub and no pytest module: a TypeScript project runs none
    shared = build_shared_types(own)
    if shared is not None:  # one type per shared definition, which the stubs import
        if python:
            files[f"{out}/defs.py"] = env.get_template("defs.py.jinja").render(t=shared, layout=layout)
        declared = shared_declarations(own)
        if "typescript" in layout.exports and declared is not None:
            files[f"{out}/exports/typescript/defs.d.ts"] = env.get_template("defs.d.ts.jinja").render(
                t=shared, layout=layout, body=declared.rstrip("\n")
            )
    all_sources = {path: sha for c in contracts for path, sha in c.sources.items()}
    json_files: dict[str, tuple[str, Mapping[str, str]]] = {}
    if exports is None:
        exports = export_all(contracts, enums)
    definitions = {t["function"]["name"]: t for t in exports["openai"]["all"].data}
    mcp_all = exports["mcp"]["all"].data  # a resource's or prompt's page shows its MCP entry: no provider has one
    for key in ("resources", "resourceTemplates", "prompts"):
        definitions |= {entry["name"]: entry for entry in mcp_all.get(key, ())}
    builtin_modules = {c.module for c in builtin}
    for c in contracts:
        if c.module in PACKAGE_ENTRIES:  # lint refuses the name (module-clash): never overwrite the package's own
            raise ValueError(f"tool {c.name!r}: module {c.module!r} is a name the generated package keeps")
        own_sources = c.sources
        is_builtin = c.module in builtin_modules
        paths = {
            kind: f"{out}/{path}"
            for kind, path in tool_files(c.module, builtin=is_builtin).items()
            if (kind not in _PER_TOOL_EXPORTS or kind in layout.exports)
            and (python or kind not in _PYTHON_FILES)
            and (c.is_tool or kind not in _TOOL_ONLY)
        }
        texts: dict[str, str] = {}
        jsons: dict[str, tuple[str, Mapping[str, str]]] = {}
        if not is_builtin:  # a built-in contract's stub and JSON ship in toolproof.builtin.generated
            jsons["checked"] = (dump_json(c.data()), own_sources)
        if python:
            if not is_builtin:
                texts["stub"] = _stub(c, layout)
            package = "toolproof.builtin.generated" if is_builtin else layout.package
            texts["tests"] = _conformance_test(c, layout, package)
            texts["properties"] = _properties_test(c, layout)  # annotations checked
            texts["fuzz"] = env.get_template("fuzz_test.py.jinja").render(c=c, layout=layout)  # schema fuzzed
        texts["docs"] = render_docs(c, definitions[c.name], layout)
        if "typescript" in layout.exports and c.is_tool:
            texts["typescript"] = env.get_template("tool.d.ts.jinja").render(
                c=c, layout=layout, body=typescript_declarations(c, c.exported_input(enums)).rstrip("\n")
            )
        if "jsonschema" in layout.exports:
            jsons["jsonschema"] = (dump_json(json_schemas(c, c.exported_input(enums))), own_sources)
        if "vectors" in layout.exports:
            jsons["vectors"] = (dump_json(vectors(c)), own_sources)
        if "contract" in layout.exports:  # as `toolproof export --format contract --tool <name>` prints it
            jsons["contract"] = (dump_json(published_contract(c, enums)), own_sources)
        if texts.keys() | jsons.keys() != paths.keys():
            raise ValueError(f"tool {c.name!r}: naming.tool_files does not list every file rendered for it")
        taken = [p for p in paths.values() if p in files or p in json_files]
        if taken:  # lint refuses two tools sharing a file (module-clash): never let one replace another's
            raise ValueError(f"tool {c.name!r}: {taken[0]} is another tool's file")
        files |= {paths[kind]: text for kind, text in texts.items()}
        json_files |= {paths[kind]: value for kind, value in jsons.items()}
    if "typescript" in layout.languages:
        files |= _typescript_modules([c for c in own if c.is_tool], layout, exports)
    json_files[f"{out}/openapi.json"] = (  # REST serves tools only
        dump_json(
            openapi_document([c for c in contracts if c.is_tool], enums, layout.api or ApiInfo(UNNAMED, __version__))
        ),
        all_sources,
    )
    for fmt, per_set in exports.items():
        if fmt not in layout.exports:
            continue
        report: dict[str, Any] = {}
        dumped: dict[int, str] = {}  # sets with the same members share their Exported (export_all)
        for name, exported in per_set.items():
            if id(exported) not in dumped:
                dumped[id(exported)] = dump_json(exported.data)
            json_files[f"{out}/exports/{fmt}/{name}.json"] = (dumped[id(exported)], all_sources)
            report[name] = {
                "limits": [str(limit) for limit in exported.problems],
                "losses": [loss.to_dict() for loss in exported.losses],
            }
        json_files[f"{out}/exports/{fmt}/losses.json"] = (dump_json(report), all_sources)
    tools = [c for c in contracts if c.is_tool]  # a resource or prompt is pinned by no client: MCP lists tools
    pins = {c.name: Pin(tool_digest(c), tuple(c.dynamic_enums)) for c in tools}
    json_files[f"{out}/{LOCK_FILE}"] = (dump_json(lock_document(pins)), all_sources)
    if layout.publish is not None:
        digests = {name: pin.digest for name, pin in pins.items()}
        if "server.json" in layout.publish.formats:
            data = server_json(layout.publish, tools, digests)
            json_files[f"{out}/{SERVER_JSON}"] = (dump_json(data), all_sources)
        if "mcpb" in layout.publish.formats:
            data = mcpb_manifest(layout.publish, tools, digests)
            json_files[f"{out}/{MCPB_MANIFEST}"] = (dump_json(data), all_sources)
    json_files[f"{out}/README.md"] = (_readme(layout, files.keys() | json_files.keys()), all_sources)
    manifest: dict[str, Any] = {"generator": f"toolproof {__version__}", "command": layout.command, "files": {}}
    for path in sorted(json_files):
        text, sources = json_files[path]
        files[path] = text
        manifest["files"][path] = {
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "sources": dict(sorted(sources.items())),
        }
    files[f"{out}/MANIFEST.json"] = dump_json(manifest)
    return dict(sorted(files.items()))
