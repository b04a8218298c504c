"""The MCP conformance fixture project (a toolproof project inside the tests)."""
