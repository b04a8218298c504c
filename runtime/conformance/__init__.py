"""Conformance: replay contract examples against handlers in process, or against any MCP server.

``replay`` runs one example through a ``Runtime`` (what the generated tests
call); ``mcp`` starts a server per example and checks its answers (``toolproof conform``);
``properties`` checks what annotations claim, and ``fuzz`` (imported on its own:
it needs Hypothesis) draws arguments from input schemas.
"""

from toolproof.runtime.conformance.properties import Hints, PropertyFailure, check_example_properties, check_properties
from toolproof.runtime.conformance.replay import ExampleFailure, bound_tool, check_expectation, replay, run_example

__all__ = [
    "ExampleFailure",
    "Hints",
    "PropertyFailure",
    "bound_tool",
    "check_example_properties",
    "check_expectation",
    "check_properties",
    "replay",
    "run_example",
]
