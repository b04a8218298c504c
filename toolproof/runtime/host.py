"""What a host's command line (or a conformance run) says, and the resources built from it.

A tool set ships a *resource factory*: a function that takes these options and
returns the resources its tools need. The built-in file and skill tools use
``toolproof.builtin.handlers._resources:resources``; a project names its own in
``[tool.toolproof] resources = "package.module:function"``. The core runtime
never reads these options: it sees only the resources.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toolproof.runtime.errors import RegistryError

__all__ = [
    "BUILTIN_RESOURCES",
    "BUILTIN_RESOURCE_NAMES",
    "TEST_FOLDER_ENV",
    "HostOptions",
    "ResourceFactory",
    "build_resources",
]

BUILTIN_RESOURCES = "toolproof.builtin.handlers._resources:resources"
"""The resource factory of the built-in file and skill tools."""

BUILTIN_RESOURCE_NAMES = frozenset({"audit", "skill_gate", "skills", "workspace"})
"""The names of the resources that factory can supply (lint takes them from here instead of reading its source)."""

TEST_FOLDER_ENV = "TOOLPROOF_TEST_FOLDER"
"""The example's test folder, given to a server `toolproof conform` starts; a toolproof host reads it as `folder`."""


@dataclass(frozen=True, slots=True)
class HostOptions:
    """Facts about one host: its folders, secrets and sinks, as the command line or a test gives them."""

    workspace: tuple[Path, ...] = ()
    """Folders the workspace file tools may read (``--workspace``)."""
    skills: tuple[Path, ...] = ()
    """Folders of skills, searched in order (``--skills``)."""
    gate_secret: bytes | None = None
    """Key of skill-gate tokens (default: ``$TOOLPROOF_GATE_SECRET`` or a per-user key file)."""
    audit: Callable[[Any], None] | None = None
    """Where file-access records go (default: the ``toolproof.audit`` logger)."""
    folder: Path | None = None
    """The test folder of a conformance example, when the host serves one (on a command line: ``TEST_FOLDER_ENV``)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Anything else a project's factory reads (set by embedding hosts)."""

    @classmethod
    def of(cls, *, workspace: Iterable[str | Path] = (), skills: Iterable[str | Path] = (), **rest: Any) -> HostOptions:
        """Options with the folders made absolute: skills folders resolved, workspaces as spelled.

        A workspace keeps the spelling it was given (``Workspace.of`` pins its
        real path as well): a model told of ``/tmp/ws`` may name files by it
        where ``/tmp`` is a link (``/private/tmp`` on macOS).
        """
        return cls(
            workspace=tuple(Path(os.path.abspath(p)) for p in workspace),
            skills=tuple(Path(p).resolve() for p in skills),
            **rest,
        )


ResourceFactory = Callable[[HostOptions], Iterable[object]]


def _factory(ref: str) -> ResourceFactory:
    module_name, _, attr = ref.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise RegistryError([f"resource factory {ref} cannot be imported: {exc}"]) from None
    factory = getattr(module, attr or "resources", None)
    if not callable(factory):
        raise RegistryError([f"resource factory {ref}: {module_name} has no callable {attr or 'resources'!r}"])
    return factory  # type: ignore[no-any-return]


def build_resources(refs: Iterable[str], options: HostOptions) -> list[object]:
    """Call each factory (``module:function``) with ``options`` and gather what they return.

    Raises:
        RegistryError: a factory cannot be imported or fails.
    """
    found: list[object] = []
    for ref in dict.fromkeys(refs):
        factory = _factory(ref)
        try:
            found.extend(factory(options))
        except RegistryError:
            raise
        except Exception as exc:
            raise RegistryError([f"resource factory {ref} failed: {type(exc).__name__}: {exc}"]) from None
    return found
