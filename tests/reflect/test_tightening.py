"""digest.reflect.tightening: a run's tool error states a policy lesson's rule with a stricter
figure only when the lesson states the same template and status with one rule figure changed
and a quantity the failed call passed lies between the two figures. Read in the event and in
whatever words the lesson has (a model's own, or a quotation). Pure functions; no services."""

from __future__ import annotations

from typing import Any

import pytest

from digest.reflect.tightening import quantities, tightens

OLD = "`book_room` fails with: 403: bookings of more than 8 nights need a manager's approval"


def _run(error: str, args: dict[str, Any]) -> dict[str, Any]:
    call = {"tool": "book_room", "args": args, "ok": False, "error": error}
    return {"task": "book", "outcome": "failure", "tool_calls": [call]}


@pytest.mark.parametrize(
    ("error", "args", "stricter"),
    [
        # 6 nights were let through under 8, refused under 5
        ("403: bookings of more than 5 nights need a manager's approval",
         {"nights": 6, "room_id": 12}, True),
        # a looser figure: 14 nights are refused under both
        ("403: bookings of more than 12 nights need a manager's approval",
         {"nights": 14, "room_id": 10}, False),
        # another status is another error
        ("409: bookings of more than 5 nights need a manager's approval", {"nights": 6}, False),
        # another template
        ("403: stays of more than 5 nights are not allowed", {"nights": 6}, False),
        # nothing the call passed lies between (a room's number does not count)
        ("403: bookings of more than 5 nights need a manager's approval",
         {"nights": 9, "room_id": 7}, False),
    ],
)  # fmt: skip
def test_a_stricter_figure_is_read_in_the_call_not_the_words(
    error: str, args: dict[str, Any], stricter: bool
) -> None:
    assert tightens(_run(error, args), OLD) is stricter


def test_a_minimum_raised_is_stricter_too_and_a_quotation_is_read_like_any_words() -> None:
    old = "Observed: `book_group` failed with «Group bookings need at least 3 guests»."
    new = _run("Group bookings need at least 5 guests", {"guests": 4})
    assert tightens(new, old)
    lowered = _run("Group bookings need at least 2 guests", {"guests": 1})
    assert not tightens(lowered, old)


def test_numbers_that_name_a_record_are_no_quantities() -> None:
    args = {"amount": 64.9, "order_id": 7781, "pedido": 80, "lines": [{"qty": 2}], "gift": True}
    assert quantities(args) == [64.9, 2.0]
