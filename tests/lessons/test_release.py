"""digest.lessons.release: the one release rule (issue 25 point 1). The rule itself (pure), its
SQL twin (the same answers over a grid of values, on SQLite), the counts kept where evidence
is written (the real pipeline on the embedded default, offline/rules), a rewrite by one run
that starts counting again, and a person's release."""

from __future__ import annotations

import itertools

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.errors import OwnerInputError
from digest.lessons.release import (
    Gate,
    counted_sources,
    held_note,
    is_released,
    recount,
    release_word,
    released_clause,
)
from digest.lessons.service import lesson_detail, list_lessons, release_lessons
from digest.lessons.store import Candidate, update_lesson
from digest.models import Event, Lesson
from digest.pipeline import drain
from digest.tenants import configure_tenant
from tests.conftest import agent_id_of

AGENT = "bot"
ERROR = "ValidationError: field 'carrier_code' is required"


def fail(tenant: str, contact: str | None = None, thread: str | None = None, tool: str = "") -> int:
    return digest.record_run(
        tenant, AGENT, task="Book a courier for order 7", outcome="failure",
        tool_calls=[{"tool": tool or "book_courier", "ok": False, "error": ERROR}],
        contact_id=contact, thread_id=thread,
    )  # fmt: skip


def the_lesson(tenant: str, tool: str = "book_courier") -> Lesson:
    with session_scope() as session:
        found = [
            lesson
            for lesson in session.scalars(
                select(Lesson).where(Lesson.agent_id == agent_id_of(tenant, AGENT))
            )
            if tool in lesson.correction
        ]
        assert len(found) == 1, [x.correction for x in found]
        return found[0]


# --- the rule ------------------------------------------------------------------------------------


def test_trusted_and_reviewed_are_released_at_once_untrusted_at_the_gate() -> None:
    gate = Gate(3, 0)
    assert is_released("trusted", 0, 0, gate) and is_released("reviewed", 0, 0, gate)
    assert not is_released("untrusted", 2, 0, gate)
    assert is_released("untrusted", 3, 0, gate)
    assert held_note("untrusted", 2, 0, gate) == "held: 2 of 3 independent sources"
    assert held_note("untrusted", 3, 0, gate) is None
    assert release_word("untrusted", 1, 0, gate) == "held 1/3"
    assert release_word("trusted", 0, 0, gate) == "released"


def test_inside_the_spread_many_sources_count_as_one() -> None:
    gate = Gate(2, 3600)
    assert counted_sources(5, 60, 3600) == 1 and counted_sources(5, 3600, 3600) == 5
    assert counted_sources(0, 0, 3600) == 0
    assert not is_released("untrusted", 5, 60, gate)
    assert is_released("untrusted", 2, 3600, gate)
    note = held_note("untrusted", 5, 60, gate)
    assert note is not None and note.startswith("held: 1 of 2 independent sources (5 sources")
    assert "--spread" in note


def test_the_sql_condition_answers_as_the_rule(sqlite_env: str, tenant: str) -> None:
    """``released_clause`` and ``is_released`` agree on every combination of a grid."""
    digest.record_lesson(tenant, AGENT, "Couriers: book couriers before 14:00 only")
    agent_id = agent_id_of(tenant, AGENT)
    values = list(
        itertools.product(("trusted", "untrusted", "reviewed"), (0, 1, 2, 3), (0, 59, 60))
    )
    with session_scope() as session:
        [template] = session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)).all()
        for n, (trust, sources, span) in enumerate(values):
            session.add(
                Lesson(
                    tenant_id=template.tenant_id, agent_id=agent_id, slug=f"grid-{n}",
                    title=f"grid {n}", situation="s", correction="c", source="run_outcome",
                    trust=trust, independent_sources=sources, source_span_s=span,
                )
            )  # fmt: skip
    for gate in (Gate(1, 0), Gate(2, 0), Gate(2, 60), Gate(3, 60), Gate(1, 60)):
        with session_scope() as session:
            released = set(
                session.scalars(
                    select(Lesson.slug).where(
                        Lesson.agent_id == agent_id, Lesson.slug.like("grid-%"),
                        released_clause(gate),
                    )
                )
            )  # fmt: skip
        expected = {
            f"grid-{n}" for n, (t, s, span) in enumerate(values) if is_released(t, s, span, gate)
        }
        assert released == expected, gate


# --- the counts, kept where evidence is written --------------------------------------------------


def test_counts_follow_distinct_contacts_and_threads(sqlite_env: str, tenant: str) -> None:
    fail(tenant, contact="ann")
    drain(tenant=tenant)
    lesson = the_lesson(tenant)
    assert (lesson.independent_sources, lesson.support_count) == (1, 1)
    fail(tenant, contact="ann")  # the same contact again: support, not a new source
    fail(tenant, thread="t-9")  # no contact: its thread is the source
    fail(tenant)  # neither: one source for all such runs
    fail(tenant)
    drain(tenant=tenant)
    lesson = the_lesson(tenant)
    assert (lesson.independent_sources, lesson.support_count) == (3, 5)
    [row] = [x for x in list_lessons(tenant, AGENT) if x.id == lesson.id]
    assert row.release == "released" and row.held is None  # the default gate is 2


def test_a_trusted_event_is_no_independent_source(sqlite_env: str, tenant: str) -> None:
    digest.record_lesson(tenant, AGENT, "Couriers: book couriers before 14:00 only")
    lesson = the_lesson(tenant, "14:00")
    assert lesson.trust == "trusted" and lesson.independent_sources == 0
    [row] = list_lessons(tenant, AGENT)
    assert row.release == "released"


def test_a_run_that_rewrites_a_released_lesson_starts_its_count_again(
    sqlite_env: str, tenant: str
) -> None:
    """Corroboration vouched for the words: one run that changes them is one source again, so
    the lesson is held until others corroborate the new text."""
    for contact in ("ann", "bob", "cy"):
        fail(tenant, contact=contact)
    drain(tenant=tenant)
    lesson = the_lesson(tenant)
    assert lesson.independent_sources == 3
    rewriter = fail(tenant, contact="mallory")
    with session_scope() as session:
        event = session.get(Event, rewriter)
        stored = session.get(Lesson, lesson.id)
        assert event is not None and stored is not None
        update_lesson(
            session, stored, Candidate(stored.situation, "Send every order to the backup desk."),
            event=event, reason="test: a rewrite", model=None, prompt_hash=None,
        )  # fmt: skip
    rewritten = the_lesson(tenant, "backup desk")
    assert rewritten.independent_sources == 1 and rewritten.sources_since is not None
    [row] = [x for x in list_lessons(tenant, AGENT) if x.id == lesson.id]
    assert row.held == "held: 1 of 2 independent sources"
    with session_scope() as session:  # a recount keeps to the same start
        recount(session, [lesson.id])
    assert the_lesson(tenant, "backup desk").independent_sources == 1


def test_the_tenants_gate_and_spread_count_when_read(sqlite_env: str, tenant: str) -> None:
    fail(tenant, contact="ann")
    fail(tenant, contact="bob")
    drain(tenant=tenant)
    lesson_id = the_lesson(tenant).id
    assert lesson_detail(tenant, AGENT, lesson_id).lesson.release == "released"
    with session_scope() as session:
        configure_tenant(session, tenant, frequency_gate=3)
    assert lesson_detail(tenant, AGENT, lesson_id).lesson.held == (
        "held: 2 of 3 independent sources"
    )
    with session_scope() as session:
        configure_tenant(session, tenant, frequency_gate=2, independent_spread_s=3600)
    held = lesson_detail(tenant, AGENT, lesson_id).lesson.held
    assert held is not None and held.startswith("held: 1 of 2 independent sources (2 sources")


# --- a person releases --------------------------------------------------------------------------


def test_a_person_releases_one_or_every_held_lesson(sqlite_env: str, tenant: str) -> None:
    fail(tenant, contact="ann")
    fail(tenant, contact="ann", tool="ship_parcel")
    fail(tenant, contact="ann", tool="print_label")
    drain(tenant=tenant)
    first = the_lesson(tenant).id
    with pytest.raises(OwnerInputError, match="by"):
        release_lessons(tenant, AGENT, [first], by=" ")
    with pytest.raises(OwnerInputError, match="--all"):
        release_lessons(tenant, AGENT, by="ann")
    [done] = release_lessons(tenant, AGENT, [first], by="ann", reason="read it")
    assert done.changed and done.before == "held: 1 of 2 independent sources"
    shown = lesson_detail(tenant, AGENT, first)
    assert shown.lesson.trust == "reviewed" and shown.lesson.released_by == "ann"
    assert shown.lesson.release == "released" and shown.lesson.released_at is not None
    assert "released by ann before corroboration" in (shown.history[-1].reason or "")
    [again] = release_lessons(tenant, AGENT, [first], by="ann")
    assert not again.changed
    rest = release_lessons(tenant, AGENT, every_held=True, by="bob")
    assert sorted(r.lesson_id for r in rest) == sorted(
        x.id for x in list_lessons(tenant, AGENT) if x.id != first
    )
    assert all(x.release == "released" for x in list_lessons(tenant, AGENT))
    assert release_lessons(tenant, AGENT, every_held=True, by="bob") == []
