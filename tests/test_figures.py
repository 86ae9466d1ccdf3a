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
