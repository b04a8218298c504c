"""``python -m generator`` runs the ``toolproof`` command."""

from generator.cli import main

main()
