"""digest.lessons.store: creating lessons (caps, titles, slugs, evidence, history), the
operations reconciliation applies, contact-scoped lessons and their promotion to agent scope,
and confidence from observed outcomes. Database tests run on the embedded SQLite default.
"""

from __future__ import annotations

import itertools
import re

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session

import digest
from digest.db import session_scope
from digest.lessons.slugs import SLUG_MAX, slugify, unique_slug
from digest.lessons.store import (
    TAGS_MAX,
    Candidate,
    add_evidence,
    add_lesson,
    confidence_from_counts,
    derive_title,
    support_lesson,
    update_lesson,
)
from digest.models import BODY_MAX, TITLE_MAX, Agent, Event, Lesson, LessonEvidence, LessonHistory
from digest.pipeline import drain
from digest.tenants import configure_tenant, find_agent
from digest.versions.compose import compose_version

TENANT, AGENT = "acme", "bot"


def edit_from(contact: str) -> None:
    digest.record_edit(
        TENANT, AGENT, contact_id=contact, context="Customer asks where their parcel is",
        original="Your parcel will arrive tomorrow for sure!",
        final="Your parcel is on its way; the carrier expects 2-3 working days.",
    )  # fmt: skip
    drain()


def the_lesson() -> Lesson:
    """The promise rule the edit teaches (it also teaches its content and its tone, each a
    lesson promoted alike)."""
    with session_scope() as session:
        agent_id = find_agent(session, TENANT, AGENT).id
        lessons = session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)).all()
        assert len(lessons) == 3, [lesson.title for lesson in lessons]
        assert len({(lesson.scope, lesson.support_count) for lesson in lessons}) == 1
        (lesson,) = [lesson for lesson in lessons if "promise" in lesson.tags]
        return lesson


def test_a_preference_seen_with_three_contacts_becomes_agent_wide(sqlite_env: str) -> None:
    edit_from("contact-1")
    first = the_lesson()
    assert (first.scope, first.contact_id) == ("contact", "contact-1")
    with session_scope() as session:
        agent_id = find_agent(session, TENANT, AGENT).id
    # A contact's own preference stays out of the shared document.
    assert compose_version(agent_id, "manual").status == "no_change"

    edit_from("contact-1")  # the same contact again does not count twice
    edit_from("contact-2")
    assert the_lesson().scope == "contact" and the_lesson().support_count == 3

    edit_from("contact-3")
    promoted = the_lesson()
    assert promoted.id == first.id and promoted.scope == "agent"
    with session_scope() as session:
        reasons = session.scalars(
            select(LessonHistory.reason).where(LessonHistory.lesson_id == first.id)
        ).all()
    assert any("promoted to agent scope" in (r or "") for r in reasons)
    result = compose_version(agent_id, "manual")
    assert result.status == "created"


def test_the_promotion_bar_is_a_tenant_setting(sqlite_env: str) -> None:
    with session_scope() as session:
        configure_tenant(session, TENANT, promotion_contacts=2)
    edit_from("contact-a")
    edit_from("contact-b")
    assert the_lesson().scope == "agent"


# --- titles and slugs ------------------------------------------------------------------------


def test_derive_title_takes_the_first_sentence() -> None:
    title = derive_title("Always confirm the amount before calling issue_refund. Then reply.")
    assert title == "Always confirm the amount before calling issue_refund"


def test_derive_title_never_cuts_a_clause_inside_a_time_or_a_price() -> None:
    title = derive_title(
        "Say «Auftraege fuer die Zustellung am selben Tag muessen bis 14:00 Uhr eingehen, "
        "sonst kosten sie 2,50 € mehr» in replies like this."
    )
    assert "14:00 Uhr" in title and not title.endswith("14")


def test_derive_title_cuts_long_text_at_a_word_boundary_without_an_ellipsis() -> None:
    title = derive_title("confirm " * 30)
    assert not title.endswith("…")
    assert len(title) <= 90
    assert title.split(" ")[-1] == "confirm"


def test_derive_title_prefers_a_whole_clause_to_a_cut() -> None:
    title = derive_title(
        'Answer "What are the opening hours of the pickup counter, and is it open on public '
        "holidays?\" with the owner's facts. Monday to Friday."
    )
    assert title == 'Answer "What are the opening hours of the pickup counter"'


def test_derive_title_ends_at_a_whole_quotation_rather_than_mid_phrase() -> None:
    # the words after the question would stop at "with the owner's" (issue 26 point 7)
    title = derive_title(
        'Answer "Can a customer get a refund for a gift card they never used?" with the '
        "owner's facts. No. Gift cards are non-refundable."
    )
    assert title == 'Answer "Can a customer get a refund for a gift card they never used?"'


def test_derive_title_cut_inside_a_quotation_keeps_its_question() -> None:
    # the sentence before the question only sets it up; the title says what was asked
    title = derive_title(
        'Answer "A customer asks how long they have to return an unworn jacket. What is our '
        "return window?\" with the owner's facts. 30 days from the delivery date."
    )
    assert title == 'Answer "What is our return window?"'


def test_derive_title_cut_inside_a_quotation_keeps_its_whole_sentences() -> None:
    title = derive_title(
        "Say «Your parcel left our Oslo warehouse today. Delivery takes three to five working "
        "days to any address in Norway» in replies like this."
    )
    assert title == "Say «Your parcel left our Oslo warehouse today.»"


def test_derive_title_marks_a_quotation_it_had_to_cut_mid_sentence() -> None:
    title = derive_title(
        "Say «We will refund the 39.00 EUR for the lamp and the original shipping fee once you "
        "send us a photo of the damage» in replies like this."
    )
    assert title == (
        "Say «We will refund the 39.00 EUR for the lamp and the original shipping fee once you…»"
    )
    assert len(title) <= 90


def test_derive_title_keeps_a_quoted_sentence_end_whole() -> None:
    title = derive_title('Reply "Thanks. We are on it" to the customer')
    assert title == 'Reply "Thanks. We are on it" to the customer'


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("Always confirm the amount!", id="plain"),
        pytest.param("!!!", id="punctuation-only"),
        pytest.param("Ünïcödé — Grüße, naïve café", id="accents"),
        pytest.param("word " * 50, id="long"),
        pytest.param("日本語のみ", id="non-latin"),
        pytest.param("---a---b---", id="dashes"),
    ],
)
def test_slugify_is_url_safe_bounded_and_non_empty(text: str) -> None:
    slug = slugify(text)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", slug), slug
    assert 0 < len(slug) <= 80


def test_slugify_examples() -> None:
    assert slugify("Always confirm the amount!") == "always-confirm-the-amount"
    assert slugify("Grüne Äpfel, café") == "grune-apfel-cafe"
    assert slugify("!!!") == "lesson"


# --- confidence_from_counts -----------------------------------------------------------------


def test_confidence_no_evidence_is_half() -> None:
    assert confidence_from_counts(0, 0) == 0.5


def test_confidence_moves_with_outcomes() -> None:
    assert confidence_from_counts(3, 1) > 0.5
    assert confidence_from_counts(1, 3) < 0.5
    assert confidence_from_counts(5, 5) == 0.5
    assert 0 < confidence_from_counts(0, 100) < confidence_from_counts(100, 0) < 1


def test_confidence_is_monotonic() -> None:
    by_success = [confidence_from_counts(s, 2) for s in range(20)]
    by_failure = [confidence_from_counts(2, f) for f in range(20)]
    assert all(a < b for a, b in itertools.pairwise(by_success))
    assert all(a > b for a, b in itertools.pairwise(by_failure))


# --- Candidate.normalised ----------------------------------------------------------------------


def test_normalised_applies_the_caps_and_derives_the_title() -> None:
    raw = Candidate(
        situation="s" * (BODY_MAX + 10),
        correction="Confirm the amount first. Then refund.",
        mistake="   ",
        tags=("Refunds", "refunds", "Two Words!", "", *(f"t{i}" for i in range(20))),
        slug="Refund Limits!",
    )
    cand = raw.normalised()
    assert len(cand.situation) == BODY_MAX and cand.situation.endswith("…")
    assert cand.mistake is None  # blank is no mistake
    assert cand.tags[:2] == ("refunds", "two-words") and len(cand.tags) == TAGS_MAX
    assert cand.title == "Confirm the amount first"
    assert cand.slug == "refund-limits"


def test_a_given_title_is_kept_and_capped_on_one_line() -> None:
    cand = Candidate("s", "c", title="A   title\nover two lines " + "x" * TITLE_MAX).normalised()
    assert cand.title is not None
    assert "\n" not in cand.title and "  " not in cand.title and len(cand.title) == TITLE_MAX


def test_slugify_caps_long_text_at_a_word() -> None:
    slug = slugify("word " * 40)
    assert len(slug) <= SLUG_MAX and not slug.endswith("-") and re.fullmatch(r"[a-z-]+", slug)


# --- writing lessons (SQLite) ------------------------------------------------------------------


def _event(tenant: str) -> int:
    """A stored owner answer of agent ``bot`` (capture creates the tenant and the agent)."""
    return digest.record_answer(tenant, AGENT, question="Gift wrap?", answer="Yes, 3 EUR.")


def _load(session: Session, event_id: int) -> Event:
    event = session.get(Event, event_id)
    assert event is not None
    return event


def test_add_lesson_cites_its_event_and_writes_an_add_row(sqlite_env: str, tenant: str) -> None:
    event_id = _event(tenant)
    with session_scope() as session:
        event = _load(session, event_id)
        epoch = session.get(Agent, event.agent_id).lesson_epoch  # type: ignore[union-attr]
        lesson = add_lesson(
            session, event=event, candidate=Candidate("Gift wrap", "Offer gift wrap for 3 EUR."),
            source="owner_answer", outcome="success", note="from the owner", model="m",
            prompt_hash="h",
        )  # fmt: skip
        evidence = session.scalars(
            select(LessonEvidence).where(LessonEvidence.lesson_id == lesson.id)
        ).all()
        history = session.scalars(
            select(LessonHistory).where(LessonHistory.lesson_id == lesson.id)
        ).all()
        agent = session.get(Agent, event.agent_id)
        assert agent is not None and agent.lesson_epoch == epoch + 1
    assert (lesson.status, lesson.scope, lesson.support_count, lesson.confidence) == (
        "active", "agent", 1, 0.5,
    )  # fmt: skip
    assert (
        lesson.title == "Offer gift wrap for 3 EUR" and lesson.slug == "offer-gift-wrap-for-3-eur"
    )
    assert [(e.event_id, e.note) for e in evidence] == [(event.id, "from the owner")]
    assert [(h.op, h.before, h.event_id, h.model, h.prompt_hash) for h in history] == [
        ("ADD", None, event.id, "m", "h")
    ]


def test_an_event_is_cited_once_and_supports_once(sqlite_env: str, tenant: str) -> None:
    event_id = _event(tenant)
    with session_scope() as session:
        event = _load(session, event_id)
        event.status = "reflected"
        lesson = add_lesson(
            session, event=event, candidate=Candidate("Gift wrap", "Offer gift wrap."),
            source="owner_answer", outcome="success", note="n",
        )  # fmt: skip
        assert add_evidence(session, lesson, event, "again") is False
        for _ in range(2):
            support_lesson(
                session, lesson, event=event, reason="same", model=None, prompt_hash=None
            )
        cited = session.scalar(select(func.count()).where(LessonEvidence.lesson_id == lesson.id))
        ops = session.scalars(
            select(LessonHistory.op).where(LessonHistory.lesson_id == lesson.id)
        ).all()
    assert (cited, lesson.support_count) == (1, 1)
    assert list(ops) == ["ADD", "NOOP", "NOOP"]  # each NOOP audited, support counted once


def test_update_keeps_the_lesson_and_merges_tags(sqlite_env: str, tenant: str) -> None:
    event_id, other_id = _event(tenant), _event(tenant)
    with session_scope() as session:
        event = _load(session, event_id)
        lesson = add_lesson(
            session, event=event,
            candidate=Candidate("Gift wrap", "Offer gift wrap.", "forgot it", ("gifts",)),
            source="owner_answer", outcome="success", note="n",
        )  # fmt: skip
        before = (lesson.id, lesson.tenant_id, lesson.agent_id, lesson.scope)
        other = _load(session, other_id)
        update_lesson(
            session, lesson, Candidate("Gift wrap at checkout", "Offer gift wrap for 3 EUR.",
                                       tags=("checkout",)),
            event=other, reason="enriched", model=None, prompt_hash=None,
        )  # fmt: skip
    assert (lesson.id, lesson.tenant_id, lesson.agent_id, lesson.scope) == before
    assert lesson.correction == "Offer gift wrap for 3 EUR."
    assert lesson.mistake == "forgot it"  # kept when the merge has none
    assert lesson.tags == ["gifts", "checkout"] and lesson.support_count == 2


def test_unique_slug_numbers_the_taken_ones(sqlite_env: str, tenant: str) -> None:
    first = digest.record_lesson(tenant, AGENT, "refunds: confirm the amount")
    digest.record_lesson(tenant, AGENT, "refunds\nconfirm the amount, again")
    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
        slugs = session.scalars(
            select(Lesson.slug).where(Lesson.agent_id == agent_id).order_by(Lesson.id)
        ).all()
        assert unique_slug(session, agent_id, "Refunds") == "refunds-3"
        assert unique_slug(session, agent_id, "x", preferred="free-slug") == "free-slug"
    assert list(slugs) == ["refunds", "refunds-2"] and first
