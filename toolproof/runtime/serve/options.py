"""Command-line pieces every ``toolproof`` command shares: the project option and host options.

What the options load (``project_or_exit`` and the rest) is in ``loading``, which needs no click;
it is re-exported here for the commands that take these options.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from toolproof.runtime.serve.loading import (
    fresh_or_exit,
    not_served,
    project_or_exit,
    runtime_or_exit,
    specs_or_exit,
    warn_left_out,
)

__all__ = [
    "fresh_or_exit",
    "host_options",
    "not_served",
    "project_option",
    "project_or_exit",
    "runtime_or_exit",
    "specs_or_exit",
    "warn_left_out",
]

F = TypeVar("F", bound=Callable[..., object])

project_option = click.option(
    "--project",
    type=click.Path(path_type=Path),
    default=None,
    help="The project (a folder with [tool.toolproof] in pyproject.toml, or toolproof.toml); "
    "default: the nearest one above the current folder, else the built-in tools.",
)


def host_options(fn: F) -> F:
    """``--workspace``, ``--skills``, ``--toolset`` and ``--allow-stale``: what every host of tools reads."""
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
        click.option(
            "--allow-stale",
            is_flag=True,
            help="Serve generated code older than its contract (a warning each); by default the host refuses it.",
        ),
    ]
    for option in reversed(options):
        fn = option(fn)
    return fn
