"""Rate limits: token buckets in a file shared by the workers of one machine, and the 429 a call over one gets."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.asgi import exchange
from toolproof.runtime.context import Caller, calling_as
from toolproof.runtime.serve.app import Security, ToolproofApp
from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.serve.limits import HttpLimits
from toolproof.runtime.serve.mcp import McpServer
from toolproof.runtime.serve.policy import RateLimit
from toolproof.runtime.serve.ratelimit import PROBES, SIZE, SLOTS, RateGate, SharedBuckets, bucket_file
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.toolbox import builtin_runtime


@pytest.fixture
def shared() -> Iterator[Path]:
    path = bucket_file()
    yield path
    path.unlink(missing_ok=True)


def test_a_bucket_gives_its_calls_then_says_how_long_until_the_next(shared: Path) -> None:
    buckets = SharedBuckets(shared)
    two_a_second = [(7, 2.0, 2.0)]

    taken = [buckets.take(two_a_second, 100.0) for _ in range(3)]

    assert taken[:2] == [0.0, 0.0]
    assert taken[2] == pytest.approx(0.5)
    assert buckets.take(two_a_second, 100.25) == pytest.approx(0.25)  # half a call regained
    assert buckets.take(two_a_second, 100.5) == 0.0


def test_workers_on_one_file_count_one_callers_calls_together(shared: Path) -> None:
    first, second = SharedBuckets(shared), SharedBuckets(shared)  # two open files, as two processes hold
    limit = [(9, 3.0, 0.001)]

    assert [first.take(limit, 5.0), second.take(limit, 5.0), first.take(limit, 5.0)] == [0.0, 0.0, 0.0]
    assert second.take(limit, 5.0) > 0


def test_another_process_sees_the_calls_this_one_took(shared: Path) -> None:
    SharedBuckets(shared).take([(11, 2.0, 0.001)], 1.0)
    code = (
        "import sys; from pathlib import Path; from toolproof.runtime.serve.ratelimit import SharedBuckets;"
        "b = SharedBuckets(Path(sys.argv[1])); print(b.take([(11, 2.0, 0.001)], 1.0), b.take([(11, 2.0, 0.001)], 1.0))"
    )

    out = subprocess.run([sys.executable, "-c", code, str(shared)], capture_output=True, text=True, check=True).stdout

    taken, refused = map(float, out.split())
    assert taken == 0.0 and refused > 0


def test_a_call_refused_by_one_limit_takes_nothing_from_the_others(shared: Path) -> None:
    buckets = SharedBuckets(shared)
    buckets.take([(21, 1.0, 0.001)], 0.0)  # the tight limit is spent

    assert buckets.take([(22, 5.0, 0.001), (21, 1.0, 0.001)], 0.0) > 0
    assert [buckets.take([(22, 5.0, 0.001)], 0.0) for _ in range(5)] == [0.0] * 5


def test_when_every_slot_a_key_may_take_is_held_the_one_counted_longest_ago_is_forgotten(shared: Path) -> None:
    buckets = SharedBuckets(shared)
    keys = [1 + SLOTS * n for n in range(PROBES + 1)]  # one start slot: all collide
    for stamp, key in enumerate(keys[:PROBES]):
        assert buckets.take([(key, 1.0, 0.001)], float(stamp)) == 0.0

    assert buckets.take([(keys[PROBES], 1.0, 0.001)], 50.0) == 0.0  # a new caller is never refused for room
    assert buckets.take([(keys[0], 1.0, 0.001)], 50.0) == 0.0  # the oldest was forgotten: full again
    assert buckets.take([(keys[5], 1.0, 0.001)], 50.0) > 0  # the others are still counted


def test_a_file_of_another_size_is_refused(tmp_path: Path) -> None:
    (tmp_path / "b").write_bytes(b"\0" * (SIZE - 1))

    with pytest.raises(OSError, match="is not a rate-limit bucket file"):
        SharedBuckets(tmp_path / "b")


@pytest.fixture
def app(tmp_path: Path) -> ToolproofApp:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    runtime = builtin_runtime(workspace=[tmp_path])
    limits = [RateLimit(2, 60.0, "subject", ("aintern",)), RateLimit(100, 1.0, "address")]
    gate = RateGate(limits, runtime.specs, SharedBuckets())
    rest = HttpApp(runtime, limits=HttpLimits(), gate=gate)
    mcp = StreamableMcp(McpServer(runtime, session="http", handshake=False), rest.limits, calls=rest.calls, gate=gate)
    return ToolproofApp(rest, mcp, Security.build("127.0.0.1"))


_MCP = {"host": "127.0.0.1", "accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}
_CALL = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "file-read", "arguments": {}}}


def _rest(app: ToolproofApp) -> tuple[int, dict[str, str], object]:
    return exchange(app, "/tools/file-read", b'{"path": "notes.txt"}', {"host": "127.0.0.1"})


def test_a_caller_over_its_limit_gets_429_with_retry_after_on_rest_and_mcp_alike(app: ToolproofApp) -> None:
    first, _, _ = _rest(app)
    second, _, _ = exchange(app, "/mcp", json.dumps(_CALL).encode(), _MCP)
    status, headers, body = _rest(app)
    over_mcp, mcp_headers, _ = exchange(app, "/mcp", json.dumps(_CALL).encode(), _MCP)

    assert (first, second) == (200, 200)
    assert (status, headers["retry-after"]) == (429, "30")  # 2 calls a minute: one back in 30 s
    assert body == {"code": "rate_limited", "message": "too many calls of file-read: retry in 30 s"}
    assert (over_mcp, mcp_headers["retry-after"]) == (429, "30")


def _statuses(gate: RateGate, tool: str, caller: Caller | None, address: str, times: int) -> list[int]:
    with calling_as(caller):
        return [(gate(tool, {"client": (address, 1)}) or (200,))[0] for _ in range(times)]


def test_a_limit_counts_each_subject_or_client_or_address_apart_and_only_over_its_tool_sets(tmp_path: Path) -> None:
    specs = builtin_runtime(workspace=[tmp_path]).specs
    alice = Caller(subject="alice", client_id="app", scopes=frozenset(), issuer="https://as.example")
    bob = Caller(subject="bob", client_id="app", scopes=frozenset(), issuer="https://as.example")
    per_subject = RateGate([RateLimit(1, 60.0, "subject", ("aintern",))], specs, SharedBuckets())
    per_client = RateGate([RateLimit(1, 60.0, "client")], specs, SharedBuckets())

    assert _statuses(per_subject, "file-read", alice, "10.0.0.1", 2) == [200, 429]
    assert _statuses(per_subject, "file-read", bob, "10.0.0.1", 1) == [200]
    assert _statuses(per_subject, "file-read", None, "10.0.0.2", 2) == [200, 429]  # no subject: by address
    assert _statuses(per_subject, "read_file", alice, "10.0.0.1", 3) == [200, 200, 200]  # tool set gateway
    assert _statuses(per_client, "file-read", alice, "10.0.0.1", 1) == [200]
    assert _statuses(per_client, "read_file", bob, "10.0.0.3", 1) == [429]  # one client, both tools
