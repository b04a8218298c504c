"""Per-call cost of dispatch: read_file_in_skill through the runtime, its handler alone, a bare call.

Run with ``make bench``. Prints medians and ratios measured side by side in one
run, and the runtime's own overhead per call (parse, validate, render) as the
difference between a dispatched call and a direct handler call.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _harness import Case, print_table, run
from _results import Row, record

from toolproof.builtin.files.audit import AuditRecord
from toolproof.builtin.handlers.read_file_in_skill import handle
from toolproof.runtime.context import ToolContext
from toolproof.runtime.registry import BoundTool, bind
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime


def _quiet(record: AuditRecord) -> None:
    """An audit sink that keeps nothing, so logging does not blur the figures."""


def _null_handler(args: Any, ctx: ToolContext) -> Any:
    return _NULL_OUTPUT


_CONTENT = "def add(a, b):\n    return a + b\n"
_NULL_OUTPUT: dict[str, Any] = {
    "success": True,
    "skill_name": "calculator",
    "file_path": "examples/basic.py",
    "content": _CONTENT,
    "size_bytes": 32,
    "encoding": "utf-8",
}


def bare(x: object) -> object:
    """The floor: one Python function call."""
    return x


def main() -> None:
    """Lay down a skill, time each case, print the table and the overheads."""
    with tempfile.TemporaryDirectory() as tmp:
        skills = Path(tmp) / "skills"
        (skills / "calculator" / "examples").mkdir(parents=True)
        (skills / "calculator" / "examples" / "basic.py").write_text(_CONTENT, encoding="utf-8")

        (spec,) = load_specs(modules=("read_file_in_skill",))
        (tool,) = bind([spec], check_extra=False)
        null_tool = BoundTool.build(spec, _null_handler)
        common: dict[str, Any] = {"skills": [skills], "audit": _quiet}
        on = builtin_runtime(tools=[tool], validate_output=True, **common)
        off = builtin_runtime(tools=[tool], validate_output=False, **common)
        null_on = builtin_runtime(tools=[null_tool], validate_output=True, **common)
        null_off = builtin_runtime(tools=[null_tool], validate_output=False, **common)

        args = {"skill_name": "calculator", "file_path": "examples/basic.py"}
        raw = json.dumps(args)
        ctx = off.context("read_file_in_skill")
        assert off.call("read_file_in_skill", raw).ok and null_off.call("read_file_in_skill", raw).ok

        rows = run(
            [
                Case("bare function call", lambda: bare(args)),
                Case("null handler, direct", lambda: _null_handler(args, ctx)),
                Case("null handler, runtime (output validation off)", lambda: null_off.call("read_file_in_skill", raw)),
                Case("null handler, runtime (output validation on)", lambda: null_on.call("read_file_in_skill", raw)),
                Case("read_file_in_skill handler, direct", lambda: handle(args, ctx)),  # type: ignore[arg-type]
                Case(
                    "read_file_in_skill, runtime (output validation off)", lambda: off.call("read_file_in_skill", raw)
                ),
                Case("read_file_in_skill, runtime (output validation on)", lambda: on.call("read_file_in_skill", raw)),
            ]
        )
    print_table("Dispatch: per call (JSON string arguments, as LLM APIs send them)", rows, "bare function call")
    by = {r.name: r for r in rows}

    def overhead(through: str, direct: str) -> str:
        extra = by[through].median_us - by[direct].median_us
        return f"{extra:6.2f} us  ({by[through].median_us / by[direct].median_us:.2f}x the direct call)"

    print("\nRuntime overhead per call (parse + validate + render, on top of the handler):")
    print(f"  null handler, output validation off:        {overhead(rows[2].name, rows[1].name)}")
    print(f"  null handler, output validation on:         {overhead(rows[3].name, rows[1].name)}")
    print(f"  read_file_in_skill, output validation off:  {overhead(rows[5].name, rows[4].name)}")
    print(f"  read_file_in_skill, output validation on:   {overhead(rows[6].name, rows[4].name)}")
    table: list[Row] = [
        ("a call of a null handler", "us", {"toolproof": rows[3].median_us, "floor": rows[1].median_us}),
        ("a call of read_file_in_skill", "us", {"toolproof": rows[6].median_us, "floor": rows[4].median_us}),
    ]
    systems = {
        "toolproof": "Runtime.call with JSON text arguments, output validated",
        "floor": "the handler called directly with parsed arguments",
    }
    record("dispatch", "Dispatch in process (target: at most 5 us over the handler)", table, systems,
           quick="--quick" in sys.argv[1:])  # fmt: skip


if __name__ == "__main__":
    main()
