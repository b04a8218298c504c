"""Where a project's generated files go, and how they name themselves."""

from __future__ import annotations

from dataclasses import dataclass

from toolproof.generator.openapi import ApiInfo
from toolproof.generator.publishing import Publish
from toolproof.runtime.project import EXPORT_FORMATS

__all__ = ["GENERATED", "Layout"]

GENERATED = "generated"


@dataclass(frozen=True, slots=True)
class Layout:
    """Where a project's generated files go and how they name themselves."""

    folder: str = GENERATED
    """The generated folder, relative to the project (POSIX)."""
    package: str = GENERATED
    """Its import name."""
    command: str = "toolproof gen"
    """The command that regenerates it, named in every header."""
    api: ApiInfo | None = None
    """The project's title and version for the OpenAPI document (``openapi.api_info``).

    None, from a caller that knows no project: ``toolproof tools`` and toolproof's own version.
    """
    width: int = 88
    """The longest line of generated Python: the project's ruff ``line-length`` (ruff's default, 88, without one)."""
    toolproof_first_party: bool = False
    """Whether ruff's isort sorts ``toolproof`` as first party (a project inside toolproof's own tree), not third."""
    exports: tuple[str, ...] = EXPORT_FORMATS
    """The folders written under ``exports/``: the project's ``exports`` setting (every one, for a caller without)."""
    languages: tuple[str, ...] = ()
    """Languages gen writes tool modules for beside Python: ``[tool.toolproof.export] languages``.

    ``"typescript"``: ``typescript/<module>.ts`` per tool and ``typescript/tools.ts``, which binds each
    tool to its handler in ``src/handlers/<module>.ts``.
    """
    publish: Publish | None = None
    """What ``[tool.toolproof.publish]`` asks gen to write (server.json, an MCPB manifest); None: nothing."""
