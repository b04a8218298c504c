"""Render the model into files, write them, and check what is on disk for drift.

Code and prose come from Jinja templates (``StrictUndefined``); JSON is built as
data and dumped deterministically: declared key order, two-space indent, LF,
a trailing newline, no timestamps.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jinja2
import orjson

from toolproof.generator.artifacts import json_schemas, vectors
from toolproof.generator.exports import DEFINITION_FORMATS, Exported, export_definitions
from toolproof.generator.losses import Loss
from toolproof.generator.model import Contract
from toolproof.generator.openapi import openapi_document
from toolproof.generator.typescript import typescript_declarations

__all__ = [
    "GENERATED",
    "Drift",
    "Layout",
    "dump_json",
    "existing_files",
    "export_all",
    "losses_of",
    "render_all",
    "render_docs",
    "write_all",
]

GENERATED = "generated"


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a project's generated files go and how they name themselves."""

    folder: str = GENERATED
    """The generated folder, relative to the project (POSIX)."""
    package: str = GENERATED
    """Its import name."""
    command: str = "toolproof gen"
    """The command that regenerates it, named in every header."""


_IGNORED_DIRS = frozenset({"__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache"})


def _version() -> str:
    from toolproof.generator import __version__

    return __version__


_ORJSON_OPTIONS = orjson.OPT_INDENT_2 | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
# The end of a number with a fraction or an exponent: values end their line (a string ends with its quote).
_FLOAT_END = re.compile(rb"[0-9](?:\.[0-9]+(?:e[-+]?[0-9]+)?|e[-+]?[0-9]+),?\n")
# Every byte but those _FLOAT_END matches and the quote, which keeps a string's digits apart from what follows.
_NOT_FLOAT_END = bytes(sorted(set(range(256)) - set(b'0123456789.e-+,\n"')))


def _floats_differ(out: bytes) -> bool:
    """True when orjson wrote a float otherwise than ``repr`` (json's form): 1e16 for 1e+16, 0.00001 for 1e-05."""
    # Most files hold no float. A float's end is a run of the kept bytes, so if there is one, it is also in
    # what is left once the others are dropped (one C pass): the regex then reads a fifth of the text.
    if _FLOAT_END.search(out.translate(None, _NOT_FLOAT_END)) is None:
        return False
    for match in _FLOAT_END.finditer(out):
        token = out[out.rfind(b" ", 0, match.start()) + 1 : match.end()].rstrip(b",\n").decode("ascii")
        if repr(float(token)) != token:
            return True
    return False


def _has_non_finite(data: Any) -> bool:
    """True when ``data`` (which orjson could write) holds NaN or an infinity."""
    try:
        json.dumps(data, allow_nan=False, check_circular=False)  # the C encoder: one pass, no indent
    except ValueError:
        return True
    except TypeError:  # a type only orjson writes (UUID, enum...): look for the floats one by one
        return _walk_non_finite(data)
    return False


def _walk_non_finite(data: Any) -> bool:
    if isinstance(data, float):
        return not math.isfinite(data)
    if isinstance(data, Mapping):
        return any(_walk_non_finite(v) for v in data.values())
    if isinstance(data, list | tuple):
        return any(_walk_non_finite(v) for v in data)
    return False


def dump_json_stdlib(data: Any) -> str:
    """The reference form of :func:`dump_json`, by the standard library."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def dump_json(data: Any) -> str:
    """Deterministic JSON text: declared key order, indent 2, UTF-8, trailing newline.

    orjson writes it, byte for byte what :func:`dump_json_stdlib` writes, which takes over
    where the two differ: integers beyond 64 bits and keys that are not strings (orjson
    refuses them), floats orjson writes otherwise than ``repr``, NaN and infinities (orjson writes null).
    """
    if isinstance(data, float):  # a lone value ends no line: _floats_differ would not see it
        return dump_json_stdlib(data)
    try:
        out = orjson.dumps(data, option=_ORJSON_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError
        return dump_json_stdlib(data)
    bare_null = b" null\n" in out or b" null,\n" in out  # NaN and infinities come out as a bare null
    if _floats_differ(out) or (bare_null and _has_non_finite(data)):
        return dump_json_stdlib(data)
    return out.decode("utf-8") + "\n"


def _pystr(value: str) -> str:
    # JSON string escapes are valid Python escapes, and JSON quotes with ".
    # orjson escapes a string as json.dumps(value, ensure_ascii=False) does; it refuses lone surrogates.
    if type(value) is str:
        try:
            return orjson.dumps(value).decode("utf-8")
        except TypeError:  # orjson.JSONEncodeError
            pass
    return json.dumps(value, ensure_ascii=False)


def _pytuple(values: Sequence[str]) -> str:
    inner = ", ".join(_pystr(v) for v in values)
    return f"({inner},)" if len(values) == 1 else f"({inner})"


def _docstring(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


@cache
def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(Path(__file__).parent / "templates"),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        autoescape=False,
        auto_reload=False,
    )
    env.filters["pystr"] = _pystr
    env.filters["pytuple"] = _pytuple
    env.filters["docstring"] = _docstring
    env.globals["version"] = _version()
    return env


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
        "ErrorCode",
        *(e.function for e in c.errors),
        "Handler",
    ]
    return (
        _environment()
        .get_template("stub.py.jinja")
        .render(c=c, layout=layout, typing_imports=sorted(imports), exports=sorted(set(exports), key=_isort_key))
    )


def _conformance_test(c: Contract, layout: Layout, package: str) -> str:
    module, _, attr = c.handler.partition(":")
    return (
        _environment()
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
    return _environment().get_template("properties_test.py.jinja").render(c=c, layout=layout, examples=examples)


def _toolsets(contracts: Sequence[Contract]) -> list[tuple[str, list[str]]]:
    sets: dict[str, list[str]] = {}
    for c in contracts:
        for name in c.toolsets:
            sets.setdefault(name, []).append(c.name)
    return sorted(sets.items())


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _schema_type(schema: Any) -> str:
    if not isinstance(schema, Mapping):
        return "any"
    if "enum" in schema:
        return " \\| ".join(f"`{json.dumps(v, ensure_ascii=False)}`" for v in schema["enum"])
    if "const" in schema:
        return f"`{json.dumps(schema['const'], ensure_ascii=False)}`"
    kind = schema.get("type", "any")
    return " \\| ".join(kind) if isinstance(kind, list) else str(kind)


def _fields(schema: Mapping[str, Any]) -> list[dict[str, Any]]:
    required = set(schema.get("required", ()))
    return [
        {
            "name": name,
            "type": _schema_type(sub),
            "required": name in required,
            "description": _cell(sub.get("description", "")) if isinstance(sub, Mapping) else "",
        }
        for name, sub in schema.get("properties", {}).items()
    ]


def _pretty(value: Any) -> str:
    return dump_json(value).removesuffix("\n")


def render_docs(c: Contract, definition: Any, layout: Layout | None = None) -> str:
    examples = []
    for ex in c.examples:
        expect = ex["expect"]
        examples.append(
            {
                "name": ex["name"],
                "files": [f"`{p}`" for p in ex.get("given", {}).get("files", {})],
                "input": _pretty(ex["input"]),
                "error": expect.get("error"),
                "message": expect.get("message"),
                "output": _pretty(expect["output"])
                if "output" in expect
                else (_pretty(expect["output_includes"]) if "output_includes" in expect else None),
                "text": expect.get("text"),
            }
        )
    errors = [{"code": e.code, "message": _cell(e.message), "hint": _cell(e.hint or "")} for e in c.errors]
    return (
        _environment()
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
            and exported beside its own, their code already in ``toolproof.generated``.
        exports: ``export_all`` of the same contracts and enums, when the caller has it already.
    """
    enums = enums or {}
    layout = layout or Layout()
    own = sorted(contracts, key=lambda c: c.module)
    contracts = sorted([*contracts, *builtin], key=lambda c: c.module)
    env = _environment()
    out = layout.folder
    files: dict[str, str] = {
        f"{out}/__init__.py": env.get_template("__init__.py.jinja").render(
            contracts=own, toolsets=_toolsets(own), layout=layout
        ),
    }
    all_sources = {c.source: c.sha256 for c in contracts}
    json_files: dict[str, tuple[str, Mapping[str, str]]] = {}
    if exports is None:
        exports = export_all(contracts, enums)
    openai_all = {t["function"]["name"]: t for t in exports["openai"]["all"].data}
    builtin_modules = {c.module for c in builtin}
    for c in contracts:
        own_sources = {c.source: c.sha256}
        is_builtin = c.module in builtin_modules
        if not is_builtin:  # a built-in contract's stub and JSON ship in toolproof.generated
            files[f"{out}/{c.module}.py"] = _stub(c, layout)
            json_files[f"{out}/contracts/{c.module}.json"] = (dump_json(c.data()), own_sources)
        package = "toolproof.generated" if is_builtin else layout.package
        files[f"{out}/tests/test_{c.module}.py"] = _conformance_test(c, layout, package)
        files[f"{out}/tests/test_{c.module}_properties.py"] = _properties_test(c, layout)  # annotations checked
        files[f"{out}/tests/test_{c.module}_fuzz.py"] = env.get_template("fuzz_test.py.jinja").render(
            c=c, layout=layout
        )  # schema fuzzed (runtime/conformance)
        files[f"{out}/docs/{c.module}.md"] = render_docs(c, openai_all[c.name], layout)
        files[f"{out}/exports/typescript/{c.module}.d.ts"] = env.get_template("tool.d.ts.jinja").render(
            c=c, layout=layout, body=typescript_declarations(c, c.exported_input(enums)).rstrip("\n")
        )
        json_files[f"{out}/exports/jsonschema/{c.module}.json"] = (
            dump_json(json_schemas(c, c.exported_input(enums))),
            own_sources,
        )
        json_files[f"{out}/exports/vectors/{c.module}.json"] = (dump_json(vectors(c)), own_sources)
    json_files[f"{out}/openapi.json"] = (
        dump_json(openapi_document(contracts, enums, _version())),
        all_sources,
    )
    for fmt, per_set in exports.items():
        report: dict[str, Any] = {}
        dumped: dict[int, str] = {}  # sets with the same members share their Exported (export_all)
        for name, exported in per_set.items():
            if id(exported) not in dumped:
                dumped[id(exported)] = dump_json(exported.data)
            json_files[f"{out}/exports/{fmt}/{name}.json"] = (dumped[id(exported)], all_sources)
            report[name] = {
                "limits": exported.problems,
                "losses": [loss.to_dict() for loss in exported.losses],
            }
        json_files[f"{out}/exports/{fmt}/losses.json"] = (dump_json(report), all_sources)
    manifest: dict[str, Any] = {"generator": f"toolproof {_version()}", "command": layout.command, "files": {}}
    for path in sorted(json_files):
        text, sources = json_files[path]
        files[path] = text
        manifest["files"][path] = {
            "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
            "sources": dict(sorted(sources.items())),
        }
    files[f"{out}/MANIFEST.json"] = dump_json(manifest)
    return dict(sorted(files.items()))


def existing_files(root: Path, folder: str = GENERATED) -> set[str]:
    """Files now under the generated folder (caches excluded), relative to the project."""
    base = root / folder
    found: set[str] = set()
    if not base.is_dir():
        return found
    for folder, dirs, names in os.walk(base):
        dirs[:] = [d for d in dirs if d not in _IGNORED_DIRS]
        here = Path(folder).relative_to(root).as_posix()
        prefix = "" if here == "." else f"{here}/"
        found.update(prefix + name for name in names if not name.endswith(".pyc"))
    return found


class Drift:
    """Differences between the rendered files and the tree: stale, missing, orphaned."""

    def __init__(self, root: Path, files: Mapping[str, str], folder: str = GENERATED) -> None:
        on_disk = existing_files(root, folder)
        self.missing = sorted(set(files) - on_disk)
        self.orphaned = sorted(on_disk - set(files))
        self.stale = sorted(path for path in set(files) & on_disk if _read(root, path) != files[path].encode("utf-8"))
        manifest = f"{folder}/MANIFEST.json"
        fresh = manifest in files and manifest in on_disk and manifest not in self.stale  # it names this version
        self.written_by = None if fresh else _written_by(root / manifest)
        """The toolproof version named in the MANIFEST on disk, when it is not this one."""

    def __bool__(self) -> bool:
        return bool(self.missing or self.orphaned or self.stale)

    def lines(self) -> list[str]:
        """One line per file that differs (a version mismatch first: it explains the rest)."""
        version = [f"version: written by toolproof {self.written_by}; this is toolproof {_version()}"]
        return (
            (version if self.written_by else [])
            + [f"stale: {p}" for p in self.stale]
            + [f"missing: {p}" for p in self.missing]
            + [f"orphaned: {p}" for p in self.orphaned]
        )


def _read(root: Path, path: str) -> bytes:
    with open(os.path.join(root, path), "rb") as file:  # no Path per file: a project has thousands
        return file.read()


def _written_by(manifest: Path) -> str | None:
    try:
        stamp = json.loads(manifest.read_text(encoding="utf-8")).get("generator", "")
    except (OSError, ValueError, AttributeError):
        return None
    version = str(stamp).removeprefix("toolproof ")
    return version if version and version != _version() else None


def write_all(root: Path, files: Mapping[str, str], folder: str = GENERATED) -> list[str]:
    """Make the generated folder exactly ``files``: write what differs, delete orphans.

    Returns:
        One line per file written or removed.
    """
    drift = Drift(root, files, folder)
    for path in (*drift.stale, *drift.missing):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(files[path].encode("utf-8"))
    for path in drift.orphaned:
        (root / path).unlink()
    _remove_empty_dirs(root / folder, keep={(root / p).parent for p in files})
    return [f"wrote {p}" for p in (*drift.stale, *drift.missing)] + [f"removed {p}" for p in drift.orphaned]


def _remove_empty_dirs(base: Path, keep: Iterable[Path]) -> None:
    kept = set(keep)
    for folder, _, _ in os.walk(base, topdown=False):
        path = Path(folder)
        if path not in kept and path != base and not any(path.iterdir()):
            path.rmdir()
