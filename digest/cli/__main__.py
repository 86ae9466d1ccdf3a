"""``python -m digest.cli``: the same as the ``digest`` console script."""

from digest.cli import main

main()
