"""Celery wiring for lesson digest: `celery -A worker worker` and `celery -A worker beat`.

No domain logic lives here: tasks take ids and call into ``digest``.
"""

from worker.celery_app import app

__all__ = ["app"]
