"""The conformance fixture project's generated tests run in the main suite."""

from __future__ import annotations

# The fixture tools' names start with test_ (the suite's names), so their generated modules and handlers
# look like tests to pytest: only the generated tests folder holds tests.
collect_ignore_glob = ["generated/test_*.py", "handlers/*.py"]
