"""Contact-scoped lessons and their promotion to agent scope (embedded SQLite)."""

from __future__ import annotations

from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.models import Lesson, LessonHistory
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
    with session_scope() as session:
        agent_id = find_agent(session, TENANT, AGENT).id
        (lesson,) = session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)).all()
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
