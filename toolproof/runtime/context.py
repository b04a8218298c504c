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

A long handler may tell its caller how far it got, and log to it, through the
transport serving the call (``ctx.progress(50, total=100)``,
``ctx.log("info", "started")``). Transports that can carry these (MCP, over stdio
or Streamable HTTP) install a reporter around the call with ``reporting``; under
any other (the CLI, the REST routes, provider adapters) both are silent no-ops,
so a handler never depends on being heard. ``ctx.ask("confirm_delete")`` asks the client a question
its contract declares (``toolproof.runtime.questions``). ``ctx.attach(block)`` adds an MCP
content block (an image, audio, an embedded resource) to the call's
``ToolResult``, which every transport then carries as far as it can (the
documentation's contract pages, "Results beyond text").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from toolproof.runtime.errors import RegistryError
from toolproof.runtime.questions import Answer, InputRequired, Question, current_asking

if TYPE_CHECKING:
    from toolproof.runtime.spec import ToolSpec

__all__ = [
    "Caller",
    "EnumSource",
    "Reporter",
    "ResourceCheck",
    "Resources",
    "ToolContext",
    "attaching",
    "calling_as",
    "current_caller",
    "reporting",
    "resource_name",
]

Reporter = Callable[[str, Mapping[str, Any]], None]
"""Takes a handler's report: ``("progress", {progress, total?, message?})`` or
``("message", {level, logger, data})``."""

_reporter: ContextVar[Reporter | None] = ContextVar("toolproof_reporter", default=None)
_attached: ContextVar[list[dict[str, Any]] | None] = ContextVar("toolproof_attached", default=None)
_caller: ContextVar[Caller | None] = ContextVar("toolproof_caller", default=None)


@dataclass(frozen=True, slots=True)
class Caller:
    """Who made a call, as the host authenticated them: the claims of a verified OAuth access token."""

    subject: str | None
    """The token's ``sub``: the user (or, for a client's own token, the client)."""
    client_id: str | None
    """The OAuth client the token was issued to (``client_id``, else ``azp``)."""
    scopes: frozenset[str]
    """The scopes the token grants (``scope``, space-separated, or ``scp``)."""
    issuer: str | None = None
    """The authorization server that issued the token (``iss``)."""


@contextmanager
def calling_as(caller: Caller | None) -> Iterator[None]:
    """Make ``caller`` the ``ToolContext.caller`` of calls made inside this block (a transport sets it per request)."""
    token = _caller.set(caller)
    try:
        yield
    finally:
        _caller.reset(token)


def current_caller() -> Caller | None:
    """The caller of the call running now (``calling_as``), or None: what ``ToolContext.caller`` reads."""
    return _caller.get()


@contextmanager
def reporting(reporter: Reporter | None) -> Iterator[None]:
    """Route the progress and log reports of calls made inside this block to ``reporter`` (None: drop them).

    A context variable rather than an argument, so ``Runtime.call`` keeps one
    signature for every transport; it follows the call into the thread that runs it.
    """
    token = _reporter.set(reporter)
    try:
        yield
    finally:
        _reporter.reset(token)


@contextmanager
def attaching(blocks: list[dict[str, Any]]) -> Iterator[None]:
    """Collect into ``blocks`` the content blocks handlers attach inside this block (``ToolContext.attach``).

    ``Runtime.call`` opens one around each call of a tool whose contract declares ``attaches``, and
    puts what it collected in the ``ToolResult``; a handler called outside it attaches nowhere.
    """
    token = _attached.set(blocks)
    try:
        yield
    finally:
        _attached.reset(token)


R = TypeVar("R")
_BLOCKS = ("text", "image", "audio", "resource", "resource_link")
_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


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

    @property
    def caller(self) -> Caller | None:
        """Who made this call, when the host authenticates callers with OAuth (``serve http --oauth-issuer``).

        None under static bearer tokens, without authentication, and on stdio.
        """
        return _caller.get()

    def progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """Tell the caller how far the call got (MCP ``notifications/progress``); a no-op where none listens."""
        reporter = _reporter.get()
        if reporter is None:
            return
        params: dict[str, Any] = {"progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        reporter("progress", params)

    def log(self, level: str, data: Any) -> None:
        """Send the caller a log message (MCP ``notifications/message``, syslog ``level``); a no-op where none listens.

        Raises:
            ValueError: ``level`` is not one of MCP's levels (debug ... emergency).
        """
        if level not in _LEVELS:
            raise ValueError(f"unknown log level {level!r}; one of {', '.join(_LEVELS)}")
        reporter = _reporter.get()
        if reporter is not None:
            reporter("message", {"level": level, "logger": self.tool, "data": data})

    def attach(self, block: Mapping[str, Any]) -> None:
        """Add an MCP content block (``image``, ``audio``, ``resource``, ``resource_link``, ``text``) to the result.

        The blocks are the ``ToolResult``'s ``attached``, and follow the rendered text in its MCP
        ``CallToolResult`` (``to_mcp``); transports that cannot carry them (the CLI, the REST routes,
        most provider adapters) drop them, so the structured output must still say what the model
        needs. A no-op when the handler is called outside ``Runtime.call``.

        The contract must declare the kind (``attaches: [image]``), so every provider export can say what
        it drops; an undeclared kind is refused wherever the call runs, and the call ends in ``internal_error``.

        Raises:
            ValueError: the block has no known ``type``, or one the tool's contract does not declare.
        """
        kind = block.get("type")
        if kind not in _BLOCKS:
            raise ValueError(f"unknown content block type {kind!r}; one of {', '.join(_BLOCKS)}")
        if self.spec is not None and kind not in self.spec.attaches:
            raise ValueError(
                f"tool {self.tool!r} attached a {kind!r} block, which its contract does not declare; "
                f"add it to the contract's `attaches` ({self.spec.source})"
            )
        blocks = _attached.get()
        if blocks is not None:
            blocks.append(dict(block))

    def ask(self, question: str, **params: object) -> Answer:
        """Ask the client the contract's question ``question`` (``asks``), its message filled from the call's
        arguments and ``params``; returns the user's answer (``accepted``, ``value``).

        Ask before acting: when the call holds no answer yet, this raises ``InputRequired`` (not an
        ``Exception``: let it pass), the transport asks the client, and the handler runs again from the top
        with the answer (``toolproof.runtime.questions``). Where no client can be asked, the call ends in
        ``input_unavailable``.

        Raises:
            ValueError: the contract declares no such question (the call ends in ``internal_error``).
            KeyError: the message names a placeholder neither the arguments nor ``params`` fill.
            InputRequired: the call holds no answer to it yet.
        """
        asks = self.spec.asks if self.spec is not None else {}
        spec = asks.get(question)
        if spec is None:
            where = f" ({self.spec.source})" if self.spec is not None else ""
            raise ValueError(
                f"tool {self.tool!r} asked {question!r}, which its contract does not declare; "
                f"add it to the contract's `asks`{where}"
            )
        answers, arguments = current_asking()
        if answers is not None and question in answers:
            return answers[question]
        message = spec.message.render({**arguments, **params})
        raise InputRequired(Question(question, spec.kind, message, spec.schema))

    def setting(self, name: str, default: Any = None) -> Any:
        """A contract setting read by a family of tools (``symlinks``, ``skill_gate``), or ``default``."""
        if self.spec is None:
            return default
        return self.spec.settings.get(name, default)
