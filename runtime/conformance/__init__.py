"""Conformance: replay contract examples against handlers in process, or against any MCP server.

``replay`` runs one example through a ``Runtime`` (what the generated tests
call); ``mcp`` starts a server per example and checks its answers (``toolproof conform``).
"""

from toolproof.runtime.conformance.replay import ExampleFailure, bound_tool, check_expectation, replay, run_example

__all__ = ["ExampleFailure", "bound_tool", "check_expectation", "replay", "run_example"]
