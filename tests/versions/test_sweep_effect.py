"""The weekly sweep retires lessons measured as harmful (issue 16), on PostgreSQL.

A scripted stream of run outcomes, no model opinion anywhere: a lesson applied in many failing
runs and few successes is disabled by the sweep, through the one transition, with a history
row carrying the evidence; a lesson applied in three runs is left alone; a person's lesson
measured as harmful just as clearly is flagged for its owner, never retired. Each test has a
database of its own: the sweep reads every agent of the database it is given.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.lessons.effect.measure import effect_report
from digest.lessons.effect.retire import RETIRED_REASON
from digest.lessons.service import set_lesson_status
from digest.models import Lesson, LessonHistory
from digest.pipeline import drain
from digest.tenants import find_agent
from digest.versions.triggers import sweep
from tests.cli.conftest import forget_process_state
from tests.conftest import lessons_for_event, manual_lesson

AGENT = "bot"


@pytest.fixture()
def embedded_own_pg(own_database: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A PostgreSQL database of this test's own, with no broker (the sweep composes here)."""
    from digest.outbox.publish import reset_publisher

    monkeypatch.delenv("DIGEST_BROKER_URL")
    forget_process_state()
    reset_publisher()
    yield own_database
    forget_process_state()


def _tool_lesson(tenant: str, tool: str) -> int:
    """An untrusted lesson offline/rules distils from one failing run of ``tool``."""
    event_id = digest.record_run(
        tenant, AGENT, task=f"use {tool}", outcome="failure",
        tool_calls=[{"tool": tool, "ok": False, "error": f"{tool}: field 'amount' is required"}],
    )  # fmt: skip
    drain(tenant=tenant, agent=AGENT)
    found = lessons_for_event(event_id)
    assert len(found) == 1 and found[0].trust == "untrusted", found
    return int(found[0].id)


def _runs(tenant: str, outcomes: str, *applied: int) -> None:
    """One run per letter of ``outcomes`` (s: success, f: failure), naming ``applied``."""
    for letter in outcomes:
        ended = {"s": "success", "f": "failure"}[letter]
        digest.record_run(tenant, AGENT, task="a task", outcome=ended, applied_lesson_ids=applied)


@dataclass
class Bank:
    harmful: int
    few: int
    owners: int


def _scripted(tenant: str) -> Bank:
    harmful = _tool_lesson(tenant, "issue_refund")
    few = _tool_lesson(tenant, "ship_parcel")
    owners = manual_lesson(tenant, AGENT, "refund-limits: refunds above 200 EUR need a manager")
    _runs(tenant, "s" * 120 + "f" * 10)  # the agent without them: 92% succeed
    _runs(tenant, "s" + "f" * 14, harmful)  # many failing runs, one success
    # three runs, all failed: 0-56% against 69-82% without it, wholly below, yet only three
    _runs(tenant, "fff", few)
    _runs(tenant, "s" + "f" * 14, owners)  # the person's lesson fares as badly
    return Bank(harmful, few, owners)


def _history(lesson_id: int) -> list[LessonHistory]:
    with session_scope() as session:
        return list(
            session.scalars(
                select(LessonHistory)
                .where(LessonHistory.lesson_id == lesson_id)
                .order_by(LessonHistory.id)
            )
        )


def _lesson(lesson_id: int) -> Lesson:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        return lesson


def _epoch(tenant: str) -> int:
    with session_scope() as session:
        return find_agent(session, tenant, AGENT).lesson_epoch


def test_the_sweep_retires_a_harmful_lesson_and_leaves_three_runs_alone(
    embedded_own_pg: str, tenant: str
) -> None:
    bank = _scripted(tenant)
    epoch = _epoch(tenant)
    before = {lesson_id: len(_history(lesson_id)) for lesson_id in vars(bank).values()}

    report = sweep()

    assert report.retired == [bank.harmful]
    retired = _lesson(bank.harmful)
    assert retired.status == "disabled"
    assert retired.status_reason is not None
    assert retired.status_reason.startswith("retired by the sweep: measured harmful")
    assert "7% in 15 runs applied, 81% in 149 runs without it" in retired.status_reason
    row = _history(bank.harmful)[-1]
    assert len(_history(bank.harmful)) == before[bank.harmful] + 1
    assert (row.op, row.model, row.event_id) == ("UPDATE", None, None)  # no model, no event
    assert row.before is not None and row.after is not None
    assert (row.before["status"], row.after["status"]) == ("active", "disabled")
    # the evidence: counts, rates, the interval and the baseline it was compared with
    assert row.reason is not None and row.reason.startswith(RETIRED_REASON)
    assert "applied in 15 runs since " in row.reason
    assert "1 succeeded, 14 failed (success 7%, 95% interval 1%-30%)" in row.reason
    # without it, since it exists: the 130 runs, the other lessons' 18, and the run that
    # taught the other lesson (not the one that taught this one: it came before)
    assert "without it 149 runs: 121 succeeded, 28 failed (success 81%, 74%-87%)" in row.reason
    assert row.reason.endswith("verdict harms")
    assert _epoch(tenant) > epoch  # the one transition moved the epoch

    # three runs: never judged, untouched
    assert _lesson(bank.few).status == "active"
    assert len(_history(bank.few)) == before[bank.few]
    # the person's lesson: as harmful, flagged for its owner, not retired
    assert _lesson(bank.owners).status == "active"
    assert len(_history(bank.owners)) == before[bank.owners]
    measured = {e.lesson_id: e for e in effect_report(tenant, AGENT).lessons}
    assert (measured[bank.owners].verdict, measured[bank.owners].action) == ("harms", "review")
    assert (measured[bank.few].verdict, measured[bank.few].action) == ("insufficient", None)
    assert (measured[bank.harmful].status, measured[bank.harmful].action) == ("disabled", None)

    # the retirement changed the bank: this sweep composed the agent after it
    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
    assert agent_id in report.composed
    # and a second sweep has nothing left to retire
    assert sweep().retired == []


def test_an_owner_who_puts_a_retired_lesson_back_gets_a_fresh_count(
    embedded_own_pg: str, tenant: str
) -> None:
    bank = _scripted(tenant)
    assert sweep().retired == [bank.harmful]
    set_lesson_status(tenant, AGENT, bank.harmful, "active", reason="keep it", by="owner")
    # the runs that condemned it came before the owner's decision: they no longer count
    assert sweep().retired == []
    assert _lesson(bank.harmful).status == "active"
    # new evidence counts: fifteen more failing runs with it, and the agent fine without it
    _runs(tenant, "s" * 20)
    _runs(tenant, "f" * 15, bank.harmful)
    _runs(tenant, "s" * 20)
    assert sweep().retired == [bank.harmful]
    assert _lesson(bank.harmful).status == "disabled"


def test_retiring_can_be_turned_off(
    embedded_own_pg: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bank = _scripted(tenant)
    monkeypatch.setenv("DIGEST_EFFECT_RETIRE", "false")
    forget_process_state()
    assert sweep().retired == []
    assert _lesson(bank.harmful).status == "active"
    # measured all the same: the effect report still says what the sweep would do
    first = effect_report(tenant, AGENT).lessons[0]
    assert (first.lesson_id, first.verdict, first.action) == (bank.harmful, "harms", "retire")
