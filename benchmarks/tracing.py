"""What OpenTelemetry tracing costs a call: off (the default), and on with the SDK.

Run with ``make bench``. Prints medians measured side by side in one run, interleaved: a null handler's
dispatched call with tracing off (``Runtime.call``, which checks ``telemetry`` and middleware first), the same
call's untraced path that ``call`` runs (``Runtime._final``, no check at all: the floor), and the call with
tracing on (``Telemetry`` over the OpenTelemetry SDK, spans to an in-memory exporter, metrics to an in-memory
reader). The first two should be the same: tracing off costs nothing measurable.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from _harness import Case, print_table, run
from _results import Row, record
from dispatch import _null_handler

from toolproof.runtime.registry import BoundTool
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime


def main() -> None:
    """Time each case, print the table, record the section."""
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from toolproof.runtime.serve.telemetry import Telemetry

    (spec,) = load_specs(modules=("read_file_in_skill",))
    with tempfile.TemporaryDirectory() as tmp:
        off = builtin_runtime(skills=[tmp], tools=[BoundTool.build(spec, _null_handler)], validate_output=False)
        on = builtin_runtime(skills=[tmp], tools=[BoundTool.build(spec, _null_handler)], validate_output=False)
        spans = InMemorySpanExporter()
        tracers = TracerProvider()
        tracers.add_span_processor(SimpleSpanProcessor(spans))
        on.telemetry = Telemetry(tracers, MeterProvider(metric_readers=[InMemoryMetricReader()]))
        raw = json.dumps({"skill_name": "calculator", "file_path": "examples/basic.py"})
        assert off.telemetry is None and off.call(spec.name, raw).ok and on.call(spec.name, raw).ok
        assert spans.get_finished_spans(), "tracing on made no span"

        def traced() -> object:
            spans.clear()  # the exporter keeps every span: keep its list from growing through the run
            return on.call(spec.name, raw)

        rows = run(
            [
                Case("untraced call path, no check (Runtime._final)", lambda: off._final(spec.name, raw, None)),
                Case("tracing off (Runtime.call)", lambda: off.call(spec.name, raw)),
                Case("tracing on (OpenTelemetry SDK, in-memory export)", traced),
            ]
        )
    floor = rows[0].name
    print_table("Tracing: a null handler's call (JSON text arguments)", rows, floor)
    print(f"\nTracing off costs {rows[1].median_us / rows[0].median_us:.2f}x the untraced path (1.00x: nothing).")
    table: list[Row] = [
        ("a call with tracing off", "us", {"toolproof": rows[1].median_us, "floor": rows[0].median_us}),
        ("a call with tracing on", "us", {"toolproof": rows[2].median_us, "floor": rows[0].median_us}),
    ]
    systems = {
        "toolproof": "Runtime.call of a null handler, tracing off or on (OpenTelemetry SDK, in-memory export)",
        "floor": "the same call's untraced path, with no tracing or middleware check",
    }
    record("tracing", "Tracing: what it costs a call, off and on", table, systems, quick="--quick" in sys.argv[1:])


if __name__ == "__main__":
    main()
