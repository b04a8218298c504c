"""``python -m toolproof`` runs the ``toolproof`` command."""

from toolproof.cli import main

main()
