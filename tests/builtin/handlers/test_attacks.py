"""Attacks on the built-in tools: nothing a disk, a caller or a peer sends can stop, hang or fool a host.

Each case is named after its attack and runs through the transports it can
reach: the Python API (``Runtime.call``), MCP over stdio (one server process
driven with every message) and, for a few, the ``toolproof call`` command in a
subprocess. Whatever the attack, the answer is a catalogued result (never
``internal_error``) that every transport can write as UTF-8 JSON, audit and
``-v`` lines stay one record each, and the server keeps serving.
"""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Final

import pytest

from tests.builtin.trees import lay_hostile as _lay_out
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.json_writer import json_bytes
from toolproof.runtime.result import ToolResult
from toolproof.runtime.serve.mcp import ERROR_META_KEY, HANDSHAKE_VERSIONS
from toolproof.runtime.toolbox import builtin_runtime

SECRET: Final = "hostile-calls-secret-of-32-bytes"
TOKEN: Final = "<the session's skill token>"
"""Stands for the current skill token in a case's arguments; each transport puts its own in."""
FORGED: Final = (
    "\nINFO toolproof.audit: tool=read_file session=None path=/etc/shadow outcome=ok bytes=1 duration_ms=0.1"
)
BIG: Final = 2**64

_AUDIT_LINE = re.compile(
    r'tool=\S+ session=(?:"[^"]*"|\S+) path=(?:"[^"]*"|\S+) outcome=\S+ bytes=\d+ duration_ms=\d+\.\d{3}'
)
_RAW_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


@dataclass(frozen=True)
class Attack:
    """One hostile tool call and the catalogued outcome it must end in ("ok" for a success)."""

    name: str
    tool: str
    arguments: dict[str, Any] | str
    expect: str
    mcp: str | None = None
    """What MCP answers when it differs (``parse_error``: the message is not JSON to it at all)."""
    transports: tuple[str, ...] = ("api", "mcp")
    checks: tuple[tuple[str, str], ...] = field(default=())
    """(output field, text it must hold) for successes; (``message``, text) for errors."""


def _token(**args: Any) -> dict[str, Any]:
    return {**args, "skillToken": TOKEN}


ATTACKS: Final[list[Attack]] = [
    # Lone surrogates in the arguments: text UTF-8 cannot carry, refused by name.
    Attack("lone_low_surrogate_as_read_file_path", "read_file", _token(path="\udcff"), "invalid_arguments",
           checks=(("message", "$.path: holds a lone surrogate"),)),
    Attack("lone_high_surrogate_as_read_file_path", "read_file", _token(path="\ud800"), "invalid_arguments"),
    Attack("reversed_surrogate_pair_in_read_file_path", "read_file", _token(path="\ude80\ud83d"), "invalid_arguments"),
    Attack("lone_surrogate_inside_a_plausible_path", "read_file", _token(path="notes\udcff.txt"), "invalid_arguments"),
    Attack("lone_surrogate_as_read_file_cwd", "read_file", _token(path="notes.txt", cwd="\udcff"), "invalid_arguments",
           checks=(("message", "$.cwd: holds a lone surrogate"),)),
    Attack("lone_surrogate_as_skill_token", "read_file", {"path": "notes.txt", "skillToken": "\udcff"},
           "invalid_arguments", checks=(("message", "$.skillToken: holds a lone surrogate"),)),
    Attack("lone_surrogate_after_a_valid_skill_token", "read_file", {"path": "notes.txt", "skillToken": "a\udcff"},
           "invalid_arguments"),
    Attack("lone_surrogate_as_a_property_name", "read_file", {"path": "notes.txt", "pa\udcffth": 1},
           "invalid_arguments", checks=(("message", "the property name holds a lone surrogate"),)),
    Attack("lone_surrogate_in_an_unexpected_nested_value", "read_file", _token(path="notes.txt", x=[{"y": "\udcff"}]),
           "invalid_arguments", checks=(("message", "$.x[0].y: holds a lone surrogate"),)),
    Attack("lone_surrogate_as_file_read_path", "file-read", {"path": "\udcff"}, "invalid_arguments"),
    Attack("lone_surrogate_as_skill_name_of_read_file_in_skill", "read_file_in_skill",
           {"skill_name": "\udcff", "file_path": "x"}, "invalid_arguments",
           checks=(("message", "$.skill_name: holds a lone surrogate"),)),
    Attack("lone_surrogate_as_file_path_of_read_file_in_skill", "read_file_in_skill",
           {"skill_name": "calculator", "file_path": "examples/\udcff.py"}, "invalid_arguments"),
    Attack("lone_surrogate_as_skill_name_of_get_skill", "get_skill", {"skill_name": "\udcff"}, "invalid_arguments"),
    Attack("lone_surrogate_as_skill_name_of_read_skill", "read_skill", {"skill_name": "calc\udcff"},
           "invalid_arguments"),
    Attack("lone_surrogate_escape_in_argument_text", "read_file", '{"path": "\\udcff", "skillToken": "x"}',
           "invalid_arguments", checks=(("message", "$.path: holds a lone surrogate"),)),
    Attack("raw_lone_surrogate_in_argument_text", "file-read", '{"path": "\udcff"}', "invalid_arguments",
           transports=("api",)),
    # Names on disk that are not UTF-8: what the model reads is repaired, never a crash.
    Attack("symlink_to_a_name_that_is_not_utf8", "read_file", _token(path="to-non-utf8"), "ok",
           checks=(("path", "t\ufffd.txt"), ("content", "1\ttarget"))),
    Attack("absolute_symlink_path_to_a_name_that_is_not_utf8", "read_file", _token(path="<ws>/to-non-utf8"), "ok",
           checks=(("path", "t\ufffd.txt"),)),
    Attack("dangling_symlink_to_a_name_that_is_not_utf8", "read_file", _token(path="dangling-non-utf8"), "not_found"),
    Attack("file_read_through_a_symlink_to_a_name_that_is_not_utf8", "file-read", {"path": "to-non-utf8"}, "ok",
           checks=(("content", "1 | target"),)),
    Attack("file_read_of_a_dangling_symlink_to_a_name_that_is_not_utf8", "file-read", {"path": "dangling-non-utf8"},
           "file_not_found"),
    Attack("skill_file_linking_to_a_name_that_is_not_utf8", "read_file_in_skill",
           {"skill_name": "calculator", "file_path": "examples/link.py"}, "ok", checks=(("content", "y = 2"),)),
    Attack("folder_holding_a_name_that_is_not_utf8", "read_file", _token(path="."), "is_directory"),
    Attack("content_that_is_not_utf8", "read_file", _token(path="latin1.txt"), "not_utf8"),
    # Integers beyond 64 bits stay exact, in messages and outputs.
    Attack("limit_of_two_to_the_64", "read_file", _token(path="notes.txt", limit=BIG), "invalid_arguments",
           checks=(("message", "(got 18446744073709551616)"),)),
    Attack("offset_of_two_to_the_64", "read_file", _token(path="notes.txt", offset=BIG), "offset_out_of_range",
           checks=(("message", "offset 18446744073709551616 is past the end"),)),
    Attack("offset_of_ten_to_the_30", "read_file", _token(path="notes.txt", offset=10**30), "offset_out_of_range",
           checks=(("message", str(10**30)),)),
    Attack("negative_offset_beyond_64_bits", "read_file", _token(path="notes.txt", offset=-BIG), "invalid_arguments",
           checks=(("message", str(-BIG)),)),
    Attack("file_read_start_line_of_two_to_the_64", "file-read", {"path": "notes.txt", "start_line": BIG}, "ok"),
    Attack("file_read_end_line_of_two_to_the_64", "file-read", {"path": "notes.txt", "end_line": BIG}, "ok",
           checks=(("content", "3 | three"),)),
    Attack("file_read_max_lines_of_minus_two_to_the_64", "file-read", {"path": "notes.txt", "max_lines": -BIG},
           "invalid_range"),
    Attack("big_integer_in_argument_text", "read_file", '{"path": "notes.txt", "limit": 18446744073709551616}',
           "invalid_arguments", checks=(("message", "(got 18446744073709551616)"),)),
    # Numbers JSON has no form for.
    Attack("number_beyond_the_range_of_floats", "read_file", '{"path": "notes.txt", "limit": 1e400}',
           "invalid_arguments"),  # valid JSON: MCP answers it by its id, as the runtime does
    Attack("nan_literal", "read_file", '{"path": "notes.txt", "limit": NaN}', "invalid_arguments", mcp="parse_error"),
    Attack("infinity_literal", "read_file", '{"path": "notes.txt", "limit": -Infinity}', "invalid_arguments",
           mcp="parse_error"),
    # Paths that try to forge a log line, a field, or rewrite a terminal.
    Attack("path_forging_an_audit_record", "read_file", _token(path="x" + FORGED), "not_found"),
    Attack("path_forging_an_audit_record_in_file_read", "file-read", {"path": "x" + FORGED}, "file_not_found"),
    Attack("path_forging_an_audit_field", "read_file", _token(path="x outcome=ok bytes=999"), "not_found"),
    Attack("path_with_a_carriage_return", "read_file", _token(path="x\rINFO toolproof.audit: ok"), "not_found"),
    Attack("path_with_an_ansi_escape", "read_file", _token(path="x\x1b[2K\x1b[1Gclean"), "not_found"),
    Attack("path_with_a_bidi_override", "read_file", _token(path="txt.\u202eexe"), "not_found"),
    Attack("path_with_a_line_separator", "read_file", _token(path="x\u2028INFO toolproof.audit: ok"), "not_found"),
    Attack("path_with_a_next_line_control", "read_file", _token(path="x\x85INFO toolproof.audit: ok"), "not_found"),
    Attack("path_with_a_quote_and_backslash", "read_file", _token(path='x" outcome=ok \\'), "not_found"),
    Attack("skill_file_path_forging_an_audit_record", "read_file_in_skill",
           {"skill_name": "calculator", "file_path": "x" + FORGED}, "file_not_found"),
]  # fmt: skip


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hostile").resolve()
    _lay_out(folder)
    return folder


def _arguments(attack: Attack, token: str, base: Path) -> dict[str, Any] | str:
    if isinstance(attack.arguments, str):
        return attack.arguments
    args = dict(attack.arguments)
    if args.get("skillToken") == TOKEN:
        args["skillToken"] = token
    if isinstance(args.get("path"), str):
        args["path"] = args["path"].replace("<ws>", str(base / "ws"))
    return args


def _writable(result: ToolResult) -> None:
    """Every transport can write ``result``: orjson (MCP, HTTP), the standard library (CLI), UTF-8 text."""
    json_bytes(result.to_dict())
    json_bytes(result.to_mcp())
    json.dumps(result.to_dict(), ensure_ascii=False).encode("utf-8")
    result.text.encode("utf-8")


def _assert_audit_lines(records: list[logging.LogRecord]) -> None:
    for record in records:
        line = record.getMessage()
        assert _AUDIT_LINE.fullmatch(line), line
        assert _RAW_UNSAFE.search(line) is None, line


def _check(attack: Attack, code: str, message: str, output: Any) -> None:
    assert code != "internal_error"
    assert code == attack.expect, (attack.name, code, message)
    for key, text in attack.checks:
        if key == "message":
            assert text in message, (attack.name, message)
        else:
            assert isinstance(output, dict) and text in output[key], (attack.name, output)


# --- the Python API ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def runtime(base: Path) -> Runtime:
    return builtin_runtime(workspace=[base / "ws"], skills=[base / "skills"], gate_secret=SECRET.encode())


@pytest.mark.parametrize("attack", [a for a in ATTACKS if "api" in a.transports], ids=lambda a: a.name)
def test_the_python_api_answers(attack: Attack, runtime: Runtime, base: Path, caplog: pytest.LogCaptureFixture) -> None:
    token = runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"}, session="api").output["skillToken"]
    with caplog.at_level(logging.INFO, logger="toolproof.audit"):
        result = runtime.call(attack.tool, _arguments(attack, token, base), session="api")

    _writable(result)
    code = "ok" if result.error is None else result.error.code
    _check(attack, code, "" if result.error is None else result.error.message, result.output)
    _assert_audit_lines([r for r in caplog.records if r.name == "toolproof.audit"])


# --- MCP over stdio: one server process, every message ----------------------------------------------------------


class _Server:
    """``toolproof serve mcp`` in a subprocess, its stderr kept in a file so it can never block."""

    def __init__(self, base: Path, stderr: IO[bytes]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "toolproof", "serve", "mcp", "--workspace", str(base / "ws"),
             "--skills", str(base / "skills")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env={**os.environ, "TOOLPROOF_GATE_SECRET": SECRET},
        )  # fmt: skip
        self.next_id = 100

    def send(self, raw: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(raw + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> Any:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line.endswith(b"\n"), "the server stopped answering"
        return json.loads(line)  # bytes: decoded as strict UTF-8

    def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        self.send(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}).encode())
        answer = self.receive()
        assert answer["id"] == self.next_id
        return answer

    def call_raw(self, name: str, arguments: str) -> Any:
        self.next_id += 1
        body = f'{{"jsonrpc": "2.0", "id": {self.next_id}, "method": "tools/call", '
        self.send((body + f'"params": {{"name": {json.dumps(name)}, "arguments": {arguments}}}}}').encode())
        return self.receive()

    def close(self) -> int:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout=30)
        self.proc.stdout.close()
        return code


@pytest.fixture(scope="module")
def mcp(base: Path) -> Iterator[tuple[_Server, str, Path]]:
    log = base / "mcp-stderr.log"
    with log.open("wb") as stderr:
        server = _Server(base, stderr)
        init = {
            "protocolVersion": HANDSHAKE_VERSIONS[-1],
            "capabilities": {},
            "clientInfo": {"name": "h", "version": "1"},
        }
        server.request("initialize", init)
        server.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
        doc = server.request("tools/call", {"name": "read_file", "arguments": {"path": "builtin://read_file/SKILL.md"}})
        yield server, doc["result"]["structuredContent"]["skillToken"], log
        server.close()


@pytest.mark.parametrize("attack", [a for a in ATTACKS if "mcp" in a.transports], ids=lambda a: a.name)
def test_the_mcp_server_answers(attack: Attack, mcp: tuple[_Server, str, Path], base: Path) -> None:
    server, token, _ = mcp
    args = _arguments(attack, token, base)
    if isinstance(args, str):
        answer = server.call_raw(attack.tool, args)
    else:
        answer = server.request("tools/call", {"name": attack.tool, "arguments": args})

    if attack.mcp == "parse_error":
        assert answer == {
            "jsonrpc": "2.0",
            "id": None,
            "error": {"code": -32700, "message": answer["error"]["message"]},
        }
        return
    result = answer["result"]
    meta = (result.get("_meta") or {}).get(ERROR_META_KEY) or {}
    code = meta.get("code", "ok") if result["isError"] else "ok"
    _check(attack, code, meta.get("message", ""), result.get("structuredContent"))


@dataclass(frozen=True)
class Message:
    """A raw JSON-RPC line and the answer it must get (None: no answer at all)."""

    name: str
    raw: bytes
    error: int | None
    answer_id: Any = None


MESSAGES: Final[list[Message]] = [
    Message("id_null", b'{"jsonrpc": "2.0", "id": null, "method": "ping"}', -32600),
    Message("id_float", b'{"jsonrpc": "2.0", "id": 1.5, "method": "ping"}', -32600),
    Message("id_exponent", b'{"jsonrpc": "2.0", "id": 1e2, "method": "ping"}', -32600),
    Message("id_true", b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600),
    Message("id_array", b'{"jsonrpc": "2.0", "id": [1], "method": "ping"}', -32600),
    Message("id_object", b'{"jsonrpc": "2.0", "id": {"a": 1}, "method": "ping"}', -32600),
    Message("id_lone_surrogate", b'{"jsonrpc": "2.0", "id": "\\udcff", "method": "ping"}', -32600),
    Message("id_object_on_a_malformed_request", b'{"jsonrpc": "1.0", "id": {"a": 1}, "method": "ping"}', -32600),
    Message("id_two_to_the_64", b'{"jsonrpc": "2.0", "id": 18446744073709551616, "method": "ping"}', None, BIG),
    Message("id_minus_ten_to_the_30", b'{"jsonrpc": "2.0", "id": -1000000000000000000000000000000, "method": "ping"}',
            None, -(10**30)),
    Message("id_unicode_string", '{"jsonrpc": "2.0", "id": "\u202eé🚀", "method": "ping"}'.encode(), None, "\u202eé🚀"),
    Message("batch", b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600),
    Message("not_an_object", b'"ping"', -32600),
    Message("empty_object", b"{}", -32600),
    Message("jsonrpc_1_0", b'{"jsonrpc": "1.0", "id": 1, "method": "ping"}', -32600, 1),
    Message("method_is_a_number", b'{"jsonrpc": "2.0", "id": 1, "method": 7}', -32600, 1),
    Message("params_is_an_array", b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": [1]}', -32602, 1),
    Message("tool_name_is_a_number", b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": 7}}',
            -32602, 1),
    Message("tool_name_with_a_lone_surrogate",
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x\\udcff"}}', -32602, 1),
    Message("arguments_are_an_array",
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "read_file", "arguments": [1]}}',
            -32602, 1),
    Message("method_with_a_lone_surrogate", b'{"jsonrpc": "2.0", "id": 1, "method": "x\\udcff"}', -32601, 1),
    Message("unknown_method", b'{"jsonrpc": "2.0", "id": 1, "method": "sampling/createMessage"}', -32601, 1),
    Message("nan_literal", b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32700),
    Message("invalid_utf8", b'{"jsonrpc": "2.0", "id": 1, "method": "\xff"}', -32700),
    Message("truncated_json", b'{"jsonrpc": "2.0", "id": 1, "method": "pi', -32700),
    Message("nested_a_hundred_thousand_deep", b"[" * 100_000 + b"]" * 100_000, -32600),  # valid JSON, no message
    Message("envelope_naming_an_unknown_revision",
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", '
            b'"params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2099-01-01"}}}', -32022, 1),
    Message("envelope_version_that_is_an_object",
            b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", '
            b'"params": {"_meta": {"io.modelcontextprotocol/protocolVersion": {"a": 1}}}}', -32602, 1),  # malformed
    Message("notification_of_an_unknown_method", b'{"jsonrpc": "2.0", "method": "x/y"}', None),
    Message("response_we_never_asked_for", b'{"jsonrpc": "2.0", "id": 5, "result": {}}', None),
]  # fmt: skip


@pytest.mark.parametrize("message", MESSAGES, ids=lambda m: m.name)
def test_the_mcp_server_answers_a_hostile_message(message: Message, mcp: tuple[_Server, str, Path]) -> None:
    server, _, _ = mcp
    server.send(message.raw)
    if message.error is None and message.answer_id is None:  # no answer is due: the next one is the ping's
        assert server.request("ping", {})["result"] == {}
        return
    answer = server.receive()
    if message.error is None:
        assert answer == {"jsonrpc": "2.0", "id": message.answer_id, "result": {}}
    else:
        assert answer["error"]["code"] == message.error
        assert answer["id"] == message.answer_id


def test_the_mcp_server_lived_through_every_attack_without_a_traceback(mcp: tuple[_Server, str, Path]) -> None:
    server, _, log = mcp

    assert server.request("ping", {})["result"] == {}
    assert server.proc.poll() is None
    assert "Traceback" not in log.read_text(encoding="utf-8", errors="replace")


# --- the command line: a few subprocesses -----------------------------------------------------------------------


def _cli(base: Path, tool: str, args: bytes | str, *extra: str) -> tuple[dict[str, Any], list[str]]:
    argv: list[str | bytes] = [sys.executable, "-m", "toolproof", "call", tool, "--args", args,
                               "--workspace", str(base / "ws"), "--skills", str(base / "skills"), *extra]  # fmt: skip
    done = subprocess.run(
        argv, capture_output=True, timeout=60, check=False, env={**os.environ, "TOOLPROOF_GATE_SECRET": SECRET}
    )
    stderr = done.stderr.decode("utf-8")  # strict: what the command prints is UTF-8
    assert done.returncode == 0, stderr
    assert "Traceback" not in stderr
    return json.loads(done.stdout.decode("utf-8")), stderr.splitlines()


def _cli_token(base: Path, session: str) -> str:
    runtime = builtin_runtime(workspace=[base / "ws"], skills=[base / "skills"], gate_secret=SECRET.encode())
    return str(
        runtime.call("read_file", {"path": "builtin://read_file/SKILL.md"}, session=session).output["skillToken"]
    )


@pytest.mark.parametrize(
    ("tool", "args", "code"),
    [
        ("file-read", b'{"path": "\xff"}', "invalid_arguments"),
        ("file-read", '{"path": "\\udcff"}', "invalid_arguments"),
        ("read_file_in_skill", '{"skill_name": "\\udcff", "file_path": "x"}', "invalid_arguments"),
        ("read_file", '{"path": "notes.txt", "skillToken": "\\udcff"}', "invalid_arguments"),
        ("read_file", '{"path": "notes.txt", "limit": 18446744073709551616}', "invalid_arguments"),
    ],
    ids=[
        "raw_byte_that_is_not_utf8_in_the_argument_text",
        "lone_surrogate_escape_as_path",
        "lone_surrogate_escape_as_skill_name",
        "lone_surrogate_escape_as_skill_token",
        "limit_of_two_to_the_64",
    ],
)
def test_the_command_line_answers(base: Path, tool: str, args: bytes | str, code: str) -> None:
    payload, _ = _cli(base, tool, args)

    assert payload["error"]["code"] == code
    if "18446744073709551616" in str(args):
        assert "(got 18446744073709551616)" in payload["error"]["message"]


def test_the_command_line_reads_a_symlink_to_a_name_that_is_not_utf8(base: Path) -> None:
    token = _cli_token(base, "cli")
    payload, _ = _cli(base, "read_file", json.dumps({"path": "to-non-utf8", "skillToken": token}), "--session", "cli")

    assert payload["ok"] is True
    assert payload["output"]["path"].endswith("/t\ufffd.txt")


def test_verbose_lines_of_a_path_forging_an_audit_record_stay_one_record_each(base: Path) -> None:
    token = _cli_token(base, "cli")
    args = json.dumps({"path": "x" + FORGED, "skillToken": token})

    payload, lines = _cli(base, "read_file", args, "--session", "cli", "-v")

    assert payload["error"]["code"] == "not_found"
    audit = [line for line in lines if line.startswith("INFO toolproof.audit: ")]
    assert len(audit) == 1
    assert _AUDIT_LINE.fullmatch(audit[0].removeprefix("INFO toolproof.audit: ")), audit[0]
    for line in lines:
        assert line.startswith(("[Tool Call] ", "[Tool Error] ", "INFO toolproof.audit: ", "    ")), line
        assert _RAW_UNSAFE.search(line) is None, line
    assert not any(
        line.startswith("INFO toolproof.audit: tool=read_file session=None path=/etc/shadow") for line in lines
    )
