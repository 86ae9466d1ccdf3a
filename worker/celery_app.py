"""The Celery application: a bottom module that imports no task. Tasks are found through
``include=`` (``worker.tasks``), so there is no app ↔ tasks import cycle, and importing the
app reads no settings: they are read, and validated, when the worker or beat starts."""

from __future__ import annotations

import sys
from typing import Any

from celery import Celery

from digest.config import get_settings
from digest.errors import ConfigError
from worker.config import celery_config
from worker.logging import connect_signals
from worker.startup import install


def _configuration() -> dict[str, Any]:
    """Celery's configuration from the settings. An invalid ``DIGEST_*`` value ends the worker
    or beat here with one sentence and exit status 2, as the ``digest`` command does, instead
    of Celery's traceback through its configuration loader."""
    try:
        return celery_config(get_settings())
    except ConfigError as exc:
        sys.stderr.write(f"error: {exc}\n")
        sys.stderr.flush()
        raise SystemExit(2) from None


app = Celery("digest", include=["worker.tasks"])
# Evaluated when the configuration is first read (worker or beat start), not at import.
app.add_defaults(_configuration)
connect_signals()
install(app)
