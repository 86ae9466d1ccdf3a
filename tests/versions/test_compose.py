"""digest.versions.compose: learning documents composed from an agent's lessons (PostgreSQL).

Byte-stable bodies (no new version for the same lessons), the frequency gate and statuses,
the summarize step's change note (and the deterministic one when the model fails), pruning
to 20 gap-free numbers, one version from concurrent composes, provenance of the agent's own,
and lessons that change while a version is composed (read again, a bounded number of times).
"""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.errors import DigestError, LLMTransientError
from digest.model.scripted import Messages, scripted_model, step_of
from digest.models import DigestRun, Event, Lesson, LessonEvidence, utcnow
from digest.versions.compose import COMPOSE_ATTEMPTS, compose_version
from digest.versions.document import render_body
from tests.conftest import use_model
from tests.versions.conftest import AGENT, agent_id, current_number, lesson, versions


def test_same_lessons_give_the_same_bytes_and_no_new_version(
    services_env: dict[str, str], tenant: str
) -> None:
    lesson(tenant, 1)
    lesson(tenant, 2)
    first = compose_version(agent_id(tenant), "manual")
    assert first.status == "created" and first.number == 1
    again = compose_version(agent_id(tenant), "manual")
    assert again.status == "no_change"
    (only,) = versions(tenant)
    with session_scope() as session:
        rows = session.scalars(select(Lesson).where(Lesson.agent_id == agent_id(tenant))).all()
        assert render_body(AGENT, list(rows)) == only.body_markdown
        assert render_body(AGENT, list(reversed(rows))) == only.body_markdown
    assert "rule-1" in only.body_markdown and only.status == "active"
    assert "Added (2)" in only.change_summary


def test_nothing_learned_means_no_version(services_env: dict[str, str], tenant: str) -> None:
    digest.record_answer(tenant, AGENT, question="q?", answer="a")  # pending, no lesson yet
    assert compose_version(agent_id(tenant), "manual").status == "no_change"
    assert versions(tenant) == []


#: each lesson's correction, in words a judge writes (``digest.judge_words``): an agent reads a
#: run-derived lesson's other words as ‹value›, which would tell these lessons apart no more
CORRECTION = {
    "weak-untrusted": "Check the stock first.",
    "supported-twice": "Check the balance first.",
    "superseded": "Check the status first.",
    "quarantined": "Check the limit first.",
    "expired": "Check the date first.",
    "failing": "Check the format first.",
    "one-source-twice": "Check the amount first.",
}


def test_frequency_gate_and_statuses_decide_what_enters(
    services_env: dict[str, str], tenant: str
) -> None:
    trusted = lesson(tenant, 1)
    aid = agent_id(tenant)
    with session_scope() as session:
        base = session.get(Lesson, trusted)
        assert base is not None

        def add(slug: str, **fields: Any) -> None:
            values = {
                "tenant_id": base.tenant_id, "agent_id": aid, "slug": slug, "title": slug,
                "situation": f"situation {slug}", "correction": CORRECTION[slug],
                "tags": [], "source": "run_outcome", "outcome": "failure",
                "support_count": 1, "status": "active",
            }  # fmt: skip
            session.add(Lesson(**{**values, **fields}))

        add("weak-untrusted")
        add("supported-twice", support_count=2)
        add("superseded", support_count=5, status="superseded")
        add("quarantined", support_count=5, status="quarantined")
        add("expired", support_count=5, expires_at=utcnow() - timedelta(days=1))
        add("failing", support_count=3, failure_count=3, success_count=1)
        add("one-source-twice", support_count=2)
    # Runs from two contacts, hours apart: independent support for what they cite.
    runs = [
        digest.record_run(tenant, AGENT, task=f"t{n}", outcome="failure", error="e",
                          contact_id=f"c{n}")
        for n in range(2)
    ]  # fmt: skip
    same = digest.record_run(tenant, AGENT, task="t", outcome="failure", error="e")
    with session_scope() as session:
        session.get(Event, runs[0]).created_at -= timedelta(hours=3)  # type: ignore[union-attr]
        slugs = {
            slug: lesson_id
            for slug, lesson_id in session.execute(
                select(Lesson.slug, Lesson.id).where(Lesson.agent_id == aid)
            )
        }
        for slug in ("supported-twice", "failing", "one-source-twice"):
            for event_id in runs if slug != "one-source-twice" else [same]:
                session.add(LessonEvidence(lesson_id=slugs[slug], event_id=event_id, note="t"))
    assert compose_version(aid, "manual").status == "created"
    body = versions(tenant)[0].body_markdown
    assert CORRECTION["supported-twice"] in body and "rule-1" in body
    for absent in ("weak-untrusted", "superseded", "quarantined", "expired", "one-source-twice"):
        assert CORRECTION[absent] not in body
    assert "CAUTION" in body.split(CORRECTION["failing"])[0].splitlines()[-1]


def test_twenty_five_composes_keep_twenty_gap_free(
    services_env: dict[str, str], tenant: str
) -> None:
    for n in range(25):
        lesson(tenant, n)
        aid = agent_id(tenant)
        assert compose_version(aid, "manual").status == "created"
    rows = versions(tenant)
    assert len(rows) == 20
    assert [v.number for v in rows] == list(range(6, 26))
    assert current_number(tenant) == 25 and rows[-1].status == "active"
    assert all(v.status == "superseded" for v in rows[:-1])


def test_concurrent_composes_make_one_version(services_env: dict[str, str], tenant: str) -> None:
    for n in range(3):
        lesson(tenant, n)
    aid = agent_id(tenant)
    barrier = threading.Barrier(4)
    results: list[str] = []

    def compose() -> None:
        barrier.wait()
        results.append(compose_version(aid, "manual").status)

    threads = [threading.Thread(target=compose) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(results) == ["created", "no_change", "no_change", "no_change"]
    assert [v.number for v in versions(tenant)] == [1]


def test_provenance_belongs_to_the_agent(services_env: dict[str, str], tenant: str) -> None:
    for n in range(3):
        lesson(tenant, n)
    digest.record_lesson(tenant, "other", "elsewhere: another agent's lesson")
    aid = agent_id(tenant)
    compose_version(aid, "manual")
    (version,) = versions(tenant)
    assert len(version.folded_lesson_ids) == 3 and len(version.supporting_event_ids) == 3
    with session_scope() as session:
        folded = session.scalars(
            select(Lesson).where(Lesson.id.in_(version.folded_lesson_ids))
        ).all()
        events = session.scalars(
            select(Event).where(Event.id.in_(version.supporting_event_ids))
        ).all()
        cited = set(
            session.scalars(
                select(LessonEvidence.event_id).where(
                    LessonEvidence.lesson_id.in_(version.folded_lesson_ids)
                )
            )
        )
        run = session.scalars(select(DigestRun).where(DigestRun.version_id == version.id)).one()
    assert len(folded) == 3 and all(row.agent_id == aid for row in folded)
    assert len(events) == 3 and all(row.agent_id == aid for row in events)
    assert cited == set(version.supporting_event_ids)
    assert (run.kind, run.trigger, run.n_add, run.llm_calls) == ("compose", "manual", 3, 1)


# --- the summarize step -----------------------------------------------------------------------


def test_the_change_note_is_the_summarize_steps_answer(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lesson(tenant, 1)
    lesson(tenant, 2)
    with scripted_model(
        lambda messages: "```\nTwo rules added.\n\nBoth from the owner.\n```"
    ) as model:
        use_model(monkeypatch, model.name, step="summarize")
        result = compose_version(agent_id(tenant), "manual")
    assert result.change_summary == "Two rules added.\nBoth from the owner."
    [request] = model.requests
    assert step_of(request) == "summarize" and "rule-1" in request[-1]["content"]
    with session_scope() as session:
        run = session.scalars(
            select(DigestRun).where(DigestRun.version_id == result.version_id)
        ).one()
    assert (run.llm_calls, run.error) == (1, None)


def test_a_failing_summarize_step_never_costs_the_version(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_LLM_RETRY_WAIT_MAX_S", "0")
    lesson(tenant, 1)

    def down(messages: Messages) -> str:
        raise LLMTransientError("503 Service Unavailable")

    with scripted_model(down) as model:
        use_model(monkeypatch, model.name, step="summarize")
        result = compose_version(agent_id(tenant), "manual")
    assert (result.status, result.change_summary) == ("created", "Added (1): rule-1")
    assert len(model.requests) == 3  # DIGEST_LLM_MAX_ATTEMPTS
    with session_scope() as session:
        run = session.scalars(
            select(DigestRun).where(DigestRun.version_id == result.version_id)
        ).one()
    assert run.llm_calls == 3
    assert run.error == "summarize failed, deterministic note used: 503 Service Unavailable"


# --- lessons changing while composing -----------------------------------------------------------


def test_lessons_changed_meanwhile_compose_again_from_the_read(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lesson(tenant, 1)
    added: list[int] = []

    def summarize(messages: Messages) -> str:
        if not added:  # between the first read and its write, the owner adds a rule
            added.append(lesson(tenant, 2))
        return "```\nRules added.\n```"

    with scripted_model(summarize) as model:
        use_model(monkeypatch, model.name, step="summarize")
        result = compose_version(agent_id(tenant), "manual")
    assert (result.status, result.number) == ("created", 1)
    assert len(model.requests) == 2  # the stale draft's summary, then the fresh one's
    (only,) = versions(tenant)
    assert "rule-2" in only.body_markdown and added[0] in only.folded_lesson_ids
    with session_scope() as session:
        run = session.scalars(
            select(DigestRun).where(DigestRun.version_id == result.version_id)
        ).one()
    assert run.llm_calls == 2  # both summaries were paid for


def test_lessons_that_keep_changing_stop_compose_with_a_digest_error(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    lesson(tenant, 1)
    n = iter(range(2, 100))

    def summarize(messages: Messages) -> str:
        lesson(tenant, next(n))  # every read is stale by its write
        return "```\nRules added.\n```"

    aid = agent_id(tenant)
    with scripted_model(summarize) as model:
        use_model(monkeypatch, model.name, step="summarize")
        with pytest.raises(DigestError) as raised:
            compose_version(aid, "manual")
    assert str(raised.value) == f"agent {aid}: lessons kept changing while composing; try again"
    assert len(model.requests) == COMPOSE_ATTEMPTS
    assert versions(tenant) == []
