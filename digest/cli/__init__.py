"""The ``digest`` command line (DESIGN §9): one module per noun, all printing in ``render``.

It is the ``cli`` extra (``pip install 'lesson-digest[cli]'``): in the base install, the
agent's client alone, ``digest`` says so in one line and exits 2.
"""

from digest.extras import missing

if missing("cli"):
    import sys

    def main() -> None:
        """The ``digest`` console script of an installation without the command line."""
        from digest.errors import MissingExtra
        from digest.extras import EXTRAS

        exc = MissingExtra("the digest command", "cli", EXTRAS["cli"][0])
        sys.stderr.write(f"error: {exc}\n")
        raise SystemExit(exc.exit_code)

else:
    from digest.cli.app import app, main

    # Importing the command modules registers their commands on ``app``, in this order (the
    # order ``digest --help`` lists them in).
    # isort: off
    from digest.cli import (  # noqa: F401
        events,
        admin,
        agents,
        keys,
        versions,
        lessons,
        questions,
        report,
        doctor,
        serve,
        forget,
    )
    # isort: on

__all__ = ["app", "main"]
