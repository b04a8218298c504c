"""The HTTP façade: a small hand-written ASGI app over the runtime.

``POST /tools/{name}`` takes the arguments as a JSON body and answers 200 with
the tool's output, or the catalogued error as ``{code, message, hint}`` under
the status its contract gives it (400 when the body is not JSON, 422 when it
breaks the input schema). ``GET /openapi.json`` serves the document ``make gen``
wrote, with the input schemas this runtime serves (dynamic enums included). The
``X-Toolproof-Session`` header names the caller's session.

Hand-written because it is about a hundred lines: a framework would add a
dependency and start-up time and take nothing off our hands.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, Final

import orjson

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.errors import INVALID_ARGUMENTS
from toolproof.runtime.spec import BUILTIN_PACKAGE, generated_dir

__all__ = ["SESSION_HEADER", "HttpApp"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

SESSION_HEADER: Final = "x-toolproof-session"
_PREFIX: Final = "/tools/"


def _document(runtime: Runtime, package: str) -> bytes:
    path = generated_dir(package) / "openapi.json"
    document = json.loads(path.read_text(encoding="utf-8"))
    served = {spec.name: spec for spec in runtime.specs}
    schemas = document["components"]["schemas"]
    for route in list(document["paths"]):
        name = route.removeprefix(_PREFIX)
        if name not in served:
            del document["paths"][route]
            continue
        ref = document["paths"][route]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"]
        if served[name].dynamic_enums:
            schemas[ref.rsplit("/", 1)[1]] = dict(served[name].input_schema)
    return orjson.dumps(document)


class HttpApp:
    """An ASGI 3 application serving ``runtime``'s tools."""

    def __init__(self, runtime: Runtime, *, package: str = BUILTIN_PACKAGE) -> None:
        self.runtime = runtime
        self.max_body = runtime.max_argument_bytes
        self._document = _document(runtime, package)
        self._status = {
            spec.name: {code: entry.status for code, entry in spec.errors.items()} for spec in runtime.specs
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path, method = scope["path"], scope["method"]
        if path == "/openapi.json":
            if method != "GET":
                await _json(send, 405, {"code": "method_not_allowed", "message": "use GET"}, allow="GET")
                return
            await _raw(send, 200, self._document)
            return
        if path.startswith(_PREFIX) and path[len(_PREFIX) :] in self._status:
            if method != "POST":
                await _json(send, 405, {"code": "method_not_allowed", "message": "use POST"}, allow="POST")
                return
            await self._call(scope, receive, send, path[len(_PREFIX) :])
            return
        await _json(send, 404, {"code": "not_found", "message": f"no route {path}"})

    async def _call(self, scope: Scope, receive: Receive, send: Send, name: str) -> None:
        body = await _body(receive, self.max_body)
        if body is None:
            message = f"Invalid arguments: $: the body is larger than {self.max_body} bytes"
            await _json(send, 413, {"code": INVALID_ARGUMENTS, "message": message})
            return
        try:
            parsed = orjson.loads(body) if body.strip() else None
        except orjson.JSONDecodeError:
            parsed = None
        if not isinstance(parsed, dict):
            message = "Invalid arguments: $: the body must be a JSON object"
            await _json(send, 400, {"code": INVALID_ARGUMENTS, "message": message})
            return
        session = _header(scope, SESSION_HEADER)
        result = await asyncio.to_thread(self.runtime.call, name, parsed, session=session)
        if result.error is None:
            await _json(send, 200, result.output)
            return
        status = self._status[name].get(result.error.code, 422)
        await _json(send, status, result.error.to_dict())

    @staticmethod
    async def _lifespan(receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return


def _header(scope: Scope, name: str) -> str | None:
    wanted = name.encode("latin-1")
    for key, value in scope.get("headers", ()):
        if key.lower() == wanted:
            return bytes(value).decode("latin-1")
    return None


async def _body(receive: Receive, limit: int) -> bytes | None:
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b""
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


async def _raw(send: Send, status: int, body: bytes, allow: str | None = None) -> None:
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if allow is not None:
        headers.append((b"allow", allow.encode()))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _json(send: Send, status: int, payload: Any, allow: str | None = None) -> None:
    await _raw(send, status, orjson.dumps(payload), allow)
