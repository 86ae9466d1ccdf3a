"""Paraphrased repeats are one lesson by meaning; look-alikes that are two things stay apart
(issue 24, DESIGN §8a): ``digest.identity.meaning``, the judge's ``reads_like`` evidence
(``digest.reflect.reconcile.meaning_of``, ``digest.reflect.ask.prompt_blocks``), the offline
judge's answer to it, and one stream through the one reflect core.

The texts here are written for these tests, in domains the benchmark's cases do not use.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from sqlalchemy import select

import digest
from digest import fingerprint as fp
from digest.db import session_scope
from digest.figures import figures, figures_apart
from digest.identity.gloss import gloss
from digest.identity.meaning import READS_ALIKE, REST_ALIKE, failure_unread, likeness, reads_like
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.model.offline_reconcile import reconcile
from digest.models import Event, Lesson, LessonEvidence
from digest.pipeline import drain
from digest.reflect.ask import prompt_blocks
from digest.reflect.reconcile import for_the_judge, meaning_of
from digest.reflect.unread import refigures_a_rule
from digest.tenants import find_agent
from digest.text import observed
from tests.conftest import WorkerProcess, wait_for_event

DONE = {"reflected", "skipped", "failed", "dead"}


def test_figures_are_read_in_digits_and_in_words() -> None:
    assert figures("a 4-week notice") == figures("four weeks' notice") == {"4"}
    assert figures("vier Wochen, 2,5 kg") == {"4", "2.5"}
    # a pronoun is no figure, nor a word of another language spelled like one
    assert figures("one of them is due to arrive once") == frozenset()
    assert figures_apart("at most 12 guests", "at least 16 years old")
    assert not figures_apart("within 30 days", "within 30 days, 2 items")


def test_the_common_words_of_errors_in_other_languages_read_as_english() -> None:
    assert gloss("Zahlung abgelehnt: Karte abgelaufen") == "payment rejected: card expired"
    # a Scandinavian noun's definite form is read as the noun; function words drop out
    assert gloss("Betalningen avvisad: kortet har utgått").split() == [
        "payment", "rejected:", "card", "expired"
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # one error, two services' wordings
        (
            "Permit ‹id› is not valid in the harbour zone",
            "No valid permit for the harbour zone (permit ‹id›)",
        ),
        # one error in English and in Swedish
        (
            "Payment rejected: card expired",
            "Betalning avvisad: kortet har utgått",
        ),
        # one fact, two owners' words, a figure once in digits and once in words
        (
            "Yes, the museum lends wheelchairs for free at the entrance for up to 4 hours.",
            "Visitors can borrow a wheelchair at the entrance at no cost, for four hours at most.",
        ),
    ],
)
def test_one_thing_in_other_words_reads_alike(a: str, b: str) -> None:
    assert reads_like(a, b) >= READS_ALIKE


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        # one frame around two errors: what each says alone does not align
        (
            "Export of report ‹id› failed: the report exceeds 10000 rows",
            "Export of report ‹id› failed: the format is not supported",
            "rest",
        ),
        # two things of one kind in one frame
        ("Are guide dogs allowed in the museum?", "Are guide cats allowed in the museum?", "swap"),
        # two bounds: each states a figure the other does not
        ("Group of ‹id› exceeds the maximum of 25", "Group of ‹id› below the minimum of 8", "fig"),
        # two places
        ("The Lisbon office opens at 9", "The Porto office opens at 9", "names"),
    ],
)
def test_look_alikes_that_are_two_things_read_apart(a: str, b: str, why: str) -> None:
    found = likeness(a, b)
    assert found.score() == 0.0
    assert {
        "rest": found.rest is not None and found.rest < REST_ALIKE,
        "swap": found.swap,
        "fig": found.figures_apart,
        "names": found.names_apart,
    }[why]


def _error_lesson(tool: str | None, error: str) -> tuple[str, str, str]:
    """A run's lesson in a model's words quoting what it observed, with its key."""
    if tool is None:
        key = fp.run_key("failure", error)
        return (
            "Working on a task",
            f"Check before finishing. Observed: the run failed with «{error}».",
            key,
        )
    key = fp.tool_key(tool, error)
    return (
        f"Calling the `{tool}` tool",
        f"Fix the call. Observed: `{tool}` failed with «{error}».",
        key,
    )


def _neighbour(situation: str, correction: str, key: str, relevance: float = 0.3) -> Neighbour:
    return Neighbour(
        lesson_id=41, relevance=relevance, identity=0.2, title="t", situation=situation,
        mistake=None, correction=correction, tags=(), fingerprint=key,
    )  # fmt: skip


def _candidate(situation: str, correction: str, key: str) -> Candidate:
    return Candidate(situation=situation, correction=correction, fingerprint=key)


#: a run's own error (no tool) in two wordings, and a look-alike that is another error
SEAT = "Seat ‹id› could not be reserved: the seat is already taken by another passenger"
SEAT_AGAIN = "Reservation of seat ‹id› refused - that seat has been booked by someone else"
SEAT_OTHER = "Seat ‹id› could not be reserved: the fare class does not allow seat selection"


def test_a_runs_error_in_other_words_goes_to_the_judge_with_its_reading() -> None:
    old = _neighbour(*_error_lesson(None, SEAT))
    again = _candidate(*_error_lesson(None, SEAT_AGAIN))
    other = _candidate(*_error_lesson(None, SEAT_OTHER))
    assert meaning_of(again, old) >= READS_ALIKE
    assert for_the_judge(again, old, 0.5)
    assert meaning_of(other, old) < READS_ALIKE
    assert not for_the_judge(other, old, 0.5)
    # the judge is shown the reading on the lesson, for the candidate it concerns only
    existing, _, _ = prompt_blocks({0: other, 1: again}, [old])
    [shown] = json.loads(existing)
    assert set(shown["reads_like"]) == {"1"} and shown["reads_like"]["1"] >= READS_ALIKE


def test_a_lesson_of_the_candidates_own_key_or_another_tool_has_no_reading() -> None:
    old = _neighbour(*_error_lesson("reserve_seat", SEAT))
    assert meaning_of(_candidate(*_error_lesson("reserve_seat", SEAT)), old) == 0.0
    assert meaning_of(_candidate(*_error_lesson("book_hotel", SEAT_AGAIN)), old) == 0.0
    assert meaning_of(_candidate(*_error_lesson("reserve_seat", SEAT_AGAIN)), old) >= READS_ALIKE


def _item(i: int, situation: str, correction: str, key: str, **extra: object) -> dict[str, object]:
    return {"id": i, "situation": situation, "correction": correction, "mistake": None,
            "tags": [], "fingerprint": key, **extra}  # fmt: skip


def test_the_offline_judge_joins_a_lesson_the_request_says_the_candidate_reads_like() -> None:
    """One lesson, kept in its first wording: the candidate is its support (NOOP)."""
    old = _item(2, *_error_lesson("reserve_seat", SEAT), reads_like={"0": 0.8})
    candidate = _item(0, *_error_lesson("reserve_seat", SEAT_AGAIN))
    candidate["candidate"] = candidate.pop("id")
    [op] = json.loads(reconcile([old], [candidate]))["operations"]
    assert (op["op"], op["id"]) == ("NOOP", 2) and "other words" in op["reason"]
    # without the reading, another error of the tool is another lesson
    old.pop("reads_like")
    [op] = json.loads(reconcile([old], [candidate]))["operations"]
    assert op["op"] == "ADD"


def test_a_candidate_that_states_a_change_is_not_joined_by_its_reading() -> None:
    changed = "Seat ‹id› could not be reserved: seats are no longer reserved by phone"
    old = _item(2, *_error_lesson(None, SEAT), reads_like={"0": 0.8})
    candidate = _item(0, *_error_lesson(None, changed))
    candidate["candidate"] = candidate.pop("id")
    [op] = json.loads(reconcile([old], [candidate]))["operations"]
    assert op["op"] not in ("UPDATE", "NOOP")


AGENT = "museum-desk"


def _permit(plate: str, error: str) -> tuple[str, dict[str, object]]:
    call = {"tool": "issue_permit", "args": {"plate": plate}, "ok": False, "error": error}
    return "run_outcome", {
        "task": f"Permit for {plate}",
        "outcome": "failure",
        "tool_calls": [call],
    }


def _asked(question: str, answer: str) -> tuple[str, dict[str, object]]:
    return "owner_answer", {"question": question, "answer": answer}


#: (kind, payload) in order; the lessons the bank must hold, as sets of these indexes
STREAM = [
    _permit("KX-221", "Vehicle KX-221 is not registered to the resident"),
    _permit("PL-904", "No resident registration found for vehicle PL-904"),
    _permit("TR-77", "Vehicle TR-77 weighs 7.5 t, above the 3.5 t limit"),
    _asked(
        "Can visitors borrow a wheelchair?",
        "Yes, wheelchairs are lent for free at the entrance for up to 4 hours.",
    ),
    _asked(
        "Is there mobility help for guests who cannot walk far?",
        "We lend wheelchairs at the entrance at no cost, for four hours at most.",
    ),
    _asked(
        "Can visitors borrow a stroller?",
        "Yes, strollers are lent for free at the entrance for up to 2 hours.",
    ),
]
EXPECTED = [(0, 1), (2,), (3, 4), (5,)]


def _check(tenant: str, ids: list[int]) -> None:
    """One lesson per thing said, citing exactly the events that said it."""
    event_of = {event_id: n for n, event_id in enumerate(ids)}
    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
        assert set(session.scalars(select(Event.status).where(Event.id.in_(ids)))) == {"reflected"}
        lessons = session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)).all()
        cites = sorted(
            tuple(sorted(event_of[e] for e in session.scalars(
                select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == lesson.id)
            )))
            for lesson in lessons
        )  # fmt: skip
        assert cites == EXPECTED
        assert {lesson.status for lesson in lessons} == {"active"}


_RECORD = {"run_outcome": digest.record_run, "owner_answer": digest.record_answer}


def test_paraphrased_repeats_are_one_lesson_in_the_embedded_default(
    sqlite_env: str, tenant: str
) -> None:
    ids = []
    for kind, payload in STREAM:
        ids.append(_RECORD[kind](tenant, AGENT, **payload))
        drain()
    _check(tenant, ids)


def test_paraphrased_repeats_are_one_lesson_through_a_worker(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    ids = []
    for kind, payload in STREAM:
        ids.append(_RECORD[kind](tenant, AGENT, **payload))
        assert wait_for_event(ids[-1], DONE)["status"] == "reflected"
    _check(tenant, ids)


def _content(i: int, context: str, said: str) -> dict[str, object]:
    key = fp.edit_keys("Thanks for writing.", f"Thanks for writing. {said}")[0]
    return {"id": i, "situation": f"Drafting a reply: {context}", "mistake": None,
            "tags": ["operator-edit", "content"], "fingerprint": key,
            "correction": f"Say «{said}» in replies like this."}  # fmt: skip


def _as_neighbour(item: dict[str, object]) -> Neighbour:
    return Neighbour(
        lesson_id=41, relevance=0.3, identity=0.2, title="t", situation=str(item["situation"]),
        mistake=None, correction=str(item["correction"]), tags=("operator-edit", "content"),
        fingerprint=str(item["fingerprint"]),
    )  # fmt: skip


def _as_candidate(item: dict[str, object]) -> Candidate:
    return Candidate(
        situation=str(item["situation"]), correction=str(item["correction"]),
        tags=("operator-edit", "content"), fingerprint=str(item["fingerprint"]),
    )  # fmt: skip


def test_two_operators_rules_read_alike_only_when_they_say_nearly_one_thing() -> None:
    lesson = _content(1, "a guest asks if the bike rental includes a helmet",
                      "Every rental bike comes with a free helmet")  # fmt: skip
    again = _content(2, "a guest asks whether helmets are provided with the bikes",
                     "A helmet is included at no cost with each bike we rent out")  # fmt: skip
    assert meaning_of(_as_candidate(again), _as_neighbour(lesson)) >= READS_ALIKE
    # two facts of one business that share a figure and a word read half alike: two rules
    kept = _content(
        4,
        "a guest asks how long a bike is kept at the station",
        "Rental bikes are kept at the station for 7 days before they are returned to the depot",
    )
    paid = _content(
        5,
        "a guest asks when the refund for a returned rental arrives",
        "Refunds for returned rentals are issued within 7 days of receipt",
    )
    assert reads_like(observed(str(kept["correction"])), observed(str(paid["correction"]))) > 0
    assert meaning_of(_as_candidate(paid), _as_neighbour(kept)) == 0.0


def test_an_owners_restated_fact_asked_for_now_with_other_figures_supersedes() -> None:
    """One fact in other words that, asked how things stand now, gives other figures is a
    reversal: the judge supersedes it (DELETE), it does not merge it (UPDATE)."""
    key = fp.event_keys("owner_answer", {"question": "When does the ferry leave?"})[0]
    said = 'Answer "When does the ferry leave?" with the owner\'s facts. '
    old = {
        "id": 5,
        "situation": "Asked: When does the ferry leave?",
        "mistake": None,
        "tags": [],
        "fingerprint": key,
        "reads_like": {"0": 0.7},
        "correction": said + "The morning ferry to the island leaves the harbour at 8:15.",
    }
    question = "What time is the morning boat to the island now?"
    new = {"candidate": 0, "situation": f"Asked: {question}", "mistake": None, "tags": [],
           "fingerprint": fp.event_keys("owner_answer", {"question": question})[0],
           "correction": f'Answer "{question}" with the owner\'s facts. The morning ferry '
           "to the island now leaves the harbour at 9:05."}  # fmt: skip
    [op] = json.loads(reconcile([old], [new]))["operations"]
    assert (op["op"], op["id"]) == ("DELETE", 5) and "reversed" in op["reason"]


def test_two_validation_errors_of_one_tool_on_other_fields_read_apart() -> None:
    """A field an error labels is what it is about: one frame around two fields is two
    errors, whatever the table reads of the frame."""
    from digest.identity import meaning

    missing = "‹id› validation error for CreateTicket: requester: Field required (type=missing)"
    value = "‹id› validation error for CreateTicket: priority: Input should be 'low' or 'high'"
    assert meaning.reads_like(missing, value) < READS_ALIKE
    assert meaning.named(missing) == {"requester"}
    again = "‹id› validation error for CreateTicket: requester: field is required"
    assert "requester" in meaning.named(again) and not meaning.likeness(missing, again).names_apart


def test_a_content_rule_giving_another_figure_for_what_a_rule_says_goes_to_the_judge() -> None:
    """An operator's later edit that gives another figure for what a content rule says may
    reverse it (the tour now leaves at 10:30): the judge reads the pair, above the floor or
    below it. Rules sharing no word but their frame, or giving the same figures, are not
    asked about for that."""
    lesson = _content(1, "a guest books the boat tour", "The boat tour leaves the pier at 9:00")
    moved = _content(2, "a guest asks when to come", "From May the boat tour only leaves at 10:30")
    other = _content(3, "a guest asks about lunch", "Lunch is served on deck from 12:00 to 14:00")
    same = _content(4, "a guest asks when to come", "Our boat tour leaves the pier at 9:00 sharp")
    assert fp.same_subject(str(moved["fingerprint"]), str(lesson["fingerprint"]))
    for relevance in (0.3, 0.95):
        old = replace(_as_neighbour(lesson), relevance=relevance)
        assert for_the_judge(_as_candidate(moved), old, 0.5)
    assert not refigures_a_rule(_as_candidate(other), _as_neighbour(lesson))
    assert not refigures_a_rule(_as_candidate(same), _as_neighbour(lesson))


def test_two_errors_in_a_language_the_table_barely_reads_have_no_reading(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Two errors of one tool both in a language the gloss barely knows: the table reads the
    pieces of their words, whose cosine runs half alike whatever the errors say, so no reading
    is given (even where the cosine would be high); across English, cognates' pieces do carry
    meaning and the reading stands."""
    full = "Fout: het magazijn van Zwolle is vol op 2025-05-02"
    open_check = "Fout: aanhanger ‹id› heeft een openstaande keuring; handel eerst de keuring af"
    assert failure_unread(full, open_check)
    spanish = "Reserva rechazada: se requiere el certificado de vacunación del perro"
    english = "Booking refused: a dog vaccination certificate is required"
    monkeypatch.setattr("digest.identity.meaning.reads_like", lambda a, b: 0.9)
    old = _neighbour(*_error_lesson("plan_transport", full))
    assert meaning_of(_candidate(*_error_lesson("plan_transport", open_check)), old) == 0.0
    old = _neighbour(*_error_lesson("book_ferry", spanish))
    assert meaning_of(_candidate(*_error_lesson("book_ferry", english)), old) == 0.9
    # one language the table reads: no pieces to discount
    assert not failure_unread(
        "Order ‹id› refused: the warehouse is full on that date",
        "Order ‹id› refused: the trailer has an open inspection",
    )
