"""The ``digest`` command line (DESIGN §9): one module per noun, all printing in ``render``."""

from digest.cli.app import app, main

# Importing the command modules registers their commands on ``app``, in this order (the order
# ``digest --help`` lists them in).
# isort: off
from digest.cli import events, admin, keys, versions, lessons, questions, report, doctor, serve  # noqa: F401
from digest.cli import forget  # noqa: F401
# isort: on

__all__ = ["app", "main"]
