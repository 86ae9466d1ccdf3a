"""The ``digest`` logger hierarchy, quiet in a process digest did not start.

Every module logs to a stdlib logger under ``digest`` (``digest.capture``, ``digest.reflect``,
...). The ``digest`` logger holds a ``NullHandler``, as a library's should: with no logging
configured, nothing is printed (not even Python's last-resort warnings on stderr), and a host
that configures logging receives the records like any other library's. Stdlib only, so the
capture path can import it; ``digest.logs`` adds the structured loggers on top.
"""

from __future__ import annotations

import logging

ROOT = "digest"

logging.getLogger(ROOT).addHandler(logging.NullHandler())


def stdlib_logger(name: str) -> logging.Logger:
    """The stdlib logger ``name``, which must be ``digest`` or below it."""
    if name != ROOT and not name.startswith(f"{ROOT}."):
        raise ValueError(f"digest logs under the {ROOT!r} logger, not {name!r}")
    return logging.getLogger(name)
