"""OpenTelemetry for a host: a span per MCP request and per tool call, their durations and the errors, counted.

Off unless asked for (``serve --otel``, or ``TOOLPROOF_OTEL=1``): then ``Telemetry`` is built and hung on the
``Runtime`` (``runtime.telemetry``), where the MCP core (``mcp.McpServer.answer``), the dispatch core
(``Runtime.call``) and the HTTP app (``app.ToolproofApp``) look for it. When it is off they find None and do
nothing more; this module, and OpenTelemetry with it, is never imported (``tests/test_imports.py``).

What is recorded follows the OpenTelemetry semantic conventions for MCP and for GenAI tool execution:

- every MCP request a server answers: a ``SERVER`` span named ``{mcp.method.name} {gen_ai.tool.name}`` (the tool
  for ``tools/call``, else the method alone) with ``mcp.method.name``, ``jsonrpc.request.id``,
  ``network.transport`` (``pipe`` on stdio, ``tcp`` over HTTP), ``mcp.protocol.version`` and, for a call,
  ``gen_ai.tool.name`` and ``gen_ai.operation.name = execute_tool``; its duration in the
  ``mcp.server.operation.duration`` histogram (seconds);
- every tool call, whatever the transport (MCP, the REST routes, the CLI): an ``INTERNAL`` span named
  ``execute_tool {gen_ai.tool.name}`` with ``gen_ai.operation.name``, ``gen_ai.tool.name`` and
  ``gen_ai.tool.type = function``; its duration in ``toolproof.tool.call.duration`` (seconds), and its failures
  in ``toolproof.tool.call.errors``;
- a failure sets the span's status to ERROR and ``error.type``: the catalogued error code of a tool error
  (``path_traversal``, ``invalid_arguments``, ...), the JSON-RPC error code of a protocol error (``-32602``,
  also as ``rpc.response.status_code``), or the exception's class for a bug of ours.

The trace a request belongs to is the one its ``params._meta`` names (``traceparent``, ``tracestate``, as the
MCP specification's 2026-07-28 revision carries W3C Trace Context, SEP-414); over HTTP without one, the one its
``traceparent`` header names; else a new trace. Arguments, outputs and the caller's identity are never recorded.

Exporting: the host's own providers when one is set up (``opentelemetry-instrument``, or the host's code), else
OTLP over HTTP as the standard ``OTEL_*`` variables say (``OTEL_EXPORTER_OTLP_ENDPOINT``, ``OTEL_SERVICE_NAME``,
``OTEL_RESOURCE_ATTRIBUTES``, ...), flushed at exit. Needs the ``otel`` extra.
"""

from __future__ import annotations

import atexit
import os
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from opentelemetry.context import Context
    from opentelemetry.metrics import MeterProvider
    from opentelemetry.trace import Span, TracerProvider

    from toolproof.runtime.result import ToolResult

__all__ = ["OTEL_ENV", "Telemetry", "require_otel"]

OTEL_ENV: Final = "TOOLPROOF_OTEL"
"""Set to ``1`` (or ``true``), it turns telemetry on as ``--otel`` does."""
_INSTALL: Final = "--otel needs OpenTelemetry: pip install 'toolproof[otel]'"
_SCOPE: Final = "toolproof"
_ERROR_META_KEY: Final = "dev.toolproof/error"
"""``mcp.ERROR_META_KEY``, not imported from there: this module is imported by the MCP core."""
_VERSION_META: Final = "io.modelcontextprotocol/protocolVersion"
_TRACE_KEYS: Final = ("traceparent", "tracestate")
_DURATION_BUCKETS: Final = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
"""Seconds: the buckets the MCP conventions advise for ``mcp.server.operation.duration``."""


def require_otel() -> None:
    """Check that the ``otel`` extra is installed.

    Raises:
        ImportError: it is not; the message says what to install.
    """
    try:
        import opentelemetry.sdk.trace  # noqa: F401  # imported to check it is there
    except ImportError:
        raise ImportError(_INSTALL) from None


class Telemetry:
    """The spans and instruments of one host.

    Args:
        tracer_provider: where spans go (default: the global provider, else an SDK one exporting OTLP/HTTP).
        meter_provider: where measurements go (the same default, for metrics).

    Raises:
        ImportError: OpenTelemetry is not installed (``require_otel`` says what to install).
    """

    def __init__(self, tracer_provider: TracerProvider | None = None, meter_provider: MeterProvider | None = None):
        from opentelemetry import metrics, trace
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        if tracer_provider is None or meter_provider is None:
            default_tracers, default_meters = _providers()
            tracer_provider = tracer_provider or default_tracers
            meter_provider = meter_provider or default_meters
        from toolproof import __version__

        self._trace = trace
        self._tracer = trace.get_tracer(_SCOPE, __version__, tracer_provider=tracer_provider)
        meter = metrics.get_meter(_SCOPE, __version__, meter_provider=meter_provider)
        self._propagator = TraceContextTextMapPropagator()
        self._operations = meter.create_histogram(
            "mcp.server.operation.duration",
            unit="s",
            description="MCP request duration as observed on the receiver, from receipt to its answer.",
            explicit_bucket_boundaries_advisory=list(_DURATION_BUCKETS),
        )
        self._durations = meter.create_histogram(
            "toolproof.tool.call.duration",
            unit="s",
            description="Duration of a tool call, from its arguments to its result, on every transport.",
            explicit_bucket_boundaries_advisory=list(_DURATION_BUCKETS),
        )
        self._errors = meter.create_counter(
            "toolproof.tool.call.errors",
            unit="{error}",
            description="Tool calls that ended in an error, by tool and catalogued code (error.type).",
        )

    def context_of(self, carrier: Mapping[str, Any]) -> Context | None:
        """The trace context ``carrier`` (a request's ``_meta``, or its HTTP headers) names; None when none."""
        if not isinstance(carrier.get("traceparent"), str):
            return None
        found = {key: value for key in _TRACE_KEYS if isinstance(value := carrier.get(key), str)}
        context = self._propagator.extract(found)
        span = self._trace.get_current_span(context)
        return context if span.get_span_context().is_valid else None

    @contextmanager
    def attached(self, carrier: Mapping[str, Any]) -> Iterator[None]:
        """Make the trace context ``carrier`` names the current one inside this block (none named: no change)."""
        from opentelemetry import context as otel_context

        found = self.context_of(carrier)
        if found is None:
            yield
            return
        token = otel_context.attach(found)
        try:
            yield
        finally:
            otel_context.detach(token)

    def request(
        self,
        answer: Callable[[], dict[str, Any]],
        method: str,
        request_id: Any,
        params: Mapping[str, Any],
        *,
        transport: str,
        version: str | None,
    ) -> dict[str, Any]:
        """``answer()``, the answer to one MCP request, inside its ``SERVER`` span; its duration recorded."""
        meta = params.get("_meta")
        parent = self.context_of(meta) if isinstance(meta, Mapping) else None
        if isinstance(meta, Mapping) and isinstance(meta.get(_VERSION_META), str):
            version = meta[_VERSION_META]
        attributes: dict[str, Any] = {
            "mcp.method.name": method,
            "jsonrpc.request.id": str(request_id),
            "network.transport": transport,
        }
        if version is not None:
            attributes["mcp.protocol.version"] = version
        name = method
        tool = params.get("name") if method == "tools/call" else None
        if isinstance(tool, str):
            attributes.update({"gen_ai.tool.name": tool, "gen_ai.operation.name": "execute_tool"})
            name = f"{method} {tool}"
        kind = self._trace.SpanKind.SERVER
        started = time.perf_counter()
        with self._tracer.start_as_current_span(
            name,
            context=parent,
            kind=kind,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            try:
                result = answer()
            except BaseException as exc:
                self._failed(span, attributes, type(exc).__qualname__)
                self._operations.record(time.perf_counter() - started, _metric_attributes(attributes))
                raise
            error = result.get("error")
            if isinstance(error, Mapping):
                code = str(error.get("code"))
                span.set_attribute("rpc.response.status_code", code)
                self._failed(span, attributes, code)
            else:
                payload = result.get("result")
                if isinstance(payload, Mapping) and payload.get("isError") is True:
                    caught = payload.get("_meta", {}).get(_ERROR_META_KEY, {})
                    self._failed(span, attributes, str(caught.get("code", "tool_error")))
            self._operations.record(time.perf_counter() - started, _metric_attributes(attributes))
        return result

    def call(self, run: Callable[[], ToolResult], name: str) -> ToolResult:
        """``run()``, one tool call, inside its ``execute_tool`` span; its duration and any error recorded."""
        attributes: dict[str, Any] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": name,
            "gen_ai.tool.type": "function",
        }
        started = time.perf_counter()
        with self._tracer.start_as_current_span(
            f"execute_tool {name}",
            kind=self._trace.SpanKind.INTERNAL,
            attributes=attributes,
            record_exception=False,
            set_status_on_exception=False,
        ) as span:
            result = run()  # never raises: every failure is a catalogued error
            if result.error is not None:
                self._failed(span, attributes, result.error.code)
                self._errors.add(1, attributes)
            self._durations.record(time.perf_counter() - started, attributes)
        return result

    def _failed(self, span: Span, attributes: dict[str, Any], error_type: str) -> None:
        """Mark ``span`` failed with ``error_type``, which the measurement's ``attributes`` then carry too."""
        from opentelemetry.trace import Status, StatusCode

        attributes["error.type"] = error_type
        span.set_attribute("error.type", error_type)
        span.set_status(Status(StatusCode.ERROR, error_type))


def _metric_attributes(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """A request span's attributes less the request id, which would make every measurement a series of its own."""
    return {key: value for key, value in attributes.items() if key != "jsonrpc.request.id"}


def _providers() -> tuple[TracerProvider, MeterProvider]:
    """The global providers when the host set them up; else SDK ones exporting OTLP/HTTP as ``OTEL_*`` say.

    The SDK providers are shut down at exit, which exports what they still hold.
    """
    from opentelemetry import metrics, trace

    tracers: Any = trace.get_tracer_provider()
    meters: Any = metrics.get_meter_provider()
    if not isinstance(tracers, trace.ProxyTracerProvider):
        return tracers, meters
    from opentelemetry.exporter.otlp.proto.http.metric_exporter import OTLPMetricExporter
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.metrics import MeterProvider as SdkMeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    named = "OTEL_SERVICE_NAME" in os.environ or "service.name=" in os.environ.get("OTEL_RESOURCE_ATTRIBUTES", "")
    resource = Resource.create({} if named else {SERVICE_NAME: "toolproof"})  # the variables name it, else we do
    sdk_tracers = SdkTracerProvider(resource=resource)
    sdk_tracers.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    sdk_meters = SdkMeterProvider(
        resource=resource, metric_readers=[PeriodicExportingMetricReader(OTLPMetricExporter())]
    )
    atexit.register(sdk_meters.shutdown)
    atexit.register(sdk_tracers.shutdown)  # registered last, so run first: the spans, then the last measurements
    return sdk_tracers, sdk_meters
