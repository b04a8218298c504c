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

    async def run() -> tuple[int, Any]:
        sent: list[dict[str, Any]] = []
        extra = [(k.lower().encode("ascii"), v.encode("ascii")) for k, v in (headers or {}).items()]
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
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
        status = next(m["status"] for m in sent if m["type"] == "http.response.start")
        data = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        return status, json.loads(data)

    return asyncio.run(run())
