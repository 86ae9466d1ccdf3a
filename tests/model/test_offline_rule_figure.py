"""``offline/rules`` reading one failure of one tool under two keys
(``digest.model.offline_rule_figure``, issue 24): the same rule figures bound the same way
are one lesson (NOOP on the first wording); another figure, another bound or another input
named stays a lesson of its own."""

from __future__ import annotations

from digest.masking import error_template
from digest.model.offline_rule_figure import one_rule
from tests.model.run_lessons import reconciled, run_lesson

_lesson, _op = run_lesson, reconciled


def test_the_nordic_bound_words_keep_the_rule_figure() -> None:
    assert "4" in error_template("Parkering afvist: du kan parkere i højst 4 timer")
    assert "16" in error_template("Bokning nekad: deltagare måste vara minst 16 år")
    assert "300s" in error_template("ttl rejected: must be at least 300s (got 30)")


def test_one_cap_in_two_languages_is_one_lesson() -> None:
    old = _lesson(
        1,
        "park",
        {"plate": "AB 12 345", "hours": 6},
        "Parking refused: you can park for at most 4 hours",
    )
    new = _lesson(
        2,
        "park",
        {"plate": "CD 98 765", "hours": 5},
        "Parkering afvist: du kan parkere i højst 4 timer",
    )
    assert old["fingerprint"] != new["fingerprint"]
    op = _op(old, new)
    # one lesson: both are read as a limit exceeded with the same cap (the family of the
    # Danish "højst" too), which takes the newer wording, as one language's rewording does
    assert (op["op"], op["id"]) == ("UPDATE", 1)
    assert op["reason"] == "the same failed state in other words"


def test_one_floor_reworded_with_a_glued_unit_is_one_lesson() -> None:
    old = _lesson(
        1, "set_record", {"name": "www", "ttl": 30}, "TTL 30 is below the minimum of 300 seconds"
    )
    new = _lesson(
        2, "set_record", {"name": "api", "ttl": 60}, "ttl=60 rejected: must be at least 300s"
    )
    assert one_rule(new, old)


def test_another_figure_of_one_tool_stays_apart() -> None:
    old = _lesson(
        1,
        "park",
        {"plate": "AB 1", "hours": 6},
        "Parking refused: you can park for at most 4 hours",
    )
    new = _lesson(
        2,
        "park",
        {"plate": "CD 2", "hours": 1},
        "Parkering afvist: du skal parkere i mindst 2 timer",
    )
    assert not one_rule(new, old)
    assert _op(old, new)["op"] == "ADD"


def test_a_cap_and_a_floor_of_one_figure_stay_apart() -> None:
    old = _lesson(
        1,
        "enrol",
        {"pupil": "P-1", "age": 19},
        "Enrolment refused: pupils may be at most 18 years old",
    )
    new = _lesson(
        2,
        "enrol",
        {"pupil": "P-2", "age": 16},
        "Enrolment refused: pupils must be at least 18 years old",
    )
    assert not one_rule(new, old)


def test_another_input_named_with_the_same_figure_stays_apart() -> None:
    old = _lesson(
        1, "create_post", {"title": "x" * 90, "summary": "s"}, "title must be at most 80 characters"
    )
    new = _lesson(
        2,
        "create_post",
        {"title": "t", "summary": "y" * 90},
        "Rejected: the summary is limited to 80 characters",
    )
    assert not one_rule(new, old)
    assert _op(old, new)["op"] == "ADD"


def test_another_tool_is_never_one_rule() -> None:
    old = _lesson(
        1,
        "park",
        {"plate": "AB 1", "hours": 6},
        "Parking refused: you can park for at most 4 hours",
    )
    new = _lesson(
        2,
        "charge",
        {"plate": "CD 2", "hours": 6},
        "Charging refused: you can charge for at most 4 hours",
    )
    assert not one_rule(new, old)
