"""The runtime's view of one contract, read from what ``make gen`` wrote.

The runtime never reads YAML: ``<generated package>/contracts/<module>.json``
carries the checked, normalised contract, and the package's ``CONTRACTS`` lists
the modules. Fields that belong to one family of tools (``symlinks`` and
``hardlinks`` for the file layer, ``skill_gate`` for the skills) travel in
``settings``; the core never reads them.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any, Final

from toolproof.runtime.errors import RegistryError, inherited_errors
from toolproof.runtime.questions import AskSpec
from toolproof.runtime.regular import NotRegular, TooLarge, read_regular
from toolproof.runtime.template import Template

__all__ = [
    "BUILTIN_PACKAGE",
    "MAX_GENERATED_BYTES",
    "SETTINGS",
    "ErrorOutput",
    "ErrorSpec",
    "ToolSpec",
    "generated_dir",
    "generated_json",
    "generated_problem",
    "load_specs",
]

BUILTIN_PACKAGE = "toolproof.builtin.generated"
"""The generated package of the built-in tools."""

SETTINGS = ("symlinks", "hardlinks", "skill_gate")
"""Contract fields read by a family of tools, not by the core; they travel in ``ToolSpec.settings``."""

JSON = Any

MAX_GENERATED_BYTES: Final = 64 * 1024 * 1024
"""The most a host reads of one generated JSON file (the built-in tools' largest, openapi.json, is about 80 KiB)."""


@dataclass(frozen=True, slots=True)
class ErrorSpec:
    """One catalogue entry: a code, its message template and a hint for the model."""

    code: str
    message: Template
    hint: str | None
    status: int
    """HTTP status when served over HTTP."""


@dataclass(frozen=True, slots=True)
class ErrorOutput:
    """``render.error_output``: the structured object every error of a tool carries, beside its code.

    Each key maps to a literal JSON value (kept as it is, booleans booleans) or
    to a string template over the call's values (the input fields, the error's
    params, ``code``, ``message`` and ``hint``). A string that is exactly one
    placeholder (``"{size}"``) takes that value with its type; any other string
    renders as text. A key whose placeholders name a value the call lacks (an
    argument the caller left out, a param this error has not) is left out.
    """

    entries: tuple[tuple[str, Template | JSON], ...]

    @classmethod
    def parse(cls, data: Mapping[str, JSON]) -> ErrorOutput:
        """Parse the templates of ``render.error_output`` once.

        Raises:
            TemplateSyntaxError: a string is not a valid template (lint refuses such a contract first).
        """
        return cls(tuple((key, Template(value) if isinstance(value, str) else value) for key, value in data.items()))

    def render(self, values: Mapping[str, object]) -> dict[str, JSON]:
        """The object for one error, its templates filled from ``values``.

        Raises:
            TypeError, ValueError: a value a template inserts as text has no JSON form.
        """
        out: dict[str, JSON] = {}
        for key, entry in self.entries:
            if not isinstance(entry, Template):
                out[key] = entry
            elif all(name in values for name in entry.fields):
                fields = entry.fields
                whole = len(fields) == 1 and entry.source == f"{{{fields[0]}}}"
                out[key] = values[fields[0]] if whole else entry.render(values)
        return out


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A checked contract as the runtime needs it: what dispatch, hosts and conformance read, nothing else.

    Titles, descriptions, annotations and versions reach clients through the
    generated exports (MCP ``tools/list``, OpenAPI), not through the runtime.
    """

    name: str
    module: str
    handler: str
    input_schema: Mapping[str, JSON]
    output_schema: Mapping[str, JSON]
    errors: Mapping[str, ErrorSpec]
    render_result: Template
    render_error: Template
    toolsets: tuple[str, ...]
    needs: tuple[str, ...]
    """Resources the host must supply for this tool to be served."""
    settings: Mapping[str, JSON]
    """Family settings (``symlinks``, ``skill_gate``), read by the code of that family."""
    dynamic_enums: Mapping[str, str]
    examples: tuple[Mapping[str, JSON], ...]
    source: str
    package: str = BUILTIN_PACKAGE
    """The generated package the contract came from (names its origin in messages)."""
    render_error_output: ErrorOutput | None = None
    """The structured object every error carries (``render.error_output``); None when the contract has none."""
    timeout: float | None = None
    """Seconds a call may run before it ends in ``timed_out``; None: no limit, the handler runs inline."""
    attaches: frozenset[str] = frozenset()
    """Kinds of content block the handler may attach (``ctx.attach``); any other is refused."""
    asks: Mapping[str, AskSpec] = field(default_factory=dict)
    """The questions the handler may ask the client (``ctx.ask``), by name; any other is refused."""
    scopes: tuple[str, ...] = ()
    """OAuth scopes a caller's token must hold to call the tool, when the host serves OAuth."""
    kind: str = "tool"
    """``tool``, ``resource`` (served by ``resources/read``) or ``prompt`` (``prompts/get``): only tools are called."""
    resource: Mapping[str, JSON] | None = None
    """A resource's ``uri`` (or URI template), ``mime_type`` and ``max_bytes``."""
    completions: Mapping[str, str] | None = None
    """A resource's or prompt's arguments whose completions a host's resource supplies, by source."""

    @classmethod
    def from_data(cls, data: Mapping[str, JSON], package: str = BUILTIN_PACKAGE) -> ToolSpec:
        """Build a spec from the generated contract JSON.

        The standard errors are added to the catalogue, so every code a call
        can produce is found in ``errors``.
        """
        asks = {name: AskSpec.from_data(name, entry) for name, entry in data.get("asks", {}).items()}
        errors = {
            code: ErrorSpec(code, std.template, std.hint, std.status)
            for code, std in inherited_errors(bool(asks)).items()
        }
        for code, entry in data["errors"].items():
            errors[code] = ErrorSpec(code, Template(entry["message"]), entry.get("hint"), entry.get("status", 422))
        error_output = data["render"].get("error_output")
        return cls(
            name=data["name"],
            module=data["module"],
            handler=data["handler"],
            input_schema=data["input"],
            output_schema=data["output"],
            errors=errors,
            render_result=Template(data["render"]["result"]),
            render_error=Template(data["render"]["error"]),
            toolsets=tuple(data.get("toolsets", ())),
            needs=tuple(data.get("needs", ())),
            settings={key: data[key] for key in SETTINGS if key in data},
            dynamic_enums=data.get("dynamic_enums", {}),
            examples=tuple(data.get("examples", ())),
            source=data["source"],
            package=package,
            render_error_output=ErrorOutput.parse(error_output) if error_output else None,
            timeout=data.get("timeout"),
            scopes=tuple(data.get("scopes", ())),
            attaches=frozenset(data.get("attaches", ())),
            asks=MappingProxyType(asks),
            kind=data.get("kind", "tool"),
            resource=data.get("resource"),
            completions=data.get("completions"),
        )

    @property
    def origin(self) -> str:
        """Where the contract comes from, for messages: its source file and package."""
        return f"{self.source} in {self.package}"


def generated_dir(package: str = BUILTIN_PACKAGE) -> Path:
    """The folder of a generated package (imported, so it must be on the import path)."""
    module = importlib.import_module(package)
    return Path(module.__file__ or "").parent


def generated_problem(package: str, relative: str, reason: str) -> str:
    """The line that says a generated file cannot be used, and that `toolproof gen` makes it anew."""
    return f"{package}: {relative} {reason}; run `toolproof gen`"


def generated_json(package: str, relative: str) -> JSON:
    """The JSON a file of a generated package holds, read as what another process may be rewriting.

    Args:
        package: the generated package (imported, so it must be on the import path).
        relative: the file, relative to the package's folder (POSIX).

    Raises:
        RegistryError: the file is missing, is not a regular file (a FIFO never blocks the
            read), is empty or larger than ``MAX_GENERATED_BYTES``, or is not UTF-8 JSON.
    """
    return _load_json(_package(package)[1], package, relative)


def _package(package: str) -> tuple[Any, Path]:
    """The generated package, imported, and its folder.

    Raises:
        RegistryError: it cannot be imported, or its ``__init__.py`` is missing or not a regular file.
    """
    try:
        module = importlib.import_module(package)
    except ImportError as exc:
        raise RegistryError(
            [f"generated package {package!r} cannot be imported ({exc}); run `toolproof gen`"]
        ) from None
    init = getattr(module, "__file__", None)
    if init is None:  # a namespace package: Python found no regular __init__.py
        raise RegistryError(
            [generated_problem(package, "__init__.py", "cannot be loaded (missing, or not a regular file)")]
        )
    return module, Path(init).parent


def _load_json(folder: Path, package: str, relative: str) -> JSON:
    try:
        data = read_regular(folder / relative, MAX_GENERATED_BYTES)
        if data:
            return json.loads(data)
        reason = "empty"
    except OSError as exc:
        reason = exc.strerror or str(exc)
    except UnicodeDecodeError as exc:
        reason = f"not UTF-8: {exc.reason} at byte {exc.start}"
    except RecursionError:
        reason = "not JSON: nested too deeply"
    except (NotRegular, TooLarge) as exc:
        reason = str(exc)
    except ValueError as exc:
        reason = f"not JSON: {exc}"
    raise RegistryError([generated_problem(package, relative, f"cannot be loaded ({reason})")])


def load_specs(package: str = BUILTIN_PACKAGE, modules: tuple[str, ...] | None = None) -> list[ToolSpec]:
    """Load the contracts a generated package holds (all, or the named modules), in declared order.

    Raises:
        RegistryError: the package cannot be imported, or a contract file is missing, is not a regular
            file, or is not valid contract JSON.
    """
    generated, folder = _package(package)
    if modules is None:
        modules = getattr(generated, "CONTRACTS", None)
        if not isinstance(modules, tuple) or not all(isinstance(name, str) for name in modules):
            raise RegistryError([generated_problem(package, "__init__.py", "does not list its CONTRACTS")])
    specs: list[ToolSpec] = []
    problems: list[str] = []
    for module in modules:
        relative = f"contracts/{module}.json"
        try:
            specs.append(ToolSpec.from_data(_load_json(folder, package, relative), package))
        except RegistryError as exc:
            problems.extend(exc.problems)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            problems.append(
                generated_problem(package, relative, f"cannot be loaded (not a contract gen writes: {exc!r})")
            )
    if problems:
        raise RegistryError(problems)
    return specs
