"""Helpers the reflect tests share, built on the public claim API."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from digest import fingerprint as fp
from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.model.offline_reconcile import reconcile
from digest.models import Lesson, LessonEvidence
from digest.reflect.claims import Claimed, ReflectResult, claim_batch
from digest.tenants import find_agent


def claim_one(event_id: int, settings: Settings | None = None) -> Claimed | ReflectResult:
    """Claim ``event_id`` alone: the claim, or why it was refused (finished, a live claim
    elsewhere, dead, missing). A batch of one, as ``claim_batch`` takes it with ``size=1``;
    the agent's other pending events are left alone."""
    batch = claim_batch(event_id, None, settings or get_settings(), size=1)
    outcomes: list[Claimed | ReflectResult] = [*batch.claimed, *batch.results]
    [outcome] = outcomes
    return outcome


def noop_into_the_first(messages: list[dict[str, Any]]) -> str:
    """A greedy judge's reconcile answer: every candidate NOOPed into the first lesson shown,
    whatever it says (it merges distinct facts whenever it is asked)."""
    text = str(messages[-1]["content"])
    shown = text.split("<candidates>")[1].split("</candidates>")[0].replace("\\u003c", "<")
    operations = [{"op": "NOOP", "candidate": c["candidate"], "id": 0} for c in json.loads(shown)]
    return json.dumps({"operations": operations})


def active_lessons(tenant: str, agent: str) -> list[Lesson]:
    """The agent's active lessons (every release state), in no particular order."""
    with session_scope() as session:
        found = find_agent(session, tenant, agent)
        return list(
            session.scalars(
                select(Lesson).where(Lesson.agent_id == found.id, Lesson.status == "active")
            )
        )


def owner_fact(i: int, question: str, answer: str) -> dict[str, object]:
    """An owner's answer as the reconcile prompt shows a lesson (id ``i``)."""
    [key] = fp.event_keys("owner_answer", {"question": question})
    return {"id": i, "situation": f"Asked: {question}", "mistake": None, "tags": [],
            "correction": f'Answer "{question}" with the owner\'s facts. {answer}',
            "fingerprint": key}  # fmt: skip


def owner_pair(
    old: tuple[str, str], new: tuple[str, str], *, relevance: float = 0.1
) -> tuple[Candidate, Neighbour]:
    """An owner's new answer as reconcile's candidate, and an old one as its neighbour (id 7),
    each a (question, answer)."""
    known, asked = owner_fact(7, *old), owner_fact(0, *new)
    lesson = Neighbour(
        lesson_id=7, relevance=relevance, identity=relevance, title="t",
        situation=str(known["situation"]), mistake=None, correction=str(known["correction"]),
        tags=(), fingerprint=str(known["fingerprint"]),
    )  # fmt: skip
    candidate = Candidate(
        situation=str(asked["situation"]), mistake=None, correction=str(asked["correction"]),
        fingerprint=str(asked["fingerprint"]),
    )  # fmt: skip
    return candidate, lesson


def offline_judged(
    existing: list[dict[str, object]], question: str, answer: str
) -> dict[str, object]:
    """The offline judge's one operation on an owner's new answer beside ``existing``."""
    candidate = owner_fact(0, question, answer)
    candidate["candidate"] = candidate.pop("id")
    [op] = json.loads(reconcile(existing, [candidate]))["operations"]
    return dict(op)


def lessons_by_event(tenant: str, agent: str) -> dict[int, Lesson]:
    """The agent's lessons (every status, detached) by the one event each cites."""
    with session_scope() as session:
        agent_id = find_agent(session, tenant, agent).id
        found: dict[int, Lesson] = {}
        for lesson in session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)):
            [event_id] = session.scalars(
                select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == lesson.id)
            )
            found[event_id] = lesson
        session.expunge_all()
    return found


#: an event's statuses once a worker is done with it
DONE = frozenset({"reflected", "skipped", "failed", "dead"})


def failed_run(tool: str, args: dict[str, Any], error: str) -> dict[str, Any]:
    """A run's ``record_run`` keywords: one failed call of ``tool``."""
    return {"task": f"Use {tool}", "outcome": "failure",
            "tool_calls": [{"tool": tool, "args": args, "ok": False, "error": error}]}  # fmt: skip


def play(tenant: str, stream: list[tuple[str, str, dict[str, Any]]], *, worker: bool) -> list[int]:
    """Record each (agent, "run" | "answer", keywords) of ``stream`` in order, each reflected
    before the next: drained in this process, or (``worker``) waited for from a worker."""
    import digest
    from digest.pipeline import drain
    from tests.conftest import wait_for_event

    ids = []
    for agent, kind, payload in stream:
        record = digest.record_run if kind == "run" else digest.record_answer
        ids.append(record(tenant, agent, **payload))
        if worker:
            assert wait_for_event(ids[-1], set(DONE))["status"] == "reflected"
        else:
            drain()
    return ids
