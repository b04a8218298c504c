"""The version of toolproof, in one place (the generator stamps it into generated files)."""

__version__ = "0.1.0"
