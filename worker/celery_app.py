"""The Celery application: a bottom module that imports no task. Tasks are found through
``include=`` (``worker.tasks``), so there is no app ↔ tasks import cycle, and importing the
app runs no check that can raise (``worker.config.check_settings`` runs at worker start)."""

from __future__ import annotations

from celery import Celery

from digest.config import get_settings
from worker.config import celery_config
from worker.logging import connect_signals

app = Celery("digest", include=["worker.tasks"])
app.conf.update(celery_config(get_settings()))
connect_signals()
