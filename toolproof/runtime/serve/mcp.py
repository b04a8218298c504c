"""The MCP protocol core: one connection's (or a stateless host's) state, answering decoded messages.

Protocol: the ``initialize`` handshake (revisions 2024-11-05 to 2025-11-25,
negotiated) and the 2026-07-28 ``server/discover``; ``tools/list`` in a
deterministic order (sorted by name); ``tools/call`` answers tool errors as
results with ``isError`` and the catalogued code (and the contract's error
object, never ``structuredContent``, which clients hold to the tool's
``outputSchema``) in ``_meta``; unknown tools, unknown methods and malformed
messages get JSON-RPC errors: params that are not an object (null included)
and an ``initialize`` without its protocolVersion, capabilities and clientInfo
are Invalid Params; an object that is no request, notification or response is
an Invalid Request. ``tools/list`` sends every tool in one page, so any cursor
is an invalid one (-32602). Each connection is one session, so the skill gate binds tokens to it.

Before ``initialize`` has been answered only ``ping`` and ``server/discover``
are served, and any request that carries the 2026-07-28 envelope (the
``io.modelcontextprotocol/protocolVersion`` key in ``params._meta``): that
revision has no handshake, each request says its version. Every other request
gets an Invalid Request error.

One protocol core serves both transports: ``McpServer.answer`` answers one
decoded message (read and written as ``jsonrpc`` frames them); stdio
(``serve_stdio``, in ``stdio``) and Streamable HTTP (``streamable``) only move bytes. A transport may tell
``answer`` which era a request belongs to (HTTP decides it from the
``MCP-Protocol-Version`` header); when it does not (stdio, HTTP without the
header), a request whose ``_meta`` holds the version key is a 2026-07-28 one,
as the official SDKs read it (the key exists only in that revision's envelope),
``initialize`` excepted. A 2026-07-28 request must carry the whole envelope
(protocol version and client capabilities, and a known logLevel if any, else
-32602), and the methods that revision removed (``ping``,
``logging/setLevel``) are not found there; an envelope naming another version
gets -32022 (``revisions``). Every 2026-07-28 result carries
``resultType`` and the server's info in ``_meta``; cacheable ones (``server/discover``,
``tools/list``) carry ``ttlMs`` and ``cacheScope``. A server built with
``handshake=False`` (HTTP, which keeps no sessions) serves 2025 requests
without a prior ``initialize``, as stateless operation allows.

Progress and log notifications a handler reports (``ToolContext.progress``,
``ToolContext.log``) reach the caller through the ``notify`` callback the
transport passes to ``answer``: progress only when the request carried a
``progressToken``, log messages only at or above the level the client asked for
(``logging/setLevel`` on stdio; the ``_meta`` logLevel in 2026-07-28; on the
stateless HTTP core, which cannot keep one client's level apart from another's,
``STATELESS_LOG_LEVEL`` for every 2025 request).

A tool whose contract declares questions (``asks``, ``ToolContext.ask``) asks the client through
``elicitation``: a 2026-07-28 ``input_required`` result, or a 2025 ``elicitation/create`` request sent
through ``notify`` and answered by a response this core hands back (``Elicitation.replied``).

A batch's answers together are bounded as one result is (the runtime's
``max_result_bytes`` on stdio; what HTTP may have in flight, less, on
Streamable HTTP): a call whose answer would pass what is left is answered, by
its id, with the tool's ``response_too_large``, and the answers are never all
held first.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, ClassVar, Final

from toolproof import __version__
from toolproof.runtime.context import reporting
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import DEFAULT_ERROR_TEXT, RESPONSE_TOO_LARGE, STANDARD_ERRORS, RegistryError
from toolproof.runtime.json_reader import Unreadable
from toolproof.runtime.logs import CallerLog, log_failure
from toolproof.runtime.printable import printable
from toolproof.runtime.result import ToolResult
from toolproof.runtime.serve.elicitation import Elicitation, InputProblem, form_supported
from toolproof.runtime.serve.jsonrpc import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    MAX_BATCH,
    MAX_MESSAGE_BYTES,
    METHOD_NOT_FOUND,
    answer_size,
    decode_message,
    encode_message,
    error_response,
    is_call,
    is_request_id,
    is_response,
    result_response,
)
from toolproof.runtime.serve.offers import Offers
from toolproof.runtime.serve.revisions import (
    BATCH_VERSIONS,
    CAPABILITIES_META,
    HANDSHAKE_VERSIONS,
    LOG_LEVEL_META,
    LOG_LEVELS,
    MODERN_VERSIONS,
    SERVER_INFO_META,
    STATELESS_LOG_LEVEL,
    SUPPORTED_VERSIONS,
    VERSION_META,
    envelope_problem,
    level_problem,
    meta_of,
    unsupported_envelope,
)
from toolproof.runtime.serve.stdio import serve_stdio
from toolproof.runtime.spec import BUILTIN_PACKAGE, generated_json, generated_problem

__all__ = [
    "ERROR_META_KEY",
    "HANDSHAKE_VERSIONS",
    "MAX_BATCH",
    "MAX_MESSAGE_BYTES",
    "MCP_EXPORT",
    "MODERN_VERSIONS",
    "STATELESS_LOG_LEVEL",
    "SUPPORTED_VERSIONS",
    "McpServer",
    "Notify",
    "decode_message",
    "envelope_problem",
    "is_request_id",
    "serve_stdio",
]

_log = CallerLog(logging.getLogger("toolproof.mcp"))

LIST_TTL_MS: Final = 60_000
ERROR_META_KEY: Final = "dev.toolproof/error"
"""Where an ``isError`` result carries the catalogued ``{code, message}``, its ``hint`` and ``output``."""

_NO_PARAMS: Final[Mapping[str, Any]] = MappingProxyType({})
_NOT_A_MESSAGE: Final = "Invalid Request: neither a request, a notification nor a response"
_TOO_LARGE_IN_BATCH: Final = (
    "The result is too large to return in this batch: it takes more than the {room} bytes left of the batch's {limit}."
)
_TOO_LARGE_IN_BATCH_HINT: Final = (
    "Send this call alone or in a smaller batch; if it is too large alone too, ask for less: a smaller range or limit."
)
_BEFORE_INITIALIZE: Final = frozenset({"initialize", "ping", "server/discover"})
"""Methods served before the handshake (the others need ``initialize``, or the 2026-07-28 envelope)."""
_REMOVED_IN_2026: Final = frozenset({"initialize", "ping", "logging/setLevel"})
"""Methods a request known to be 2026-07-28 cannot call (that revision removed them)."""

Notify = Callable[[Mapping[str, Any]], None]
"""Where a transport takes the notifications one request produces (progress, log messages)."""

MCP_EXPORT: Final = "exports/mcp/all.json"
"""The generated package's MCP export: the ``tools/list`` entries of its contracts."""


def _listing(runtime: Runtime, package: str) -> list[dict[str, Any]]:
    """``tools/list`` entries: the generated MCP export, with the runtime's own input schemas.

    Raises:
        RegistryError: the export cannot be read, or does not list every tool served (gen has not
            run since the contracts or the project's ``include`` changed).
    """
    data = generated_json(package, MCP_EXPORT)
    try:
        exported = {tool["name"]: dict(tool) for tool in data["tools"]}
    except (KeyError, TypeError, ValueError):
        raise RegistryError(
            [generated_problem(package, MCP_EXPORT, "cannot be loaded (not the MCP export gen writes)")]
        ) from None
    served = sorted((s for s in runtime.specs if s.kind == "tool"), key=lambda s: s.name)
    missing = ", ".join(f"'{spec.name}'" for spec in served if spec.name not in exported)
    if missing:  # gen has not run since the contracts or `include` changed
        raise RegistryError(
            [generated_problem(package, MCP_EXPORT, f"does not list {missing}, which this host serves")]
        )
    tools = []
    for spec in served:
        tool = exported[spec.name]
        tool["inputSchema"] = dict(spec.input_schema)  # dynamic enums as discovered at start-up
        tools.append(tool)
    return tools


def _offers(runtime: Runtime, package: str) -> Offers:
    """The resources and prompts served, with their list entries from the generated MCP export.

    Raises:
        RegistryError: the export does not list every resource and prompt served (gen has not run since they changed).
    """
    offers = Offers(runtime, generated_json(package, MCP_EXPORT))
    missing = ", ".join(f"'{name}'" for name in offers.missing())
    if missing:
        raise RegistryError(
            [generated_problem(package, MCP_EXPORT, f"does not list {missing}, which this host serves")]
        )
    return offers


class McpServer:
    """The protocol state of one connection; ``handle`` answers one message (or None for notifications).

    Args:
        runtime: the tools to serve.
        package: the generated package whose MCP export lists the tools (the project's).
        session: the session id tokens bind to (default: fresh per connection).

    Raises:
        RegistryError: the package's MCP export cannot be read or does not list every tool served.
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        package: str = BUILTIN_PACKAGE,
        session: str | None = None,
        handshake: bool = True,
        state_secret: bytes | None = None,
    ) -> None:
        self.runtime = runtime
        self.session = session or f"mcp-{os.urandom(8).hex()}"
        self.handshake = handshake
        """Whether 2025 requests need ``initialize`` first (a stdio connection); False serves them statelessly."""
        self.protocol_version: str | None = None
        self.log_level: str | None = None if handshake else STATELESS_LOG_LEVEL
        """The level of a 2025 request's log messages: what ``logging/setLevel`` asked for on this connection
        (none until it is set); on a stateless core, ``STATELESS_LOG_LEVEL`` whatever any client asked."""
        self.notify: Notify | None = None
        """Where notifications go when ``answer`` is given no ``notify`` (a stdio connection's output)."""
        self._initialized = False
        self.client_capabilities: Mapping[str, Any] | None = None
        """What the client declared at ``initialize`` on this connection (None before, and on a stateless core)."""
        self.elicitation = Elicitation(runtime, state_secret)
        """How tools' questions (``ctx.ask``) reach the client: ``input_required`` or ``elicitation/create``."""
        self._tools = _listing(runtime, package)
        self._names = {tool["name"] for tool in self._tools}
        self._specs = {spec.name: spec for spec in runtime.specs}
        self._info = {"name": "toolproof", "version": __version__}
        self._offers = _offers(runtime, package)
        self._capabilities: dict[str, Any] = {"tools": {"listChanged": False}, "logging": {}}
        self._discovered: dict[str, Any] = {"tools": {}, "logging": {}}
        if self._offers.has_resources:
            self._capabilities["resources"] = {"subscribe": False, "listChanged": False}
            self._discovered["resources"] = {}
        if self._offers.prompts:
            self._capabilities["prompts"] = {"listChanged": False}
            self._discovered["prompts"] = {}
        if self._offers.prompts or self._offers.templates:
            self._capabilities["completions"] = self._discovered["completions"] = {}

    def handle(self, message: Any) -> dict[str, Any] | None:
        """The response to one decoded JSON-RPC message, or None when none is due (what stdio asks)."""
        return self.answer(message)

    def answer(
        self,
        message: Any,
        *,
        modern: bool | None = None,
        notify: Notify | None = None,
        session: str | None = None,
        limit: int | None = None,
    ) -> dict[str, Any] | None:
        """The response to one decoded JSON-RPC message, or None when none is due, as a transport sees it.

        Args:
            message: the decoded JSON-RPC message.
            modern: True when the transport knows the request is 2026-07-28 (its envelope is then
                required whole), False when it knows it is not; None lets the envelope decide (the
                version key in ``_meta`` makes it one, but on ``initialize``).
            notify: takes the notifications the request produces before its answer.
            session: the session tool calls bind to (default: this server's).
            limit: the most bytes a ``tools/call`` answer may take as JSON (None: the runtime's cap on
                results only); a larger one is answered with the tool's ``response_too_large`` instead.
        """
        if not isinstance(message, Mapping):
            if isinstance(message, list):
                why = f"a batch (an array) is received only under protocol {', '.join(BATCH_VERSIONS)}"
                return error_response(None, INVALID_REQUEST, f"Invalid Request: {why}")
            if isinstance(message, Unreadable):  # a long text beyond the reader's bounds, read no further
                return error_response(None, INVALID_REQUEST, f"Invalid Request: the message holds {message.what}")
            return error_response(None, INVALID_REQUEST, "Invalid Request: a JSON-RPC message is an object")
        request_id = message.get("id")
        method = message.get("method")
        answer_id = request_id if is_request_id(request_id) else None
        if "method" not in message:
            if is_response(message):
                self.elicitation.replied(message)  # an answer to a tool's question, or to nothing we asked
                return None
            return error_response(answer_id, INVALID_REQUEST, _NOT_A_MESSAGE)
        if message.get("jsonrpc") != "2.0" or not isinstance(method, str):
            return error_response(answer_id, INVALID_REQUEST, "expected jsonrpc '2.0' and a method")
        if "id" not in message:
            return None  # a notification: initialized, cancelled, ...
        if answer_id is None:
            if isinstance(request_id, Unreadable):  # valid JSON the reader would not hold, so it cannot be echoed
                return error_response(None, INVALID_REQUEST, f"Invalid Request: the request id is {request_id.what}")
            return error_response(None, INVALID_REQUEST, "the request id must be a string or an integer")
        params = message.get("params", _NO_PARAMS)
        if not isinstance(params, Mapping):  # null, an array, a number...: MCP's params are an object
            return error_response(request_id, INVALID_PARAMS, "Invalid params: params must be an object")
        meta = meta_of(params)
        if modern is None:  # the version key exists only in the 2026-07-28 envelope: it makes a request one
            modern = method != "initialize" and VERSION_META in meta
        if modern:
            version = meta.get(VERSION_META)
            if isinstance(version, str) and version not in MODERN_VERSIONS:  # before the fields it may not know
                return unsupported_envelope(request_id, version)
            problem = envelope_problem(params) or level_problem(meta)
            if problem is not None:
                return error_response(request_id, INVALID_PARAMS, problem)
        handler = self._methods.get(method)
        if handler is None or (modern and method in _REMOVED_IN_2026):
            return error_response(request_id, METHOD_NOT_FOUND, f"Method not found: {method}")
        # 2026-07-28 has no handshake: each request says its version.
        if not modern and method not in _BEFORE_INITIALIZE and self.handshake and not self.initialized:
            return error_response(
                request_id,
                INVALID_REQUEST,
                f"the server is not initialized: send initialize before {method}, "
                f"or carry _meta[{VERSION_META!r}] (protocol {MODERN_VERSIONS[-1]})",
            )
        try:
            request = _Request(request_id, params, notify or self.notify, session or self.session, modern)
            telemetry = self.runtime.telemetry
            if telemetry is None:
                answer = handler(self, request)
            else:
                answer = telemetry.request(
                    lambda: handler(self, request),
                    method,
                    request_id,
                    params,
                    transport="pipe" if self.handshake else "tcp",  # a stdio connection, or HTTP's stateless core
                    version=None if modern else self.protocol_version,
                )
        except Exception:  # a bug of ours: answer, log, keep serving
            log_failure(_log, "MCP %s failed", printable(str(method)))
            return error_response(request_id, INTERNAL_ERROR, "Internal error")
        if modern:
            self._complete(answer)
        if limit is not None and method == "tools/call":
            bounded, _ = self._bounded(message, answer, limit)
            if bounded is not answer:
                _log.warning("an answer of %s passed the limit of %d bytes", printable(str(params.get("name"))), limit)
                if modern:
                    self._complete(bounded)
            return bounded
        return answer

    def _complete(self, answer: dict[str, Any]) -> None:
        """Mark a 2026-07-28 result complete and carry the server's info (an error is left as it is)."""
        if "result" in answer:
            result = answer["result"]
            result.setdefault("resultType", "complete")  # an input_required result says so itself
            result.setdefault("_meta", {}).setdefault(SERVER_INFO_META, self._info)

    def answer_batch(
        self,
        messages: list[Any],
        *,
        notify: Notify | None = None,
        session: str | None = None,
        stop: Callable[[], bool] | None = None,
        limit: int | None = None,
    ) -> dict[str, Any] | list[dict[str, Any]] | None:
        """The responses to a JSON-RPC batch (protocol 2025-03-26), in its order; None when none is due.

        Each message is answered as ``answer`` answers it alone, but for
        ``initialize``, which must not be batched, and a batch within it. An
        empty batch, or one of more than ``MAX_BATCH`` messages, gets one
        error, not an array (JSON-RPC 2.0). When ``stop`` comes true (the
        client has gone) the messages left are not answered, and nothing is.

        The answers together take at most ``limit`` bytes as JSON (None: no
        bound but each result's): each is sized as it comes, and a
        ``tools/call`` whose answer would pass what is left is answered, by its
        id, with the tool's ``response_too_large`` saying so instead, so the
        client can send that call alone. Answers past the bound are never all
        held at once. The other methods' answers are small (their size follows
        from the request's), and are counted but never refused.
        """
        if not messages or len(messages) > MAX_BATCH:
            why = "an empty batch" if not messages else f"a batch of more than {MAX_BATCH} messages"
            return error_response(None, INVALID_REQUEST, f"Invalid Request: {why}")
        answers = []
        used = 0
        """Bytes of the answers kept so far, as JSON (with a comma each)."""
        refused = 0
        for message in messages:
            if stop is not None and stop():
                return None
            answer: dict[str, Any] | None
            if isinstance(message, list):
                answer = error_response(None, INVALID_REQUEST, "Invalid Request: a batch holds messages, not batches")
            elif isinstance(message, Mapping) and message.get("method") == "initialize":
                why = "Invalid Request: initialize must not be part of a batch"
                answer = error_response(message.get("id"), INVALID_REQUEST, why)  # its id cleaned
            else:
                answer = self.answer(message, modern=False, notify=notify, session=session)
            if answer is not None:
                if limit is not None:
                    if is_call(message):
                        bounded, size = self._bounded(message, answer, limit - used, batch=limit)
                        refused += bounded is not answer
                        answer = bounded
                    else:
                        size = answer_size(answer, limit)
                    used += size + 1  # and a comma
                answers.append(answer)
        if refused:
            _log.warning("a batch's answers passed the limit of %d bytes: %d calls answered too large", limit, refused)
        return answers or None

    def _bounded(
        self, message: Mapping[str, Any], answer: dict[str, Any], room: int, *, batch: int | None = None
    ) -> tuple[dict[str, Any], int]:
        """``answer`` to a ``tools/call``, or the tool's ``response_too_large`` when it takes more than ``room`` bytes;
        and the size of the one returned, as JSON.

        ``batch``: the bound of the whole batch the answer is part of (None for a request alone), for the message.
        """
        size = answer_size(answer, max(room, 0))
        if size <= room or "result" not in answer:  # a JSON-RPC error is as small as the request allows
            return answer, size
        params = message.get("params")
        name = params.get("name") if isinstance(params, Mapping) else None
        spec = self._specs.get(name) if isinstance(name, str) else None
        entry = spec.errors.get(RESPONSE_TOO_LARGE) if spec is not None else None
        values: dict[str, Any] = {"size": size, "limit": room}
        if batch is not None:
            values["limit"] = batch
            message_text = _TOO_LARGE_IN_BATCH.format(room=max(room, 0), limit=batch)
            hint: str | None = _TOO_LARGE_IN_BATCH_HINT
        elif entry is not None:
            message_text, hint = entry.message.render(values), entry.hint
        else:
            standard = STANDARD_ERRORS[RESPONSE_TOO_LARGE]
            message_text, hint = standard.render(values), standard.hint
        error: dict[str, Any] = {"code": RESPONSE_TOO_LARGE, "message": message_text}
        if hint is not None:
            error["hint"] = hint
        values.update(code=RESPONSE_TOO_LARGE, message=message_text, hint=hint or "")
        try:
            text = spec.render_error.render(values, error) if spec is not None else DEFAULT_ERROR_TEXT.render(error)
        except (KeyError, TypeError, ValueError, RecursionError):  # the tool's template wants a param this has not
            text = DEFAULT_ERROR_TEXT.render(error)
        content = [{"type": "text", "text": text}]
        payload = {"content": content, "isError": True, "_meta": {ERROR_META_KEY: error}}
        refusal = result_response(answer.get("id"), payload)
        return refusal, len(encode_message(refusal)) - 1  # small: as large as its id at most

    @property
    def initialized(self) -> bool:
        """Whether ``initialize`` has been answered on this connection."""
        return self._initialized

    def _initialize(self, request: _Request) -> dict[str, Any]:
        params = request.params
        asked = params.get("protocolVersion")
        missing = [
            what
            for what, ok in (
                ("protocolVersion (a string)", isinstance(asked, str)),
                ("capabilities (an object)", isinstance(params.get("capabilities"), Mapping)),
                ("clientInfo (an object)", isinstance(params.get("clientInfo"), Mapping)),
            )
            if not ok
        ]
        if missing:
            return error_response(request.id, INVALID_PARAMS, f"Invalid params: initialize needs {', '.join(missing)}")
        version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
        if self.handshake:  # a stateless server keeps nothing between requests
            self.protocol_version = version
            self._initialized = True
            self.client_capabilities = params["capabilities"]
        result = {
            "protocolVersion": version,
            "capabilities": self._capabilities,
            "serverInfo": self._info,
        }
        return result_response(request.id, result)

    def _discover(self, request: _Request) -> dict[str, Any]:
        if not self._initialized and self.handshake:
            self.protocol_version = MODERN_VERSIONS[-1]
        result = {
            "supportedVersions": list(SUPPORTED_VERSIONS),
            # 2026-07-28: no list_changed subscriptions; log messages per request (_meta logLevel), still declared
            "capabilities": self._discovered,
            "_meta": {SERVER_INFO_META: self._info},
            "ttlMs": LIST_TTL_MS,
            "cacheScope": "public",  # the same for every caller
        }
        return result_response(request.id, result)

    def _ping(self, request: _Request) -> dict[str, Any]:
        return result_response(request.id, {})

    def _set_level(self, request: _Request) -> dict[str, Any]:
        """Set the level of the connection's log messages (a stdio connection: its one client).

        A stateless server (``handshake=False``: every HTTP client shares it, and
        none has a session) answers it and keeps nothing: one client's level must
        not change what another receives (nor differ between worker processes),
        and there is nowhere to keep one per client. Every 2025 request to it
        gets ``STATELESS_LOG_LEVEL``; a 2026-07-28 request, the logLevel its
        ``_meta`` carries (none without one).
        """
        level = request.params.get("level")
        if level not in LOG_LEVELS:
            return error_response(request.id, INVALID_PARAMS, f"params.level must be one of {', '.join(LOG_LEVELS)}")
        if self.handshake:
            self.log_level = level
        return result_response(request.id, {})

    @property
    def modern(self) -> bool:
        """Whether the connection last negotiated the 2026-07-28 protocol (``server/discover``, no handshake)."""
        return self.protocol_version in MODERN_VERSIONS

    def _list_tools(self, request: _Request) -> dict[str, Any]:
        if request.params.get("cursor") is not None:  # null reads as no cursor, as many clients send it
            why = "this server sends every tool in one page and issues no cursors"
            return error_response(request.id, INVALID_PARAMS, f"Invalid params: unknown cursor ({why})")
        result: dict[str, Any] = {"tools": self._tools}
        if request.modern:
            # The list never changes while this server runs; it depends on this host's roots.
            result.update({"ttlMs": LIST_TTL_MS, "cacheScope": "private"})
        return result_response(request.id, result)

    def _listed(self, request: _Request, key: str, entries: list[dict[str, Any]]) -> dict[str, Any]:
        """A list method's answer: every entry in one page, as ``tools/list``."""
        if request.params.get("cursor") is not None:
            why = "this server sends every entry in one page and issues no cursors"
            return error_response(request.id, INVALID_PARAMS, f"Invalid params: unknown cursor ({why})")
        result: dict[str, Any] = {key: entries}
        if request.modern:
            result.update({"ttlMs": LIST_TTL_MS, "cacheScope": "private"})
        return result_response(request.id, result)

    def _list_resources(self, request: _Request) -> dict[str, Any]:
        return self._listed(request, "resources", self._offers.resources)

    def _list_templates(self, request: _Request) -> dict[str, Any]:
        return self._listed(request, "resourceTemplates", self._offers.templates)

    def _list_prompts(self, request: _Request) -> dict[str, Any]:
        return self._listed(request, "prompts", self._offers.prompts)

    def _read_resource(self, request: _Request) -> dict[str, Any]:
        with reporting(self._reporter(request)):
            answer = self._offers.read(request.id, request.params, request.session, modern=request.modern)
        if request.modern and "result" in answer:
            # A handler reads afresh each time (a file may change): no client may reuse the content.
            answer["result"].update({"ttlMs": 0, "cacheScope": "private"})
        return answer

    def _get_prompt(self, request: _Request) -> dict[str, Any]:
        with reporting(self._reporter(request)):
            return self._offers.get(request.id, request.params, request.session)

    def _complete_argument(self, request: _Request) -> dict[str, Any]:
        return self._offers.complete(request.id, request.params)

    def _call_tool(self, request: _Request) -> dict[str, Any]:
        request_id, params = request.id, request.params
        name = params.get("name")
        if not isinstance(name, str):
            return error_response(request_id, INVALID_PARAMS, "params.name must be a string")
        if name not in self._names:
            return error_response(request_id, INVALID_PARAMS, f"Unknown tool: {name}")
        arguments = params.get("arguments")
        if arguments is not None and not isinstance(arguments, Mapping):
            return error_response(request_id, INVALID_PARAMS, "params.arguments must be an object")
        with reporting(self._reporter(request)):
            if self.elicitation.asks(name):
                asked = self._call_asking(request, name, arguments or {})
                if not isinstance(asked, ToolResult):
                    return asked
                result = asked
            else:
                result = self.runtime.call(name, arguments or {}, session=request.session)
        payload = result.to_mcp()  # the attached blocks after the rendered text, as the host API has it
        if result.error is not None:
            # {code, message, hint?, output?}: the output not as structuredContent, which clients check
            # against the tool's outputSchema even with isError.
            payload["_meta"] = {ERROR_META_KEY: result.error.to_dict()}
        return result_response(request_id, payload)

    def _call_asking(self, request: _Request, name: str, arguments: Mapping[str, Any]) -> ToolResult | dict[str, Any]:
        """A call of a tool that may ask the client questions: its result, or the JSON-RPC answer that ends the round.

        2026-07-28: an ``input_required`` result, or -32602 for a ``requestState`` or ``inputResponses`` that cannot
        be used; 2025: the questions go to the client as ``elicitation/create`` (``elicitation``).
        """
        if request.modern:
            capabilities = meta_of(request.params).get(CAPABILITIES_META)
            try:
                outcome = self.elicitation.round(name, arguments, request.params, capabilities, request.session)
            except InputProblem as problem:
                return error_response(request.id, INVALID_PARAMS, str(problem))
            return outcome if isinstance(outcome, ToolResult) else result_response(request.id, outcome)
        why = None
        if self.handshake and not form_supported(self.client_capabilities):
            why = "this client cannot be asked (it declared no form elicitation at initialize)"
        return self.elicitation.ask_through(name, arguments, request.session, request.notify, why)

    def _reporter(self, request: _Request) -> Callable[[str, Mapping[str, Any]], None]:
        """What turns a handler's reports into this request's notifications."""
        notify = request.notify
        meta = meta_of(request.params)
        token = meta.get("progressToken")
        if request.modern:
            level = meta.get(LOG_LEVEL_META)  # 2026-07-28: per request, and none when absent
        else:
            level = self.log_level
        floor = LOG_LEVELS.index(level) if level in LOG_LEVELS else None

        def report(kind: str, params: Mapping[str, Any]) -> None:
            if notify is None:
                return
            elif kind == "progress" and is_request_id(token):
                progress = {"progressToken": token, **params}
                notify({"jsonrpc": "2.0", "method": "notifications/progress", "params": progress})
            elif kind == "message" and floor is not None and LOG_LEVELS.index(params["level"]) >= floor:
                notify({"jsonrpc": "2.0", "method": "notifications/message", "params": dict(params)})

        return report

    _methods: ClassVar[Mapping[str, Callable[[McpServer, _Request], dict[str, Any]]]] = {
        "initialize": _initialize,
        "server/discover": _discover,
        "ping": _ping,
        "logging/setLevel": _set_level,
        "tools/list": _list_tools,
        "tools/call": _call_tool,
        "resources/list": _list_resources,
        "resources/templates/list": _list_templates,
        "resources/read": _read_resource,
        "prompts/list": _list_prompts,
        "prompts/get": _get_prompt,
        "completion/complete": _complete_argument,
    }


class _Request:
    """One request as a method sees it: its id, params, where its notifications go, its session, its era."""

    __slots__ = ("id", "modern", "notify", "params", "session")

    def __init__(
        self, request_id: Any, params: Mapping[str, Any], notify: Notify | None, session: str, modern: bool
    ) -> None:
        self.id = request_id
        self.params = params
        self.notify = notify
        self.session = session
        self.modern = modern
        """Whether it is a 2026-07-28 request (its envelope checked)."""
