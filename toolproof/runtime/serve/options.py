"""Command-line pieces every ``toolproof`` command shares: the project option and host options."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import click

if TYPE_CHECKING:
    from toolproof.runtime.dispatch import Runtime
    from toolproof.runtime.project import ProjectConfig
    from toolproof.runtime.spec import ToolSpec

__all__ = ["host_options", "project_option", "project_or_exit", "runtime_or_exit", "specs_or_exit"]

F = TypeVar("F", bound=Callable[..., object])

project_option = click.option(
    "--project",
    type=click.Path(path_type=Path),
    default=None,
    help="The project (a folder with [tool.toolproof] in pyproject.toml, or toolproof.toml); "
    "default: the nearest one above the current folder, else the built-in tools.",
)


def host_options(fn: F) -> F:
    """``--workspace``, ``--skills`` and ``--toolset``: what the built-in file tools and tool sets read."""
    options = [
        click.option(
            "--workspace",
            multiple=True,
            type=click.Path(exists=True, file_okay=False),
            help="A folder the file tools may read (repeatable).",
        ),
        click.option(
            "--skills",
            multiple=True,
            type=click.Path(exists=True, file_okay=False),
            help="A folder of skills (repeatable: of two skills with one name, the first folder's is served).",
        ),
        click.option("--toolset", default=None, help="Serve only the tools of this tool set."),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn


def project_or_exit(project: Path | None) -> ProjectConfig:
    """The project named or found, its source roots on the import path; exit 2 saying why when it is wrong."""
    from toolproof.runtime.project import ProjectError, activate, find_project

    try:
        config = find_project(project)
    except ProjectError as exc:
        click.echo(f"toolproof: {exc}", err=True)
        sys.exit(2)
    activate(config)
    return config


def runtime_or_exit(
    config: ProjectConfig,
    workspace: tuple[str, ...],
    skills: tuple[str, ...],
    toolset: str | None,
    *,
    validate_output: bool = True,
    only: str | None = None,
) -> Runtime:
    """The project's runtime, or just the tool ``only``; exit 1 naming every problem when it cannot be served."""
    from toolproof.runtime.errors import RegistryError
    from toolproof.runtime.host import HostOptions
    from toolproof.runtime.toolbox import open_runtime

    try:
        runtime = open_runtime(
            config,
            HostOptions.of(workspace=workspace, skills=skills),
            toolset=toolset,
            validate_output=validate_output,
            only=only,
        )
    except RegistryError as exc:
        for problem in exc.problems:
            click.echo(problem, err=True)
        sys.exit(1)
    return runtime


def specs_or_exit(config: ProjectConfig) -> list[ToolSpec]:
    """Every contract the project serves; exit 1 naming every problem when they cannot be loaded."""
    from toolproof.runtime.errors import RegistryError
    from toolproof.runtime.toolbox import project_specs

    try:
        return project_specs(config)
    except RegistryError as exc:
        for problem in exc.problems:
            click.echo(problem, err=True)
        sys.exit(1)
