"""digest.reflect.tightening: a tool error states a policy lesson's rule with a stricter
threshold only when the two are one template with one rule figure changed and a quantity the
new call passed lies between the two figures. Pure functions; no services."""

from __future__ import annotations

import pytest

from digest.reflect.tightening import passed_quantities, tightens


def _lesson(error: str) -> str:
    return f"Calling the `book_room` tool. Observed: `book_room` failed with «{error}»."


OLD = _lesson("403: bookings of more than 8 nights need a manager's approval")


@pytest.mark.parametrize(
    ("error", "mistake", "stricter"),
    [
        # 6 nights were let through under 8, refused under 5
        ("403: bookings of more than 5 nights need a manager's approval",
         '{"nights": 6, "room_id": 12}', True),
        # a looser threshold: 14 nights are refused under both
        ("403: bookings of more than 12 nights need a manager's approval",
         '{"nights": 14, "room_id": 10}', False),
        # another status is another error
        ("409: bookings of more than 5 nights need a manager's approval",
         '{"nights": 6}', False),
        # another template
        ("403: stays of more than 5 nights are not allowed", '{"nights": 6}', False),
        # nothing the call passed lies between
        ("403: bookings of more than 5 nights need a manager's approval",
         '{"nights": 9, "room_id": 7}', False),
    ],
)  # fmt: skip
def test_a_stricter_threshold_is_read_in_the_call_not_the_words(
    error: str, mistake: str, stricter: bool
) -> None:
    assert tightens(_lesson(error), f"Called `book_room` with «{mistake}»", OLD) is stricter


def test_a_minimum_raised_is_stricter_too() -> None:
    old = _lesson("Group bookings need at least 3 guests")
    new = _lesson("Group bookings need at least 5 guests")
    assert tightens(new, 'Called `book_group` with «{"guests": 4}»', old)
    assert not tightens(old, 'Called `book_group` with «{"guests": 2}»', new)


def test_numbers_that_name_a_record_are_no_quantities() -> None:
    mistake = 'Called `refund` with «{"amount": 64.9, "order_id": 7781, "pedido": 80, "qty": 2}»'
    assert passed_quantities(mistake) == [64.9, 2.0]
