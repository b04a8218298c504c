"""Per-call cost of the serve policies: a rate limit (the shared-file token bucket), a scope check, a middleware.

Run with ``make bench``. Prints medians measured side by side in one run: a rate gate taking from one and from
three buckets (flock, a hash, a probe of the mapped file), the scope gate, and a null handler's dispatched call
without and with a pass-through middleware, beside a bare function call.
"""

from __future__ import annotations

import json
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from _harness import Case, print_table, run

from toolproof.runtime.context import Caller, ToolContext, calling_as
from toolproof.runtime.middleware import Call, Proceed
from toolproof.runtime.registry import BoundTool
from toolproof.runtime.result import ToolResult
from toolproof.runtime.serve.gate import ScopeGate
from toolproof.runtime.serve.oauth import OAuthSettings
from toolproof.runtime.serve.policy import RateLimit
from toolproof.runtime.serve.ratelimit import RateGate, SharedBuckets
from toolproof.runtime.spec import load_specs
from toolproof.runtime.toolbox import builtin_runtime

_OUTPUT: dict[str, Any] = {
    "success": True,
    "skill_name": "calculator",
    "file_path": "examples/basic.py",
    "content": "def add(a, b):\n    return a + b\n",
    "size_bytes": 32,
    "encoding": "utf-8",
}


def _null_handler(args: Any, ctx: ToolContext) -> Any:
    return _OUTPUT


def _through(call: Call, proceed: Proceed) -> ToolResult:
    return proceed()


def bare(x: object) -> object:
    """The floor: one Python function call."""
    return x


def main() -> None:
    """Time each case, print the table."""
    (spec,) = load_specs(modules=("read_file_in_skill",))
    scoped = replace(spec, scopes=("files:read",))
    with tempfile.TemporaryDirectory() as tmp:
        plain = builtin_runtime(skills=[tmp], tools=[BoundTool.build(spec, _null_handler)], validate_output=False)
        wrapped = builtin_runtime(skills=[tmp], tools=[BoundTool.build(spec, _null_handler)], validate_output=False)
        wrapped.use(_through)
        raw = json.dumps({"skill_name": "calculator", "file_path": "examples/basic.py"})
        assert plain.call(spec.name, raw).ok and wrapped.call(spec.name, raw).ok
        one = RateGate([RateLimit(10**9, 1.0, "subject")], [spec], SharedBuckets())
        three = RateGate(
            [RateLimit(10**9, 1.0, "subject"), RateLimit(10**9, 60.0, "client"), RateLimit(10**9, 1.0, "address")],
            [spec],
            SharedBuckets(),
        )
        scopes = ScopeGate([scoped], OAuthSettings("https://as.example", "https://tools.example/mcp"))
        scope = {"client": ("10.0.0.1", 1)}
        caller = Caller(subject="u1", client_id="c1", scopes=frozenset({"files:read"}), issuer="https://as.example")
        with calling_as(caller):
            assert one(spec.name, scope) is None and scopes(spec.name, scope) is None
            rows = run(
                [
                    Case("bare function call", lambda: bare(scope)),
                    Case("scope gate", lambda: scopes(spec.name, scope)),
                    Case("rate gate, one limit", lambda: one(spec.name, scope)),
                    Case("rate gate, three limits", lambda: three(spec.name, scope)),
                    Case("null handler call", lambda: plain.call(spec.name, raw)),
                    Case("null handler call, one pass-through middleware", lambda: wrapped.call(spec.name, raw)),
                ]
            )
    print_table("Serve policies: per call", rows, "bare function call")
    by = {r.name: r.median_us for r in rows}
    extra = by["null handler call, one pass-through middleware"] - by["null handler call"]
    ratio = by["null handler call, one pass-through middleware"] / by["null handler call"]
    print(f"\nmiddleware: {extra:.2f} us a call ({ratio:.2f}x the call without)")
    print(f"rate gate, one limit: {by['rate gate, one limit'] / by['null handler call']:.2f}x a null handler's call")


if __name__ == "__main__":
    main()
