"""What a host command loads before it serves or calls: the project, its freshness, its runtime; no click.

Each function exits naming every problem when it cannot load (2 for a mistake
in the command or project, else 1), as the command would; the commands of
``serve`` and ``call``, and their click-free path (``toolproof.command_line``), share them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from toolproof.runtime.serve.console import echo

if TYPE_CHECKING:
    from toolproof.runtime.dispatch import Runtime
    from toolproof.runtime.project import ProjectConfig
    from toolproof.runtime.spec import ToolSpec

__all__ = [
    "fresh_or_exit",
    "not_served",
    "project_or_exit",
    "runtime_or_exit",
    "specs_or_exit",
    "warn_left_out",
]


def project_or_exit(project: Path | None) -> ProjectConfig:
    """The project named or found, its source roots on the import path; exit 2 saying why when it is wrong."""
    from toolproof.runtime.project import ProjectError, activate, find_project

    try:
        config = find_project(project)
    except ProjectError as exc:
        echo(f"toolproof: {exc}", err=True)
        sys.exit(2)
    activate(config)
    return config


def fresh_or_exit(config: ProjectConfig, allow_stale: bool) -> None:
    """Exit 2 naming each contract whose generated code is stale (``freshness``); with ``allow_stale``, warn instead."""
    if config.is_builtin:  # shipped generated code, no contracts to compare: not even the module is imported
        return
    from toolproof.runtime.serve.freshness import stale_contracts

    lines = stale_contracts(config)
    for line in lines:
        if allow_stale:
            echo(f"warning: serving stale generated code: {line}", err=True)
        else:
            echo(f"toolproof: {line} (--allow-stale serves the generated code as it is)", err=True)
    if lines and not allow_stale:
        sys.exit(2)


def not_served(runtime: Runtime, name: str) -> str | None:
    """``Runtime.not_served``, with the option that gives the built-in file tools their resource; None: served."""
    why = runtime.not_served(name)
    if why is None:
        return None
    return why + (" (pass --workspace)" if "workspace" in runtime.unavailable[name] else "")


def warn_left_out(runtime: Runtime) -> None:
    """Name on stderr, once each, the tools a host leaves out for a need it was not given."""
    for name in runtime.unavailable:
        echo(f"warning: {not_served(runtime, name)}", err=True)


def runtime_or_exit(
    config: ProjectConfig,
    workspace: tuple[str, ...],
    skills: tuple[str, ...],
    toolset: str | None,
    *,
    validate_output: bool = True,
    only: str | None = None,
    exit_code: int = 1,
) -> Runtime:
    """The project's runtime, or just the tool ``only``; exit ``exit_code`` naming every problem when it cannot be.

    ``call`` exits 2 then, as for every other reason the call cannot be made; a server exits 1, but 2 for a
    ``toolset`` no contract is in, a mistake in the command as ``call`` and ``export`` take it.
    """
    from toolproof.runtime.errors import RegistryError, UnknownToolset
    from toolproof.runtime.host import TEST_FOLDER_ENV, HostOptions
    from toolproof.runtime.toolbox import open_runtime

    folder = os.environ.get(TEST_FOLDER_ENV)  # set by `toolproof conform` for the server it starts
    try:
        runtime = open_runtime(
            config,
            HostOptions.of(workspace=workspace, skills=skills, folder=Path(folder).resolve() if folder else None),
            toolset=toolset,
            validate_output=validate_output,
            only=only,
        )
    except RegistryError as exc:
        for problem in exc.problems:
            echo(problem, err=True)
        sys.exit(2 if isinstance(exc, UnknownToolset) else exit_code)
    if config.serve.get("middleware"):
        from toolproof.runtime.project import ProjectError
        from toolproof.runtime.serve.policy import bind_middleware

        try:
            bind_middleware(config, runtime)
        except ProjectError as exc:
            echo(f"toolproof: {exc}", err=True)
            sys.exit(2)
        except RegistryError as exc:
            for problem in exc.problems:
                echo(f"{config.name}: {problem}", err=True)
            sys.exit(exit_code)
    return runtime


def specs_or_exit(config: ProjectConfig) -> list[ToolSpec]:
    """Every contract the project serves; exit 1 naming every problem when they cannot be loaded."""
    from toolproof.runtime.errors import RegistryError
    from toolproof.runtime.toolbox import project_specs

    try:
        return project_specs(config)
    except RegistryError as exc:
        for problem in exc.problems:
            echo(problem, err=True)
        sys.exit(1)
