"""Handlers of the MCP conformance fixture tools, one module per contract."""
