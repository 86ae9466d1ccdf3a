"""Thin tasks: stable dotted names, ids in, a call into ``digest``, nothing else."""

from __future__ import annotations

from typing import Any

from celery import Task
from sqlalchemy.exc import OperationalError

from digest import pipeline
from digest.outbox import publish
from digest.outbox.relay import relay_pending as relay_pending_fn
from digest.questions.merge import merge_questions as merge_questions_fn
from digest.versions import triggers
from digest.versions.compose import compose_version as compose_version_fn
from worker.celery_app import app

#: A database blip (restart, failover) retries the task; the claim logic keeps it idempotent.
_REFLECT_RETRIES: dict[str, Any] = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": 2,
    "retry_backoff_max": 60,
    "max_retries": 5,
}


@app.task(bind=True, name="digest.reflect_batch", **_REFLECT_RETRIES)
def reflect_batch(self: Task, event_id: int, agent_id: int | None = None) -> dict[str, Any]:
    """The batch of the agent's events this message claims: ``event_id`` (or, if it is done,
    the agent's oldest claimable event) and, with it, the agent's other pending events."""
    return _reflect(self, event_id, agent_id)


@app.task(bind=True, name="digest.reflect_event", **_REFLECT_RETRIES)
def reflect_event(self: Task, event_id: int, agent_id: int | None = None) -> dict[str, Any]:
    """The task's former name, for messages queued before it was renamed: the same work."""
    return _reflect(self, event_id, agent_id)


def _reflect(task: Task, event_id: int, agent_id: int | None) -> dict[str, Any]:
    # The task id stays the same when Celery re-queues the message of a dead worker process
    # or retries it: the claims of a run that died are then taken back at once.
    results = pipeline.reflect_pending(
        event_id=event_id, agent_id=agent_id, delivery=task.request.id
    )
    return {
        "event_id": event_id,
        "statuses": {r.event_id: r.status for r in results},
        "lessons": sorted({i for r in results for i in r.lesson_ids}),
    }


@app.task(name="digest.relay_pending")
def relay_pending() -> int:
    published = relay_pending_fn()
    # expired lessons leave the learning document within a relay interval, not a week
    triggers.expire_due(fan_out=True)
    return len(published)


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
        "retired": len(report.retired),
        "pruned": report.pruned,
    }


@app.task(name="digest.improve_now")
def improve_now(tenant: str, agent: str) -> str:
    return pipeline.improve_now(tenant, agent).status


@app.task(name="digest.merge_questions", **_REFLECT_RETRIES)
def merge_questions(agent_id: int) -> list[list[int]]:
    """Compare the agent's new questions with its open ones; merge the paraphrases."""
    # the slot first: a question opened from now on publishes again, one before is read here
    publish.release_slot(publish.merge_slot(agent_id))
    return [[m.merged, m.survivor] for m in merge_questions_fn(agent_id)]
