"""Celery settings (DESIGN §6), derived from digest's one Settings object."""

from __future__ import annotations

import os
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

from celery.schedules import crontab

from digest.config import Settings
from digest.errors import ConfigError

DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/0"


def celery_config(settings: Settings) -> dict[str, Any]:
    # The worker's own broker sockets may wait longer than the capture path's (≤ 1 s): the
    # consumer blocks on BRPOP for about a second, so its socket timeout must be above that.
    transport = {
        "visibility_timeout": settings.visibility_timeout_s,
        "socket_timeout": 10,
        "socket_connect_timeout": 5,
        "socket_keepalive": True,
        "health_check_interval": 30,
    }
    worker: dict[str, Any] = {}
    if settings.worker_pool:
        worker["worker_pool"] = settings.worker_pool
    if settings.worker_concurrency:
        worker["worker_concurrency"] = settings.worker_concurrency
    return {
        **worker,
        "broker_url": settings.broker_url or DEFAULT_BROKER_URL,
        "broker_transport_options": transport,
        "broker_connection_timeout": 5,
        "broker_connection_retry_on_startup": True,
        "broker_connection_max_retries": None,  # the worker outlives Redis restarts
        # Celery's consumer, whose teardown survives Redis going away mid-poll
        "worker_consumer": "worker.consumer:Consumer",
        # Outcomes live in our tables, not in a result backend.
        "task_ignore_result": True,
        "result_backend": None,
        "task_default_queue": settings.queue,
        # At-least-once: ack after the task ran; a killed worker's message is redelivered.
        "task_acks_late": True,
        "task_reject_on_worker_lost": True,
        "worker_prefetch_multiplier": 1,
        # A pool child imports litellm at start (2-3 s idle, 10 s+ on a busy host); Celery's
        # default 4 s wait for its UP message would kill and re-fork children forever.
        "worker_proc_alive_timeout": 60.0,
        "task_soft_time_limit": settings.task_soft_time_limit_s,
        "task_time_limit": settings.task_time_limit_s,
        "task_annotations": task_limits(settings),
        "task_serializer": "json",
        "accept_content": ["json"],
        "timezone": "UTC",
        "enable_utc": True,
        "worker_hijack_root_logger": False,
        "worker_redirect_stdouts": False,
        # Task events feed Flower and Prometheus exporters (celery-exporter).
        "worker_send_task_events": True,
        "task_send_sent_event": True,
        # beat's record of when each periodic task last ran; Celery's default is a file in the
        # working directory (a checkout). Losing it costs nothing: the relay runs every
        # interval anyway, and a beat without it waits for the sweep's next cron time.
        "beat_schedule_filename": beat_schedule_file(),
        "beat_schedule": {
            "relay-pending": {
                "task": "digest.relay_pending",
                "schedule": timedelta(seconds=settings.relay_interval_s),
                "options": {"expires": settings.relay_interval_s},
            },
            "weekly-sweep": {
                "task": "digest.weekly_sweep",
                "schedule": sweep_schedule(settings.sweep_cron),
            },
        },
    }


def beat_schedule_file() -> str:
    """Where beat keeps its schedule state: the temporary folder, one file per user
    (``celery -A worker beat -s PATH`` chooses another)."""
    user = os.getuid() if hasattr(os, "getuid") else "user"
    return str(Path(tempfile.gettempdir()) / f"digest-celerybeat-schedule-{user}")


#: the relay reads and publishes; it never waits on a model
RELAY_SOFT_LIMIT_S = 120


def task_limits(settings: Settings) -> dict[str, dict[str, float]]:
    """Each task's own soft and hard time limits (Celery ``task_annotations``).

    A reflect or compose task is one model budget (``DIGEST_TASK_SOFT_TIME_LIMIT_S`` /
    ``DIGEST_TASK_TIME_LIMIT_S``, checked by ``check_budget``); improve-now reflects what is
    pending, waits up to ``DIGEST_IMPROVE_WAIT_S`` for other workers' claims, then composes:
    two budgets and the wait; the relay and the sweep's fan-out only read and publish."""
    soft, hard = settings.task_soft_time_limit_s, settings.task_time_limit_s
    grace = hard - soft
    improve = 2 * soft + settings.improve_wait_s
    return {
        "digest.reflect_batch": {"soft_time_limit": soft, "time_limit": hard},
        "digest.reflect_event": {"soft_time_limit": soft, "time_limit": hard},
        "digest.compose_version": {"soft_time_limit": soft, "time_limit": hard},
        "digest.improve_now": {"soft_time_limit": improve, "time_limit": improve + grace},
        "digest.weekly_sweep": {"soft_time_limit": soft, "time_limit": hard},
        # the judge's calls for an agent's new questions: a model budget, like a reflection
        "digest.merge_questions": {"soft_time_limit": soft, "time_limit": hard},
        "digest.relay_pending": {
            "soft_time_limit": RELAY_SOFT_LIMIT_S,
            "time_limit": RELAY_SOFT_LIMIT_S + grace,
        },
    }


def check_budget(settings: Settings) -> None:
    """Refuse a configuration whose model budget does not fit the reflect task's soft limit
    (the worker would be killed mid-call instead of putting events back): ``ConfigError``
    naming the settings to change."""
    problems = settings.budget_problems()
    if problems:
        raise ConfigError("DIGEST_TASK_SOFT_TIME_LIMIT_S", problems[0])


def sweep_schedule(cron: str) -> crontab:
    """``minute hour day-of-month month day-of-week`` (UTC) → a Celery crontab."""
    fields = cron.split()
    if len(fields) != 5:
        raise ConfigError("DIGEST_SWEEP_CRON", f"must have 5 fields, got {cron!r}")
    minute, hour, day_of_month, month, day_of_week = fields
    return crontab(
        minute=minute,
        hour=hour,
        day_of_month=day_of_month,
        month_of_year=month,
        day_of_week=day_of_week,
    )
