"""Drive an ASGI app in process, as a server would, for tests that need no socket."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any


def post_json(app: Any, path: str, body: Any, headers: Mapping[str, str] | None = None) -> tuple[int, Any]:
    """POST ``body`` as JSON to ``app`` at ``path``; the status and the parsed answer."""
    return post_bytes(app, path, json.dumps(body).encode("utf-8"), headers)


def post_bytes(app: Any, path: str, payload: bytes, headers: Mapping[str, str] | None = None) -> tuple[int, Any]:
    """POST ``payload`` as it is, labelled JSON, to ``app`` at ``path``; the status and the parsed answer."""
    status, _, answer = exchange(app, path, payload, headers)
    return status, answer


def exchange(
    app: Any, path: str, payload: bytes, headers: Mapping[str, str] | None = None, method: str = "POST"
) -> tuple[int, dict[str, str], Any]:
    """Send ``payload`` as it is, labelled JSON, to ``app`` at ``path``; the status, headers and parsed answer."""

    async def run() -> tuple[int, dict[str, str], Any]:
        sent: list[dict[str, Any]] = []
        extra = [(k.lower().encode("ascii"), v.encode("ascii")) for k, v in (headers or {}).items()]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode("ascii"),
            "query_string": b"",
            "root_path": "",
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(payload)).encode("ascii")),
                *extra,
            ],
            "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80),
        }
        messages = [{"type": "http.request", "body": payload, "more_body": False}]

        async def receive() -> dict[str, Any]:
            return messages.pop(0) if messages else {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await app(scope, receive, send)
        start = next(m for m in sent if m["type"] == "http.response.start")
        data = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        answered = {name.decode("latin-1"): value.decode("latin-1") for name, value in start.get("headers", ())}
        return start["status"], answered, json.loads(data) if data else None

    return asyncio.run(run())
