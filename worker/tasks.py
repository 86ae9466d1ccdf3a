"""Thin tasks: stable dotted names, ids in, a call into ``digest``, nothing else."""

from __future__ import annotations

from typing import Any

from sqlalchemy.exc import OperationalError

from digest import triggers
from digest.reflect import reflect_event as reflect_event_fn
from digest.relay import relay_pending as relay_pending_fn
from digest.versions import compose_version as compose_version_fn
from worker.celery_app import app


# A database blip (restart, failover) retries the task; the claim logic keeps it idempotent.
@app.task(
    name="digest.reflect_event",
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    retry_backoff_max=60,
    max_retries=5,
)
def reflect_event(event_id: int) -> dict[str, Any]:
    result = reflect_event_fn(event_id)
    return {"event_id": result.event_id, "status": result.status, "lessons": result.lesson_ids}


@app.task(name="digest.relay_pending")
def relay_pending() -> int:
    return len(relay_pending_fn())


@app.task(
    name="digest.compose_version",
    autoretry_for=(OperationalError,),
    retry_backoff=2,
    retry_backoff_max=60,
    max_retries=5,
)
def compose_version(agent_id: int, trigger: str = "manual", token: str | None = None) -> str:
    if token is not None:
        outcome = triggers.threshold_compose(agent_id, token)
        return outcome if isinstance(outcome, str) else outcome.status
    return compose_version_fn(agent_id, trigger).status


@app.task(name="digest.weekly_sweep")
def weekly_sweep() -> dict[str, int]:
    report = triggers.sweep(fan_out=True)
    return {
        "scheduled": len(report.scheduled),
        "composed": len(report.composed),
        "expired": report.expired,
        "pruned": report.pruned,
    }


@app.task(name="digest.improve_now")
def improve_now(tenant: str, agent: str) -> str:
    return triggers.improve_now(tenant, agent).status
