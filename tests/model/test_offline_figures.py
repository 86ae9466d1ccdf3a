"""``offline/rules`` reconciling two errors of one tool that differ in a kept figure
(``digest.model.offline_figures``, issue 24): a changed cap supersedes, another item's cap
and another status are other lessons, one cap in other words is one lesson."""

from __future__ import annotations

from tests.model.run_lessons import reconciled, run_lesson

_lesson, _op = run_lesson, reconciled


def test_a_cap_that_changed_supersedes_the_old_one() -> None:
    old = _lesson(1, "reserve", {"customer": 4412, "qty": 9}, "Error: no more than 6 per customer")
    new = _lesson(2, "reserve", {"customer": 98, "qty": 10}, "Error: no more than 8 per customer")
    op = _op(old, new)
    assert (op["op"], op["id"]) == ("DELETE", 1)
    assert "8" in op["reason"] and "6" in op["reason"]


def test_another_items_cap_is_another_lesson() -> None:
    error = "Error: quantity exceeds the limit of {} for this product"
    old = _lesson(1, "add_to_cart", {"sku": "GPU-4090", "qty": 4}, error.format(2))
    new = _lesson(2, "add_to_cart", {"sku": "CBL-HDMI2", "qty": 25}, error.format(10))
    assert _op(old, new)["op"] == "ADD"


def test_a_cap_set_for_another_event_or_policy_is_another_lesson() -> None:
    """A limit per order set for each event (or a cover set per policy) names the event in the
    call: another event's limit is no change of the rule."""
    error = "Error: {} seats exceed the limit of {} seats per booking"
    old = _lesson(1, "book_seats", {"event_id": "ev_91", "seats": 9}, error.format(9, 8))
    new = _lesson(2, "book_seats", {"event_id": "ev_17", "seats": 12}, error.format(12, 10))
    assert _op(old, new)["op"] == "ADD"
    cover = "Error: claim of {} exceeds the cover limit of {}"
    old = _lesson(1, "claim", {"policy_no": "P-18", "amount": 900}, cover.format(900, 500))
    new = _lesson(2, "claim", {"policy_no": "P-77", "amount": 1900}, cover.format(1900, 1500))
    assert _op(old, new)["op"] == "ADD"


def test_another_status_is_another_error() -> None:
    old = _lesson(1, "export", {"report": "sales"}, "HTTP 401: request not accepted")
    new = _lesson(2, "export", {"report": "payroll"}, "HTTP 403: request not accepted")
    assert _op(old, new)["op"] == "ADD"


def test_one_cap_in_other_words_is_one_lesson() -> None:
    old = _lesson(1, "add_item", {"cart": 7, "qty": 9}, "Error: quantity exceeds the maximum of 4")
    new = _lesson(2, "add_item", {"cart": 8, "qty": 7}, "Error: at most 4 units can be ordered")
    op = _op(old, new)
    assert (op["op"], op["id"]) == ("UPDATE", 1)


def test_a_precondition_of_no_family_titles_the_remedy() -> None:
    lesson = _lesson(1, "send_invoice", {"order_id": 7712}, "Error: invoice can only be sent "
                     "after payment capture")  # fmt: skip
    assert lesson["correction"].startswith("Meet the precondition first: `send_invoice` fails")
