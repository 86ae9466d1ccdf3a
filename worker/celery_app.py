"""The Celery application: a bottom module that imports no task. Tasks are found through
``include=`` (``worker.tasks``), so there is no app ↔ tasks import cycle, and importing the
app reads no settings: they are read, and validated, when the worker or beat starts."""

from __future__ import annotations

from celery import Celery

from digest.config import get_settings
from worker.config import celery_config
from worker.logging import connect_signals
from worker.startup import install

app = Celery("digest", include=["worker.tasks"])
# Evaluated when the configuration is first read (worker or beat start), not at import.
app.add_defaults(lambda: celery_config(get_settings()))
connect_signals()
install(app)
