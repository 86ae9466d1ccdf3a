"""`lesson compact`: near-duplicates merged through reconciliation, then a cap (SQLite)."""

from __future__ import annotations

from sqlalchemy import func, select

import digest
from digest.db import session_scope
from digest.models import Lesson, LessonEvidence, LessonHistory
from digest.reflect.compact import compact
from digest.tenants import find_agent

TENANT, AGENT = "acme", "bot"


def by_status() -> dict[str, list[Lesson]]:
    with session_scope() as session:
        agent_id = find_agent(session, TENANT, AGENT).id
        rows = session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)).all()
    result: dict[str, list[Lesson]] = {}
    for row in rows:
        result.setdefault(row.status, []).append(row)
    return result


def test_duplicates_merge_into_one_with_their_evidence(sqlite_env: str) -> None:
    # The manual path adds without reconciling, so it can create true duplicates.
    first = digest.record_lesson(TENANT, AGENT, "refunds: ask a manager above 200 EUR")
    second = digest.record_lesson(TENANT, AGENT, "refunds: ask a manager above 200 EUR")
    other = digest.record_lesson(TENANT, AGENT, "shipping: Norway ships from Oslo")
    report = compact(TENANT, AGENT)
    assert report.merged == [(second, first)] and report.kept == 2 and report.llm_calls == 0
    lessons = by_status()
    assert sorted(x.id for x in lessons["active"]) == [first, other]
    (gone,) = lessons["superseded"]
    assert gone.id == second and gone.superseded_by_id == first
    kept = next(x for x in lessons["active"] if x.id == first)
    assert kept.support_count == 2
    with session_scope() as session:
        evidence = session.scalar(select(func.count()).where(LessonEvidence.lesson_id == first))
        ops = session.scalars(
            select(LessonHistory.op).where(LessonHistory.lesson_id == second)
        ).all()
    assert evidence == 2 and list(ops) == ["ADD", "DELETE"]
    assert compact(TENANT, AGENT).merged == []  # nothing left to merge


def test_cap_disables_the_weakest(sqlite_env: str) -> None:
    texts = [
        "refunds: ask a manager before refunding above 200 EUR",
        "shipping: Norway orders ship from the Oslo warehouse",
        "sizes: trail shoes run half a size small",
        "gift-cards: gift cards are never refundable",
        "hours: the pickup counter closes at 18:00",
    ]
    ids = [digest.record_lesson(TENANT, AGENT, text) for text in texts]
    with session_scope() as session:
        for lesson_id, support in zip(ids, (5, 1, 4, 1, 3), strict=True):
            row = session.get(Lesson, lesson_id)
            assert row is not None
            row.support_count = support
    report = compact(TENANT, AGENT, max_lessons=3)
    assert report.merged == []
    assert sorted(report.capped) == sorted([ids[1], ids[3]])
    lessons = by_status()
    assert sorted(x.id for x in lessons["active"]) == sorted([ids[0], ids[2], ids[4]])
    assert all("over the cap" in (x.status_reason or "") for x in lessons["disabled"])
