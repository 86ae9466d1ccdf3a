"""Paraphrased repeats under a right judge (issue 24, DESIGN §8a): one failure reported in two
languages reaches the judge (no score reads two languages as one error or two), and the
judge's NOOP on one fact restated with its figures in words, or with fewer figures, stands.
Look-alikes still cost no call (one language, other words) or are kept apart (other figures).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from digest import fingerprint as fp
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.reflect.ask import resolve
from digest.reflect.reconcile import fast_path

FLOOR = 0.5
IDENTICAL = 0.95
NOOP_ONE = [{"op": "NOOP", "candidate": 0, "id": 0}]


def _failure(key: str, situation: str, error: str, relevance: float) -> tuple[Candidate, Neighbour]:
    correction = f"Check the rule it states first: it fails with «{error}»."
    candidate = Candidate(situation=situation, correction=correction, fingerprint=key)
    lesson = Neighbour(
        lesson_id=40, relevance=relevance, identity=0.6, title="t", situation=situation,
        mistake=None, correction=correction, tags=(), fingerprint=key,
    )  # fmt: skip
    return candidate, lesson


def _tool(tool: str, error: str, relevance: float = 0.8) -> tuple[Candidate, Neighbour]:
    return _failure(fp.tool_key(tool, error), f"Calling the `{tool}` tool", error, relevance)


def _run(error: str, relevance: float = 0.8) -> tuple[Candidate, Neighbour]:
    return _failure(fp.run_key("failure", error), "A run failed", error, relevance)


@pytest.mark.parametrize(
    ("shown", "asked"),
    [
        pytest.param(
            _tool("book_pitch", "Booking refused: tents are limited to 3 per pitch"),
            _tool("book_pitch", "Reserva rechazada: como máximo 3 tiendas por parcela"),
            id="one-tools-refusal-english-spanish",
        ),
        pytest.param(
            _tool("issue_permit", "Permit denied: the applicant has no fishing licence"),
            _tool("issue_permit", "Vergunning geweigerd: de aanvrager heeft geen visvergunning"),
            id="one-tools-refusal-english-dutch",
        ),
        pytest.param(
            _run("Cannot ship parcel P-77: the customs declaration is missing"),
            _run("Impossible d'expédier le colis P-91 : la déclaration en douane manque"),
            id="a-runs-own-error-english-french",
        ),
    ],
)
def test_one_failure_in_two_languages_above_the_floor_goes_to_the_judge(
    shown: tuple[Candidate, Neighbour], asked: tuple[Candidate, Neighbour]
) -> None:
    """Before, these were free ADDs above the floor (a split the judge never saw): the two
    errors share no word in one language and the static table reads languages apart."""
    candidate, lesson = asked[0], shown[1]
    assert fp.distinct(candidate.fingerprint, lesson.fingerprint)
    assert fast_path(0, candidate, [lesson], floor=FLOOR, identical=IDENTICAL) is None


def test_another_failure_of_the_tool_in_one_language_costs_no_call() -> None:
    """The rule is about two languages: an English stream's distinct errors of one tool stay
    free ADDs (the half-repeats stream pays nothing for it)."""
    _, lesson = _tool("book_pitch", "Booking refused: tents are limited to 3 per pitch")
    candidate, _ = _tool("book_pitch", "Payment token expired for card ending 4242")
    op = fast_path(0, candidate, [lesson], floor=FLOOR, identical=IDENTICAL)
    assert op is not None and (op.op, op.fast) == ("ADD", True)


def _answer(question: str, answer: str) -> tuple[Candidate, Neighbour]:
    [key] = fp.event_keys("owner_answer", {"question": question, "answer": answer})
    situation = f"Asked: {question}"
    correction = f'Answer "{question}" with the owner\'s facts. {answer}'
    candidate = Candidate(situation=situation, correction=correction, fingerprint=key)
    lesson = Neighbour(
        lesson_id=0, relevance=0.7, identity=0.5, title="t", situation=situation,
        mistake=None, correction=correction, tags=(), fingerprint=key,
    )  # fmt: skip
    return candidate, lesson


def _content(said: str, draft: str = "Thanks.") -> tuple[Candidate, Neighbour]:
    key = fp.edit_keys(draft, f"{draft} {said}")[0]
    candidate = Candidate(
        f"Drafting a reply like: {draft}", f"Say «{said}» in replies like this.", fingerprint=key
    )
    lesson = Neighbour(
        lesson_id=0, relevance=0.7, identity=0.5, title="t", situation=candidate.situation,
        mistake=None, correction=candidate.correction, tags=(), fingerprint=key,
    )  # fmt: skip
    return candidate, lesson


@pytest.mark.parametrize(
    ("shown", "asked"),
    [
        pytest.param(
            _answer("Can I rent a canoe for the whole day?", "Yes, day rentals cost 40 euros."),
            _answer("How much is a canoe for a full day?", "A full day afloat is forty euros."),
            id="a-figure-in-words",
        ),
        pytest.param(
            _answer("Is there a lift to the rooms?", "Yes, the lift reaches all 4 floors."),
            _answer("Do you have an elevator?", "Yes, there is an elevator to every floor."),
            id="an-answer-stating-fewer-figures",
        ),
        pytest.param(
            _content("Every frame we sell carries a 2-year guarantee.", "It is on its way."),
            _content("All frames are guaranteed for two years.", "Order 55 left us on the 3rd."),
            id="a-content-rule-figure-in-words-beside-a-drafts-figures",
        ),
    ],
)
def test_the_judges_noop_on_one_fact_whose_figures_are_written_otherwise_stands(
    shown: tuple[Candidate, Neighbour], asked: tuple[Candidate, Neighbour]
) -> None:
    """Before, each was turned into an ADD: the digits differed ("forty" and "40"; a figure
    on one side only; the draft's order number and date beside the rule)."""
    lesson = replace(shown[1], lesson_id=83)
    [op] = resolve(NOOP_ONE, {0: asked[0]}, [83], [lesson]).operations
    assert (op.op, op.lesson_id) == ("NOOP", 83)


@pytest.mark.parametrize(
    ("shown", "asked"),
    [
        pytest.param(
            _answer("How much is a canoe for a day?", "Day rentals cost 40 euros."),
            _answer("How much is a kayak for a day?", "Day rentals cost fifty euros."),
            id="other-figures-in-words",
        ),
        pytest.param(
            _content("Every frame carries a 2-year guarantee."),
            _content("Every lens carries a 3-year guarantee."),
            id="a-content-rule-with-other-figures",
        ),
    ],
)
def test_a_noop_on_other_figures_is_still_an_add(
    shown: tuple[Candidate, Neighbour], asked: tuple[Candidate, Neighbour]
) -> None:
    lesson = replace(shown[1], lesson_id=84)
    [op] = resolve(NOOP_ONE, {0: asked[0]}, [84], [lesson]).operations
    assert op.op == "ADD"


@pytest.mark.parametrize(
    ("shown", "asked"),
    [
        pytest.param(
            _answer("Until when is the pool open?", "The pool closes at 21:00 every day."),
            _answer("Can we swim after dinner?", "Only until 21:00, then the pool is closed."),
            id="an-owners-fact-with-one-figure-asked-otherwise",
        ),
        pytest.param(
            _run("Engineers need 5 days notice: cannot book the boiler check at Oak St 9"),
            _run("Too short notice: engineers require 5 days before a visit (Ash Lane 12)"),
            id="a-runs-own-error-with-one-figure-reworded",
        ),
        pytest.param(
            _tool("reserve_court", "Court bookings open 7 days in advance"),
            _tool("reserve_court", "You cannot reserve a court more than 7 days ahead"),
            id="one-tools-error-with-one-figure-reworded",
        ),
    ],
)
def test_one_figure_restated_about_a_shared_word_goes_to_the_judge(
    shown: tuple[Candidate, Neighbour], asked: tuple[Candidate, Neighbour]
) -> None:
    """Before, each was a free ADD above the floor: the words read too unlike for a score."""
    candidate, lesson = asked[0], shown[1]
    assert fp.distinct(candidate.fingerprint, lesson.fingerprint)
    assert fast_path(0, candidate, [lesson], floor=FLOOR, identical=IDENTICAL) is None


@pytest.mark.parametrize(
    ("shown", "asked"),
    [
        pytest.param(
            _answer("Until when is the pool open?", "The pool closes at 21:00 every day."),
            _answer("Is parking free?", "Yes, parking is free for guests."),
            id="another-fact-without-the-figure",
        ),
        pytest.param(
            _run("Engineers need 5 days notice: cannot book the boiler check at Oak St 9"),
            _run("Invoice 5 was rejected by the customer"),
            id="one-figure-but-no-word-in-common",
        ),
    ],
)
def test_no_shared_figure_and_word_costs_no_call(
    shown: tuple[Candidate, Neighbour], asked: tuple[Candidate, Neighbour]
) -> None:
    candidate, lesson = asked[0], shown[1]
    op = fast_path(0, candidate, [lesson], floor=FLOOR, identical=IDENTICAL)
    assert op is not None and (op.op, op.fast) == ("ADD", True)
