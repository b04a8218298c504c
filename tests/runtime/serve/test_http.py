"""The REST app in-process: a body is read as every transport reads arguments, and one too large is refused at once.

The app is driven as uvicorn drives it (``scope``, ``receive``, ``send``); a
``receive`` that never delivers stands for a client that declared a body and
sends nothing, so a test that waits for it fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import MutableMapping
from pathlib import Path
from typing import Any

import pytest

from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.serve.http import HttpApp, HttpLimits, declared_length
from toolproof.runtime.serve.mcp import ERROR_META_KEY, McpServer
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import builtin_runtime

HANG: float = 20.0
"""Seconds after which anything still waiting is a hang."""
PROMPT: float = 5.0
"""Seconds within which an answer that needs no body must come (the body timeout is ``HANG``)."""
LONG = 99999999999999999999999
"""An integer orjson would read as a float (99999999999999991611392), losing it."""
BOM = b"\xef\xbb\xbf"


@pytest.fixture
def runtime(tmp_path: Path) -> Runtime:
    (tmp_path / "a.txt").write_text("one\n", encoding="utf-8")
    return builtin_runtime(workspace=[tmp_path])


@pytest.fixture
def app(runtime: Runtime) -> HttpApp:
    return HttpApp(runtime, limits=HttpLimits(body_timeout=HANG))


class _Exchange:
    """One request to an ASGI app: what it asked for and what it answered."""

    def __init__(self, path: str, body: bytes, headers: dict[str, str], *, arrives: bool) -> None:
        self.scope = {
            "type": "http",
            "path": path,
            "method": "POST",
            "headers": [(name.encode(), value.encode()) for name, value in headers.items()],
        }
        self.body = body
        self.arrives = arrives
        self.awaited = 0
        """How many times the app waited for the body."""
        self.sent: list[dict[str, Any]] = []

    async def receive(self) -> dict[str, Any]:
        self.awaited += 1
        if self.arrives and self.awaited == 1:
            return {"type": "http.request", "body": self.body, "more_body": False}
        await asyncio.sleep(HANG)
        return {"type": "http.disconnect"}

    async def send(self, message: MutableMapping[str, Any]) -> None:
        self.sent.append(dict(message))

    def run(self, app: Any) -> _Exchange:
        asyncio.run(asyncio.wait_for(app(self.scope, self.receive, self.send), PROMPT))
        return self

    @property
    def status(self) -> int:
        status: int = self.sent[0]["status"]
        return status

    @property
    def headers(self) -> dict[bytes, bytes]:
        return dict(self.sent[0]["headers"])

    @property
    def payload(self) -> Any:
        return json.loads(b"".join(message.get("body", b"") for message in self.sent[1:]))  # integers stay exact


def _post(app: HttpApp, body: bytes, *, length: int | None = None, arrives: bool = True) -> _Exchange:
    """POST ``body`` to /tools/file-read, declaring ``length`` bytes (the body's own by default)."""
    headers = {"content-type": "application/json", "content-length": str(len(body) if length is None else length)}
    return _Exchange("/tools/file-read", body, headers, arrives=arrives).run(app)


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (b'{"path": "a.txt", "start_line": NaN}', "$: arguments are not valid JSON (NaN is not valid JSON)"),
        (
            b'{"path": "a.txt", "start_line": 1e400}',
            "$.start_line: a number beyond the range of a float (about 1.8e308)",  # valid JSON: where it is too large
        ),
        (b'{"path": "a.txt"', "$: arguments are not valid JSON (Expecting ',' delimiter: line 1 column 17 (char 16))"),
        (b"", "$: arguments are not valid JSON (Expecting value: line 1 column 1 (char 0))"),
        (b'["a.txt"]', "$: expected object, got array"),
    ],
)
def test_a_body_that_is_not_a_json_object_gets_400_in_the_words_of_every_transport(
    app: HttpApp, runtime: Runtime, body: bytes, detail: str
) -> None:
    """The CLI hands the runtime the text as it came; REST says the same, under 400."""
    answer = _post(app, body)

    assert answer.status == 400
    assert answer.payload["code"] == "invalid_arguments"
    assert answer.payload["message"] == f"Invalid arguments: {detail}"
    error = runtime.call("file-read", body).error
    assert error is not None and answer.payload == error.to_dict()


def test_a_lone_surrogate_escape_is_invalid_arguments_naming_the_field_as_over_mcp(
    app: HttpApp, runtime: Runtime
) -> None:
    body = b'{"path": "a\\ud800.txt"}'

    answer = _post(app, body)

    message = (
        "Invalid arguments: $.path: holds a lone surrogate (\\ud800 at character 1), which is not text; "
        "send valid Unicode text"
    )
    assert answer.status == 422
    assert (answer.payload["code"], answer.payload["message"]) == ("invalid_arguments", message)
    call = {"name": "file-read", "arguments": json.loads(body)}
    over_mcp = McpServer(runtime, handshake=False).answer(
        {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
    )
    assert over_mcp is not None and over_mcp["result"]["_meta"][ERROR_META_KEY]["message"] == message


def test_an_integer_beyond_64_bits_reaches_the_tool_exactly(app: HttpApp) -> None:
    answer = _post(app, b'{"path": "a.txt", "start_line": %d}' % LONG)

    assert answer.status == 200
    assert answer.payload["start_line"] == LONG
    assert answer.payload["summary"] == f"Read 'a.txt' from line {LONG}"


def test_a_byte_order_mark_before_the_body_is_ignored_as_on_mcp(app: HttpApp, runtime: Runtime) -> None:
    """RFC 8259: a sender must not add one, a reader may ignore one; both routes of the app ignore it."""
    rest = _post(app, BOM + b'{"path": "a.txt"}')
    call = {"name": "file-read", "arguments": {"path": "a.txt"}}
    message = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": call}
    mcp = _Exchange(
        "/mcp", BOM + json.dumps(message).encode("utf-8"), {"content-type": "application/json"}, arrives=True
    ).run(StreamableMcp(McpServer(runtime, handshake=False), HttpLimits()))

    assert rest.status == 200 and rest.payload["content"] == "1 | one"
    assert mcp.status == 200 and mcp.payload["result"]["structuredContent"]["content"] == "1 | one"


@pytest.mark.parametrize("length", [1024 * 1024 + 1, 99999999999999])
def test_a_body_whose_content_length_passes_the_cap_gets_413_before_a_byte_is_awaited(
    app: HttpApp, length: int
) -> None:
    answer = _post(app, b"", length=length, arrives=False)

    assert answer.awaited == 0
    assert answer.status == 413 and (b"connection", b"close") in answer.sent[0]["headers"]
    assert answer.payload == {
        "code": "invalid_arguments",
        "message": "Invalid arguments: $: the body is larger than 1048576 bytes",
    }


def test_a_body_at_the_cap_by_its_content_length_is_awaited(runtime: Runtime) -> None:
    """The declared length refuses only what must be refused: a body the cap allows is awaited as ever."""
    app = HttpApp(runtime, limits=HttpLimits(body_timeout=0.2))

    answer = _post(app, b"", length=1024 * 1024, arrives=False)

    assert answer.awaited == 1 and answer.status == 408


@pytest.mark.parametrize(
    ("headers", "length"),
    [
        ([], None),
        ([(b"content-length", b"17")], 17),
        ([(b"Content-Length", b"0")], 0),
        ([(b"content-length", b"99999999999999")], 99999999999999),
        ([(b"transfer-encoding", b"chunked")], None),
    ],
)
def test_the_declared_length_is_the_content_length_header(
    headers: list[tuple[bytes, bytes]], length: int | None
) -> None:
    assert declared_length({"type": "http", "headers": headers}) == length
