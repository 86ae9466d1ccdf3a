"""digest.figures: the figures a text states, in digits and in words."""

from __future__ import annotations

import pytest

from digest.figures import figures, figures_apart


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("All repairs carry a 6-month warranty", {"6"}),
        ("guaranteed for six months", {"6"}),
        ("Gruppen bis zwanzig Personen, 2,5 Stunden", {"20", "2.5"}),
        ("hasta treinta días", {"30"}),
        # words that are figures in one language and words in another are not read
        ("one of them is due to arrive once, sept fois", set()),
    ],
)
def test_figures_are_read_in_digits_and_words(text: str, found: set[str]) -> None:
    assert figures(text) == found


def test_figures_are_apart_only_when_each_states_one_the_other_does_not() -> None:
    assert figures_apart("below the minimum of 300", "above the maximum of 65535")
    assert not figures_apart("free after 6pm, 2 minutes away", "free after six")
    assert not figures_apart("no figure here", "open until 5pm")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("open 09:00-17:00", {"9", "17"}),
        ("from 9am to 5:30 p.m.", {"9", "5", "30"}),
        ("Abholung ab 14h30", {"14", "30"}),
        ("costs 3.50 euros", {"3.50"}),
    ],
)
def test_times_of_day_are_read_as_their_hours(text: str, found: set[str]) -> None:
    assert figures(text) == found


def test_an_hour_on_the_twelve_hour_clock_is_the_other_clocks_where_times_are_given() -> None:
    # one span on two clocks: its other end is shared, one of them says it is a time
    assert not figures_apart("pick-up between 10 and 14", "pick-up from ten to two o'clock")
    assert not figures_apart("open 9am to 5pm", "open 09:00-17:00")
    # no time given, or nothing shared: two figures
    assert figures_apart("within 2 days", "within 14 days")
    assert figures_apart("within 2 days, call before 18 Uhr", "within 14 days")
    assert figures_apart("open 9 to 5", "open 9-17")


def test_hours_counted_are_no_times_of_day() -> None:
    """Words that count hours as well as tell them ("uur", "heures", "48h") give no clock: a
    12-hour and a 24-hour window are two rules."""
    assert figures_apart("Wij reageren binnen 12 uur.", "Wij reageren binnen 24 uur.")
    assert figures_apart("Réponse sous 12 heures", "Réponse sous 24 heures")
    assert figures_apart("refunds within 12h", "refunds within 24h")
