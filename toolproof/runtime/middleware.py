"""Middleware: a team's own code run around every call of the tool sets it names, without touching toolproof.

A middleware is a function ``(call, proceed) -> ToolResult``: what it does before ``proceed()`` runs before
the call (an audit record, a quota, a policy on the arguments), what it does with the result ``proceed()``
returns runs after it, and a failed call is a result whose ``error`` is set (handlers' errors are results, not
exceptions). It may answer without calling ``proceed()``, with a result of its own. Named in the project's
settings, it is bound when ``toolproof serve`` starts::

    [[tool.toolproof.serve.middleware]]
    function = "policies:audit"      # module:function, on the project's source roots
    toolsets = ["notes"]             # omitted: every tool

Several run in the order the settings list them, the first outermost. A middleware that raises, or returns
anything but a ``ToolResult``, never crashes the host: the call ends in the catalogued ``internal_error``, and
the failure is logged with its traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolproof.runtime.context import Caller
from toolproof.runtime.logs import log_failure
from toolproof.runtime.printable import printable
from toolproof.runtime.result import ToolResult

__all__ = ["Call", "Middleware", "Proceed", "run_around"]

_log = logging.getLogger("toolproof.runtime")


@dataclass(frozen=True, slots=True)
class Call:
    """One tool call, as a middleware sees it."""

    tool: str
    """The tool's wire name."""
    arguments: Mapping[str, Any] | None
    """The arguments as the caller sent them, parsed; None when they are not a JSON object (the call will
    end in ``invalid_arguments``)."""
    caller: Caller | None
    """Who called (``serve --oauth-issuer``); None without OAuth."""
    session: str | None
    """The caller's session, when it named one."""


Proceed = Callable[[], ToolResult]
"""Runs the rest of the chain and the call; returns its result."""
Middleware = Callable[[Call, Proceed], ToolResult]
"""Runs around a call: see the module's docstring."""


def run_around(
    chain: Sequence[Middleware], call: Call, proceed: Proceed, failed: Callable[[], ToolResult]
) -> ToolResult:
    """Run ``call`` through ``chain`` (first outermost), then ``proceed``.

    Args:
        chain: the middleware for this tool.
        call: what each middleware is shown.
        proceed: runs the call itself.
        failed: the call's ``internal_error`` result, for a middleware that raises or returns no result.
    """

    def step(index: int) -> ToolResult:
        if index == len(chain):
            return proceed()
        middleware = chain[index]
        try:
            result: object = middleware(call, lambda: step(index + 1))  # a team's code: its types are not proven
        except Exception:
            log_failure(_log, "middleware %s failed on a call of %s", _named(middleware), printable(call.tool))
            return failed()
        if not isinstance(result, ToolResult):
            _log.error(
                "middleware %s returned a %s, not the ToolResult of the call of %s",
                _named(middleware),
                type(result).__name__,
                printable(call.tool),
            )
            return failed()
        return result

    return step(0)


def _named(middleware: Middleware) -> str:
    return f"{getattr(middleware, '__module__', '?')}:{getattr(middleware, '__qualname__', repr(middleware))}"
