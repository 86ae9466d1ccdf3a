"""digest.model.error_families and the lessons the offline judge writes from them (issue 24
point 4): a real tool error teaches what to do about *that* error, its remedy is the lesson's
title, each distinct error of a run is its own lesson, and the rules' words pass the screen."""

from __future__ import annotations

from typing import Any

import pytest

from digest.lessons.store import Candidate
from digest.model.contracts import parse_reflect_output
from digest.model.error_families import FAMILIES, TOOL_FAILURE, family_of
from digest.model.error_reading import named_argument, state_terms
from digest.model.offline_reflect import judge_event
from digest.reflect.screen import injection_reason, lesson_reason
from digest.text import without_quotes

#: an error as tools word it → its family; English as public tool-using agents' runs record
#: them, then other languages
CLASSIFIED = [
    ("Error: new item 8277474082 is out of stock", "out-of-stock"),
    ("Error: new item 9025753381 not found or available", "out-of-stock"),
    ("Artikel 4471 ist ausverkauft", "out-of-stock"),
    ("Producto agotado", "out-of-stock"),
    ("Gift card gift_card_4911 has insufficient balance", "insufficient-funds"),
    ("Error: insufficient gift card balance to pay for the price difference", "insufficient-funds"),
    ("Error: gift card balance is not enough", "insufficient-funds"),
    ("Solde insuffisant sur la carte cadeau", "insufficient-funds"),
    ("Card ending 4242 was declined", "payment-declined"),
    ("Voucher SPRING20 cannot be combined with the set menu discount", "not-combinable"),
    ("Only one coupon per order can be applied", "not-combinable"),
    ("Gutschein nicht kombinierbar", "not-combinable"),
    ("Passenger count exceeds the limit of 5 per reservation", "limit-exceeded"),
    ("Quantity exceeds the maximum of 10 per customer", "limit-exceeded"),
    ("Member M-301 already holds 5 tools, which is the rental limit", "limit-exceeded"),
    ("Account has hit the monthly cap on transfers", "limit-exceeded"),
    ("Reservation 4OG6T3 is already cancelled", "already-done"),
    ("La reserva ya fue cancelada", "already-done"),
    ("Flight HAT034 is not available on 2024-05-24", "unavailable-date"),
    ("Not enough seats on flight HAT136 for 3 passengers", "unavailable-date"),
    ("No tables available on 2024-06-08 at 20:00 for 6 guests", "unavailable-date"),
    ("Origin and destination must be different airports", "must-differ"),
    ("Error: the new item id should be different from the old item id", "must-differ"),
    ("Cabin class basic_economy does not allow changes", "status-does-not-allow"),
    ("Error: non-pending order cannot be cancelled", "status-does-not-allow"),
    ("Travel insurance cannot be added after booking", "too-late"),
    ("Payment method credit_card_12 not found", "not-found"),
    ("Bestellung 4471 nicht gefunden", "not-found"),
    ("User mia_li_9 has no membership for free bags", "missing-prerequisite"),
    ("Certificate certificate_77 cannot be used to update reservation", "not-eligible"),
    ("Error: international roaming is not included in plan P-BASIC", "not-eligible"),
    ("Error: card 4412 must be frozen before a replacement can be issued", "prerequisite-step"),
    (
        "Error: line L-5550177 has an outstanding balance and cannot be suspended",
        "prerequisite-step",
    ),
    ("Error: mailing address on file is not verified", "prerequisite-step"),
    ("Coupon WELCOME10 has expired", "expired"),
    ("Session token expired, please sign in again", "authentication"),
    ("PermissionError: token lacks scope orders:read", "permission"),
    ("ValidationError: field 'amount' is required", "missing-parameter"),
    ("Error: invalid reason", "out-of-range"),
    ("Error: zip code must be 5 digits", "bad-format"),
    ("Address is outside the delivery area", "delivery-area"),
    ("Date of birth does not match our records", "mismatch"),
    ("409 Conflict: the booking overlaps another one", "conflict"),
    ("field 'amount' is no longer accepted; send 'amount_cents' instead", "requirement-changed"),
    ("Split payment amounts do not sum to the order total", "amounts-do-not-add-up"),
    ("Error: total price is 1203, but paid 833", "amounts-do-not-add-up"),
    ("Journal entry is out of balance: debits 100.00, credits 90.00", "amounts-do-not-add-up"),
    ("La suma de los pagos no coincide con el total", "amounts-do-not-add-up"),
    ("Something odd happened", "tool-failure"),
]


@pytest.mark.parametrize(("error", "family"), CLASSIFIED, ids=[c[0][:40] for c in CLASSIFIED])
def test_an_error_is_read_for_its_family(error: str, family: str) -> None:
    assert family_of(error).name == family


def test_every_family_is_distinct_and_says_its_remedy_in_a_title_sized_clause() -> None:
    names = [family.name for family in (*FAMILIES, TOOL_FAILURE)]
    assert len(names) == len(set(names))
    for family in (*FAMILIES, TOOL_FAILURE):
        for remedy in filter(None, (family.remedy, family.remedy_for)):
            # a title falls back to the correction's first clause: the remedy must be one
            assert 12 <= len(remedy.format(arg="`quantity`")) <= 60, remedy
            assert not any(mark in remedy for mark in ",:;(—–"), remedy


def test_the_rules_own_words_pass_the_screen() -> None:
    """Nothing the judge says in its own words reads as an instruction to the agent."""
    for family in (*FAMILIES, TOOL_FAILURE):
        for text in filter(None, (family.remedy, family.remedy_for, family.when, family.advice)):
            assert injection_reason(text.format(arg="`quantity`")) is None, text


def test_the_argument_named_is_one_the_call_passed() -> None:
    args = {"order_id": "#W1", "quantity": 50, "reason": "x"}
    assert named_argument("Quantity exceeds the limit of 10", args) == "quantity"
    assert named_argument("Error: invalid 'reason'", args) == "reason"
    assert named_argument("field 'coupon_code' is required", args) is None  # not passed
    assert named_argument("quantity too high", None) is None


# --- the lessons written from them --------------------------------------------------------------


def _run(task: str, *calls: tuple[str, str], **payload: Any) -> dict[str, Any]:
    tool_calls = [
        {"tool": tool, "args": {"order_id": "#W1", "quantity": 2}, "ok": False, "error": error}
        for tool, error in calls
    ]
    return {
        "id": 1,
        "kind": "run_outcome",
        "trust": "low",
        "payload": {"task": task, "outcome": "failure", "tool_calls": tool_calls, **payload},
    }


def _candidates(event: dict[str, Any]) -> list[Candidate]:
    parsed = parse_reflect_output(judge_event(event))
    assert isinstance(parsed, list), parsed
    return [Candidate.of(block).normalised() for block in parsed]


#: error → the lesson's title (the correction's first sentence, ``Candidate.normalised``)
TITLES = [
    (
        ("place_order", "Error: item 8277 out of stock"),
        "Check stock first: `place_order` fails with «item ‹id› out of stock»",
    ),
    (
        ("book_reservation", "Gift card gift_card_4911 has insufficient balance"),
        "Check the balance first: `book_reservation` fails with «insufficient balance»",
    ),
    (
        ("apply_coupon", "Coupon SAVE10 cannot be combined with other offers"),
        "Check that offers combine first: `apply_coupon` fails with «cannot be combined»",
    ),
    (
        ("place_order", "Quantity exceeds the limit of 5 per order"),
        "Keep `quantity` within the limit: `place_order` fails with «exceeds the limit of 5»",
    ),
    (
        ("cancel_order", "Order #W77 is already cancelled"),
        "Check whether it is already done: `cancel_order` fails with «is already cancelled»",
    ),
    (
        ("get_order", "Error: order not found"),
        "Look up the id instead of guessing: `get_order` fails with «order not found»",
    ),
]


@pytest.mark.parametrize(("call", "title"), TITLES, ids=[t[0][1][:30] for t in TITLES])
def test_the_title_is_the_remedy_for_that_error(call: tuple[str, str], title: str) -> None:
    [lesson] = _candidates(_run("I want to buy two lamps", call))
    assert lesson.title == title
    assert family_of(call[1]).name in lesson.tags


def test_a_run_that_failed_in_several_ways_teaches_each_not_only_the_first() -> None:
    event = _run(
        "Hi! Please exchange the hiking boots from my last order for a size 10.",
        ("get_order_details", "Error: order not found"),
        ("exchange_items", "Error: new item 8277474082 is out of stock"),
        ("exchange_items", "Error: new item 1151293680 is out of stock"),  # other ids: the same
        ("exchange_items", "Error: insufficient gift card balance to pay for the difference"),
        ("exchange_items", "upstream timeout after 30s"),  # transient: no lesson
    )
    lessons = _candidates(event)
    assert [next(t for t in c.tags if t != "tool-error" and "-" in t) for c in lessons] == [
        "not-found",
        "out-of-stock",
        "insufficient-funds",
    ]


def test_an_item_unavailable_is_a_precondition_not_an_outage() -> None:
    [lesson] = _candidates(_run("buy a lamp", ("place_order", "Item 42 is unavailable")))
    assert "out-of-stock" in lesson.tags
    assert judge_event(_run("buy a lamp", ("place_order", "503 Service Unavailable"))).startswith(
        "<skip>"
    )


def test_the_task_is_not_in_the_lesson() -> None:
    """The user's words are not the judge's to keep: not in the situation, mistake, correction
    or tags (the pipeline keeps their telling words as cues: tests/lessons/test_cues.py)."""
    task = "Hi, I'm Yusuf Rossi. I want to return the espresso machine from order #W2378156."
    error = "Error: non-delivered order cannot be returned"
    [lesson] = _candidates(_run(task, ("return_items", error)))
    assert lesson.tags == ("return_items", "tool-error", "status-does-not-allow")
    for text in (lesson.situation, lesson.correction, lesson.mistake or "", lesson.title or ""):
        assert "espresso" not in text.lower() and "Yusuf" not in text


def test_a_run_error_without_a_tool_teaches_its_family_too() -> None:
    event = _run("Book a table for 6 tonight", error="No tables available on 2024-06-08")
    [lesson] = _candidates(event)
    assert lesson.title is not None and lesson.title.startswith("Check availability first")
    assert "unavailable-date" in lesson.tags and "failure" in lesson.tags


def test_every_lesson_of_the_tuned_runs_passes_the_screen_as_offline_rules_wrote_it() -> None:
    """What the screen sees of an offline lesson: its own words and its tags (the task's)."""
    event = _run(
        "Could you cancel my order and refund the card? I also want to send the invoice.",
        *((f"tool_{i}", error) for i, (error, _family) in enumerate(CLASSIFIED[:-1])),
    )
    tools = frozenset(f"tool_{i}" for i in range(len(CLASSIFIED)))
    for lesson in _candidates(event):
        assert lesson_reason(lesson, tools, quotes_screened=True) is None, lesson
        assert "«" not in without_quotes(lesson.correction)


def test_what_an_error_says_of_a_failed_state_is_read_as_concepts() -> None:
    """Two wordings of one state say one concept ("out of stock", "insufficient inventory");
    a status code is not what the state is; two states of one family say nothing alike."""
    assert state_terms("item ‹id› is out of stock", "out-of-stock") & state_terms(
        "insufficient inventory for ‹id›", "out-of-stock"
    ) == {"stock"}
    assert state_terms("401: bearer tokens are no longer accepted", "authentication") == set()
    seats = state_terms("not enough seats on flight ‹id›", "unavailable-date")
    date = state_terms("flight ‹id› is not available on that date", "unavailable-date")
    assert seats and date is not None and not seats & date
    assert state_terms("order ‹id› not found", "out-of-stock") is None
