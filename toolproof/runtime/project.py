"""Projects: where a team's contracts, generated package and handlers live, and what it includes.

A project is a folder whose ``pyproject.toml`` has a ``[tool.toolproof]`` table,
or which holds a ``toolproof.toml``. Every command finds it from the current
folder upward (or from ``--project``), puts its source roots on the import path
and serves, tests and exports its tools, never another project's. Outside any
project the commands use the built-in file and skill tools.

Settings, all optional (paths are relative to the project folder)::

    [tool.toolproof]
    contracts = "contracts"          # the YAML contracts
    generated = "generated"          # folder `toolproof gen` writes
    package = "generated"            # its import name (default: the folder, / as .)
    handlers = "handlers"            # package of handler modules, one per contract
    source-roots = ["."]             # put on the import path (sys.path) by every command
    include = ["gateway"]            # built-in tool sets served beside the project's own
    resources = ["host:resources"]   # resource factories (see toolproof.runtime.host)
    command = "toolproof gen"        # what generated headers tell a reader to run
    exports = ["mcp", "openai", "anthropic"]   # folders gen writes under exports/ (EXPORT_FORMATS)

    [tool.toolproof.export]
    accept-losses = {}               # reserved: losses a project accepts, by provider
    languages = ["typescript"]       # tool modules gen writes beside Python (LANGUAGES)

    [tool.toolproof.lint]
    strict-export = false

    [tool.toolproof.publish]           # server.json and an MCPB manifest (toolproof.generator.publishing)
    formats = ["server.json", "mcpb"]
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from toolproof.runtime.errors import RegistryError, ToolproofError

__all__ = [
    "CONFIG_FILES",
    "DEFAULT_EXPORTS",
    "EXPORT_FORMATS",
    "LANGUAGES",
    "PROJECT_ENV",
    "ProjectConfig",
    "ProjectError",
    "activate",
    "builtin_project",
    "check_importable",
    "default_config",
    "find_project",
    "has_settings",
    "load_config",
]

CONFIG_FILES: Final = ("toolproof.toml", "pyproject.toml")
PROJECT_ENV: Final = "TOOLPROOF_PROJECT"
"""Names the project when no --project is given (``conform`` sets it for the servers it starts)."""
_KEYS: Final = frozenset(
    {
        *("contracts", "generated", "package", "handlers", "source-roots", "include", "resources", "command"),
        "exports",
        *("export", "lint", "breaking", "publish"),
    }
)
EXPORT_FORMATS: Final = (
    *("mcp", "openai", "openai-responses", "anthropic", "gemini", "gemini-openapi"),
    *("jsonschema", "typescript", "vectors", "contract"),
)
"""What ``exports`` may name: a provider's tool definitions, per tool set, or a file per tool (JSON Schema,
TypeScript declarations, test vectors, the published contract), each in its folder under ``exports/``."""
LANGUAGES: Final = ("typescript",)
"""What ``[export] languages`` may name: the languages gen writes a module per tool for, beside Python."""
DEFAULT_EXPORTS: Final = ("mcp", "openai", "anthropic")
"""What gen writes without an ``exports`` setting: the MCP definitions the host serves (always written) and
the two provider APIs most projects call. ``toolproof export --format`` prints any format on demand."""
_IDENTIFIER_PATH = r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$"


class ProjectError(ToolproofError):
    """A project's settings cannot be read or make no sense (exit code 2, with the file named)."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")
        self.where = where
        self.message = message


@dataclass(frozen=True, slots=True)
class ProjectConfig:
    """One project's settings, with every path absolute."""

    root: Path
    config_file: Path | None
    """The file the settings came from; None for the built-in project."""
    contracts: Path
    generated: Path
    package: str
    handlers: str
    source_roots: tuple[Path, ...]
    include: tuple[str, ...]
    resources: tuple[str, ...]
    command: str
    export: Mapping[str, Any] = field(default_factory=dict)
    lint: Mapping[str, Any] = field(default_factory=dict)
    exports: tuple[str, ...] = DEFAULT_EXPORTS
    """The formats gen writes under ``exports/`` (``EXPORT_FORMATS``), in that order; ``mcp`` always among them."""
    publish: Mapping[str, Any] = field(default_factory=dict)
    """``[tool.toolproof.publish]``: the server.json and MCPB manifest gen writes (``generator.publishing``)."""

    @property
    def is_builtin(self) -> bool:
        """Whether this project's tools are toolproof's own built-in ones."""
        return self.package == _BUILTIN_PACKAGE

    @property
    def name(self) -> str:
        """How messages name the project: its folder, or the built-in tools."""
        return "toolproof built-in tools" if self.is_builtin and self.config_file is None else str(self.root)

    def relative(self, path: Path) -> str:
        """``path`` relative to the project folder, POSIX style (for generated files and messages)."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return path.as_posix()


_BUILTIN_PACKAGE: Final = "toolproof.builtin.generated"


def builtin_project() -> ProjectConfig:
    """The built-in tools as a project: the package's own contracts, generated package and handlers."""
    from toolproof.runtime.host import BUILTIN_RESOURCES

    package_dir = Path(__file__).resolve().parent.parent
    builtin_dir = package_dir / "builtin"
    return ProjectConfig(
        root=package_dir.parent,  # paths read as in this repository: toolproof/builtin/contracts/x.yaml
        config_file=None,
        contracts=builtin_dir / "contracts",
        generated=builtin_dir / "generated",
        package=_BUILTIN_PACKAGE,
        handlers="toolproof.builtin.handlers",
        source_roots=(),
        include=(),
        resources=(BUILTIN_RESOURCES,),
        command="make gen",
        exports=EXPORT_FORMATS,  # the package ships every format: the reference for each provider
    )


def has_settings(path: Path) -> bool:
    """Whether ``path`` (a pyproject.toml or toolproof.toml) holds toolproof settings; a broken file counts."""
    try:
        return _table(path) is not None
    except ProjectError:
        return True


def default_config(root: Path) -> ProjectConfig:
    """The settings of a folder that has none: every default, rooted there."""
    root = root.resolve()
    return ProjectConfig(
        root=root,
        config_file=None,
        contracts=root / "contracts",
        generated=root / "generated",
        package="generated",
        handlers="handlers",
        source_roots=(root,),
        include=(),
        resources=(),
        command="toolproof gen",
    )


def _table(path: Path) -> Mapping[str, Any] | None:
    import tomllib  # here: outside any project no settings file is read, and its import costs ~2 ms

    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as exc:
        raise ProjectError(str(path), f"cannot be read ({exc.strerror})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ProjectError(str(path), f"is not valid TOML ({exc})") from None
    table = data.get("tool", {}).get("toolproof")
    if table is None and path.name == "toolproof.toml":
        table = data  # a toolproof.toml may hold the settings at its top level
    return table if isinstance(table, Mapping) else None


def _strings(where: str, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ProjectError(where, f"{key} must be a list of non-empty strings")
    return tuple(value)


def _string(where: str, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise ProjectError(where, f"{key} must be a non-empty string")
    return value


def _command(where: Path, value: Any) -> str:
    """The ``command`` setting, checked: generated headers write it on their first line, as a comment.

    Raises:
        ProjectError: at the setting's line, when it holds a control or line-breaking character (which
            would end the comment and make every generated file a syntax error) or ``coding:`` /
            ``coding=`` (which on a Python file's first two lines declares its encoding, PEP 263).
    """
    import re

    command = _string(str(where), "command", value)
    odd = next((ch for ch in command if not ch.isprintable()), None)
    if odd is not None:
        raise ProjectError(
            _line_of(where, "command"),
            f"command {command!r} holds the control character {odd!r}; generated headers write it on one "
            "comment line: give the command on one line of printable text",
        )
    declaration = re.search(r"coding[:=]", command)
    if declaration:
        raise ProjectError(
            _line_of(where, "command"),
            f"command {command!r} holds {declaration.group(0)!r}, which on a generated file's first line "
            "declares its encoding (PEP 263); write the command without it",
        )
    return command


def _exports(where: Path, value: Any) -> tuple[str, ...]:
    """The ``exports`` setting, checked: known formats, ``mcp`` added (the host serves from it), in a fixed order.

    Raises:
        ProjectError: at the setting's line, naming the unknown format and the closest known one.
    """
    import difflib

    located = _line_of(where, "exports")
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProjectError(located, f"exports must be a list of formats, from: {', '.join(EXPORT_FORMATS)}")
    for name in value:
        if name not in EXPORT_FORMATS:
            close = difflib.get_close_matches(name, EXPORT_FORMATS, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ProjectError(located, f"exports: unknown format {name!r}; {hint}known: {', '.join(EXPORT_FORMATS)}")
    return tuple(f for f in EXPORT_FORMATS if f in value or f == "mcp")


def _languages(where: Path, value: Any) -> None:
    """Check ``[export] languages``: a list of known languages (gen would skip any other without a word).

    Raises:
        ProjectError: at the setting's line, naming the unknown language, the closest known one and every one.
    """
    import difflib

    located = _line_of(where, "languages", ("tool.toolproof.export", "export"))
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ProjectError(located, f"export.languages must be a list of languages, from: {', '.join(LANGUAGES)}")
    for name in value:
        if name not in LANGUAGES:
            close = difflib.get_close_matches(name, LANGUAGES, n=1)
            hint = f"did you mean {close[0]!r}? " if close else ""
            raise ProjectError(
                located, f"export.languages: unknown language {name!r}; {hint}known: {', '.join(LANGUAGES)}"
            )


def _line_of(path: Path, key: str, tables: tuple[str, ...] = ("", "tool.toolproof")) -> str:
    """``path:line`` of the line that sets ``key`` in one of ``tables``; the path alone when no line does.

    ``""`` is the top level: a toolproof.toml may hold the settings there.
    """
    import re

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return str(path)
    setting, table = re.compile(rf"^\s*{re.escape(key)}\s*="), re.compile(r"^\s*\[\s*([^\]\s]+)\s*\]")
    section = ""
    for number, line in enumerate(lines, 1):
        header = table.match(line)
        if header:
            section = header.group(1)
        elif section in tables and setting.match(line):
            return f"{path}:{number}"
    return str(path)


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _check_generated(where: str, root: Path, generated: str, others: Sequence[tuple[str, Path]]) -> None:
    """Refuse a generated folder ``toolproof gen`` cannot own: gen makes that folder match the contracts.

    Symlinks resolved, the folder must lie inside the project, not be the project folder itself, and
    neither hold nor lie inside any of ``others`` (the contracts, handlers and tests folders).

    Raises:
        ProjectError: naming the setting and what it collides with.
    """
    folder = (root / generated).resolve()
    setting = f"generated = {generated!r}"
    own = "give the generated files a folder of their own, such as 'generated'"
    if folder == root:
        raise ProjectError(where, f"{setting} is the project folder itself; {own}")
    if not _inside(folder, root):
        raise ProjectError(where, f"{setting} lies outside the project folder (it is {folder}); {own}")
    if folder.exists() and not folder.is_dir():
        raise ProjectError(where, f"{setting} is a file, not a folder; {own}")
    for name, other in others:
        other = other.resolve()
        if _inside(folder, other) or _inside(other, folder):
            relation = "is" if folder == other else "lies inside" if _inside(folder, other) else "holds"
            shown = other.relative_to(root).as_posix() if _inside(other, root) else str(other)
            raise ProjectError(where, f"{setting} {relation} the {name} folder '{shown}'; {own}")


def load_config(config_file: Path) -> ProjectConfig:
    """Read the settings of the project whose settings file is ``config_file``.

    Raises:
        ProjectError: the file has no toolproof settings, or a setting is wrong.
    """
    import keyword
    import re

    config_file = config_file.resolve()
    where = str(config_file)
    table = _table(config_file)
    if table is None:
        raise ProjectError(where, "has no [tool.toolproof] table")
    unknown = sorted(set(table) - _KEYS)
    if unknown:
        raise ProjectError(where, f"unknown setting(s) {', '.join(unknown)}; known: {', '.join(sorted(_KEYS))}")
    root = config_file.parent
    generated = _string(where, "generated", table.get("generated", "generated"))
    package = _string(where, "package", table.get("package", generated.strip("/").replace("/", ".")))
    handlers = _string(where, "handlers", table.get("handlers", "handlers"))
    from toolproof.runtime.host import BUILTIN_RESOURCES

    include = _strings(where, "include", table.get("include", []))
    resources = _strings(where, "resources", table.get("resources", []))
    if package == _BUILTIN_PACKAGE:
        resources = (*resources, BUILTIN_RESOURCES)
    export, lint, publish = table.get("export", {}), table.get("lint", {}), table.get("publish", {})
    if not isinstance(export, Mapping) or not isinstance(lint, Mapping) or not isinstance(publish, Mapping):
        raise ProjectError(where, "export, lint and publish must be tables")
    if "languages" in export:
        _languages(config_file, export["languages"])
    contracts = root / _string(where, "contracts", table.get("contracts", "contracts"))
    source_roots = tuple(root / p for p in _strings(where, "source-roots", table.get("source-roots", ["."])))
    handler_folders = [("handlers", p.joinpath(*handlers.split("."))) for p in source_roots or (root,)]
    _check_generated(where, root, generated, [("contracts", contracts), *handler_folders, ("tests", root / "tests")])
    for key, value in (("package", package), ("handlers", handlers)):  # after: an escaping folder is named so
        if not re.match(_IDENTIFIER_PATH, value):
            raise ProjectError(where, f"{key} {value!r} is not an importable dotted name")
        taken = [part for part in value.split(".") if keyword.iskeyword(part)]
        if taken:
            raise ProjectError(where, f"{key} {value!r} is not importable: {taken[0]!r} is a Python keyword")
    # The built-in package ships every format, without a setting too: the reference for each provider.
    default_exports = EXPORT_FORMATS if package == _BUILTIN_PACKAGE else DEFAULT_EXPORTS
    return ProjectConfig(
        root=root,
        config_file=config_file,
        contracts=contracts,
        generated=root / generated,
        package=package,
        handlers=handlers,
        source_roots=source_roots,
        include=include,
        resources=resources,
        command=_command(config_file, table.get("command", "toolproof gen")),
        export=export,
        lint=lint,
        publish=publish,
        exports=_exports(config_file, table["exports"]) if "exports" in table else default_exports,
    )


def find_project(
    explicit: Path | None = None, *, start: Path | None = None, trusted_owner: int | None = None
) -> ProjectConfig:
    """The project of ``explicit`` (a folder or settings file), else ``$TOOLPROOF_PROJECT``, else the nearest one.

    The nearest one is searched from ``start`` (default: the current folder) upward,
    and used only when it is safe to run its code (``_check_found``); files of
    ``trusted_owner`` are safe too (the owner of code already running from there).

    A folder named explicitly that has no settings but a ``contracts/`` folder
    gets the default settings. Outside any project this is the built-in project.

    Raises:
        ProjectError: ``explicit`` is not a project, or a settings file found is wrong.
    """
    if explicit is not None:
        explicit = explicit.resolve()
        if explicit.is_file():
            return load_config(explicit)
        for name in CONFIG_FILES:
            candidate = explicit / name
            if candidate.is_file() and has_settings(candidate):
                return load_config(candidate)
        if (explicit / "contracts").is_dir():  # a folder of contracts and no settings: the defaults there
            return default_config(explicit)
        raise ProjectError(
            str(explicit), "is not a toolproof project (no [tool.toolproof] in pyproject.toml, no toolproof.toml)"
        )
    named = os.environ.get(PROJECT_ENV)
    if named and start is None:
        return find_project(Path(named))
    folder = (start or Path.cwd()).resolve()
    for candidate_dir in (folder, *folder.parents):
        for name in CONFIG_FILES:
            candidate = candidate_dir / name
            if candidate.is_file() and has_settings(candidate):
                _check_found(candidate, trusted_owner)
                return load_config(candidate)
    return builtin_project()


def _check_found(config_file: Path, trusted_owner: int | None = None) -> None:
    """Refuse a settings file found by searching that another user controls: its project's code would run as us.

    Like git's ``safe.directory``: the file and its folder must be ours (under
    sudo, the invoking user's), root's (who could run anything as us anyway:
    a container image's files, say) or ``trusted_owner``'s, and the folder not
    writable by everyone (where anyone may plant a package it imports). A
    project named explicitly, with ``--project`` or ``$TOOLPROOF_PROJECT``, is
    trusted as named.

    Raises:
        ProjectError: naming the file, whose it is, and how to trust it.
    """
    if not hasattr(os, "geteuid"):  # no owners to compare (Windows)
        return
    me = os.geteuid()
    sudo = os.environ.get("SUDO_UID", "")
    allowed = {me, 0} | ({int(sudo)} if me == 0 and sudo.isdigit() else set())
    if trusted_owner is not None:
        allowed.add(trusted_owner)
    folder = config_file.parent
    owners = {config_file.stat().st_uid, folder.stat().st_uid}
    trust = f"name it with --project {folder} (or ${PROJECT_ENV}) to trust it"
    if not owners <= allowed:
        others = ", ".join(str(uid) for uid in sorted(owners - allowed))
        raise ProjectError(
            str(config_file),
            f"was found by searching up from here, but it or its folder belongs to another user (uid {others}); "
            f"toolproof runs a project's code, so it does not use one another user controls; {trust}",
        )
    if folder.stat().st_mode & 0o002:
        raise ProjectError(
            str(config_file),
            f"was found by searching up from here in a folder anyone may write to ({folder}), where anyone may "
            f"plant the packages the project imports; {trust}",
        )


def activate(config: ProjectConfig) -> None:
    """Put the project's source roots first on the import path, so its packages import as written."""
    for root in reversed(config.source_roots):
        text = str(root)
        if text in sys.path:
            sys.path.remove(text)
        sys.path.insert(0, text)


def check_importable(config: ProjectConfig) -> None:
    """Fail with a clear message when the generated package is not the project's own.

    Raises:
        RegistryError: ``package`` imports from another folder than ``generated``
            (an installed package of the same name shadows the project's).
    """
    import importlib

    try:
        module = importlib.import_module(config.package)
    except ImportError as exc:
        raise RegistryError(
            [f"{config.name}: generated package {config.package!r} cannot be imported ({exc}); run `{config.command}`"]
        ) from None
    if module.__file__ is None:  # a namespace package: the folder is there, its __init__.py is not
        raise RegistryError(
            [
                f"{config.name}: generated package {config.package!r} has no __init__.py in {config.generated}; "
                f"run `{config.command}`"
            ]
        )
    found = Path(module.__file__).resolve().parent
    if found != config.generated.resolve():
        raise RegistryError(
            [
                f"{config.name}: package {config.package!r} imports from {found}, not from the project's "
                f"{config.generated}; rename one of them or set `package` in [tool.toolproof]"
            ]
        )
