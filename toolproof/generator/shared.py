"""Shared definitions: schemas written once, in ``contracts/_defs/*.yaml`` or a contract's ``$defs``, used by many.

A shared file is a JSON Schema document holding definitions under ``$defs``. A contract's input,
output or error params reach one with a relative reference resolved against the contract file
(``$ref: "_defs/desk.yaml#/$defs/Person"``), and a definition of the contract's own top-level
``$defs`` with ``#/$defs/Name`` when the schema itself has no such entry (the contract document is
the base, as in OpenAPI). Definitions of one shared file reach each other with ``#/$defs/Name``
and another file's with ``other.yaml#/$defs/Name``.

Bundling, right after a contract is read, copies every definition a schema reaches (transitively)
into that schema's own ``$defs`` under its name and rewrites each reference to ``#/$defs/Name``:
everything downstream (checks, the model, exports, TypeScript, vectors, conform, breaking) sees
standalone schemas with local references only. The contract's ``Source`` keeps where each copy
came from (``Source.foreign``), so a problem inside a copy is reported in the file that holds the
definition, once, and ``Source.shared`` says which names came from which shared file.
"""

from __future__ import annotations

import copy
import difflib
import posixpath
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote

from toolproof.generator.naming import class_name
from toolproof.generator.problems import Level, Problem
from toolproof.generator.refs import walk
from toolproof.generator.source import Interned, JsonPath, Source, load_source

__all__ = ["SHARED_FOLDER", "Definition", "SharedDefs", "bundle", "load_shared", "schema_paths"]

SHARED_FOLDER: Final = "_defs"
"""The folder, inside the contracts folder, that holds the shared definition files (not contracts)."""

_FILE_KEYS: Final = frozenset({"$defs", "$schema", "$comment", "title", "description"})
"""What a shared file may hold: its definitions and words about them."""

_CONTRACT: Final = ""
"""The origin of a contract's own top-level ``$defs``, beside the shared files' keys (``_defs/desk.yaml``)."""
_SCHEMA: Final = "#"
"""The origin of a contract's schema itself (its input, output or an error param)."""


@dataclass(frozen=True, slots=True)
class Definition:
    """One definition of a shared file: where it is written and the file's digest."""

    file: str
    """The shared file as problems name it (``contracts/_defs/desk.yaml``)."""
    name: str
    line: int
    column: int
    sha256: str


@dataclass(slots=True)
class _File:
    key: str
    """The file relative to the contracts folder, as references spell it: ``_defs/desk.yaml``."""
    source: Source
    defs: Mapping[str, Any]
    """Its definitions as written (references not yet rewritten)."""


@dataclass(slots=True)
class SharedDefs:
    """The shared definition files of a project, checked, and which of their definitions contracts use."""

    files: dict[str, _File] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    broken: set[str] = field(default_factory=set)
    """Keys of the files with an error: a contract that uses one is not built."""
    used: set[tuple[str, str]] = field(default_factory=set)

    def definition(self, key: str, name: str) -> Definition:
        """Where definition ``name`` of the file ``key`` is written."""
        source = self.files[key].source
        line, column = source.where(("$defs", name), key=True)
        return Definition(source.path, name, line, column, source.sha256)

    def unused(self) -> list[Problem]:
        """``unused-definition``: a definition of a shared file that no contract reaches."""
        problems = []
        for key, shared in sorted(self.files.items()):
            if key in self.broken:
                continue
            for name in shared.defs:
                if (key, name) not in self.used:
                    message = f"shared definition '{name}' is used by no contract; use it ($ref: {key}#/$defs/{name})"
                    message += " or remove it"
                    problems.append(shared.source.problem(("$defs", name), "unused-definition", message, key=True))
        return problems


def load_shared(
    folder: Path, relative: Callable[[Path], str], *, within: tuple[Path, ...], interned: Interned | None = None
) -> SharedDefs:
    """Read and check every shared definition file of the contracts folder ``folder``.

    Args:
        folder: the contracts folder; the files are ``folder/_defs/*.yaml``.
        relative: how problems name a path (relative to the project).
        within: the folders a file must lie in once its links are followed.
        interned: the table of positions the contracts of the load share.
    """
    from toolproof.generator.schemalint import check_schema

    shared = SharedDefs()
    here = folder / SHARED_FOLDER
    paths = sorted(here.glob("*.yaml")) + sorted(here.glob("*.yml")) if here.is_dir() else []
    for path in paths:
        key = f"{SHARED_FOLDER}/{path.name}"
        source, problems = load_source(path, relative(path), within=within, interned=interned)
        shared.problems += problems
        if source is None or problems:
            shared.broken.add(key)
            continue
        data = source.data
        if not isinstance(data, dict) or not isinstance(data.get("$defs"), dict) or not data["$defs"]:
            message = "a shared definition file holds its definitions under $defs: ($defs: {Person: {...}})"
            shared.problems.append(source.problem((), "shared-file", message))
            shared.broken.add(key)
            continue
        extra = [k for k in data if k not in _FILE_KEYS]
        for k in extra:
            message = f"'{k}' has no place in a shared definition file (it holds $defs, title, description)"
            shared.problems.append(source.problem((k,), "shared-file", message, key=True))
        if extra:
            shared.broken.add(key)
        shared.files[key] = _File(key, source, copy.deepcopy(data["$defs"]))
    types: dict[str, tuple[str, str]] = {}  # generated type name -> (file key, definition name)
    for key, file in shared.files.items():  # one name, one definition: a generated type each (defs.py)
        for name in file.defs:
            other = types.get(class_name(name))
            if other is None:
                types[class_name(name)] = (key, name)
                continue
            where = shared.files[other[0]].source.path
            if other[1] == name:
                message = f"definition '{name}' is also defined in {where}; one name names one shared definition"
            else:
                message = f"definition '{name}' and '{other[1]}' of {where} would both be the generated type"
                message += f" {class_name(name)}"
            message += " (each becomes one generated type): rename one"
            shared.problems.append(file.source.problem(("$defs", name), "definition-clash", message, key=True))
            shared.broken.add(key)
    for key, file in shared.files.items():
        if key in shared.broken:
            continue
        problems = _bundle_at(file.source, (), key, {}, shared, whole_file=True)
        problems += check_schema(file.source, ())
        shared.problems += problems
        if any(p.level is Level.ERROR for p in problems):
            shared.broken.add(key)
    shared.used.clear()  # a file checked alone uses nothing
    return shared


def schema_paths(data: Any) -> Iterator[JsonPath]:
    """Where a contract holds JSON Schemas: input, output and each error's params."""
    if not isinstance(data, Mapping):
        return
    for side in ("input", "output"):
        if isinstance(data.get(side), Mapping):
            yield (side,)
    errors = data.get("errors")
    if isinstance(errors, Mapping):
        for code, entry in errors.items():
            params = entry.get("params") if isinstance(entry, Mapping) else None
            if isinstance(params, Mapping):
                yield from (("errors", code, "params", name) for name in params)


def bundle(source: Source, shared: SharedDefs) -> list[Problem]:
    """Bring into each schema of the contract ``source`` the shared and contract-level definitions it reaches.

    ``source.data`` is changed in place; ``source.foreign`` and ``source.shared`` say where the copies came from.

    Returns:
        The problems found: a reference to nothing (with a did-you-mean), one leaving ``_defs``, a name that
        two definitions claim in one schema, a shared file with errors (reported at the reference).
    """
    data = source.data
    if not isinstance(data, Mapping):
        return []
    own = data.get("$defs")
    contract_defs: Mapping[str, Any] = own if isinstance(own, Mapping) else {}
    problems: list[Problem] = []
    for at in list(schema_paths(data)):
        problems += _bundle_at(source, at, _CONTRACT, contract_defs, shared, whole_file=False)
    used = {name for key, name in shared.used if key == _CONTRACT}
    shared.used -= {(_CONTRACT, name) for name in used}  # the next contract's $defs are its own
    for name in contract_defs:
        if name not in used:
            message = (
                f"definition '{name}' of the contract's $defs is used by no schema; use it ($ref: '#/$defs/{name}')"
            )
            message += " or remove it"
            problems.append(source.problem(("$defs", name), "unused-definition", message, key=True))
    return problems


def _bundle_at(
    source: Source, at: JsonPath, origin: str, contract_defs: Mapping[str, Any], shared: SharedDefs, *, whole_file: bool
) -> list[Problem]:
    """Bundle the schema at ``at`` in ``source``, a document of ``origin`` (a contract, or a shared file)."""
    schema: Any = source.data
    for part in at:
        schema = schema[part]
    if not isinstance(schema, dict):
        return []
    mine = schema.get("$defs")
    own_names = set(mine) if isinstance(mine, dict) else set()
    if whole_file:
        own_names = set(shared.files[origin].defs)
    mine_defs: Mapping[str, Any] = mine if isinstance(mine, dict) else {}
    problems: list[Problem] = []
    brought: dict[str, tuple[str, str]] = {}  # name in the schema's $defs -> (origin, name)
    pending: list[tuple[str, str]] = []  # (origin, name) still to copy

    def report(path: JsonPath, rule_name: str, message: str) -> None:
        problems.append(source.problem(path, rule_name, message))
        source.settled.add(path)

    def need(key: str, name: str, ref_at: JsonPath) -> bool:
        """Bring definition ``name`` of ``key`` under its name; False when the name is taken by another."""
        if key == origin and whole_file:
            return True  # the file's own definition, already there
        taken = brought.get(name)
        if taken == (key, name):
            return True
        if taken is None and name in own_names and _body(shared, contract_defs, key, name) == mine_defs.get(name):
            shared.used.add((key, name))
            return True  # the schema holds the same definition already
        if taken is not None or name in own_names:
            was = "the schema's own $defs" if taken is None else _origin_name(shared, taken[0])
            message = (
                f"definition '{name}' of {_origin_name(shared, key)} and the one of {was} would share one name in this"
                " schema's $defs; rename one"
            )
            report(ref_at, "definition-clash", message)
            return False
        brought[name] = (key, name)
        pending.append((key, name))
        return True

    def rewrite(node: Any, base: JsonPath, referrer: str, local_names: set[str]) -> None:
        """Rewrite each reference in ``node`` (at ``base`` in the source, written in ``referrer``)."""
        for path, sub in list(walk(node)):
            ref = sub.get("$ref") if isinstance(sub, dict) else None
            if not isinstance(ref, str):
                continue
            ref_at = (*base, *path, "$ref")
            target = _target(ref, referrer, shared, contract_defs, local_names, ref_at, report, source.settled.add)
            if target is None:
                continue
            key, name, rest = target
            if need(key, name, ref_at):
                sub["$ref"] = f"#/$defs/{_escape(name)}{rest}"

    if not whole_file and isinstance(mine, dict):
        for name in sorted(own_names & set(contract_defs)):
            if mine[name] != contract_defs[name]:
                message = (
                    f"'{name}' is defined here and in the contract's $defs, differently; the $refs of this schema"
                    " reach this one: rename one, or remove this copy"
                )
                report((*at, "$defs", name), "definition-clash", message)
    rewrite(schema, at, origin if whole_file else _SCHEMA, own_names)
    while pending:
        key, name = pending.pop(0)
        shared.used.add((key, name))
        body = copy.deepcopy(_body(shared, contract_defs, key, name))
        if key == _CONTRACT:
            foreign: tuple[Source, JsonPath] = (source, ("$defs", name))
            local = set(contract_defs)
        else:
            foreign = (shared.files[key].source, ("$defs", name))
            local = set(shared.files[key].defs)
        defs = schema.setdefault("$defs", {})
        place = (*at, "$defs", name)
        defs[name] = body
        source.foreign[place] = foreign
        if key != _CONTRACT:
            source.shared[name] = shared.definition(key, name)
        rewrite(body, place, key, local)
    return problems


def _body(shared: SharedDefs, contract_defs: Mapping[str, Any], key: str, name: str) -> Any:
    return contract_defs[name] if key == _CONTRACT else shared.files[key].defs[name]


def _origin_name(shared: SharedDefs, key: str) -> str:
    return "the contract's $defs" if key == _CONTRACT else shared.files[key].source.path


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


_Report = Callable[[JsonPath, str, str], None]


def _target(
    ref: str,
    referrer: str,
    shared: SharedDefs,
    contract_defs: Mapping[str, Any],
    local_names: set[str],
    ref_at: JsonPath,
    report: _Report,
    settle: Callable[[JsonPath], None],
) -> tuple[str, str, str] | None:
    """The definition ``ref`` (written in ``referrer``) reaches outside its schema: (origin, name, rest of pointer).

    None when it stays inside its schema (left to the schema's own checks) or reaches nothing (reported).
    """
    document, hash_sign, fragment = ref.partition("#")
    if not document:
        name, rest = _def_pointer(fragment)
        if name is None or (referrer == _SCHEMA and name in local_names):
            return None  # within the schema: its own checks judge it
        if referrer in (_SCHEMA, _CONTRACT):
            if name in contract_defs:
                return _CONTRACT, name, rest
            if contract_defs:  # else the schema's own checks report it
                known = sorted({*contract_defs, *(local_names if referrer == _SCHEMA else ())})
                close = difflib.get_close_matches(name, known, n=1)
                hint = f"did you mean '{close[0]}'?" if close else f"defined: {', '.join(known)}"
                message = f"$ref '{ref}': neither the schema nor the contract's $defs defines '{name}' ({hint})"
                report(ref_at, "unresolved-ref", message)
            return None
        if name not in shared.files[referrer].defs:
            defs = shared.files[referrer].defs
            close = difflib.get_close_matches(name, list(defs), n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"it defines {', '.join(defs)}"
            report(ref_at, "unresolved-ref", f"$ref '{ref}': {referrer} has no definition '{name}' ({hint})")
            return None
        return referrer, name, rest
    if "://" in document or document.startswith(("/", "\\")) or ":" in document.split("/")[0]:
        report(ref_at, "unresolved-ref", f"$ref '{ref}' leaves the project; a $ref reaches only {SHARED_FOLDER}/*.yaml")
        return None
    base = "" if referrer in (_SCHEMA, _CONTRACT) else posixpath.dirname(referrer)
    key = posixpath.normpath(posixpath.join(base, unquote(document)))
    if posixpath.dirname(key) != SHARED_FOLDER:
        message = (
            f"$ref '{ref}' leaves the shared definitions folder; a $ref reaches only {SHARED_FOLDER}/*.yaml beside"
            " the contracts"
        )
        report(ref_at, "unresolved-ref", message)
        return None
    if key not in shared.files:
        if key in shared.broken:
            settle(ref_at)  # its problems are reported once, at the file
            return None
        close = difflib.get_close_matches(key, sorted(shared.files), n=1)
        hint = f" (did you mean '{close[0]}'?)" if close else f" (known: {', '.join(sorted(shared.files)) or 'none'})"
        report(ref_at, "unresolved-ref", f"$ref '{ref}': there is no shared definition file {key}{hint}")
        return None
    name, rest = _def_pointer(fragment) if hash_sign else (None, "")
    defs = shared.files[key].defs
    if name is None:
        message = f"$ref '{ref}' names no definition: write {key}#/$defs/<name> (one of {', '.join(defs)})"
        report(ref_at, "unresolved-ref", message)
        return None
    if name not in defs:
        close = difflib.get_close_matches(name, list(defs), n=1)
        hint = f"did you mean '{close[0]}'?" if close else f"it defines {', '.join(defs)}"
        report(ref_at, "unresolved-ref", f"$ref '{ref}': {key} has no definition '{name}' ({hint})")
        return None
    if key in shared.broken:
        settle(ref_at)  # its problems are reported once, at the file
        return None
    return key, name, rest


def _def_pointer(fragment: str) -> tuple[str | None, str]:
    """The definition name a ``/$defs/Name/...`` pointer starts with, and the rest of the pointer."""
    tokens = unquote(fragment).split("/")
    if len(tokens) < 3 or tokens[0] != "" or tokens[1] != "$defs":
        return None, ""
    name = tokens[2].replace("~1", "/").replace("~0", "~")
    rest = "".join(f"/{t}" for t in tokens[3:])
    return name, rest
