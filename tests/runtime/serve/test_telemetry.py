"""OpenTelemetry (``serve --otel``): spans and measurements, read back from the SDK's in-memory exporters.

The MCP core is driven as stdio drives it (``McpServer.answer``, one connection) and the HTTP app in process, as a
server drives it; the spans' attributes follow the semantic conventions for MCP and GenAI tool execution.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.sdk")

from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from tests.asgi import post_json
from toolproof.runtime.dispatch import Runtime
from toolproof.runtime.serve.app import Security, ToolproofApp
from toolproof.runtime.serve.http import HttpApp
from toolproof.runtime.serve.limits import HttpLimits
from toolproof.runtime.serve.mcp import McpServer
from toolproof.runtime.serve.streamable import StreamableMcp
from toolproof.runtime.serve.telemetry import Telemetry
from toolproof.runtime.toolbox import builtin_runtime

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"
HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


@dataclass
class Traced:
    runtime: Runtime
    spans: InMemorySpanExporter
    metrics: InMemoryMetricReader

    def finished(self) -> list[ReadableSpan]:
        return list(self.spans.get_finished_spans())

    def points(self, name: str) -> list[Any]:
        data = self.metrics.get_metrics_data()
        assert data is not None
        return [
            point
            for resource in data.resource_metrics
            for scope in resource.scope_metrics
            for metric in scope.metrics
            if metric.name == name
            for point in metric.data.data_points
        ]


@pytest.fixture
def traced(tmp_path: Path) -> Iterator[Traced]:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    spans = InMemorySpanExporter()
    tracers = TracerProvider()
    tracers.add_span_processor(SimpleSpanProcessor(spans))
    metrics = InMemoryMetricReader()
    runtime = builtin_runtime(workspace=[tmp_path])
    runtime.telemetry = Telemetry(tracers, MeterProvider(metric_readers=[metrics]))
    yield Traced(runtime, spans, metrics)
    tracers.shutdown()


def _call(request_id: int, name: str, arguments: dict[str, Any], meta: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"name": name, "arguments": arguments}
    if meta is not None:
        params["_meta"] = meta
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def _stdio(traced: Traced) -> McpServer:
    server = McpServer(traced.runtime)
    server.answer({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": HELLO})
    return server


def test_a_tools_call_over_stdio_is_a_server_span_with_an_execute_tool_child_in_the_trace_meta_names(
    traced: Traced,
) -> None:
    server = _stdio(traced)

    answer = server.answer(_call(7, "file-read", {"path": "notes.txt"}, {"traceparent": TRACEPARENT}))

    assert answer is not None and answer["result"]["isError"] is False
    initialize, request, tool = traced.finished()[0], traced.finished()[2], traced.finished()[1]
    assert initialize.name == "initialize"
    assert (request.name, request.kind) == ("tools/call file-read", SpanKind.SERVER)
    assert dict(request.attributes or {}) == {
        "mcp.method.name": "tools/call",
        "jsonrpc.request.id": "7",
        "network.transport": "pipe",
        "mcp.protocol.version": "2025-11-25",
        "gen_ai.tool.name": "file-read",
        "gen_ai.operation.name": "execute_tool",
    }
    assert request.parent is not None and request.parent.is_remote
    assert (f"{request.context.trace_id:032x}", f"{request.parent.span_id:016x}") == (TRACE_ID, PARENT_ID)
    assert (tool.name, tool.kind) == ("execute_tool file-read", SpanKind.INTERNAL)
    assert dict(tool.attributes or {}) == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "file-read",
        "gen_ai.tool.type": "function",
    }
    assert tool.parent is not None and tool.parent.span_id == request.context.span_id
    assert request.status.status_code is StatusCode.UNSET


def test_a_tool_error_sets_error_type_to_its_catalogued_code_on_both_spans_and_counts_it(traced: Traced) -> None:
    server = _stdio(traced)

    server.answer(_call(8, "file-read", {"path": "missing.txt"}))

    tool, request = traced.finished()[1:]
    for span in (tool, request):
        assert (span.attributes or {})["error.type"] == "file_not_found"
        assert span.status.status_code is StatusCode.ERROR
    assert request.parent is None  # no trace context: a new trace
    (errors,) = traced.points("toolproof.tool.call.errors")
    assert (errors.value, dict(errors.attributes)["error.type"]) == (1, "file_not_found")


def test_a_protocol_error_sets_error_type_to_the_json_rpc_code(traced: Traced) -> None:
    server = _stdio(traced)

    server.answer(_call(9, "no-such-tool", {}))

    request = traced.finished()[-1]
    assert (request.name, (request.attributes or {})["error.type"]) == ("tools/call no-such-tool", "-32602")
    assert (request.attributes or {})["rpc.response.status_code"] == "-32602"
    assert request.status.status_code is StatusCode.ERROR


def test_durations_are_recorded_per_method_and_per_tool_without_the_request_id(traced: Traced) -> None:
    server = _stdio(traced)
    server.answer(_call(1, "file-read", {"path": "notes.txt"}))
    server.answer(_call(2, "file-read", {"path": "notes.txt"}))

    operations = {dict(p.attributes)["mcp.method.name"]: p for p in traced.points("mcp.server.operation.duration")}
    assert operations["tools/call"].count == 2
    assert "jsonrpc.request.id" not in operations["tools/call"].attributes
    (calls,) = traced.points("toolproof.tool.call.duration")
    assert (calls.count, dict(calls.attributes)["gen_ai.tool.name"]) == (2, "file-read")
    assert traced.points("toolproof.tool.call.errors") == []


def _app(traced: Traced) -> ToolproofApp:
    rest = HttpApp(traced.runtime, limits=HttpLimits())
    mcp = StreamableMcp(McpServer(traced.runtime, session="http", handshake=False), rest.limits, calls=rest.calls)
    return ToolproofApp(rest, mcp, Security.build("127.0.0.1"), traced.runtime.telemetry)


_HTTP = {"host": "127.0.0.1", "accept": "application/json, text/event-stream", "mcp-protocol-version": "2025-11-25"}


def test_an_mcp_call_over_http_joins_the_trace_its_traceparent_header_names(traced: Traced) -> None:
    status, _ = post_json(
        _app(traced), "/mcp", _call(3, "file-read", {"path": "notes.txt"}), {**_HTTP, "traceparent": TRACEPARENT}
    )

    assert status == 200
    tool, request = traced.finished()
    assert (request.attributes or {})["network.transport"] == "tcp"
    assert request.parent is not None and f"{request.parent.span_id:016x}" == PARENT_ID
    assert f"{tool.context.trace_id:032x}" == TRACE_ID


def test_the_meta_trace_context_wins_over_the_header_over_http(traced: Traced) -> None:
    other = "00-11111111111111111111111111111111-2222222222222222-01"

    post_json(
        _app(traced),
        "/mcp",
        _call(4, "file-read", {"path": "x"}, {"traceparent": TRACEPARENT}),
        {**_HTTP, "traceparent": other},
    )

    request = traced.finished()[-1]
    assert request.parent is not None and f"{request.parent.span_id:016x}" == PARENT_ID


def test_a_rest_call_is_an_execute_tool_span_in_the_header_s_trace_with_its_error_code(traced: Traced) -> None:
    status, body = post_json(
        _app(traced), "/tools/file-read", {"path": "../etc/passwd"}, {"host": "127.0.0.1", "traceparent": TRACEPARENT}
    )

    (tool,) = traced.finished()
    assert status in (403, 404)
    assert (tool.name, (tool.attributes or {})["error.type"]) == ("execute_tool file-read", body["code"])
    assert tool.parent is not None and f"{tool.parent.span_id:016x}" == PARENT_ID


def test_a_malformed_traceparent_starts_a_new_trace(traced: Traced) -> None:
    server = _stdio(traced)

    server.answer(_call(5, "file-read", {"path": "notes.txt"}, {"traceparent": "00-nonsense-01"}))

    assert traced.finished()[-1].parent is None
