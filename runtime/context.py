"""What a handler knows about the call it serves: its tool, the session, the host's resources.

A host hands its tools their dependencies (a database handle, an HTTP client,
the file tools' allowed folders) as *resources*: plain objects whose class
names them with a ``resource`` class attribute. A contract lists the names it
``needs``; a tool whose needs the host did not supply is not served. A handler
reads a resource by its class, typed::

    class Database:
        resource: ClassVar[str] = "database"
        ...

    def handle(args: Input, ctx: ToolContext) -> Output:
        db = ctx.need(Database)      # a Database, or internal_error if the host gave none
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from toolproof.runtime.errors import RegistryError

if TYPE_CHECKING:
    from toolproof.runtime.spec import ToolSpec

__all__ = ["EnumSource", "ResourceCheck", "Resources", "ToolContext", "resource_name"]

R = TypeVar("R")


def resource_name(kind: type[object]) -> str:
    """The name a resource class is supplied and needed under (its ``resource`` attribute).

    Raises:
        TypeError: the class has no ``resource`` string attribute.
    """
    name = getattr(kind, "resource", None)
    if not isinstance(name, str) or not name:
        raise TypeError(f"{kind.__qualname__} is not a resource: it has no `resource: ClassVar[str]` name")
    return name


@runtime_checkable
class EnumSource(Protocol):
    """A resource that supplies the values of a contract's dynamic enums (``dynamic_enums: {field: source}``)."""

    def enum_values(self, source: str) -> list[str] | None:
        """The values for ``source`` now, or None when this resource does not supply it."""


@runtime_checkable
class ResourceCheck(Protocol):
    """A resource that checks, at start-up, that it can serve a tool that needs it."""

    def check(self, spec: ToolSpec) -> list[str]:
        """Problems that stop ``spec`` from being served (empty when it can be)."""


class Resources(Mapping[str, object]):
    """The resources of one host, by name; read-only once built.

    Raises:
        RegistryError: two resources share a name.
    """

    __slots__ = ("_items",)

    def __init__(self, items: Iterable[object] = ()) -> None:
        found: dict[str, object] = {}
        problems: list[str] = []
        for item in items:
            name = resource_name(type(item))
            if name in found:
                problems.append(f"two resources are named {name!r}: {found[name]!r} and {item!r}")
            found[name] = item
        if problems:
            raise RegistryError(problems)
        self._items: Mapping[str, object] = MappingProxyType(found)

    def __getitem__(self, name: str) -> object:
        return self._items[name]

    def __iter__(self) -> Any:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def get_typed(self, kind: type[R]) -> R | None:
        """The resource supplied under ``kind``'s name, or None.

        Raises:
            TypeError: the resource under that name is not a ``kind``.
        """
        item = self._items.get(resource_name(kind))
        if item is None:
            return None
        if not isinstance(item, kind):
            raise TypeError(
                f"resource {resource_name(kind)!r} is a {type(item).__qualname__}, not a {kind.__qualname__}"
            )
        return item


@dataclass(frozen=True, slots=True)
class ToolContext:
    """Per-call facts a handler may use: its tool, the caller's session, the host's resources."""

    tool: str
    session: str | None = None
    spec: ToolSpec | None = None
    """The contract being served (its settings, e.g. ``spec.settings["symlinks"]``)."""
    resources: Resources = field(default_factory=Resources)

    def get(self, kind: type[R]) -> R | None:
        """The host's resource of this class, or None when the host supplied none."""
        return self.resources.get_typed(kind)

    def need(self, kind: type[R]) -> R:
        """The host's resource of this class.

        Raises:
            LookupError: the host supplied none (the call ends in ``internal_error``;
                declare it in the contract's ``needs`` so the tool is not served instead).
        """
        item = self.resources.get_typed(kind)
        if item is None:
            raise LookupError(
                f"tool {self.tool!r} needs resource {resource_name(kind)!r}, which the host did not supply"
            )
        return item

    def setting(self, name: str, default: Any = None) -> Any:
        """A contract setting read by a family of tools (``symlinks``, ``skill_gate``), or ``default``."""
        if self.spec is None:
            return default
        return self.spec.settings.get(name, default)
