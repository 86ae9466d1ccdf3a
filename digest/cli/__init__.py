"""The ``digest`` command line."""

from digest.cli.commands import app, main

__all__ = ["app", "main"]
