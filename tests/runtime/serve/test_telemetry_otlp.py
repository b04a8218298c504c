"""``serve mcp --otel`` exports its spans and measurements by OTLP/HTTP to the collector the ``OTEL_*`` variables name.

A small OTLP/HTTP receiver runs in the test on loopback and keeps what it is sent; a real ``toolproof serve mcp``
on stdio answers a traced ``tools/call`` and exits when its input closes, which flushes what it holds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("opentelemetry.exporter.otlp.proto.http")

from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

pytestmark = pytest.mark.slow
TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
TRACEPARENT = f"00-{TRACE_ID}-00f067aa0ba902b7-01"
HELLO = {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}


class Receiver:
    """An OTLP/HTTP collector on a loopback port: the protobuf bodies posted to ``/v1/traces`` and ``/v1/metrics``."""

    def __init__(self) -> None:
        self.bodies: dict[str, list[bytes]] = {"/v1/traces": [], "/v1/metrics": []}
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                owner.bodies.setdefault(self.path, []).append(body)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


def test_a_traced_call_reaches_an_otlp_receiver_with_its_spans_and_measurements(
    receiver: Receiver, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n", encoding="utf-8")
    call = {"name": "file-read", "arguments": {"path": "notes.txt"}, "_meta": {"traceparent": TRACEPARENT}}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": HELLO},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call},
    ]
    env = {**os.environ, "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint, "OTEL_SERVICE_NAME": "notes-tools"}
    run = subprocess.run(
        [sys.executable, "-m", "toolproof", "serve", "mcp", "--otel", "--workspace", str(tmp_path)],
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )

    assert run.returncode == 0, run.stderr
    assert '"isError":false' in run.stdout.replace(" ", "")
    spans = {}
    for body in receiver.bodies["/v1/traces"]:
        traces = ExportTraceServiceRequest.FromString(body)
        for resource in traces.resource_spans:
            service = {a.key: a.value.string_value for a in resource.resource.attributes}["service.name"]
            assert service == "notes-tools"
            for scope in resource.scope_spans:
                spans.update({span.name: span for span in scope.spans})
    request, tool = spans["tools/call file-read"], spans["execute_tool file-read"]
    assert request.trace_id.hex() == TRACE_ID and request.parent_span_id.hex() == "00f067aa0ba902b7"
    assert tool.parent_span_id == request.span_id
    attributes = {a.key: a.value.string_value for a in request.attributes}
    assert (attributes["mcp.method.name"], attributes["network.transport"]) == ("tools/call", "pipe")
    names = {
        metric.name
        for body in receiver.bodies["/v1/metrics"]
        for resource in ExportMetricsServiceRequest.FromString(body).resource_metrics
        for scope in resource.scope_metrics
        for metric in scope.metrics
    }
    assert {"mcp.server.operation.duration", "toolproof.tool.call.duration"} <= names


def test_otel_without_the_extra_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    hidden = tmp_path / "hide"
    (hidden / "opentelemetry").mkdir(parents=True)
    (hidden / "opentelemetry" / "__init__.py").write_text("raise ImportError('hidden')\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hidden), *sys.path])}

    run = subprocess.run(
        [sys.executable, "-m", "toolproof", "serve", "mcp", "--otel"],
        input="",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )

    assert run.returncode == 2
    assert "--otel needs OpenTelemetry: pip install 'toolproof[otel]'" in run.stderr
