"""digest.reflect.compact: near-duplicates merged through reconciliation, contradictions
resolved for the newer lesson, then a cap (embedded SQLite; the reconcile model is offline/rules
or a scripted model). Lessons that change while compaction decides stop it, unwritten."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

import digest
from digest.db import session_scope
from digest.errors import CompactConflict, DigestError
from digest.model.scripted import Messages, scripted_model, step_of
from digest.models import Lesson, LessonEvidence, LessonHistory
from digest.reflect.compact import compact
from digest.tenants import find_agent
from tests.conftest import manual_lesson, use_model

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
    # The manual path adds without reconciling: a word-for-word repeat only adds support, but
    # one under another name is a near-duplicate it stores.
    first = manual_lesson(TENANT, AGENT, "refunds: ask a manager above 200 EUR")
    second = manual_lesson(TENANT, AGENT, "refund: ask a manager above 200 EUR")
    assert second != first
    other = manual_lesson(TENANT, AGENT, "shipping: Norway ships from Oslo")
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
    ids = [manual_lesson(TENANT, AGENT, text) for text in texts]
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


REFUND = "refunds: ask a manager to approve any refund above 200 EUR before issuing it"
PARAPHRASE = "refunds: get a manager's approval before you refund more than 200 EUR"


def test_a_contradiction_leaves_the_newer_lesson(
    sqlite_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    older = manual_lesson(TENANT, AGENT, REFUND)
    newer = manual_lesson(TENANT, AGENT, PARAPHRASE)
    delete = {"operations": [{"op": "DELETE", "candidate": 0, "id": 0, "reason": "policy"}]}
    with scripted_model(lambda messages: json.dumps(delete)) as model:
        use_model(monkeypatch, model.name)
        report = compact(TENANT, AGENT)
    assert [step_of(m) for m in model.requests] == ["reconcile"] and report.llm_calls == 1
    assert report.superseded == [(older, newer)] and report.merged == []
    lessons = by_status()
    assert [x.id for x in lessons["active"]] == [newer]
    assert [(x.id, x.superseded_by_id) for x in lessons["superseded"]] == [(older, newer)]


def test_lessons_changing_meanwhile_stop_the_compaction(
    sqlite_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    digest.record_lesson(TENANT, AGENT, REFUND)
    digest.record_lesson(TENANT, AGENT, PARAPHRASE)

    def handler(messages: Messages) -> str:
        digest.record_lesson(TENANT, AGENT, "shipping: Norway ships from Oslo")  # meanwhile
        return json.dumps({"operations": [{"op": "NOOP", "candidate": 0, "id": 0}]})

    with scripted_model(handler) as model:
        use_model(monkeypatch, model.name)
        with pytest.raises(CompactConflict, match="nothing was written"):
            compact(TENANT, AGENT)
    assert len(by_status()["active"]) == 3


def test_the_cap_must_leave_a_lesson(sqlite_env: str) -> None:
    digest.record_lesson(TENANT, AGENT, REFUND)
    with pytest.raises(DigestError, match="at least 1"):
        compact(TENANT, AGENT, max_lessons=0)


@pytest.mark.parametrize("op", ["UPDATE", "DELETE"])
def test_run_text_never_rewrites_retires_or_absorbs_an_owners_lesson(
    sqlite_env: str, monkeypatch: pytest.MonkeyPatch, op: str
) -> None:
    """A model that merges a lesson from run text into the owner's rule (or retires the rule
    for it) changes no word of the rule: the run's lesson adds support at most."""
    owner = manual_lesson(TENANT, AGENT, REFUND)
    observed = manual_lesson(TENANT, AGENT, PARAPHRASE)
    with session_scope() as session:
        row = session.get(Lesson, observed)
        assert row is not None
        row.trust, row.source = "untrusted", "run_outcome"
    merged = {"situation": "refunds", "correction": "refunds above 200 EUR need nobody"}
    answer = {"operations": [{"op": op, "candidate": 0, "id": 0, "lesson": merged, "reason": "x"}]}
    with scripted_model(lambda messages: json.dumps(answer)) as model:
        use_model(monkeypatch, model.name)
        report = compact(TENANT, AGENT)
    with session_scope() as session:
        rule = session.get(Lesson, owner)
        assert rule is not None
        assert (rule.status, rule.trust) == ("active", "trusted")
        assert "nobody" not in rule.correction
    assert report.superseded == []
    assert report.merged == ([(observed, owner)] if op == "UPDATE" else [])
