"""digest.capture.manual: the ``signature: lesson`` text an owner writes, split and checked at
capture, and the candidate lesson a ``manual_lesson`` event carries into reconciliation."""

from __future__ import annotations

import pytest

import digest
from digest.capture.manual import manual_candidate, split_manual_text
from digest.errors import InvalidEvent

# --- split_manual_text -----------------------------------------------------------


def test_split_manual_text_single_line() -> None:
    assert split_manual_text("refunds: always confirm the amount first") == (
        "refunds",
        "always confirm the amount first",
    )


def test_split_manual_text_keeps_later_colons_in_the_body() -> None:
    assert split_manual_text("hours: open 9:00-17:00") == ("hours", "open 9:00-17:00")


def test_split_manual_text_block_form() -> None:
    text = "  Refund limits\n  Refunds over 200 EUR need approval.\n\n  Say so to the customer.\n"
    assert split_manual_text(text) == (
        "Refund limits",
        "Refunds over 200 EUR need approval.\nSay so to the customer.",
    )


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("no colon here", id="no-colon"),
        pytest.param("", id="empty"),
        pytest.param(" \n\t ", id="whitespace"),
        pytest.param("sig:   ", id="empty-body"),
        pytest.param(": body", id="empty-signature"),
        pytest.param("s" * 201 + ": body", id="signature-too-long"),
        pytest.param("sig: " + "b" * 4097, id="body-too-long"),
    ],
)
def test_split_manual_text_rejects(text: str) -> None:
    with pytest.raises(InvalidEvent) as caught:
        split_manual_text(text)
    assert caught.value.field == "text"


# --- manual_candidate ------------------------------------------------------------------------


def test_the_candidate_is_the_text_with_its_signature_as_title() -> None:
    cand = manual_candidate({"text": "refunds: always confirm the amount first"})
    assert (cand.situation, cand.correction, cand.title) == (
        "refunds", "always confirm the amount first", "refunds",
    )  # fmt: skip
    assert (cand.mistake, cand.tags, cand.slug) == (None, (), None)


def test_structured_parts_of_the_payload_are_kept() -> None:
    cand = manual_candidate(
        {
            "text": "Refund limits\nAsk a manager above 200 EUR.",
            "situation": "A refund above 200 EUR",
            "mistake": "Refunded without approval",
            "tags": ["refunds"],
            "slug": "refund-limits",
        }
    )
    assert cand.situation == "A refund above 200 EUR" and cand.title == "Refund limits"
    assert (cand.mistake, cand.tags, cand.slug) == (
        "Refunded without approval", ("refunds",), "refund-limits",
    )  # fmt: skip


def test_a_payload_without_usable_text_is_invalid() -> None:
    with pytest.raises(InvalidEvent) as caught:
        manual_candidate({"text": "just words, no signature"})
    assert caught.value.field == "text"


def test_the_same_lesson_added_twice_by_hand_adds_support_not_a_copy(
    sqlite_env: str, tenant: str
) -> None:
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import Lesson, LessonEvidence

    events = [
        digest.record_lesson(tenant, "bot", "refund-limits: Refunds above 200 EUR need approval"),
        digest.record_lesson(tenant, "bot", "Refund-limits:  refunds above 200 EUR need approval."),
        digest.record_lesson(tenant, "bot", "refund-limits: Refunds above 300 EUR need approval"),
    ]
    assert len(set(events)) == 3  # every call is its own event
    first, again, other = (digest.lesson_for_event(tenant, "bot", e) for e in events)
    assert again == first
    assert other != first  # another rule under the same name is kept, not merged away
    with session_scope() as session:
        lesson = session.get(Lesson, first)
        assert lesson is not None and lesson.support_count == 2
        cited = session.scalars(
            select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == first)
        ).all()
        active = session.scalars(select(Lesson.id).where(Lesson.status == "active")).all()
    assert sorted(cited) == events[:2] and sorted(active) == sorted([first, other])


# --- record_lesson returns its event; the lesson is reachable from it ----------------------------


def test_record_lesson_returns_its_event_and_the_lesson_cites_it(
    sqlite_env: str, tenant: str
) -> None:
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import Event, LessonEvidence

    event_id = digest.record_lesson(tenant, "bot", "refunds: always confirm the amount first")
    lesson_id = digest.lesson_for_event(tenant, "bot", event_id)
    with session_scope() as session:
        event = session.get(Event, event_id)
        assert event is not None and (event.kind, event.status) == ("manual_lesson", "reflected")
        cited = session.scalars(
            select(LessonEvidence.lesson_id).where(LessonEvidence.event_id == event_id)
        ).all()
    assert cited == [lesson_id]


def test_lesson_for_event_of_other_kinds(sqlite_env: str, tenant: str) -> None:
    from digest.pipeline import drain

    answer = digest.record_answer(tenant, "bot", question="Open Sunday?", answer="No, closed.")
    timeout = digest.record_run(
        tenant, "bot", task="track order 7", outcome="failure", error="upstream timeout after 30s"
    )
    assert digest.lesson_for_event(tenant, "bot", answer) is None  # not reflected yet
    drain()
    assert digest.lesson_for_event(tenant, "bot", answer) is not None
    assert digest.lesson_for_event(tenant, "bot", timeout) is None  # skipped: taught nothing


@pytest.mark.parametrize("event_id", [0, -1, 10**9, 2**63, 2**70], ids=str)
def test_lesson_for_event_of_no_such_event_is_not_found(
    sqlite_env: str, tenant: str, event_id: int
) -> None:
    from digest.errors import NotFound

    digest.record_lesson(tenant, "bot", "refunds: confirm the amount first")
    with pytest.raises(NotFound, match=f"event {event_id} not found"):
        digest.lesson_for_event(tenant, "bot", event_id)


def test_lesson_for_event_never_crosses_agents_or_tenants(sqlite_env: str, tenant: str) -> None:
    from digest.errors import InvalidArgument, NotFound

    mine = digest.record_lesson(tenant, "bot", "refunds: confirm the amount first")
    for other_tenant, other_agent in ((tenant, "other-bot"), (f"{tenant}-x", "bot")):
        digest.record_lesson(other_tenant, other_agent, "placeholder: creates the agent")
        with pytest.raises(NotFound):
            digest.lesson_for_event(other_tenant, other_agent, mine)
    with pytest.raises(InvalidArgument):
        digest.lesson_for_event(tenant, "bot", True)
