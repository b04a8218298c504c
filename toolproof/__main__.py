"""``python -m toolproof`` runs the ``toolproof`` command."""

from toolproof.launch import main

main()
