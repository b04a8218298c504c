"""toolproof's generator: contracts in, checked model, generated files out.

The public surface is what ``__all__`` lists. Names are imported on first use,
so ``toolproof call`` never pays for Jinja, YAML or python-jsonschema.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from toolproof.generator.drift import Drift
    from toolproof.generator.model import Contract
    from toolproof.generator.problems import Level, Problem
    from toolproof.generator.project import Project, load_project
    from toolproof.generator.published import contract_format_schema, error_meta_schema, published_contract
    from toolproof.generator.typescript import runtime_package

__all__ = [
    "Contract",
    "Drift",
    "Level",
    "Problem",
    "Project",
    "__version__",
    "contract_format_schema",
    "error_meta_schema",
    "load_project",
    "published_contract",
    "runtime_package",
]

from toolproof import __version__

_HOMES = {
    "Contract": "toolproof.generator.model",
    "Drift": "toolproof.generator.drift",
    "Level": "toolproof.generator.problems",
    "Problem": "toolproof.generator.problems",
    "Project": "toolproof.generator.project",
    "load_project": "toolproof.generator.project",
    "published_contract": "toolproof.generator.published",
    "contract_format_schema": "toolproof.generator.published",
    "error_meta_schema": "toolproof.generator.published",
    "runtime_package": "toolproof.generator.typescript",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'generator' has no attribute {name!r}")
    return getattr(importlib.import_module(home), name)
