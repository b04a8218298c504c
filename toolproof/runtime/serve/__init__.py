"""Transports: MCP over stdio, HTTP, provider adapters, and the commands that run tools.

Each transport is imported only by the command that uses it, so a host pays
for nothing it does not serve; this ``__init__`` imports none of them.
"""

__all__: list[str] = []
