"""structlog JSON logs for the worker, with task id, event id, tenant and agent bound per task,
and the fork hygiene every prefork worker needs."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog
from celery import signals

from digest.config import get_settings
from digest.logs import configure_logging
from digest.runtime import runtime


def _on_prerun(task_id: str | None = None, task: Any = None, args: Any = None, **_: Any) -> None:
    structlog.contextvars.clear_contextvars()
    bound: dict[str, Any] = {"task_id": task_id, "task": getattr(task, "name", None)}
    if getattr(task, "name", "") in ("digest.reflect_batch", "digest.reflect_event") and args:
        bound["event_id"] = args[0]
    structlog.contextvars.bind_contextvars(**bound)


def _on_postrun(**_: Any) -> None:
    structlog.contextvars.clear_contextvars()


def _on_process_init(**_: Any) -> None:
    # A forked child must never reuse its parent's sockets (database pools, broker and limiter
    # clients), nor start with its caches: it forgets all of the process's state at once.
    runtime().reset()
    # Normally a no-op: the main process imported litellm before forking (``_on_worker_init``),
    # or the configured models need none.
    from digest.model.seam import warm_up_for

    warm_up_for()


def _on_worker_init(sender: Any = None, **_: Any) -> None:
    """Pay litellm's 2-3 s import once, in the main process, before any task runs, when a
    configured model needs it (``digest.model.seam.warm_up_for``; with ``offline/rules`` and
    a local embedding it is never loaded, and a worker stays some 150 MB smaller).

    Prefork: the parent imports before it forks, so children (and every child re-forked after
    a crash) start at once and share those pages; importing starts no threads and opens no
    sockets, and litellm's logging thread starts lazily, in the child, on its first call.
    Threads: also size the database pool for the concurrent tasks (each holds a connection).
    """
    pool = getattr(sender, "pool_cls", None)  # still the name ("threads") at worker_init
    name = pool if isinstance(pool, str) else getattr(pool, "__module__", "")
    kind = str(name).rsplit(".", 1)[-1].lower()
    concurrency = int(getattr(sender, "concurrency", 0) or 0)
    if kind == "threads" and concurrency:
        from digest.db import follow_concurrency

        follow_concurrency(concurrency)  # engines made before this point are disposed
    from digest.model.seam import warm_up_for

    warm_up_for()  # nothing when every configured model is answered in process
    from worker.memory import connect_trim, freeze_imports, warm_up_shared

    connect_trim()
    warm_up_shared()
    freeze_imports()  # last: what the worker imported and read before its pool forks


def _on_setup_logging(**_: Any) -> None:
    settings = get_settings()
    configure_logging(settings.log_level, json=settings.log_json, stream=sys.stderr)
    logging.getLogger("celery").setLevel(settings.log_level)


def connect_signals() -> None:
    signals.setup_logging.connect(_on_setup_logging, weak=False)
    signals.task_prerun.connect(_on_prerun, weak=False)
    signals.task_postrun.connect(_on_postrun, weak=False)
    signals.worker_init.connect(_on_worker_init, weak=False)
    signals.worker_process_init.connect(_on_process_init, weak=False)
