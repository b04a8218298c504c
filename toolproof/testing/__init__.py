"""What a test suite needs: replay contract examples, check what annotations claim, fuzz input schemas.

This is the one module generated tests import. ``run_example`` replays one example through a
``Runtime`` (the generated conformance tests); ``check_example_properties`` checks what a
contract's annotations claim; ``FuzzHost``, ``fuzz_examples``, ``near_misses`` and
``valid_arguments`` draw arguments from input schemas and need Hypothesis (the ``testing``
extra), so they are imported on first use: ``toolproof conform`` needs neither Hypothesis nor pytest.
``mcp`` starts a server per example and checks its answers (``toolproof conform``).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from toolproof.testing.properties import Hints, PropertyFailure, check_example_properties, check_properties
from toolproof.testing.replay import ExampleFailure, bound_tool, check_expectation, replay, run_example

if TYPE_CHECKING:
    from toolproof.testing.fuzz import FuzzHost, fuzz_examples, near_misses, valid_arguments

__all__ = [
    "ExampleFailure",
    "FuzzHost",
    "Hints",
    "PropertyFailure",
    "bound_tool",
    "check_example_properties",
    "check_expectation",
    "check_properties",
    "fuzz_examples",
    "near_misses",
    "replay",
    "run_example",
    "valid_arguments",
]

_NEEDS_HYPOTHESIS = frozenset({"FuzzHost", "fuzz_examples", "near_misses", "valid_arguments"})


def __getattr__(name: str) -> Any:
    if name not in _NEEDS_HYPOTHESIS:
        raise AttributeError(f"module 'toolproof.testing' has no attribute {name!r}")
    try:
        fuzz = importlib.import_module("toolproof.testing.fuzz")
    except ModuleNotFoundError as exc:
        if exc.name != "hypothesis":
            raise
        raise ImportError(f"toolproof.testing.{name} needs Hypothesis: pip install 'toolproof[testing]'") from exc
    return getattr(fuzz, name)


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
