"""The Celery application. Import path for the CLI: ``celery -A worker``."""

from __future__ import annotations

from celery import Celery

from digest.config import get_settings
from worker.config import celery_config, check_visibility_timeout
from worker.logging import connect_signals

settings = get_settings()
check_visibility_timeout(settings)

app = Celery("digest")
app.conf.update(celery_config(settings))
connect_signals()

import worker.tasks  # noqa: E402,F401  (registers the tasks on ``app``)
