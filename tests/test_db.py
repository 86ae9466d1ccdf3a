"""The worker on the threads pool (the production shape) and its database pool size."""

from __future__ import annotations

from collections.abc import Callable

import pytest

import digest
from digest import db
from digest.config import get_settings
from tests.conftest import WorkerProcess, wait_for_event

DONE = {"reflected", "skipped", "failed", "dead"}


def test_pool_size_follows_a_threads_worker_unless_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DIGEST_DB_POOL_SIZE", raising=False)
    get_settings.cache_clear()
    monkeypatch.setattr(db, "_worker_threads", None)
    assert db.pool_size() == 5
    db.follow_concurrency(32)
    assert db.pool_size() == 32
    monkeypatch.setenv("DIGEST_DB_POOL_SIZE", "12")
    get_settings.cache_clear()
    assert db.pool_size() == 12
    get_settings.cache_clear()


@pytest.mark.services
def test_a_threads_pool_worker_reflects_a_stream(
    start_worker: Callable[..., WorkerProcess], services_env: dict[str, str], tenant: str
) -> None:
    worker = start_worker(8, pool="threads")
    ids = [
        digest.record_run(
            tenant, f"bot-{i % 3}", task=f"refund {i}", outcome="failure",
            tool_calls=[{"tool": "refund", "args": {"n": i % 5}, "ok": False,
                         "error": f"amount {i % 5} is required"}],
        )
        for i in range(30)
    ]  # fmt: skip
    rows = [wait_for_event(i, DONE, timeout=60) for i in ids]
    assert {r["status"] for r in rows} == {"reflected"}, worker.log()[-2000:]
    assert "concurrency: 8 (thread)" in worker.log()
