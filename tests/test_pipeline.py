"""digest.pipeline: the one reflect entry point, and proof that every caller runs it.

The worker's reflect task, ``digest drain`` / ``digest demo`` / improve-now in embedded mode and
``reflect_event`` all go through ``reflect_pending``; each batch it takes is logged as a
``reflect_batch`` event, so the tests compare what the embedded drain and a real worker do
with the same backlog: the same batches.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

import digest
from digest import pipeline
from digest.config import get_settings
from digest.db import session_scope
from digest.errors import InvalidArgument
from digest.models import Event
from digest.pipeline import agents_with_work, drain, improve_now, reflect_event, reflect_pending
from digest.reflect.claims import Batch
from digest.tenants import find_agent
from tests.cli.conftest import run_cli
from tests.conftest import _reset_process_state, wait_for_event

DONE = {"reflected", "skipped", "failed", "dead"}


def _answers(tenant: str, agent: str, n: int) -> list[int]:
    return [
        digest.record_answer(tenant, agent, question=f"Fact {i} for {agent}?", answer=f"It is {i}.")
        for i in range(n)
    ]


def _statuses(ids: list[int]) -> dict[int, str]:
    with session_scope() as session:
        rows = session.execute(select(Event.id, Event.status).where(Event.id.in_(ids)))
        return {row.id: row.status for row in rows}


def _batches(records: list[dict[str, Any]], ids: list[int]) -> list[list[int]]:
    """The ``reflect_batch`` events that took any of ``ids``, as lists of event ids."""
    wanted = set(ids)
    return [
        list(r["events"])
        for r in records
        if r.get("event") == "reflect_batch" and wanted & set(r["events"])
    ]


def _json_lines(text: str) -> list[dict[str, Any]]:
    records = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return records


# --- embedded: drain batches like the worker ---------------------------------------------------


def test_embedded_drain_reflects_an_agents_backlog_in_batches(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_REFLECT_BATCH_SIZE", "4")
    _reset_process_state()
    ids = _answers(tenant, "bot", 10)
    other = _answers(tenant, "other-bot", 3)
    taken: list[dict[str, Any]] = []
    real_claim = pipeline.claim_batch

    def claim_and_record(*args: Any, **kwargs: Any) -> Batch:  # a spy: behaviour unchanged
        batch = real_claim(*args, **kwargs)
        if batch.claimed:
            taken.append({"event": "reflect_batch", "events": [c.event_id for c in batch.claimed]})
        return batch

    monkeypatch.setattr(pipeline, "claim_batch", claim_and_record)
    results = drain()
    assert sorted(r.event_id for r in results) == sorted(ids + other)
    assert set(_statuses(ids + other).values()) == {"reflected"}
    # One agent at a time, oldest events first, at most DIGEST_REFLECT_BATCH_SIZE per batch.
    assert _batches(taken, ids) == [ids[0:4], ids[4:8], ids[8:10]]
    assert _batches(taken, other) == [other]


def test_drain_of_one_agent_leaves_other_agents_pending(sqlite_env: str, tenant: str) -> None:
    mine, theirs = _answers(tenant, "bot", 2), _answers(tenant, "other-bot", 2)
    drain(tenant=tenant, agent="bot")
    assert set(_statuses(mine).values()) == {"reflected"}
    assert set(_statuses(theirs).values()) == {"pending"}
    settings = get_settings()
    with session_scope() as session:
        other_id = find_agent(session, tenant, "other-bot").id
    assert agents_with_work(settings, tenant=tenant) == [other_id]


def test_reflect_event_takes_only_the_event_it_names(sqlite_env: str, tenant: str) -> None:
    ids = _answers(tenant, "bot", 3)
    result = reflect_event(ids[1])
    assert result.event_id == ids[1] and result.status == "reflected"
    assert _statuses(ids) == {ids[0]: "pending", ids[1]: "reflected", ids[2]: "pending"}
    # A second call finds it finished and takes nothing else either.
    again = reflect_event(ids[1])
    assert again.status == "already_done"
    assert _statuses(ids)[ids[0]] == "pending"


def test_reflect_pending_needs_an_event_or_an_agent() -> None:
    with pytest.raises(InvalidArgument, match="event id or an agent id"):
        reflect_pending()


def test_improve_now_reflects_what_was_captured_then_composes(sqlite_env: str, tenant: str) -> None:
    ids = _answers(tenant, "bot", 3)
    result = improve_now(tenant, "bot")
    assert set(_statuses(ids).values()) == {"reflected"}
    assert result.status == "created" and result.number == 1


def test_digest_demo_runs_the_same_batches(tmp_path: Path) -> None:
    env: dict[str, str | None] = {k: None for k in os.environ if k.startswith("DIGEST_")}
    env.update(
        DIGEST_DATABASE_URL=f"sqlite:///{tmp_path / 'demo.db'}",
        DIGEST_LLM_MODEL="offline/rules",
        DIGEST_LOG_JSON="true",
        DIGEST_REFLECT_BATCH_SIZE="5",
    )
    done = run_cli("-v", "demo", env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    batches = [r["events"] for r in _json_lines(done.stderr) if r.get("event") == "reflect_batch"]
    assert batches, done.stderr[-3000:]
    assert max(len(b) for b in batches) == 5  # the bundled examples fill at least one batch
    assert all(len(b) <= 5 for b in batches)


# --- the worker: the same function, the same batches --------------------------------------------


def test_a_real_worker_takes_the_same_batches_as_the_embedded_drain(
    services_env: dict[str, str], start_worker: Any, tenant: str
) -> None:
    # Captured before any worker runs: one coalesced message waits for the whole backlog.
    ids = _answers(tenant, "bot", 10)
    worker = start_worker(concurrency=1, DIGEST_REFLECT_BATCH_SIZE="4")
    for event_id in ids:
        wait_for_event(event_id, DONE, timeout=60)
    assert set(_statuses(ids).values()) == {"reflected"}, worker.log()[-3000:]
    assert _batches(_json_lines(worker.log()), ids) == [ids[0:4], ids[4:8], ids[8:10]]
