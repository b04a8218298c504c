"""The ``toolproof`` command: one group over the generator's and the runtime's commands.

Only click is imported here; each command imports what it needs when it runs,
so a host that only serves never imports Jinja.
"""

from __future__ import annotations

import sys

import click

from toolproof.generator.cli import breaking, export, gen, init, lint, new
from toolproof.runtime.conformance.commands import conform
from toolproof.runtime.serve.commands import call, serve, skills, toolsets

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="toolproof", prog_name="toolproof")
def cli() -> None:
    """Contract-first toolkit for LLM tools."""


for _command in (init, new, gen, lint, breaking, export, call, serve, conform, toolsets, skills):
    cli.add_command(_command)


def main() -> None:
    """Entry point of the console script: no traceback ever reaches the user."""
    try:
        cli.main(prog_name="toolproof")
    except Exception as exc:  # a bug of ours; say so without a traceback
        click.echo(f"toolproof: internal error ({type(exc).__name__}: {exc})", err=True)
        sys.exit(1)
