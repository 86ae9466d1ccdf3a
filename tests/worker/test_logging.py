"""worker.logging: each task's log lines carry its task id and name (and a reflect task's event
id), and nothing of one task leaks into the next."""

from __future__ import annotations

from types import SimpleNamespace

import structlog

from worker.logging import _on_postrun, _on_prerun


def test_a_task_binds_its_ids_and_the_next_starts_clean() -> None:
    try:
        structlog.contextvars.bind_contextvars(leftover="from before")
        task = SimpleNamespace(name="digest.reflect_event")
        _on_prerun(task_id="t-1", task=task, args=[42, 7])
        assert structlog.contextvars.get_contextvars() == {
            "task_id": "t-1", "task": "digest.reflect_event", "event_id": 42,
        }  # fmt: skip
        _on_postrun()
        assert structlog.contextvars.get_contextvars() == {}
        _on_prerun(task_id="t-2", task=SimpleNamespace(name="digest.relay_pending"), args=[])
        assert structlog.contextvars.get_contextvars() == {
            "task_id": "t-2", "task": "digest.relay_pending",
        }  # fmt: skip
    finally:
        structlog.contextvars.clear_contextvars()
