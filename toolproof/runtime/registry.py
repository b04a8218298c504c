"""Bind each contract to its handler at start-up, and fail loudly when they do not match."""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolproof.runtime.coercion import IntegerPlan
from toolproof.runtime.coercion import plan_for as integer_plan_for
from toolproof.runtime.context import ToolContext
from toolproof.runtime.errors import RegistryError
from toolproof.runtime.nulls import NullPlan, plan_for
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.validation import SchemaValidator

__all__ = [
    "BoundTool",
    "Handler",
    "bind",
    "default_handler_ref",
    "module_file",
    "stray_handler_modules",
    "top_level_names",
    "unfound_handler",
]

Handler = Callable[[Any, ToolContext], Any]


@dataclass(frozen=True, slots=True)
class BoundTool:
    """A contract with its handler and its compiled validators."""

    spec: ToolSpec
    handler: Handler
    input: SchemaValidator
    output: SchemaValidator
    nulls: NullPlan | None = None
    """Optional arguments whose null means "absent" (sent by strict-mode providers)."""
    integers: IntegerPlan | None = None
    """Where the input schema says integer, so whole-number floats there reach the handler as ints."""

    @classmethod
    def build(cls, spec: ToolSpec, handler: Handler) -> BoundTool:
        """Bind ``handler`` to ``spec``, compiling its validators once."""
        return cls(
            spec,
            handler,
            SchemaValidator(spec.input_schema),
            SchemaValidator(spec.output_schema),
            plan_for(spec.input_schema),
            integer_plan_for(spec.input_schema),
        )


def default_handler_ref(module: str, package: str = "handlers") -> str:
    """The conventional handler of a contract: ``<handlers package>.<module>:handle``."""
    return f"{package}.{module}:handle"


def _resolve(ref: str) -> Handler:
    module_name, _, attr = ref.partition(":")
    module = importlib.import_module(module_name)
    handler = getattr(module, attr or "handle", None)
    if not callable(handler):
        raise AttributeError(f"{module_name} has no callable {attr or 'handle'!r}")
    return handler  # type: ignore[no-any-return]


def stray_handler_modules(handlers: Iterable[str], package: str, folders: Iterable[str]) -> list[str]:
    """The public modules of ``package`` (found in ``folders``) that none of ``handlers`` is in, sorted.

    The rule serve applies at start-up (``bind``) and lint applies to the folder on disk, without
    importing the project's code: a module whose name does not start with ``_``, as ``pkgutil`` lists
    it, that no ``module:function`` in ``handlers`` names, nor holds (a sub-package with a handler inside).
    """
    import pkgutil  # here: a one-shot call binds its one tool without looking for strays

    claimed = {handler.partition(":")[0] for handler in handlers}
    found = [f"{package}.{info.name}" for info in pkgutil.iter_modules(list(folders)) if not info.name.startswith("_")]
    return sorted(name for name in found if name not in claimed and not _holds_one(name, claimed))


def _holds_one(package: str, modules: set[str]) -> bool:
    """Whether one of ``modules`` lies inside ``package`` (a handler may be ``handlers.text.counting:count``)."""
    return any(module.startswith(f"{package}.") for module in modules)


def module_file(module: str, roots: Iterable[Path]) -> tuple[bool, Path | None]:
    """Where the source of ``module`` is, found without importing anything.

    Its top package is looked for in ``roots`` (the project's source roots, which lead the import path),
    else it is one already imported (``toolproof``). A compiled module is not judged.

    Returns:
        (False, None) when that cannot be known: the top package is in none of them, or the module is
        compiled; else (True, its ``.py`` file), or (True, None) when the package holds no such module.
    """
    parts = module.split(".")
    bases = [root for root in roots if (root / parts[0]).is_dir() or (root / f"{parts[0]}.py").is_file()]
    if not bases:
        top = sys.modules.get(parts[0])
        if top is not None and len(parts) > 1 and not hasattr(top, "__path__"):
            return True, None  # a plain module (``os``) holds no modules
        bases = [Path(folder).parent for folder in getattr(top, "__path__", ())]
    if not bases:
        return False, None
    for base in bases:
        folder = base.joinpath(*parts[:-1])
        for candidate in (folder / f"{parts[-1]}.py", folder / parts[-1] / "__init__.py"):
            if candidate.is_file():
                return True, candidate
        if [*folder.glob(f"{parts[-1]}.*.so"), *folder.glob(f"{parts[-1]}.*.pyd")]:
            return False, None
    return True, None


def top_level_names(tree: ast.Module) -> set[str] | None:
    """The names a module binds at its top level (in ``if``/``try`` blocks too); None when that cannot be told.

    A ``from x import *`` or a module ``__getattr__`` may bind any name.
    """
    names: set[str] = set()

    def visit(body: Iterable[ast.stmt]) -> bool:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names.update(n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name))
            elif isinstance(node, ast.Import | ast.ImportFrom):
                if any(alias.name == "*" for alias in node.names):
                    return False
                names.update(alias.asname or alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.If | ast.Try | ast.With | ast.For | ast.While | ast.TryStar):
                blocks = [getattr(node, key, []) for key in ("body", "orelse", "finalbody")]
                blocks += [handler.body for handler in getattr(node, "handlers", [])]
                if not all(visit(block) for block in blocks):
                    return False
        return True

    return names if visit(tree.body) and "__getattr__" not in names else None


def unfound_handler(ref: str, roots: Iterable[Path]) -> str | None:
    """Why ``bind`` would find no handler ``ref`` (``module:function``), judged from the source, never run.

    Lint's rule (``missing-handler``): the module must exist and bind the function's name at its top
    level. Where that cannot be known without running code (a package outside ``roots``, a star
    import, a module ``__getattr__``), nothing is said.

    Returns:
        The reason, a clause (``no module handlers.echo``), or None.
    """
    module, _, attr = ref.partition(":")
    attr = attr or "handle"
    known, path = module_file(module, list(roots))
    if not known:
        return None
    if path is None:
        return f"no module {module} (no {module.replace('.', '/')}.py)"
    try:
        tree = ast.parse(path.read_bytes(), str(path))
    except SyntaxError as exc:
        return f"{module} does not parse (line {exc.lineno}: {exc.msg})"
    except (OSError, ValueError) as exc:
        return f"{module} cannot be read ({exc})"
    names = top_level_names(tree)
    if names is None or attr in names:
        return None
    functions = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    import difflib  # here: only a handler that is not found needs a suggestion (~1 ms of every start-up)

    close = difflib.get_close_matches(attr, functions, n=1)
    return f"{module} defines no {attr!r}" + (f" (did you mean {close[0]!r}?)" if close else "")


def _extra_handler_modules(specs: Iterable[ToolSpec], package: str) -> list[str]:
    try:
        pkg = importlib.import_module(package)
    except ModuleNotFoundError:
        return []
    folders = getattr(pkg, "__path__", None)
    if folders is None:  # a plain module (``handlers = "os"``): bind names each handler it cannot find
        return []
    return stray_handler_modules((spec.handler for spec in specs), package, folders)


def bind(
    specs: Iterable[ToolSpec], *, handlers_package: str = "toolproof.builtin.handlers", check_extra: bool = True
) -> list[BoundTool]:
    """Import every contract's handler and compile its validators.

    Args:
        specs: the contracts to serve.
        handlers_package: the package whose public modules must each serve a contract.
        check_extra: report public modules of ``handlers_package`` that serve no contract.

    Raises:
        RegistryError: naming every missing handler and every extra handler module.
    """
    specs = list(specs)
    problems: list[str] = []
    bound: list[BoundTool] = []
    for spec in specs:
        try:
            handler = _resolve(spec.handler)
        except Exception as exc:  # an import that fails in any way is a missing handler, said plainly
            problems.append(f"contract '{spec.name}' ({spec.origin}) has no handler {spec.handler}: {exc}")
            continue
        bound.append(BoundTool.build(spec, handler))
    if check_extra:
        for module in _extra_handler_modules(specs, handlers_package):
            problems.append(f"handler module {module} serves no contract; remove it or add a contract")
    if problems:
        raise RegistryError(problems)
    return bound
