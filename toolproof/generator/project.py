"""A project's contracts, checked, and the generated tree it owns.

The project's settings (where its contracts, generated package and handlers
are, which built-in tool sets it includes) come from ``toolproof.runtime.project``;
this module loads and checks the contracts and renders what ``toolproof gen`` writes.
"""

from __future__ import annotations

import ast
import difflib
import gc
import keyword
import re
import sys
import tomllib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolproof.generator.checks import check_source, check_together
from toolproof.generator.drift import Drift
from toolproof.generator.exports import DEFINITION_FORMATS, Exported
from toolproof.generator.layout import Layout
from toolproof.generator.losses import AcceptedLoss, Loss, accepted_losses, settings_mark
from toolproof.generator.model import Contract, build_contract
from toolproof.generator.naming import tool_files
from toolproof.generator.openapi import api_info
from toolproof.generator.problems import Level, Problem, rule
from toolproof.generator.publishing import publish_settings
from toolproof.generator.render import export_all, losses_of, render_all
from toolproof.generator.shared import bundle, load_shared
from toolproof.generator.source import Interned, Source, load_source
from toolproof.generator.writer import write_all
from toolproof.runtime.project import (
    CONFIG_FILES,
    ProjectConfig,
    builtin_project,
    default_config,
    has_settings,
    load_config,
)

__all__ = ["Project", "builtin_skill_names", "config_for", "load_project", "unaccepted_losses"]


@dataclass(slots=True)
class Project:
    """The contracts of one project, checked, with every problem found."""

    config: ProjectConfig
    contracts: list[Contract] = field(default_factory=list)
    """The project's own contracts."""
    builtin: list[Contract] = field(default_factory=list)
    """The built-in contracts of the tool sets it includes."""
    problems: list[Problem] = field(default_factory=list)
    _exports: dict[str, dict[str, Exported]] | None = field(default=None, repr=False, compare=False)
    _layout: Layout | None = field(default=None, repr=False, compare=False)

    @property
    def root(self) -> Path:
        """The project folder."""
        return self.config.root

    @property
    def served(self) -> list[Contract]:
        """Every contract the project serves: its own and the included built-in ones."""
        return [*self.contracts, *self.builtin]

    @property
    def ok(self) -> bool:
        """True when no problem is an error (warnings allowed)."""
        return not any(p.level is Level.ERROR for p in self.problems)

    @property
    def layout(self) -> Layout:
        """Where the generated files go, the command their headers name and what the OpenAPI document calls the API.

        Worked out once per load: the API's name and version are read from pyproject.toml.
        """
        if self._layout is None:
            config = self.config
            folder = config.relative(config.generated)
            width, inside = _line_length(config.root), _inside_toolproof(config.root)
            api = api_info(config)
            publish = publish_settings(config)[0]
            self._layout = Layout(
                folder, config.package, config.command, api, width, inside, config.exports, config.languages, publish
            )
        return self._layout

    def enum_sources(self) -> dict[str, list[str]]:
        """Values known at generation time for each dynamic-enum source (the built-in skills)."""
        return {"skills": builtin_skill_names()}

    def exports(self) -> dict[str, dict[str, Exported]]:
        """Every definition format for every tool set of the served contracts, computed once per load."""
        if self._exports is None:
            self._exports = export_all(self.served, self.enum_sources())
        return self._exports

    def render(self) -> dict[str, str]:
        """Every generated file's text, by path relative to the project."""
        with _collector_paused():
            return render_all(self.contracts, self.enum_sources(), self.layout, self.builtin, self.exports())

    def drift(self) -> Drift:
        """How the generated folder differs from a fresh render."""
        return Drift(self.root, self.render(), self.layout.folder)

    def write(self) -> list[str]:
        """Bring the generated folder up to date; returns what was written or removed.

        Raises:
            GeneratedFolderError: a file gen would overwrite is not one it wrote; nothing was written.
        """
        return self.write_checked()[0]

    def write_checked(self) -> tuple[list[str], Drift]:
        """:meth:`write`, and the drift found before writing (its ``strangers`` were left alone)."""
        files = self.render()
        drift = Drift(self.root, files, self.layout.folder)
        return write_all(self.root, files, self.layout.folder, drift=drift), drift


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector while a project loads or renders.

    Both build many objects that stay alive to the end (parsed YAML, positions,
    schemas, rendered text) and make few reference cycles, so each of the
    collector's passes over the growing heap frees next to nothing: they took a
    quarter of the time of ``gen --check`` at 200 contracts (benchmarks/gen.py).
    Reference counting still frees the rest at once; the collector, if it was on,
    resumes after and takes the few cycles left.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            gc.enable()


def builtin_skill_names() -> list[str]:
    """The built-in skills shipped with the skills code: folders holding a SKILL.md."""
    from toolproof.builtin.skills.catalog import builtin_skills_dir

    folder = builtin_skills_dir()
    if not folder.is_dir():
        return []
    return sorted(
        p.name for p in folder.iterdir() if p.is_dir() and ((p / "SKILL.md").is_file() or (p / "SKILL.MD").is_file())
    )


def _acceptance(project: Project) -> tuple[list[AcceptedLoss], list[Problem]]:
    tools = {c.name for c in project.served}  # its own and the included built-in ones: their losses are exported too
    from toolproof.generator.profiles import PROFILES

    return accepted_losses(project.config, tools, (*DEFINITION_FORMATS, *PROFILES))


def unaccepted_losses(project: Project, losses: Iterable[Loss]) -> list[Loss]:
    """The losses the project's ``accept-losses`` does not accept, each judged by its own provider's entries.

    For a command that exports one format and checks its losses itself (``toolproof export --strict-export``).
    """
    accepted, _ = _acceptance(project)
    return [loss for loss in losses if not any(entry.matches(loss) for entry in accepted)]


def _export_problems(project: Project, *, strict_export: bool, show_losses: bool, loss_summary: bool) -> list[Problem]:
    """Provider limits broken (errors), and each loss an export forced (notes, or errors when strict).

    Each provider is judged on its own: a loss is accepted by the entries the
    project's ``accept-losses`` lists for the provider that forced it, and an
    accepted loss is neither shown nor an error; an entry that accepts nothing is a warning.
    With ``loss_summary``, the notes are one per tool (``_loss_summary``), not one per loss.
    """
    exports = project.exports()
    accepted, problems = _acceptance(project)
    by_name = {c.name: c for c in project.contracts}
    limits = {limit for per_set in exports.values() for e in per_set.values() for limit in e.problems}
    for limit in sorted(limits, key=str):
        owner = by_name.get(limit.tool)
        if owner is not None:
            place = (owner.source, *owner.where((limit.schema, *limit.path)))
        else:  # a built-in tool the project includes
            place = settings_mark(project.config, "include")
        if limit.format in project.config.exports:
            problems.append(rule("provider-limit").at(*place, f"provider limit: {limit}"))
        else:  # a provider the project writes nothing for: worth knowing, not worth failing CI
            note = f"; the project does not export {limit.format} (setting `exports`), so this only warns"
            problems.append(rule("provider-limit").at(*place, f"provider limit: {limit}{note}", Level.WARNING))
    level = Level.ERROR if strict_export else Level.NOTE
    used: set[AcceptedLoss] = set()
    shown: dict[str, list[tuple[tuple[int, int], Loss]]] = {}
    for loss in losses_of(exports):
        accepting = next((a for a in accepted if a.matches(loss)), None)
        if accepting is not None:
            used.add(accepting)
            continue
        contract = by_name.get(loss.tool)
        if contract is None:  # an included built-in tool's loss, not accepted: toolproof's to report, not the project's
            continue
        if strict_export or show_losses:
            result = loss.schema == "result"  # a dropped content block: where the contract declares it
            mark = contract.where(
                ("attaches", contract.attaches.index(loss.keyword)) if result else (loss.schema, *loss.path)
            )
            shown.setdefault(loss.tool, []).append((mark, loss))
    for tool, found in shown.items():
        source = by_name[tool].source
        if loss_summary and not strict_export:
            problems.append(_loss_summary(source, tool, found))
            continue
        shared = by_name[tool].shared
        for (line, column), loss in found:
            message = f"{loss.format}: {loss.key()} {loss.action} ({loss.detail})"
            place = (source, line, column)
            if len(loss.path) > 1 and loss.path[0] == "$defs" and loss.path[1] in shared:  # where it is written
                definition = shared[str(loss.path[1])]
                place = (definition.file, definition.line, definition.column)
            problems.append(rule("export-loss").at(*place, message, level))
    for entry in accepted:
        if entry.provider in DEFINITION_FORMATS and entry not in used:  # a profile's entries: fitness judges them
            message = f"accept-losses.{entry.provider}: '{entry.entry}' matches no loss of {entry.provider}; remove it"
            problems.append(
                rule("unused-accepted-loss").at(*settings_mark(project.config, entry.provider, entry.entry), message)
            )
    return problems


def _loss_summary(source: str, tool: str, found: Sequence[tuple[tuple[int, int], Loss]]) -> Problem:
    """One note, at the first of a tool's losses: ``echo: 3 rewrites for openai, 2 for gemini; run with ...``."""
    counts = Counter(loss.format for _, loss in found)
    formats = [fmt for fmt in DEFINITION_FORMATS if fmt in counts]
    first = counts[formats[0]]
    parts = [
        f"{first} rewrite{'s' if first != 1 else ''} for {formats[0]}",
        *(f"{counts[f]} for {f}" for f in formats[1:]),
    ]
    message = f"{tool}: {', '.join(parts)}; run with --verbose to list them"
    line, column = min(place for place, _ in found)
    return rule("export-loss").at(source, line, column, message, Level.NOTE)


def _inside_toolproof(root: Path) -> bool:
    """Whether the project lies in toolproof's own source tree, where ruff sorts ``toolproof`` as first party."""
    import toolproof

    source = Path(toolproof.__file__).resolve().parent.parent
    here = root.resolve()
    return (source / "pyproject.toml").is_file() and (here == source or source in here.parents)


def _line_length(root: Path) -> int:
    """The ruff ``line-length`` the project's files are formatted with; ruff's default, 88, without one.

    Found as ruff finds its configuration: the nearest folder, from the project's up, with a ruff.toml, a
    .ruff.toml or a pyproject.toml holding a [tool.ruff] table; one that sets no line-length but ``extend``\\ s
    another file takes that file's.
    """
    for folder in (root.resolve(), *root.resolve().parents):
        for name, table in (("ruff.toml", ()), (".ruff.toml", ()), ("pyproject.toml", ("tool", "ruff"))):
            length = _ruff_length(folder / name, table)
            if length is not None:
                return length
    return 88


def _ruff_length(path: Path, table: tuple[str, ...], depth: int = 0) -> int | None:
    """The line-length the ruff settings in ``path`` (under ``table``) give; None when it holds none."""
    try:
        data: Any = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    for key in table:
        data = data.get(key) if isinstance(data, dict) else None
    if not isinstance(data, dict):
        return None
    length = data.get("line-length")
    if isinstance(length, int) and not isinstance(length, bool) and 40 <= length <= 320:
        return length
    extend = data.get("extend")
    if "line-length" not in data and isinstance(extend, str) and depth < 8:
        target = path.parent / extend
        inherited = _ruff_length(target, ("tool", "ruff") if target.name == "pyproject.toml" else (), depth + 1)
        if inherited is not None:
            return inherited
    return 88


def config_for(root: Path) -> ProjectConfig:
    """The settings of the project at ``root``; a folder with none gets the defaults there.

    Raises:
        ProjectError: a settings file there is wrong.
    """
    root = root.resolve()
    for name in CONFIG_FILES:
        candidate = root / name
        if candidate.is_file() and has_settings(candidate):
            return load_config(candidate)
    return default_config(root)


def _load_contracts(config: ProjectConfig, project: Project) -> list[Contract]:
    """The contracts that pass every check; every problem found, across files too, goes to ``project``."""
    folder = config.contracts
    where = config.relative(folder)
    paths = sorted(folder.glob("*.yaml")) + sorted(folder.glob("*.yml"))
    if not paths:
        project.problems.append(rule("no-contracts").at(where, 1, 1, f"no contracts found ({where}/*.yaml)"))
        return []
    contracts: list[Contract] = []
    sources: list[Source] = []
    interned: Interned = {}
    within = (config.root, folder)
    shared = load_shared(folder, config.relative, within=within, interned=interned)
    project.problems.extend(shared.problems)
    for path in paths:
        display = config.relative(path)
        source, problems = load_source(path, display, within=within, interned=interned)
        project.problems.extend(problems)
        if source is None:
            continue
        sources.append(source)
        if problems:
            continue
        own = bundle(source, shared)
        own += check_source(source)
        project.problems.extend(own)
        if not any(p.level is Level.ERROR for p in own) and not source.settled:  # settled: a $ref to a broken file
            contracts.append(build_contract(source, config.handlers))
    project.problems.extend(check_together(sources))
    if not any(p.level is Level.ERROR for p in project.problems):
        project.problems.extend(shared.unused())
    return contracts  # the sources go: the contracts hold what is needed of them


def _included(config: ProjectConfig, project: Project) -> list[Contract]:
    if config.is_builtin or not config.include:
        return []
    builtin = Project(builtin_project())
    contracts = _load_contracts(builtin.config, builtin)
    known = sorted({name for c in contracts for name in c.toolsets})
    unknown = [name for name in config.include if name != "all" and name not in known]
    where = config.relative(config.config_file) if config.config_file else "toolproof.toml"
    for name in unknown:
        project.problems.append(
            rule("unknown-toolset").at(
                where, 1, 1, f"include: no built-in tool set is named {name!r} (known: {', '.join(known)}, all)"
            )
        )
    chosen = [c for c in contracts if "all" in config.include or any(n in c.toolsets for n in config.include)]
    own = {c.name: c for c in project.contracts}
    for c in chosen:
        if c.name in own:
            line, column = own[c.name].where(("name",))
            project.problems.append(
                rule("duplicate-tool").at(
                    own[c.name].source,
                    line,
                    column,
                    f"tool '{c.name}' is also the built-in tool of set {', '.join(c.toolsets)}, which {where} includes",
                )
            )
    builtin_files = {
        path: c for c in chosen if c.name not in own for path in tool_files(c.module, builtin=True).values()
    }
    for name, contract in own.items():
        shared = [path for path in tool_files(contract.module).values() if path in builtin_files]
        if shared:
            other = builtin_files[shared[0]]
            line, column = contract.where(("name",))
            message = (
                f"tool '{name}' and the built-in tool '{other.name}', which {where} includes, would both generate"
                f" {shared[0]} in the generated folder; rename the tool"
            )
            project.problems.append(rule("module-clash").at(contract.source, line, column, message))
    return chosen


def _handler_problems(config: ProjectConfig, contracts: Iterable[Contract]) -> list[Problem]:
    """``missing-handler``: a contract whose handler module or function is not there, read from the source.

    What ``registry.bind`` refuses at start-up, judged without importing the project's code
    (``registry.unfound_handler``): lint must be safe on a pull request.
    """
    from toolproof.runtime.registry import unfound_handler

    roots = config.source_roots or (config.root,)
    top = config.handlers.partition(".")[0]
    absent = not config.is_builtin and _nowhere(top, roots)
    problems: list[Problem] = []
    if absent and config.handlers != "handlers":
        message = (
            f"handlers = {config.handlers!r} names no package: there is no {top}/ in the project and none installed;"
            " name the package that holds your handlers, or create it"
        )
        return [rule("missing-handler").at(*settings_mark(config, "handlers"), message)]
    for contract in contracts:
        if absent and ("handler",) not in contract.marks:
            continue  # no Python handlers, by default: contracts another language serves, or not written yet
        keywords = [part for part in re.split(r"[.:]", contract.handler) if keyword.iskeyword(part)]
        why = (
            f"{keywords[0]!r} is a Python keyword, which no module or function can be named (the generated tests"
            " would not import)"
            if keywords
            else unfound_handler(contract.handler, roots)
        )
        if why is None:
            continue
        line, column = contract.where(("handler",) if ("handler",) in contract.marks else ("name",))
        message = (
            f"contract '{contract.name}' has no handler {contract.handler}: {why}; write it, or name the function"
            " that serves the tool in `handler:` (serve refuses the project)"
        )
        problems.append(rule("missing-handler").at(contract.source, line, column, message))
    return problems


_MOST_MODULES = 200
"""Most modules read to find the resource classes a project's factories can supply."""


def provided_resources(config: ProjectConfig) -> tuple[frozenset[str], tuple[str, ...]] | None:
    """The resource names the project's factories can supply, read from their source, and those factories.

    A resource is an object whose class names it (``resource: ClassVar[str] = "database"``); a factory
    (setting ``resources``, and the built-in one when the project includes built-in tool sets, as
    ``toolbox.resource_factories`` lists them) is called only by a host, with its options, and may
    open files or connections, so lint never calls one. It reads instead each factory's module and
    the modules it imports from the project's source roots, and takes every class there that names a
    ``resource`` as a string. toolproof's own modules are not read: the built-in factory's names are
    ``BUILTIN_RESOURCE_NAMES``, which a module importing one of the built-in tools' modules may supply
    too. Other installed packages are not read: a resource class of one is not seen. None when the
    names cannot be known so: a factory lies outside them, or a class computes its name.
    """
    from toolproof.runtime.host import BUILTIN_RESOURCE_NAMES, BUILTIN_RESOURCES
    from toolproof.runtime.registry import module_file
    from toolproof.runtime.toolbox import resource_factories

    factories = resource_factories(config)
    roots = list(config.source_roots or (config.root,))
    names: set[str] = set()
    pending = [ref.partition(":")[0] for ref in factories]
    seen: set[str] = set()
    while pending:
        module = pending.pop()
        if module in seen:
            continue
        seen.add(module)
        if module == BUILTIN_RESOURCES.partition(":")[0] or module.startswith("toolproof.builtin."):
            names |= BUILTIN_RESOURCE_NAMES
            continue
        if module == "toolproof" or module.startswith("toolproof."):
            continue  # toolproof's runtime defines no resource
        if len(seen) > _MOST_MODULES:
            return None
        known, path = module_file(module, roots)
        if not known or path is None:
            return None
        try:
            tree = ast.parse(path.read_bytes(), str(path))
        except (OSError, SyntaxError, ValueError):
            return None
        scanned = _scan(tree, module, is_package=path.name == "__init__.py")
        if scanned is None:
            return None
        classes, imports = scanned
        names |= classes
        for imported in imports:
            if imported.startswith("toolproof."):
                pending.append(imported)
                continue
            _, source = module_file(imported, roots)
            if source is not None and any(root in source.parents for root in roots):
                pending.append(imported)
    return frozenset(names), factories


def _scan(tree: ast.Module, module: str, *, is_package: bool) -> tuple[set[str], list[str]] | None:
    """The ``resource`` name of each class in ``tree`` (the source of ``module``) and every module it imports.

    An imported name counts as a module too (``from pkg import db``). None when a class computes its name.
    """
    package = module if is_package else module.rpartition(".")[0]
    names: set[str] = set()
    imports: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imports += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = package.split(".")[: max(len(package.split(".")) - node.level + 1, 0)]
                base = ".".join([*parent, *([base] if base else [])])
            if base:
                imports.append(base)
                imports += [f"{base}.{alias.name}" for alias in node.names if alias.name != "*"]
        elif isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.Assign):
                    targets, value = statement.targets, statement.value
                elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
                    targets, value = [statement.target], statement.value
                else:
                    continue
                if any(isinstance(t, ast.Name) and t.id == "resource" for t in targets):
                    if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                        return None
                    names.add(value.value)
    return names, imports


def _nowhere(top: str, roots: Iterable[Path]) -> bool:
    """Whether no top-level module or package ``top`` is in ``roots`` or on the import path (none is imported)."""
    import importlib.util

    if any((root / top).is_dir() or (root / f"{top}.py").is_file() for root in roots) or top in sys.modules:
        return False
    try:
        return importlib.util.find_spec(top) is None  # for a top-level name only the finders run, no module's code
    except (ImportError, ValueError):
        return False


def _factory_problems(config: ProjectConfig) -> list[Problem]:
    """``missing-factory``: a ``resources`` entry whose module or function is not there, read, never run."""
    from toolproof.runtime.registry import unfound_handler

    roots = list(config.source_roots or (config.root,))
    problems: list[Problem] = []
    for ref in config.resources:
        top = ref.partition(":")[0].partition(".")[0]
        why = (
            f"no module {top} (no {top}.py or {top}/ in the project, and none installed)"
            if _nowhere(top, roots)
            else (unfound_handler(ref, roots))
        )
        if why is not None:
            message = f"resource factory {ref} is not there: {why}; serve, call and conform would refuse the project"
            problems.append(rule("missing-factory").at(*settings_mark(config, "resources", ref), message))
    return problems


def _typescript_problems(config: ProjectConfig) -> list[Problem]:
    """A TypeScript project's settings that its own build or test would trip on.

    ``typescript-without-vectors``: ``init --lang typescript``'s npm test replays the vectors, which only the
    ``vectors`` export writes. ``provider-sdk-missing``: each ``typescript/providers/<format>.ts`` imports its
    provider's SDK types, so the project's package.json (when it has one) must list that package.
    """
    import json

    from toolproof.generator.typescript import PROVIDER_PACKAGES, PROVIDER_TYPES, provider_package

    if "typescript" not in config.languages:
        return []
    problems: list[Problem] = []
    if "vectors" not in config.exports:
        where = settings_mark(config, "exports" if _sets(config, "exports") else "languages")
        message = (
            'a TypeScript project whose exports lack "vectors": the npm test of `toolproof init --lang typescript`'
            ' replays generated/exports/vectors/, which gen will not write; add "vectors" to exports'
        )
        problems.append(rule("typescript-without-vectors").at(*where, message))
    try:
        package = json.loads((config.root / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):  # no npm project yet, or one npm itself will refuse, saying where
        return problems
    listed: set[str] = set()
    for key in ("dependencies", "devDependencies", "peerDependencies"):
        entries = package.get(key) if isinstance(package, dict) else None
        listed |= set(entries) if isinstance(entries, dict) else set()
    for fmt in PROVIDER_TYPES:
        needed = provider_package(fmt)
        if fmt in config.exports and needed not in listed:
            message = (
                f"exports names {fmt}: gen writes generated/typescript/providers/{fmt}.ts, which compiles against"
                f" the {needed} package, and package.json lists none; `npm install --save-dev"
                f" {PROVIDER_PACKAGES[needed]}`, or drop {fmt} from exports"
            )
            problems.append(rule("provider-sdk-missing").at(*settings_mark(config, "exports", fmt), message))
    return problems


def _sets(config: ProjectConfig, key: str) -> bool:
    """Whether the settings file sets ``key`` at all (else a problem about it stands at another setting)."""
    return config.config_file is not None and settings_mark(config, key)[1:] != (1, 1)


def _needs_problems(config: ProjectConfig, contracts: Iterable[Contract]) -> list[Problem]:
    """``unknown-need``: a ``needs`` entry that names no resource the project's factories can supply.

    An error when the project has factories (read by ``provided_resources``); a warning when it has none,
    since then only a host that builds its own resources (``Runtime(resources=...)``) can supply any.
    """
    contracts = [c for c in contracts if c.needs]
    provided = provided_resources(config) if contracts else None
    if provided is None:
        return []
    names, factories = provided
    problems: list[Problem] = []
    for contract in contracts:
        for index, need in enumerate(contract.needs):
            if need in names:
                continue
            close = difflib.get_close_matches(need, sorted(names), n=1)
            line, column = contract.where(("needs", index))
            if not factories:  # no host toolproof starts supplies it; one that builds its own resources may
                message = (
                    f"needs '{need}', but the project has no resource factories (setting `resources`): serve, call"
                    f" and conform leave tool '{contract.name}' out; only a host that builds its own resources"
                    " serves it"
                )
                problems.append(rule("unknown-need").at(contract.source, line, column, message, Level.WARNING))
                continue
            close = difflib.get_close_matches(need, sorted(names), n=1)
            known = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(sorted(names)) or 'none'}"
            message = (
                f"needs '{need}', which no resource of the project's factories ({', '.join(factories)}) is"
                f" named ({known}); serve would leave tool '{contract.name}' out"
            )
            problems.append(rule("unknown-need").at(contract.source, line, column, message))
    return problems


def _policy_problems(config: ProjectConfig, served: Iterable[Contract]) -> list[Problem]:
    """``missing-middleware``, ``unknown-policy-toolset``: what ``[serve]`` names that serve would not find.

    ``serve-setting``: a malformed entry, with the message serve would stop with.
    """
    from toolproof.runtime.project import ProjectError
    from toolproof.runtime.registry import unfound_handler
    from toolproof.runtime.serve.policy import middleware_settings, rate_limits

    if not (config.serve.get("middleware") or config.serve.get("rate-limits")):
        return []
    problems: list[Problem] = []
    try:
        middleware = middleware_settings(config)
    except ProjectError as exc:
        problems.append(rule("serve-setting").at(*settings_mark(config, "function"), exc.message))
        middleware = []
    try:
        limits = rate_limits(config)
    except ProjectError as exc:
        problems.append(rule("serve-setting").at(*settings_mark(config, "calls"), exc.message))
        limits = []
    roots = list(config.source_roots or (config.root,))
    for setting in middleware:
        top = setting.function.partition(":")[0].partition(".")[0]
        why = (
            f"no module {top} (no {top}.py or {top}/ in the project, and none installed)"
            if _nowhere(top, roots)
            else unfound_handler(setting.function, roots)
        )
        if why is not None:
            message = f"middleware {setting.function} is not there: {why}; serve and call would refuse the project"
            problems.append(
                rule("missing-middleware").at(*settings_mark(config, "function", setting.function), message)
            )
    known = sorted({name for contract in served for name in contract.toolsets})
    named = [("middleware", s.toolsets) for s in middleware] + [("rate-limits", r.toolsets) for r in limits]
    for key, toolsets in named:
        for toolset in toolsets or ():
            if toolset in known:
                continue
            close = difflib.get_close_matches(toolset, known, n=1)
            hint = f"did you mean '{close[0]}'?" if close else f"known: {', '.join(known) or 'none'}"
            message = f"serve.{key} names tool set '{toolset}', which no tool is in ({hint}); it would apply to no call"
            problems.append(rule("unknown-policy-toolset").at(*settings_mark(config, "toolsets", toolset), message))
    return problems


def _scope_problems(config: ProjectConfig, contracts: Iterable[Contract]) -> list[Problem]:
    """``unknown-scope``: a contract's ``scopes`` entry that the project's ``[serve] scopes`` does not declare."""
    declared = set(config.scopes)
    problems: list[Problem] = []
    for contract in contracts:
        for index, scope in enumerate(contract.scopes):
            if scope in declared:
                continue
            close = difflib.get_close_matches(scope, sorted(declared), n=1)
            if close:
                known = f"did you mean '{close[0]}'?"
            elif declared:
                known = f"declared: {', '.join(sorted(declared))}"
            else:
                known = 'the project declares none: add [tool.toolproof.serve] scopes = ["..."] to its settings'
            line, column = contract.where(("scopes", index))
            message = f"scope '{scope}' is not one the project declares ({known})"
            problems.append(rule("unknown-scope").at(contract.source, line, column, message))
    return problems


def load_project(
    root: Path | ProjectConfig,
    *,
    strict_export: bool = False,
    show_losses: bool = False,
    loss_summary: bool = False,
    fit: bool = False,
) -> Project:
    """Load and check every contract of a project.

    Args:
        root: the project's settings, or its folder (settings found there, else defaults).
        strict_export: report every loss an exported definition suffers as an error.
        show_losses: report every such loss as a note.
        loss_summary: with ``show_losses``, one note per tool counting its losses by provider instead
            (``toolproof lint`` without ``--verbose``); a strict export still reports each loss.
        fit: also check what ``lint`` alone checks (``fitness.fit_problems``): the descriptions, the client
            profiles the settings require and the token budgets.
    """
    config = root if isinstance(root, ProjectConfig) else config_for(root)
    project = Project(config)
    with _collector_paused():
        project.contracts = _load_contracts(config, project)
        project.builtin = _included(config, project)
        project.problems.extend(_handler_problems(config, project.contracts))
        project.problems.extend(_factory_problems(config))
        project.problems.extend(_typescript_problems(config))
        project.problems.extend(_needs_problems(config, project.contracts))
        project.problems.extend(_scope_problems(config, project.contracts))
        project.problems.extend(_policy_problems(config, project.served))
        project.problems.extend(publish_settings(config)[1])
        if project.ok and project.contracts:
            project.problems.extend(
                _export_problems(
                    project, strict_export=strict_export, show_losses=show_losses, loss_summary=loss_summary
                )
            )
            if fit:  # the contracts all load: export problems (a limit, a strict loss) do not hide these
                from toolproof.generator.fitness import fit_problems

                project.problems.extend(fit_problems(project, strict_export=strict_export))
    project.problems = sorted(dict.fromkeys(project.problems))  # a shared definition's problem, once
    return project
