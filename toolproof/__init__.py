"""toolproof: contract-first toolkit for LLM tools.

One import root. ``toolproof.runtime`` binds contracts to handlers and serves
them; ``toolproof.generator`` turns contracts into code and exports (it imports
Jinja, so a host that only serves never imports it); ``toolproof.builtin.handlers`` and
``toolproof.builtin.generated`` are the built-in file and skill tools.
"""

__version__ = "0.1.0"
"""The version of toolproof, in one place (the generator stamps it into generated files)."""

__all__ = ["__version__"]
