"""A frame's reason decides identity (issue 24, DESIGN §8a): one refusal frame ("Booking
refused: <reason>") around two reasons is two errors, around one reason reworded is one; a
figure a call passed is the instance's, not the rule's; a refusal's reason gives its family;
two errors in two languages that state the same rule figure are read by the judge.

Pure readings first, then the same through the one reflect core with the offline judge. The
texts are written for these tests, in domains the benchmark's cases do not use (a recording
studio, a plant nursery's deliveries, a bouldering wall).
"""

from __future__ import annotations

from typing import Any

import digest
from digest.figures import figures
from digest.frames import (
    as_compared,
    figures_masked,
    head_and_reason,
    passed_figures,
    shared_frame,
)
from digest.masking import mask_ids
from digest.model.error_families import family_of
from digest.pipeline import drain
from tests.reflect.helpers import active_lessons

AGENT = "studio-bot"

# --- pure readings ---------------------------------------------------------------------------


def test_a_head_and_the_reason_its_colon_opens() -> None:
    assert head_and_reason("Session ‹id› cannot be booked: the drum room is being cleaned") == (
        "Session ‹id› cannot be booked",
        "the drum room is being cleaned",
    )
    # a sentence before the colon is no head; a head of many words is none either
    assert head_and_reason("The room is shut. Reason: cleaning") is None
    long_head = "one two three four five six seven eight nine ten eleven twelve: why"
    assert head_and_reason(long_head) is None


def test_a_shared_frame_gives_the_reasons_and_another_frame_none() -> None:
    a = "Session ‹id› cannot be booked: the drum room is being cleaned"
    b = "Session ‹id› cannot be booked: a deposit of 50 EUR is unpaid"
    assert shared_frame(a, b) == (
        "the drum room is being cleaned",
        "a deposit of 50 EUR is unpaid",
    )
    assert shared_frame(a, "Delivery refused: the drum room is being cleaned") is None
    # lines of a lesson's quotations: the frame is found on the lines that hold it
    assert shared_frame(f"cannot be booked\n{a}", f"cannot be booked\n{b}") is not None


def test_the_figures_a_call_passed_are_masked_and_the_rules_kept() -> None:
    mistake = 'Called `book_wall` with «{"climbers": 14, "wall": "B2"}» and it failed: «…»'
    assert passed_figures(mistake) == frozenset({"14"})
    text = "Group of 14 climbers exceeds the limit of 12 per wall"
    assert figures(figures_masked(text, passed_figures(mistake))) == frozenset({"12"})
    # a figure that is part of an id or a longer figure is not the one passed
    assert figures_masked("limit 140 for 14.5", frozenset({"14"})) == "limit 140 for 14.5"


def test_as_compared_reads_the_reasons_with_the_calls_figures_masked() -> None:
    one = 'Called `book_wall` with «{"climbers": 14}» and it failed: «…»'
    two = 'Called `book_wall` with «{"climbers": 19}» and it failed: «…»'
    new, old = as_compared(
        "Wall booking refused: 14 climbers exceed the limit of 12",
        "Wall booking refused: 19 climbers exceed the limit of 12",
        one,
        two,
    )
    assert new == old == "‹id› climbers exceed the limit of 12"


def test_a_refusals_reason_gives_its_family() -> None:
    refused = "Session 88 cannot be scheduled: requested 9 hours exceeds the limit of 6 hours"
    assert family_of(refused).name == "limit-exceeded"
    # with no reason the head's family stands
    assert family_of("Session 88 cannot be scheduled").name == "status-does-not-allow"
    # a reason of no family of its own leaves the head's
    assert family_of("Session 88 cannot be scheduled: ask Marta").name == "status-does-not-allow"


def test_cap_words_of_dutch_polish_czech_turkish_keep_the_rule_figure() -> None:
    assert "12" in mask_ids("Levering geweigerd: meer dan 12 planten per kar")
    assert "40" in mask_ids("Zamówienie odrzucone: więcej niż 40 roślin")
    assert "30" in mask_ids("Objednávka zamítnuta: více než 30 rostlin")
    assert "25 kg" in mask_ids("Teslimat reddedildi: 25 kg sınırını aşıyor")
    # an id before the word "limit" is still an id
    assert "4412" not in mask_ids("Order 4412 limit reached")


def test_what_is_permitted_names_a_cap() -> None:
    assert "7.5 t" in mask_ids("Truck 8812 refused: exceeds the permitted weight of 7.5 t")
    assert "7,5 t" in mask_ids("LKW 8812 abgelehnt: das zulässige Gewicht von 7,5 t")
    assert "40 °C" in mask_ids("Wash 31 refused: above the maximum temperature (40 °C)")
    assert "8812" not in mask_ids("Truck 8812 allowed")


# --- through the reflect core, offline judge --------------------------------------------------


def _failing(tenant: str, tool: str, error: str, args: dict[str, Any]) -> None:
    digest.record_run(
        tenant, AGENT, task="book the studio", outcome="failure",
        tool_calls=[{"tool": tool, "args": args, "ok": False, "error": error}],
    )  # fmt: skip


def test_one_frame_two_reasons_two_lessons_one_reason_reworded_one(
    sqlite_env: str, tenant: str
) -> None:
    errors = [
        ("Session 881 cannot be booked: the drum room is being cleaned", {"session": 881}),
        ("Session 902 cannot be booked: a deposit of 50 EUR is unpaid", {"session": 902}),
        ("Session 915 cannot be booked: the drum room is being cleaned", {"session": 915}),
    ]
    for error, args in errors:
        _failing(tenant, "book_session", error, args)
        drain()
    lessons = active_lessons(tenant, AGENT)
    assert len(lessons) == 2, [lesson.title for lesson in lessons]
    cleaned = [lesson for lesson in lessons if "cleaned" in lesson.correction]
    assert len(cleaned) == 1 and "deposit" not in cleaned[0].correction


def test_one_cap_with_other_requested_figures_is_one_lesson(sqlite_env: str, tenant: str) -> None:
    for hours in (9, 11, 14):
        _failing(
            tenant, "book_session",
            f"Session cannot be scheduled: requested {hours} hours exceeds the limit of 6 hours",
            {"hours": hours, "room": f"R{hours}"},
        )  # fmt: skip
        drain()
    [lesson] = active_lessons(tenant, AGENT)
    assert "6 hours" in lesson.correction


def test_a_code_a_call_passed_is_masked_unquoted() -> None:
    mistake = 'Called `book_wall` with «{"wall": "B2", "grade": "hard"}» and it failed: «…»'
    new, old = as_compared(
        "Wall B2 cannot take a group", "Wall B2 cannot take a group of climbers", mistake
    )
    assert (new, old) == (
        "Wall ‹id› cannot take a group",
        "Wall ‹id› cannot take a group of climbers",
    )
    # a capitalised word the call did not pass stays
    assert as_compared("Wall C4 is shut", "Wall C4 is shut", mistake)[0] == "Wall C4 is shut"
