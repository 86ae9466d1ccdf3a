"""Versioned learning documents on PostgreSQL: composing, apply modes, pruning, concurrency."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.errors import NotFound, VersionStateError
from digest.models import DigestRun, Event, LearningVersion, Lesson, LessonEvidence, utcnow
from digest.tenants import configure_tenant, find_agent
from digest.versions.compose import compose_version, render_body
from digest.versions.decisions import approve, reject, rollback

pytestmark = pytest.mark.services

AGENT = "bot"


def agent_id(tenant: str) -> int:
    with session_scope() as session:
        return find_agent(session, tenant, AGENT).id


def versions(tenant: str) -> list[LearningVersion]:
    with session_scope() as session:
        return list(
            session.scalars(
                select(LearningVersion)
                .where(LearningVersion.agent_id == find_agent(session, tenant, AGENT).id)
                .order_by(LearningVersion.number)
            )
        )


def current_number(tenant: str) -> int | None:
    with session_scope() as session:
        agent = find_agent(session, tenant, AGENT)
        if agent.current_version_id is None:
            return None
        row = session.get(LearningVersion, agent.current_version_id)
        return row.number if row else None


def set_mode(tenant: str, mode: str, **overrides: int) -> None:
    with session_scope() as session:
        configure_tenant(session, tenant, learning_apply_mode=mode, **overrides)


def lesson(tenant: str, n: int) -> int:
    return digest.record_lesson(tenant, AGENT, f"rule-{n}: always do thing number {n} first")


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
                "situation": f"situation {slug}", "correction": f"correction {slug}",
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
    assert compose_version(aid, "manual").status == "created"
    body = versions(tenant)[0].body_markdown
    assert "correction supported-twice" in body and "rule-1" in body
    for absent in ("weak-untrusted", "superseded", "quarantined", "expired"):
        assert f"correction {absent}" not in body
    assert "CAUTION" in body.split("correction failing")[0].splitlines()[-1]


def test_approval_mode_pending_approve_reject_edit_and_rollback(
    services_env: dict[str, str], tenant: str
) -> None:
    lesson(tenant, 1)
    set_mode(tenant, "approval")
    aid = agent_id(tenant)

    v1 = compose_version(aid, "manual")
    assert (v1.number, v1.version_status) == (1, "pending")
    assert current_number(tenant) is None  # nothing active until a person approves
    assert compose_version(aid, "manual").status == "no_change"  # same as the pending one
    approve(tenant, AGENT, 1, by="owner@shop")
    assert current_number(tenant) == 1

    lesson(tenant, 2)
    assert compose_version(aid, "manual").version_status == "pending"
    assert current_number(tenant) == 1  # the active one is unchanged while v2 waits
    reject(tenant, AGENT, 2, by="owner@shop")
    with pytest.raises(VersionStateError):
        approve(tenant, AGENT, 2, by="owner@shop")
    # Rejected lessons stay available: the next compose proposes them again.
    v3 = compose_version(aid, "manual")
    assert (v3.number, v3.version_status) == (3, "pending")
    edited = "# Edited by the owner\n\n- Only this rule.\n"
    approve(tenant, AGENT, 3, by="owner@shop", body=edited)
    rows = {v.number: v for v in versions(tenant)}
    assert rows[3].status == "active" and rows[3].proposed_by == "operator"
    assert rows[3].body_markdown == edited and rows[3].approved_by == "owner@shop"
    assert [rows[n].status for n in (1, 2, 3)] == ["superseded", "rejected", "active"]

    back = rollback(tenant, AGENT, 1, by="owner@shop")  # approval mode: still active at once
    rows = {v.number: v for v in versions(tenant)}
    assert back.number == 4 and rows[4].status == "active" and rows[4].trigger == "rollback"
    assert rows[4].body_markdown == rows[1].body_markdown
    assert rows[4].previous_version_id == rows[3].id
    assert current_number(tenant) == 4
    with pytest.raises(NotFound):
        rollback(tenant, AGENT, 99, by="owner@shop")


def test_rollback_in_auto_mode(services_env: dict[str, str], tenant: str) -> None:
    lesson(tenant, 1)
    compose_version(agent_id(tenant), "manual")
    lesson(tenant, 2)
    compose_version(agent_id(tenant), "manual")
    assert current_number(tenant) == 2
    rollback(tenant, AGENT, 1, by="ops")
    rows = {v.number: v for v in versions(tenant)}
    assert rows[3].status == "active" and rows[2].status == "superseded"
    assert rows[3].body_markdown == rows[1].body_markdown


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
