"""worker.logging: each task's log lines carry its task id and name (and a reflect task's event
id), and nothing of one task leaks into the next; the worker writes them as JSON lines."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import pytest
import structlog

from digest.config import get_settings
from digest.logs import get_logger
from digest.redact import MASK
from digest.reflect.run import about
from worker.logging import _on_postrun, _on_prerun, _on_setup_logging


@pytest.mark.parametrize("name", ["digest.reflect_batch", "digest.reflect_event"])
def test_a_task_binds_its_ids_and_the_next_starts_clean(name: str) -> None:
    try:
        structlog.contextvars.bind_contextvars(leftover="from before")
        task = SimpleNamespace(name=name)
        _on_prerun(task_id="t-1", task=task, args=[42, 7])
        assert structlog.contextvars.get_contextvars() == {
            "task_id": "t-1", "task": name, "event_id": 42,
        }  # fmt: skip
        _on_postrun()
        assert structlog.contextvars.get_contextvars() == {}
        _on_prerun(task_id="t-2", task=SimpleNamespace(name="digest.relay_pending"), args=[])
        assert structlog.contextvars.get_contextvars() == {
            "task_id": "t-2", "task": "digest.relay_pending",
        }  # fmt: skip
    finally:
        structlog.contextvars.clear_contextvars()


@pytest.fixture()
def worker_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """JSON at INFO; what the worker's logging set-up changes is put back after."""
    monkeypatch.setenv("DIGEST_LOG_JSON", "true")
    monkeypatch.setenv("DIGEST_LOG_LEVEL", "INFO")
    get_settings.cache_clear()
    celery = logging.getLogger("celery")
    level = celery.level
    yield
    celery.setLevel(level)
    structlog.contextvars.clear_contextvars()


def test_worker_lines_are_json_with_the_task_event_tenant_and_agent(
    worker_settings: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _on_setup_logging()  # Celery's setup_logging signal, on the stderr capsys reads
    claimed: Any = SimpleNamespace(event_id=42, tenant="acme", agent="support-bot")
    _on_prerun(task_id="t-1", task=SimpleNamespace(name="digest.reflect_batch"), args=[42, 7])
    with about(claimed):
        get_logger("digest.reflect").info("reflect_done", lessons=2, api_key="sk-" + "k" * 24)
    logging.getLogger("digest.publish").warning("publish_failed task=%s", "digest.relay_pending")
    _on_postrun()
    get_logger("digest.relay").info("relay_done", relayed=0)

    done, failed, after = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert done["event"] == "reflect_done" and done["lessons"] == 2
    assert {k: done[k] for k in ("task_id", "task", "event_id", "tenant", "agent")} == {
        "task_id": "t-1", "task": "digest.reflect_batch", "event_id": 42,
        "tenant": "acme", "agent": "support-bot",
    }  # fmt: skip
    assert done["api_key"] == MASK and done["level"] == "info"
    assert failed["event"] == "publish_failed task=digest.relay_pending"
    assert (failed["logger"], failed["task_id"], failed["level"]) == (
        "digest.publish", "t-1", "warning",
    )  # fmt: skip
    assert after["event"] == "relay_done" and "task_id" not in after  # the task's ids are gone
