"""The runtime's view of one contract, read from what ``make gen`` wrote.

The runtime never reads YAML: ``generated/contracts/<module>.json`` carries the
checked, normalised contract, and ``generated.CONTRACTS`` lists the modules.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from runtime.errors import STANDARD_ERRORS, RegistryError
from runtime.files import SymlinkPolicy
from runtime.template import Template

__all__ = ["ErrorSpec", "ToolSpec", "load_specs"]

JSON = Any


@dataclass(frozen=True, slots=True)
class ErrorSpec:
    """One catalogue entry: a code, its message template and a hint for the model."""

    code: str
    message: Template
    hint: str | None
    status: int
    """HTTP status when served over HTTP."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A checked contract as the runtime needs it."""

    name: str
    module: str
    version: str
    title: str
    description: str
    handler: str
    input_schema: Mapping[str, JSON]
    output_schema: Mapping[str, JSON]
    errors: Mapping[str, ErrorSpec]
    render_result: Template
    render_error: Template
    symlinks: SymlinkPolicy
    annotations: Mapping[str, bool]
    toolsets: tuple[str, ...]
    skill_gate: Mapping[str, JSON] | None
    dynamic_enums: Mapping[str, str]
    metadata: Mapping[str, JSON]
    examples: tuple[Mapping[str, JSON], ...]
    source: str
    sha256: str

    @classmethod
    def from_data(cls, data: Mapping[str, JSON]) -> ToolSpec:
        """Build a spec from the generated contract JSON.

        The standard errors are added to the catalogue, so every code a call
        can produce is found in ``errors``.
        """
        errors = {
            code: ErrorSpec(code, Template(std.message), std.hint, std.status) for code, std in STANDARD_ERRORS.items()
        }
        for code, entry in data["errors"].items():
            errors[code] = ErrorSpec(code, Template(entry["message"]), entry.get("hint"), entry.get("status", 422))
        return cls(
            name=data["name"],
            module=data["module"],
            version=data["version"],
            title=data["title"],
            description=data["description"],
            handler=data["handler"],
            input_schema=data["input"],
            output_schema=data["output"],
            errors=errors,
            render_result=Template(data["render"]["result"]),
            render_error=Template(data["render"]["error"]),
            symlinks=data.get("symlinks", "within_root"),
            annotations=data["annotations"],
            toolsets=tuple(data.get("toolsets", ())),
            skill_gate=data.get("skill_gate"),
            dynamic_enums=data.get("dynamic_enums", {}),
            metadata=data.get("metadata", {}),
            examples=tuple(data.get("examples", ())),
            source=data["source"],
            sha256=data["sha256"],
        )


def generated_dir() -> Path:
    """The folder of the ``generated`` package."""
    import generated

    return Path(generated.__file__).parent


def load_specs(modules: tuple[str, ...] | None = None) -> list[ToolSpec]:
    """Load the generated contracts (all, or the named modules), in declared order.

    Raises:
        RegistryError: a contract file is missing or is not valid contract JSON.
    """
    import generated

    names = generated.CONTRACTS if modules is None else modules
    folder = generated_dir() / "contracts"
    specs: list[ToolSpec] = []
    problems: list[str] = []
    for module in names:
        path = folder / f"{module}.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            specs.append(ToolSpec.from_data(data))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            problems.append(f"generated/contracts/{module}.json cannot be loaded ({exc}); run `make gen`")
    if problems:
        raise RegistryError(problems)
    return specs
