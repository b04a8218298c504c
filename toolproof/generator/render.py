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
import stat
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Final, NamedTuple

import jinja2
import orjson

from toolproof.generator.artifacts import json_schemas, vectors
from toolproof.generator.exports import DEFINITION_FORMATS, Exported, export_definitions
from toolproof.generator.losses import Loss
from toolproof.generator.model import Contract
from toolproof.generator.naming import PACKAGE_ENTRIES, tool_files
from toolproof.generator.openapi import UNNAMED, ApiInfo, openapi_document
from toolproof.generator.typescript import typescript_declarations

__all__ = [
    "GENERATED",
    "Drift",
    "GeneratedFolderError",
    "Layout",
    "dump_json",
    "existing_files",
    "export_all",
    "is_stamped",
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
    api: ApiInfo | None = None
    """The project's title and version for the OpenAPI document (``openapi.api_info``).

    None, from a caller that knows no project: ``toolproof tools`` and toolproof's own version.
    """


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
    return said.format(arg=f"`{c.skill_gate['token_argument']}`", document=f"`{c.skill_gate['document']}`")


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
                "files": [f"`{p}`" for p in ex.get("given", {}).get("files", {})],
                "token": _gate_token(c, ex),
                "input": _pretty(ex["input"]),
                "error": expect.get("error"),
                "message": expect.get("message"),
                "output": _pretty(expect["output"]) if "output" in expect else None,
                "output_includes": _pretty(expect["output_includes"]) if "output_includes" in expect else None,
                "output_has": [f"`{name}`" for name in expect.get("output_has", ())],
                "text": expect.get("text"),
                "text_contains": _pretty(expect["text_contains"]) if "text_contains" in expect else None,
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
            and exported beside its own, their code already in ``toolproof.builtin.generated``.
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
        if c.module in PACKAGE_ENTRIES:  # lint refuses the name (module-clash): never overwrite the package's own
            raise ValueError(f"tool {c.name!r}: module {c.module!r} is a name the generated package keeps")
        own_sources = {c.source: c.sha256}
        is_builtin = c.module in builtin_modules
        paths = {kind: f"{out}/{path}" for kind, path in tool_files(c.module, builtin=is_builtin).items()}
        texts: dict[str, str] = {}
        jsons: dict[str, tuple[str, Mapping[str, str]]] = {}
        if not is_builtin:  # a built-in contract's stub and JSON ship in toolproof.builtin.generated
            texts["stub"] = _stub(c, layout)
            jsons["contract"] = (dump_json(c.data()), own_sources)
        package = "toolproof.builtin.generated" if is_builtin else layout.package
        texts["tests"] = _conformance_test(c, layout, package)
        texts["properties"] = _properties_test(c, layout)  # annotations checked
        texts["fuzz"] = env.get_template("fuzz_test.py.jinja").render(c=c, layout=layout)  # schema fuzzed
        texts["docs"] = render_docs(c, openai_all[c.name], layout)
        texts["typescript"] = env.get_template("tool.d.ts.jinja").render(
            c=c, layout=layout, body=typescript_declarations(c, c.exported_input(enums)).rstrip("\n")
        )
        jsons["jsonschema"] = (dump_json(json_schemas(c, c.exported_input(enums))), own_sources)
        jsons["vectors"] = (dump_json(vectors(c)), own_sources)
        if texts.keys() | jsons.keys() != paths.keys():
            raise ValueError(f"tool {c.name!r}: naming.tool_files does not list every file rendered for it")
        taken = [p for p in paths.values() if p in files or p in json_files]
        if taken:  # lint refuses two tools sharing a file (module-clash): never let one replace another's
            raise ValueError(f"tool {c.name!r}: {taken[0]} is another tool's file")
        files |= {paths[kind]: text for kind, text in texts.items()}
        json_files |= {paths[kind]: value for kind, value in jsons.items()}
    json_files[f"{out}/openapi.json"] = (
        dump_json(openapi_document(contracts, enums, layout.api or ApiInfo(UNNAMED, _version()))),
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
                "limits": [str(limit) for limit in exported.problems],
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
    """Files now under the generated folder (caches and gen's temporary files excluded), relative to the project."""
    return _scan(root, folder).found


_TEMPORARY = ".toolproof-tmp"
"""How the name of a file gen is writing ends (``_replace``); it begins with a dot and the final name."""


def _is_temporary(name: str) -> bool:
    return name.startswith(".") and name.endswith(_TEMPORARY)


class _Tree(NamedTuple):
    found: set[str]
    """The files under the generated folder (caches and temporary files excluded)."""
    links: set[str]
    """Those of them that are symbolic links."""
    special: set[str]
    """Those that are neither regular files nor links (FIFOs, sockets, devices): never read, never ours."""
    temporary: set[str]
    """Temporary files a gen that was killed while writing left behind."""


def _scan(root: Path, folder: str) -> _Tree:
    """What is under the generated folder; a folder that vanishes while it is read is skipped."""
    tree = _Tree(set(), set(), set(), set())
    base = root / folder
    if not base.is_dir():
        return tree
    pending = [(str(base), f"{Path(folder).as_posix()}/")]
    while pending:
        here, prefix = pending.pop()
        try:
            with os.scandir(here) as entries:
                for entry in entries:
                    if entry.is_dir(follow_symlinks=False):
                        if entry.name not in _IGNORED_DIRS:
                            pending.append((entry.path, f"{prefix}{entry.name}/"))
                    elif _is_temporary(entry.name):
                        tree.temporary.add(prefix + entry.name)
                    elif not entry.name.endswith(".pyc"):
                        tree.found.add(prefix + entry.name)
                        if entry.is_symlink():
                            tree.links.add(prefix + entry.name)
                        elif not entry.is_file(follow_symlinks=False):
                            tree.special.add(prefix + entry.name)
        except FileNotFoundError:
            continue
    return tree


_STAMPS = tuple(f"{mark}@generated by toolproof ".encode() for mark in ("# ", "// ", "<!--\n "))
"""How every text file gen writes begins: its header (templates/_macros.jinja), in the file's comment syntax."""


def is_stamped(text: bytes) -> bool:
    """Whether ``text`` begins with the header every generated text file carries."""
    return text.startswith(_STAMPS)


class GeneratedFolderError(Exception):
    """``write_all`` would overwrite a file toolproof did not write, or write outside the generated folder."""

    def __init__(self, conflicts: Sequence[str]) -> None:
        super().__init__("; ".join(conflicts))
        self.conflicts = list(conflicts)
        """One line per file in the way."""


class Drift:
    """Differences between the rendered files and the tree: stale, missing, orphaned, and files not ours.

    A file is ours when toolproof provably wrote it: a text file begins with the generated header,
    a JSON file (which cannot carry one) is listed in the MANIFEST.json on disk, itself ours when
    its ``generator`` names toolproof. gen overwrites and deletes only files that are ours: any
    other file in the folder is a stranger, left alone, and a stranger at a path gen writes is a conflict.
    Links and files that are not regular (a FIFO would block the read) are never opened, so never ours.
    Temporary files a killed gen left (``_replace``) are neither generated nor strangers: gen removes them.
    """

    def __init__(self, root: Path, files: Mapping[str, str], folder: str = GENERATED) -> None:
        tree = _scan(root, folder)
        on_disk, links, special = tree.found, tree.links, tree.special
        unreadable = links | special  # never opened: a link may lead anywhere, a FIFO would block the read
        self.temporary = sorted(tree.temporary)
        """Temporary files of a gen killed while writing: nobody's, removed by the next gen."""
        manifest = f"{folder}/MANIFEST.json"
        self._listed = _listed(root, manifest) if manifest in on_disk and manifest not in unreadable else frozenset()
        self.missing: list[str] = []
        self.stale: list[str] = []
        self.conflicts: list[str] = []
        """Paths gen writes where a file stands that it cannot prove it wrote, or that lead out of the folder."""
        base = (root / folder).resolve()
        parents: dict[str, bool] = {}  # folder → whether it resolves inside the generated folder
        for path in sorted(files):
            if path in links:
                self.conflicts.append(f"{path}: a symbolic link, which gen never writes")
            elif path in special:
                self.conflicts.append(f"{path}: not a regular file, which gen never writes")
            elif path not in on_disk:
                parent = path.rpartition("/")[0]
                if parent not in parents:
                    parents[parent] = _inside(base, (root / parent).resolve())
                if parents[parent] and os.path.isdir(root / path):  # a link is in ``links``: this is a folder
                    self.conflicts.append(f"{path}: a folder, where gen writes a file; move it away")
                elif parents[parent]:
                    self.missing.append(path)
                else:
                    self.conflicts.append(f"{path}: its folder leads out of {folder}/ through a symbolic link")
            else:
                current = _read(root, path)
                if current is None:  # removed since the scan: it is missing
                    self.missing.append(path)
                    continue
                if current == files[path].encode("utf-8"):
                    continue
                if self._ours(path, current):
                    self.stale.append(path)
                else:
                    self.conflicts.append(f"{path}: {self._not_ours(path)}")
        self.orphaned: list[str] = []
        """Files of ours that gen no longer writes: gen deletes them."""
        self.strangers: list[str] = []
        """Files in the folder that are not ours and that gen does not write: left alone."""
        for path in sorted(on_disk - set(files)):
            ours = path not in unreadable and self._ours(path, b"" if path.endswith(".json") else _head(root, path))
            (self.orphaned if ours else self.strangers).append(path)
        fresh = manifest in files and manifest in on_disk and manifest not in self.stale  # it names this version
        readable = manifest in on_disk and manifest not in unreadable
        self.written_by = _written_by(root, manifest) if readable and not fresh else None
        """The toolproof version named in the MANIFEST on disk, when it is not this one."""

    def _ours(self, path: str, head: bytes) -> bool:
        return path in self._listed if path.endswith(".json") else is_stamped(head)

    @staticmethod
    def _not_ours(path: str) -> str:
        if path.endswith(".json"):
            return "not written by toolproof (a JSON file its MANIFEST.json does not list)"
        return "not written by toolproof (no @generated header)"

    def __bool__(self) -> bool:
        return bool(self.missing or self.orphaned or self.stale or self.conflicts)

    def lines(self) -> list[str]:
        """One line per file that differs (a version mismatch first: it explains the rest)."""
        version = [f"version: written by toolproof {self.written_by}; this is toolproof {_version()}"]
        return (
            (version if self.written_by else [])
            + [f"conflict: {p}" for p in self.conflicts]
            + [f"stale: {p}" for p in self.stale]
            + [f"missing: {p}" for p in self.missing]
            + [f"orphaned: {p}" for p in self.orphaned]
        )

    def warnings(self) -> list[str]:
        """One line per stranger: a file in the generated folder that gen neither wrote nor writes, and keeps."""
        return [f"{p}: {self._not_ours(p)}; gen leaves it alone" for p in self.strangers]


def _listed(root: Path, manifest: str) -> frozenset[str]:
    """The files the MANIFEST.json at ``manifest`` lists, and itself, when toolproof wrote it; else none."""
    try:
        data = json.loads(_read(root, manifest) or b"")
    except (OSError, ValueError, RecursionError):
        return frozenset()
    if not isinstance(data, dict) or not str(data.get("generator", "")).startswith("toolproof "):
        return frozenset()
    files = data.get("files")
    return frozenset([manifest, *(files if isinstance(files, dict) else ())])


def _inside(folder: Path, path: Path) -> bool:
    return path == folder or folder in path.parents


def _read(root: Path, path: str, size: int = -1) -> bytes | None:
    """The bytes of a file (its first ``size`` when given); None when it no longer exists.

    Opened without blocking: a FIFO that took the place of a file since the scan reads as empty, at once.
    """
    try:
        fd = os.open(os.path.join(root, path), os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # no Path per file
    except FileNotFoundError:
        return None
    with open(fd, "rb") as file:
        return file.read(size)


def _head(root: Path, path: str) -> bytes:
    """The first bytes of a file: enough for its header."""
    return _read(root, path, 64) or b""


def _written_by(root: Path, manifest: str) -> str | None:
    try:
        stamp = json.loads(_read(root, manifest) or b"").get("generator", "")
    except (OSError, ValueError, AttributeError, RecursionError):
        return None
    version = str(stamp).removeprefix("toolproof ")
    return version if version and version != _version() else None


def write_all(root: Path, files: Mapping[str, str], folder: str = GENERATED, drift: Drift | None = None) -> list[str]:
    """Make the generated folder match ``files``: write what differs, delete the orphans that are ours.

    Each file is written whole (``_replace``): a host starting meanwhile reads the old file or the new
    one, never a part. Nothing here keeps two writers apart: ``toolproof gen`` holds the project's
    lock around the render and this write.

    Files in the folder that toolproof did not write (no header; JSON not in the MANIFEST) are left
    alone (``Drift.strangers``); nothing is written when one stands at a path to write.

    Args:
        root: the project folder.
        files: every file gen owns, by path relative to ``root`` (``render_all``).
        folder: the generated folder, relative to ``root``.
        drift: ``Drift(root, files, folder)``, when the caller has it already.

    Returns:
        One line per file written or removed.

    Raises:
        GeneratedFolderError: the folder is the project folder or lies outside it, or a file in the
            way is not ours (``Drift.conflicts``); nothing was written or removed.
        OSError: a file could not be written or removed; each file written so far is whole, and no
            temporary file is left.
    """
    project, base = root.resolve(), (root / folder).resolve()
    if base == project or not _inside(project, base) or (base.exists() and not base.is_dir()):
        raise GeneratedFolderError(
            [f"{folder}: the generated folder must be a folder inside the project, not the project"]
        )
    drift = Drift(root, files, folder) if drift is None else drift
    if drift.conflicts:
        raise GeneratedFolderError(drift.conflicts)
    for path in drift.temporary:
        (root / path).unlink(missing_ok=True)
    for path in (*drift.stale, *drift.missing):
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        _replace(target, files[path].encode("utf-8"))
    emptied: set[Path] = set()
    for path in drift.orphaned:
        (root / path).unlink(missing_ok=True)  # another gen's, or someone's, removal is as good as ours
        emptied.add((root / path).parent)
    _remove_empty_dirs(root / folder, emptied, keep={(root / p).parent for p in files})
    return [f"wrote {p}" for p in (*drift.stale, *drift.missing)] + [f"removed {p}" for p in drift.orphaned]


def _replace(target: Path, data: bytes) -> None:
    """Make ``target`` hold ``data``, whole: a reader sees the old file or the new one, never a part of either.

    ``data`` goes to a temporary file beside ``target`` (same folder, same file system), which then
    takes its name (``os.replace``). The file keeps the mode the old one had; a new one gets the
    umask's default, as ``open`` gives it. Not fsynced: gen is run again after a crash, and what
    this guards against is a reader (a host starting) catching a file half written.
    """
    try:
        mode: int | None = stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        mode = None
    while True:
        temporary = target.with_name(f".{target.name}.{os.urandom(4).hex()}{_TEMPORARY}")
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
            break
        except FileExistsError:
            continue
    try:
        with open(fd, "wb") as file:
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            file.write(data)
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _remove_empty_dirs(base: Path, emptied: Iterable[Path], keep: Iterable[Path]) -> None:
    """Remove the folders that removing orphans left empty, and their parents left empty in turn, up to ``base``."""
    kept = set(keep)
    for folder in sorted(emptied, key=lambda p: len(p.parts), reverse=True):
        while base in folder.parents and folder not in kept and folder.is_dir() and not any(folder.iterdir()):
            try:
                folder.rmdir()
            except OSError:  # filled or removed since it was looked at: leave it
                break
            folder = folder.parent
