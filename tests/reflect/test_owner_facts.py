"""Owner answers through the one reflect core: meaning decides identity (issue 24, DESIGN §8a).

The offline judge in the embedded default (SQLite, ``digest drain``) and through a real worker
on PostgreSQL: one question asked in other words is one lesson citing every answer; an answer
reversed under another wording supersedes the old lesson, with why in its history; a broader
question whose answer says what both ask about changed overrides the old fact, and a narrower
one that changes only its own case is an exception kept beside it; a question that reads alike
but names another entity (Norway, Switzerland; students, seniors) is a lesson of its own, even
when its answer says "no longer".
"""

from __future__ import annotations

import pytest
from sqlalchemy import select

import digest
from digest import fingerprint as fp
from digest.db import session_scope
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.models import Event, Lesson, LessonEvidence, LessonHistory
from digest.pipeline import drain
from digest.reflect.ask import resolve
from digest.reflect.reconcile import for_the_judge
from digest.tenants import find_agent
from tests.conftest import WorkerProcess, wait_for_event

AGENT = "bot"
DONE = {"reflected", "skipped", "failed", "dead"}

#: (question, answer), in the order the owner gave them
STREAM = [
    ("Do you deliver on Sundays?", "No, we deliver Monday to Saturday."),
    ("Are returns free?", "Yes, returns are free within 30 days of delivery."),
    ("Do you ship to Norway?", "Yes, in 4 to 6 working days; customs are paid by the customer."),
    ("Is Sunday delivery available?", "No, we deliver Monday to Saturday."),
    ("Do you offer student discounts?", "Yes, 15% off with a valid student card."),
    ("Do you ship to Switzerland?", "Not any more: since January we no longer ship there."),
    ("Can my parcel arrive on a Sunday?", "No - deliveries are Monday to Saturday only."),
    ("Do you offer senior discounts?", "Yes, 10% off for customers over 65."),
    (
        "Do customers pay for return shipping?",
        "Since 1 May they do: return shipping now costs €4.95, deducted from the refund.",
    ),
    # a broader question whose answer says what both ask about changed: an override
    ("How late can I pick up my parcel at the counter?", "The parcel counter is open until 5pm."),
    ("What are the collection times now?", "We changed it: collection now runs until 7pm."),
    # a narrower question whose answer changes only the narrower case: an exception
    ("Do you offer gift wrapping?", "Yes, gift wrapping costs €2 per item."),
    ("Do you gift-wrap oversized items?", "Not any more: oversized items are no longer wrapped."),
]


def _owner_lesson(question: str, answer: str) -> tuple[str, str, str]:
    """A lesson in a model's own words (not the offline rules' frame), with its key."""
    [key] = fp.event_keys("owner_answer", {"question": question})
    return f"A customer asks: {question}", f"Reply with what the owner said: {answer}", key


def _neighbour(question: str, answer: str, relevance: float = 0.3) -> Neighbour:
    situation, correction, key = _owner_lesson(question, answer)
    return Neighbour(
        lesson_id=41, relevance=relevance, identity=0.3, title="t", situation=situation,
        mistake=None, correction=correction, tags=(), fingerprint=key,
    )  # fmt: skip


def _candidate(question: str, answer: str) -> Candidate:
    situation, correction, key = _owner_lesson(question, answer)
    return Candidate(situation=situation, correction=correction, fingerprint=key)


@pytest.mark.parametrize(
    ("asked", "shown"),
    [
        (("Are returns free?", "Yes."), ("Do customers pay for return shipping?", "Since May.")),
        (("Do you deliver on Sundays?", "No."), ("Is Sunday delivery available?", "No.")),
        (("Do you ship to Norway?", "Yes."), ("Do you ship to Finland?", "Yes.")),
        (("Student discount?", "Yes, 15%."), ("Senior discount?", "Yes, 10%.")),
        # no term in common, one concept: the hours something can be collected
        (
            ("Until what time can I collect my order?", "Until 6pm."),
            ("What are the click-and-collect hours now?", "We changed it: until 8pm."),
        ),
    ],
)
def test_an_owner_question_on_the_same_subject_goes_to_the_judge_however_unlike_its_words(
    asked: tuple[str, str], shown: tuple[str, str]
) -> None:
    same_subject = asked[0] not in ("Do you ship to Norway?", "Student discount?")
    assert for_the_judge(_candidate(*asked), _neighbour(*shown), 0.5) is same_subject


def test_the_judges_noop_on_a_reworded_question_with_the_same_answer_stands() -> None:
    lesson = _neighbour("Do you deliver on Sundays?", "No, Monday to Saturday only.")
    noop = [{"op": "NOOP", "candidate": 0, "id": 0}]
    same = _candidate("Is Sunday delivery available?", "No, we deliver Monday to Saturday.")
    [op] = resolve(noop, {0: same}, [41], [lesson]).operations
    assert (op.op, op.lesson_id) == ("NOOP", 41)
    # another entity's answer NOOPed into the lesson would lose it: it is added
    other = _candidate("Do you deliver on Saturdays?", "Yes, until noon.")
    [op] = resolve(noop, {0: other}, [41], [lesson]).operations
    assert op.op == "ADD"


def _check(tenant: str, ids: list[int]) -> None:
    """The bank the stream must leave: one lesson per fact, the reversed one superseded."""
    event_of = {event_id: n for n, event_id in enumerate(ids)}
    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
        assert set(session.scalars(select(Event.status).where(Event.id.in_(ids)))) == {"reflected"}
        lessons = list(
            session.scalars(select(Lesson).where(Lesson.agent_id == agent_id).order_by(Lesson.id))
        )
        cites = {
            lesson.id: sorted(
                event_of[e]
                for e in session.scalars(
                    select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == lesson.id)
                )
            )
            for lesson in lessons
        }
        by_events = {tuple(cites[lesson.id]): lesson for lesson in lessons}
        # every fact its own lesson, citing exactly the answers about it
        assert sorted(by_events) == [
            (0, 3, 6), (1,), (2,), (4,), (5,), (7,), (8,), (9,), (10,), (11,), (12,)
        ], cites  # fmt: skip
        sunday = by_events[(0, 3, 6)]
        assert sunday.status == "active" and sunday.support_count == 3
        free, paid = by_events[(1,)], by_events[(8,)]
        assert (free.status, free.superseded_by_id) == ("superseded", paid.id)
        assert paid.status == "active"
        [why] = session.scalars(
            select(LessonHistory.reason).where(
                LessonHistory.lesson_id == free.id, LessonHistory.op == "DELETE"
            )
        )
        assert why is not None and "reversed" in why and "other words" in why
        counter, collection = by_events[(9,)], by_events[(10,)]
        assert (counter.status, counter.superseded_by_id) == ("superseded", collection.id)
        [why] = session.scalars(
            select(LessonHistory.reason).where(
                LessonHistory.lesson_id == counter.id, LessonHistory.op == "DELETE"
            )
        )
        assert why is not None and "narrower or broader" in why and "collect" in why
        for alone in [(2,), (4,), (5,), (7,), (10,), (11,), (12,)]:
            assert by_events[alone].status == "active", alone


def test_owner_facts_by_meaning_in_the_embedded_default(sqlite_env: str, tenant: str) -> None:
    ids = []
    for question, answer in STREAM:
        ids.append(digest.record_answer(tenant, AGENT, question=question, answer=answer))
        drain()
    _check(tenant, ids)


def test_owner_facts_by_meaning_through_a_worker(shared_worker: WorkerProcess, tenant: str) -> None:
    ids = []
    for question, answer in STREAM:
        ids.append(digest.record_answer(tenant, AGENT, question=question, answer=answer))
        assert wait_for_event(ids[-1], DONE)["status"] == "reflected"
    _check(tenant, ids)


#: a fee answered again with another value (no reversal word), and a delivery time given again
#: as a range around the old value (a refinement)
VALUES = [
    ("How much is a late checkout?", "A late checkout until 1 pm costs $20."),
    ("Do you ship to the islands?", "Yes, in 5 days."),
    ("What do you charge for a late checkout?", "Until 1 pm it is $35 per room."),
    ("Do you ship to the islands?", "Yes, in 4 to 6 days."),
]


def _check_values(tenant: str, ids: list[int]) -> None:
    """The first fee superseded by the second, with the figures in its history; the delivery
    time one lesson, UPDATEd, citing both answers."""
    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
        lessons = list(session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)))
        cites = {
            lesson.id: set(
                session.scalars(
                    select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == lesson.id)
                )
            )
            for lesson in lessons
        }
        by_events = {frozenset(cites[lesson.id]): lesson for lesson in lessons}
        assert set(by_events) == {
            frozenset({ids[0]}), frozenset({ids[2]}), frozenset({ids[1], ids[3]})
        }, cites  # fmt: skip
        old, new = by_events[frozenset({ids[0]})], by_events[frozenset({ids[2]})]
        assert (old.status, old.superseded_by_id, new.status) == ("superseded", new.id, "active")
        why = session.scalar(
            select(LessonHistory.reason).where(
                LessonHistory.lesson_id == old.id, LessonHistory.op == "DELETE"
            )
        )
        assert why is not None and "another value" in why and "20" in why and "35" in why
        assert by_events[frozenset({ids[1], ids[3]})].status == "active"


def test_another_value_supersedes_and_a_range_refines_in_the_embedded_default(
    sqlite_env: str, tenant: str
) -> None:
    ids = []
    for question, answer in VALUES:
        ids.append(digest.record_answer(tenant, AGENT, question=question, answer=answer))
        drain()
    _check_values(tenant, ids)


def test_another_value_supersedes_and_a_range_refines_through_a_worker(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    ids = []
    for question, answer in VALUES:
        ids.append(digest.record_answer(tenant, AGENT, question=question, answer=answer))
        assert wait_for_event(ids[-1], DONE)["status"] == "reflected"
    _check_values(tenant, ids)


def test_the_judges_noop_of_a_narrower_question_that_agrees_stands() -> None:
    """ "Is the shop open on Easter Monday?" "No, like on every public holiday, we are closed"
    beside "Are you open on public holidays?" "No, we are closed on public holidays": only one
    side names a thing, the answers agree: the judge's NOOP stands. Two questions each naming
    its own country stay apart (``facts.names_apart``)."""
    noop = [{"op": "NOOP", "candidate": 0, "id": 0}]
    lesson = _neighbour("Are you open on public holidays?", "No, we are closed on public holidays.")
    narrower = _candidate(
        "Is the shop open on Easter Monday?", "No, like on every public holiday, we are closed."
    )
    [op] = resolve(noop, {0: narrower}, [lesson.lesson_id], [lesson]).operations
    assert op.op == "NOOP"
    other = _candidate("Do you ship to Norway?", "Yes.")
    [op] = resolve(
        noop, {0: other}, [41], [_neighbour("Do you ship to Finland?", "Yes.")]
    ).operations
    assert op.op == "ADD"
