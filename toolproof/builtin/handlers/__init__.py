"""Hand-written tool handlers: one public module per contract, each with a ``handle`` function.

A module here that serves no contract makes the runtime refuse to start;
private helpers start with ``_``.
"""
