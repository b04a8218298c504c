"""Tools that ask (``asks``) over MCP: 2026-07-28 ``input_required`` round trips, 2025-11-25 ``elicitation/create``.

Served in-process from the conformance fixture project (``delete_note`` and the suite's fixture tools);
the official suite's scenarios run against ``serve mcp --transport http`` in test_mcp_conformance.py.
"""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, Literal

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import ElicitRequestParams, ElicitResult

from tests.asgi import post_json
from toolproof.runtime.errors import INPUT_UNAVAILABLE
from toolproof.runtime.host import HostOptions
from toolproof.runtime.project import activate, load_config
from toolproof.runtime.serve import elicitation
from toolproof.runtime.serve.http import HttpLimits
from toolproof.runtime.serve.mcp import ERROR_META_KEY, McpServer
from toolproof.runtime.serve.stdio import serve_stdio
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import open_runtime

PROJECT = Path(__file__).parents[2] / "conformance_project" / "pyproject.toml"
HANG = 10.0
ENVELOPE = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
    "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
}


def _server(workspace: Path, *, handshake: bool) -> McpServer:
    config = load_config(PROJECT)
    activate(config)
    runtime = open_runtime(config, HostOptions.of(workspace=[workspace]))
    return McpServer(runtime, package=config.package, handshake=handshake)


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "groceries.md").write_text("milk\n", encoding="utf-8")
    return folder


@pytest.fixture
def modern(notes: Path) -> McpServer:
    return _server(notes.parent, handshake=False)


def _call(server: McpServer, name: str, arguments: Mapping[str, Any], **params: Any) -> dict[str, Any]:
    meta = {**ENVELOPE, **params.pop("_meta", {})}
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {"name": name, "arguments": arguments, **params, "_meta": meta},
    }
    answer = server.answer(message, modern=True)
    assert answer is not None
    return answer


def _delete(server: McpServer, **params: Any) -> dict[str, Any]:
    return _call(server, "delete_note", {"title": "groceries"}, **params)


def test_a_question_is_an_input_required_result_keyed_by_its_name(modern: McpServer) -> None:
    result = _delete(modern)["result"]

    assert result["resultType"] == "input_required"
    assert result["inputRequests"] == {
        "confirm_delete": {
            "method": "elicitation/create",
            "params": {
                "mode": "form",
                "message": "Delete note 'groceries'? This cannot be undone.",
                "requestedSchema": {"type": "object", "properties": {}},
            },
        }
    }
    assert isinstance(result["requestState"], str)


def test_a_declined_retry_leaves_the_note_and_a_confirmed_one_deletes_it(modern: McpServer, notes: Path) -> None:
    state = _delete(modern)["result"]["requestState"]

    declined = _delete(modern, inputResponses={"confirm_delete": {"action": "decline"}}, requestState=state)
    assert declined["result"]["resultType"] == "complete"
    assert declined["result"]["structuredContent"]["deleted"] is False
    assert (notes / "groceries.md").is_file()

    confirmed = _delete(modern, inputResponses={"confirm_delete": {"action": "accept"}}, requestState=state)
    assert confirmed["result"]["structuredContent"] == {
        "title": "groceries",
        "deleted": True,
        "notes": [],
        "summary": "Deleted note 'groceries'.",
    }
    assert not (notes / "groceries.md").exists()


def test_the_second_round_carries_the_first_answer_in_a_new_state(modern: McpServer) -> None:
    name = "test_input_required_result_multi_round"
    first = _call(modern, name, {})["result"]
    second = _call(
        modern,
        name,
        {},
        inputResponses={"step1": {"action": "accept", "content": {"name": "Ada"}}},
        requestState=first["requestState"],
    )["result"]
    third = _call(
        modern,
        name,
        {},
        inputResponses={"step2": {"action": "accept", "content": {"color": "teal"}}},
        requestState=second["requestState"],
    )["result"]

    assert list(second["inputRequests"]) == ["step2"]
    assert second["inputRequests"]["step2"]["params"]["message"] == "Step 2: What is your favorite color, Ada?"
    assert second["requestState"] != first["requestState"]
    assert third["content"][0]["text"] == "Ada likes teal."


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ("{tampered}", "Invalid params: requestState failed its integrity check (altered, or another server's)"),
        ("not-ours", "Invalid params: requestState is not one this server issued"),
    ],
)
def test_a_state_the_server_did_not_issue_is_refused(modern: McpServer, state: str, message: str) -> None:
    issued = _delete(modern)["result"]["requestState"]
    sent = issued[:-2] + ("AA" if issued[-2:] != "AA" else "BB") if state == "{tampered}" else state

    answer = _delete(modern, inputResponses={"confirm_delete": {"action": "accept"}}, requestState=sent)

    assert answer["error"] == {"code": -32602, "message": message}


def test_a_state_issued_for_another_call_or_expired_is_refused(
    modern: McpServer, notes: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (notes / "ideas.md").write_text("x\n", encoding="utf-8")
    accept = {"confirm_delete": {"action": "accept"}}
    state = _delete(modern)["result"]["requestState"]
    monkeypatch.setattr(elicitation, "STATE_TTL", -1)  # a state issued now has lapsed
    lapsed = _delete(modern)["result"]["requestState"]

    other = _call(modern, "delete_note", {"title": "ideas"}, inputResponses=accept, requestState=state)
    expired = _delete(modern, inputResponses=accept, requestState=lapsed)

    assert (
        other["error"]["message"] == "Invalid params: requestState belongs to another call (tool, arguments or caller)"
    )
    assert expired["error"]["message"] == "Invalid params: requestState has expired; call the tool again without it"
    assert (notes / "ideas.md").is_file() and (notes / "groceries.md").is_file()


def test_a_missing_answer_is_asked_again_and_unknown_keys_are_ignored(modern: McpServer) -> None:
    name = "test_input_required_result_elicitation"
    again = _call(modern, name, {}, inputResponses={"wrong_key": {"action": "accept", "content": {"x": 1}}})
    done = _call(
        modern,
        name,
        {},
        inputResponses={"user_name": {"action": "accept", "content": {"name": "Ada"}}, "extra": {"action": "cancel"}},
    )

    assert list(again["result"]["inputRequests"]) == ["user_name"]
    assert done["result"]["content"][0]["text"] == "Hello, Ada!"


@pytest.mark.parametrize(
    ("responses", "message"),
    [
        ([], "Invalid params: inputResponses must be an object"),
        ({"user_name": 12345}, "Invalid params: inputResponses['user_name']: it is not an object with an action"),
        (
            {"user_name": {"action": "accept", "content": {"name": 5}}},
            "Invalid params: inputResponses['user_name']: its content does not fit the question's form",
        ),
    ],
)
def test_an_answer_that_cannot_be_used_is_refused(modern: McpServer, responses: Any, message: str) -> None:
    answer = _call(modern, "test_input_required_result_elicitation", {}, inputResponses=responses)

    assert answer["error"] == {"code": -32602, "message": message}


@pytest.mark.parametrize("capabilities", [{}, {"elicitation": {"url": {}}}, {"sampling": {}}])
def test_a_client_without_form_elicitation_is_never_asked(
    modern: McpServer, notes: Path, capabilities: dict[str, Any]
) -> None:
    answer = _delete(modern, _meta={"io.modelcontextprotocol/clientCapabilities": capabilities})

    result = answer["result"]
    assert result["resultType"] == "complete"
    assert result["isError"] is True
    assert result["_meta"][ERROR_META_KEY]["code"] == INPUT_UNAVAILABLE
    assert "its request's clientCapabilities declare no form elicitation" in result["content"][0]["text"]
    assert (notes / "groceries.md").is_file()


# 2025-11-25 over stdio: elicitation/create on the connection, the answer read back from it.


class _Client:
    """``serve_stdio`` in a thread, written to through a pipe; what it wrote read back line by line."""

    def __init__(self, server: McpServer) -> None:
        read, write = os.pipe()
        self.reader = os.fdopen(read, "rb")
        self.writer = os.fdopen(write, "wb", buffering=0)
        self.out = io.BytesIO()
        self.thread = threading.Thread(target=serve_stdio, args=(server, self.reader, self.out), daemon=True)
        self.thread.start()
        self.seen = 0

    def send(self, message: Mapping[str, Any]) -> None:
        self.writer.write(json.dumps(message).encode() + b"\n")

    def next(self) -> dict[str, Any]:
        deadline = time.monotonic() + HANG
        while True:
            lines = self.out.getvalue().splitlines()
            if len(lines) > self.seen:
                self.seen += 1
                message: dict[str, Any] = json.loads(lines[self.seen - 1])
                return message
            assert time.monotonic() < deadline, "the server wrote nothing more"
            time.sleep(0.005)

    def close(self) -> None:
        self.writer.close()
        self.thread.join(HANG)
        self.reader.close()


@pytest.fixture
def stdio(notes: Path) -> Iterator[tuple[McpServer, _Client]]:
    server = _server(notes.parent, handshake=True)
    client = _Client(server)
    yield server, client
    client.close()


def _initialize(client: _Client, capabilities: dict[str, Any]) -> None:
    handshake = {
        "protocolVersion": "2025-11-25",
        "capabilities": capabilities,
        "clientInfo": {"name": "t", "version": "1"},
    }
    client.send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": handshake})
    assert client.next()["id"] == 0


def _tools_call(client: _Client, name: str, arguments: dict[str, Any]) -> None:
    client.send({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments}})


def test_a_2025_client_is_asked_on_the_connection_and_its_answer_completes_the_call(
    stdio: tuple[McpServer, _Client], notes: Path
) -> None:
    _, client = stdio
    _initialize(client, {"elicitation": {}})
    _tools_call(client, "delete_note", {"title": "groceries"})

    asked = client.next()
    assert asked["method"] == "elicitation/create"
    assert asked["params"]["message"] == "Delete note 'groceries'? This cannot be undone."
    assert (notes / "groceries.md").is_file()  # nothing done before the answer
    client.send({"jsonrpc": "2.0", "id": asked["id"], "result": {"action": "accept"}})
    answer = client.next()

    assert answer["id"] == 1
    assert answer["result"]["structuredContent"]["deleted"] is True
    assert not (notes / "groceries.md").exists()


def test_a_2025_client_asked_twice_answers_each_question_in_turn(stdio: tuple[McpServer, _Client]) -> None:
    _, client = stdio
    _initialize(client, {"elicitation": {"form": {}}})
    _tools_call(client, "test_input_required_result_multi_round", {})

    first = client.next()
    client.send({"jsonrpc": "2.0", "id": first["id"], "result": {"action": "accept", "content": {"name": "Ada"}}})
    second = client.next()
    client.send({"jsonrpc": "2.0", "id": second["id"], "result": {"action": "accept", "content": {"color": "red"}}})

    assert second["params"]["message"] == "Step 2: What is your favorite color, Ada?"
    assert first["id"] != second["id"]
    assert client.next()["result"]["content"][0]["text"] == "Ada likes red."


def test_a_2025_client_that_declared_no_elicitation_is_not_asked(stdio: tuple[McpServer, _Client], notes: Path) -> None:
    _, client = stdio
    _initialize(client, {})
    _tools_call(client, "delete_note", {"title": "groceries"})

    answer = client.next()

    assert answer["id"] == 1  # no elicitation/create came first
    assert answer["result"]["_meta"][ERROR_META_KEY]["code"] == INPUT_UNAVAILABLE
    assert "it declared no form elicitation at initialize" in answer["result"]["content"][0]["text"]
    assert (notes / "groceries.md").is_file()


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        (
            {"error": {"code": -32601, "message": "Method not found"}},
            "the client could not ask its user (Method not found)",
        ),
        ({"result": {"action": "accept", "content": {"name": 7}}}, "its content does not fit the question's form"),
        (None, "the client did not answer within 0.2 s"),
    ],
)
def test_a_2025_answer_that_cannot_be_used_ends_the_call_in_input_unavailable(
    stdio: tuple[McpServer, _Client], reply: dict[str, Any] | None, reason: str
) -> None:
    server, client = stdio
    server.elicitation.timeout = 0.2
    _initialize(client, {"elicitation": {}})
    _tools_call(client, "test_input_required_result_elicitation", {})

    asked = client.next()
    if reply is not None:
        client.send({"jsonrpc": "2.0", "id": asked["id"], **reply})
    answer = client.next()

    assert answer["result"]["_meta"][ERROR_META_KEY]["code"] == INPUT_UNAVAILABLE
    assert reason in answer["result"]["content"][0]["text"]


def test_a_response_to_nothing_asked_is_ignored(modern: McpServer) -> None:
    assert modern.answer({"jsonrpc": "2.0", "id": "toolproof-ask-00", "result": {"action": "accept"}}) is None
    assert not modern.elicitation.replied({"jsonrpc": "2.0", "id": 3, "result": {}})


# The official MCP Python SDK client over real stdio: its elicitation callback answers in both eras.

SERVE = [sys.executable, "-m", "toolproof", "serve", "mcp", "--project", str(PROJECT.parent)]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize(("action", "kept"), [("decline", True), ("accept", False)])
def test_the_sdk_client_is_asked_to_confirm_and_its_answer_decides(
    notes: Path, mode: str, action: Literal["accept", "decline"], kept: bool
) -> None:
    asked: list[str] = []

    async def answer(context: Any, params: ElicitRequestParams) -> ElicitResult:
        asked.append(params.message)
        return ElicitResult(action=action)

    async def session() -> None:
        command, *args = SERVE
        server = StdioServerParameters(command=command, args=[*args, "--workspace", str(notes.parent)])
        with anyio.fail_after(30):
            async with Client(server, mode=mode, elicitation_callback=answer) as client:
                assert client.protocol_version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
                result = await client.call_tool("delete_note", {"title": "groceries"})
                assert result.is_error is False
                assert result.structured_content is not None
                assert result.structured_content["deleted"] is not kept

    anyio.run(session)

    assert asked == ["Delete note 'groceries'? This cannot be undone."]
    assert (notes / "groceries.md").is_file() is kept


def test_a_2025_http_request_that_accepts_no_event_stream_cannot_be_asked(notes: Path) -> None:
    app = StreamableMcp(_server(notes.parent, handshake=False), HttpLimits())
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "delete_note", "arguments": {"title": "groceries"}},
    }

    status, answer = post_json(app, "/mcp", call, {"Accept": "application/json", "MCP-Protocol-Version": "2025-11-25"})

    assert status == 200
    assert answer["result"]["_meta"][ERROR_META_KEY]["code"] == INPUT_UNAVAILABLE
    assert "its request accepts no text/event-stream answer" in answer["result"]["content"][0]["text"]
    assert (notes / "groceries.md").is_file()
