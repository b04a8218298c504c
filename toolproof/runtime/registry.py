"""Bind each contract to its handler at start-up, and fail loudly when they do not match."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from toolproof.runtime.coercion import IntegerPlan
from toolproof.runtime.coercion import plan_for as integer_plan_for
from toolproof.runtime.context import ToolContext
from toolproof.runtime.errors import RegistryError
from toolproof.runtime.nulls import NullPlan, plan_for
from toolproof.runtime.spec import ToolSpec
from toolproof.runtime.validation import SchemaValidator

__all__ = ["BoundTool", "Handler", "bind", "default_handler_ref", "stray_handler_modules"]

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


def _extra_handler_modules(specs: Iterable[ToolSpec], package: str) -> list[str]:
    try:
        pkg = importlib.import_module(package)
    except ModuleNotFoundError:
        return []
    return stray_handler_modules((spec.handler for spec in specs), package, pkg.__path__)


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
