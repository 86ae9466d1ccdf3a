"""A judge's UPDATE that reverses a lesson is a DELETE by another name (``digest.reflect.ask.
update_reverses``); an untrusted UPDATE that only rewords a lesson agents read is its support
(``digest.reflect.operations.adds_to``); an answer that says only that something changed, in
the screened languages (``digest.reversal.says_only_a_change``). Pure functions: no services."""

from __future__ import annotations

from dataclasses import replace

import pytest

from digest import fingerprint as fp
from digest.facts import opens_with_bare_reversal
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.models import Lesson
from digest.reflect.ask import resolve
from digest.reflect.operations import adds_to
from digest.reflect.reversing_update import update_reverses
from digest.reversal import says_only_a_change


def _neighbour(situation: str, correction: str, fingerprint: str | None) -> Neighbour:
    return Neighbour(
        lesson_id=7, relevance=0.7, identity=0.6, title="t", situation=situation, mistake=None,
        correction=correction, tags=(), fingerprint=fingerprint,
    )  # fmt: skip


def _answer(question: str, answer: str) -> tuple[str, str, str]:
    (key,) = fp.event_keys("owner_answer", {"question": question})
    return f"Asked: {question}", answer, key


def _update(candidate: Candidate, lesson: Neighbour, reason: str = "") -> str:
    item = {"op": "UPDATE", "candidate": 0, "id": 0, "lesson": {
        "situation": candidate.situation, "correction": candidate.correction}}  # fmt: skip
    if reason:
        item["reason"] = reason
    (op,) = resolve([item], {0: candidate}, [lesson.lesson_id], [lesson]).operations
    return op.op


REVERSALS = [
    # an owner's yes, then a no to the same fact asked in other words (no reason given)
    (
        _answer("Kann man bei Ihnen bar bezahlen?", "Ja, an der Kasse."),
        _answer("Nehmen Sie noch Bargeld an?", "Nein, seit März nur noch Karte."),
    ),
    # "not any more" alone, in French, to a yes
    (
        _answer("Acceptez-vous les chèques ?", "Oui, sans minimum."),
        _answer("Puis-je régler par chèque ?", "Plus maintenant : uniquement carte ou espèces."),
    ),
    # another value for the same question
    (
        _answer("How much is the deposit?", "The deposit is 50 EUR."),
        _answer("How much is the deposit?", "The deposit is 80 EUR."),
    ),
]


@pytest.mark.parametrize(("old", "new"), REVERSALS)
def test_an_update_reversing_an_owner_fact_is_a_delete(
    old: tuple[str, str, str], new: tuple[str, str, str]
) -> None:
    lesson = _neighbour(*old)
    candidate = Candidate(situation=new[0], correction=new[1], fingerprint=new[2])
    assert update_reverses(candidate, lesson, "")
    assert _update(candidate, lesson) == "DELETE"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a yes and a no that say one thing, to two questions
        (
            _answer("Finns det en åldersgräns för att hyra kajak?", "Ja, minst 16 år."),
            _answer(
                "Min son är 14, får han hyra en kajak själv?",
                "Nej, åldersgränsen är 16 år, så med 14 år går det inte.",
            ),
        ),
        (
            _answer("Are you open on public holidays?", "No, we are closed on public holidays."),
            _answer("Do you open on bank holidays?", "We are closed on public holidays."),
        ),
    ],
)
def test_an_update_joining_two_questions_that_agree_stays_an_update(
    old: tuple[str, str, str], new: tuple[str, str, str]
) -> None:
    candidate = Candidate(situation=new[0], correction=new[1], fingerprint=new[2])
    assert _update(candidate, _neighbour(*old)) == "UPDATE"


def test_an_update_that_adds_to_an_owner_fact_stays_an_update() -> None:
    lesson = _neighbour(*_answer("Do you fly from Oslo?", "Yes, from Oslo."))
    candidate = Candidate(
        situation="Asked: Do you fly from Oslo?",
        correction="Yes, from Oslo, and since March from Bergen too.",
        fingerprint=_answer("Do you fly from Oslo?", "")[2],
    )
    assert not update_reverses(candidate, lesson, "adds Bergen")
    assert _update(candidate, lesson, "adds Bergen") == "UPDATE"


def test_a_tool_limit_that_changed_is_a_reversal_and_a_reworded_remedy_is_not() -> None:
    key = "tool:e1592fd2-4cbf577137e13a4c"
    lesson = _neighbour(
        "`reserve_tickets` fails with: «Error: no more than 6 tickets per customer»",
        "Reserve at most 6 tickets per customer", key,
    )  # fmt: skip
    changed = Candidate(
        situation="`reserve_tickets` fails with: «Error: no more than 8 tickets per customer»",
        correction="Reserve at most 8 tickets per customer", fingerprint=key + "0",
    )  # fmt: skip
    reworded = Candidate(
        situation="`reserve_tickets` fails with: «Error: no more than 6 tickets per customer»",
        correction="Never reserve more than 6 tickets for one customer", fingerprint=key,
    )  # fmt: skip
    assert _update(changed, lesson) == "DELETE"
    assert _update(reworded, lesson, "the same limit in other words") == "UPDATE"
    one_bag = Candidate(situation="`add_bags` fails", correction="at most 1 bag per passenger")
    two_bags = _neighbour("`add_bags` fails", "at most 2 bags per passenger", key)
    assert _update(replace(one_bag, fingerprint=key + "1"), two_bags) == "DELETE"


def test_two_plans_limits_are_instances_of_one_rule_not_a_reversal() -> None:
    key = "tool:aa11bb22-0000000000000001"
    lesson = _neighbour(
        "`change_plan` fails with: «exceed the team plan's limit of 10»",
        "Stay within the limit: the team plan's limit of 10 seats", key,
    )  # fmt: skip
    other_plan = Candidate(
        situation="`change_plan` fails with: «exceed the starter plan's limit of 5»",
        correction="Stay within the limit: the starter plan's limit of 5 seats",
        fingerprint="tool:aa11bb22-0000000000000002",
    )
    assert _update(other_plan, lesson, "the same cap") == "UPDATE"


def test_an_operator_rule_now_negated_is_a_reversal() -> None:
    key = "edit:ed7002b4-c5222ecc2415d855"
    lesson = _neighbour(
        "Drafting a reply like: Your order ships.", "Say shipping is free over 50 EUR", key
    )
    candidate = Candidate(
        situation="Drafting a reply like: Shipping is free on orders over 50 EUR.",
        correction="Do not promise free shipping over 50 EUR", fingerprint=key[:-1] + "0",
    )  # fmt: skip
    assert _update(candidate, lesson) == "DELETE"


@pytest.mark.parametrize(
    "reason", ["contradicts the old rule", "the requirement changed", "reversed by the owner"]
)
def test_a_reason_naming_a_reversal_makes_the_update_a_delete(reason: str) -> None:
    lesson = _neighbour("Customer asks about delivery", "Quote the shipping table.", None)
    candidate = Candidate(situation="Customer asks about delivery", correction="Quote the table.")
    assert _update(candidate, lesson, reason) == "DELETE"
    for reason in ("the wording changed", "nothing changed, adds detail", "has not changed"):
        assert _update(candidate, lesson, reason) == "UPDATE"


@pytest.mark.parametrize(
    ("answer", "bare"),
    [
        ("Nicht mehr, nur Karte.", True),
        ("Nein, nicht mehr.", True),
        ("Plus maintenant : carte.", True),
        ("Non più, solo carta.", True),
        ("Niet meer, alleen pin.", True),
        ("Já não: só cartão.", True),
        ("Inte längre, bara kort.", True),
        ("Już nie, tylko karta.", True),
        ("Ya no: solo tarjeta.", True),
        ("No longer.", True),
        # a figure or a thing named says what changed; a plain no changes nothing
        ("Yes, we now open at 8.", False),
        ("No, the deposit is no longer required.", False),
        ("No.", False),
        ("Yes, from Oslo.", False),
    ],
)
def test_an_answer_that_says_only_a_change(answer: str, bare: bool) -> None:
    assert opens_with_bare_reversal(answer) is bare


def test_says_only_a_change_needs_a_change() -> None:
    assert says_only_a_change("plus depuis")
    assert not says_only_a_change("plus maintenant que jamais")
    assert not says_only_a_change("we open at eight")


def _lesson(correction: str) -> Lesson:
    return Lesson(
        situation="`dispense` fails with: «Artikel 4711 nicht vorrätig»", correction=correction,
        title="t",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("merged", "adds"),
    [
        ("Check the stock of the item before dispensing it", False),
        ("Check stock before dispensing: order #W88123 was out", False),  # an id is an instance
        ("Check stock before dispensing, and never more than 2 packs", True),
        ("Check stock with 'stock_level' before dispensing", True),
        ("Do not check stock before dispensing", True),
        ("Check stock before dispensing: the endpoint is deprecated, use v2", True),
    ],
)
def test_an_untrusted_update_adds_only_a_figure_a_name_a_negation_or_a_change(
    merged: str, adds: bool
) -> None:
    target = _lesson("Check stock before dispensing")
    assert adds_to(target, Candidate(situation=target.situation, correction=merged)) is adds


@pytest.mark.parametrize("second", ["DELETE", "NOOP"])
def test_an_add_beside_an_operation_on_a_lesson_yields_to_it(second: str) -> None:
    """Mem0's answer shape: the new memory "ADD"ed and the old one "DELETE"d as two items of
    one candidate. The operation on the lesson stands (a DELETE adds the candidate too); an ADD
    after it is a second operation, dropped."""
    lesson = _neighbour("Customer asks about delivery", "Quote the shipping table.", None)
    candidate = Candidate(situation="Customer asks about delivery", correction="Quote the table.")
    on_lesson = {"op": second, "candidate": 0, "id": 0, "reason": "contradicted"}
    add = {"op": "ADD", "candidate": 0}
    for raw in ([add, on_lesson], [on_lesson, add]):
        plan = resolve(raw, {0: candidate}, [lesson.lesson_id], [lesson])
        (op,) = plan.operations
        assert (op.op, op.lesson_id) == (second, lesson.lesson_id)
        assert len(plan.dropped) == 1


def test_two_deletes_for_one_candidate_supersede_both_lessons() -> None:
    """One change that reverses two lessons: the judge names both; each is superseded by the
    one new lesson (the second a DELETE of ``Plan.also_retired``), not the second dropped. A
    third naming a lesson already named, or none shown, is dropped."""
    first = _neighbour("Customer asks about Saturday", "We open on Saturdays.", None)
    second = replace(first, lesson_id=8, situation="Customer asks about Sunday",
                     correction="We open on Sundays.")  # fmt: skip
    candidate = Candidate(
        situation="Customer asks about weekends", correction="Closed at weekends."
    )
    raw = [
        {"op": "DELETE", "candidate": 0, "id": 0, "reason": "weekends closed now"},
        {"op": "DELETE", "candidate": 0, "id": 1, "reason": "weekends closed now"},
        {"op": "DELETE", "candidate": 0, "id": 1},
        {"op": "DELETE", "candidate": 0, "id": 5},
    ]
    plan = resolve(raw, {0: candidate}, [7, 8], [first, second])
    (op,) = plan.operations
    assert (op.op, op.lesson_id) == ("DELETE", 7)
    assert [(o.op, o.candidate, o.lesson_id) for o in plan.also_retired] == [("DELETE", 0, 8)]
    assert len(plan.dropped) == 2
