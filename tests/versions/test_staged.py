"""The ``staged`` apply mode (issue 16): a version that only adds lessons is active at once; one
that changes (UPDATE) or retires a trusted or reviewed lesson of the active version waits for a
person, with a reason naming those lessons. Changes to untrusted lessons do not hold it.
PostgreSQL, the real pipeline, offline/rules."""

from __future__ import annotations

import pytest

import digest
from digest.config import get_settings
from digest.db import session_scope
from digest.errors import InvalidEvent
from digest.lessons.owner import release_lesson, set_lesson_status
from digest.models import Lesson
from digest.pipeline import improve_now
from digest.tenants import configure_tenant, set_tenant
from digest.versions.decisions import approve
from digest.versions.queries import read_version
from tests.conftest import lessons_for_event
from tests.versions.conftest import AGENT, current_number, lesson, set_mode

QUESTION = "Do we ship to Norway?"


def answer(tenant: str, text: str) -> int:
    return digest.record_answer(tenant, AGENT, question=QUESTION, answer=text)


def fact_lesson(event_id: int) -> Lesson:
    [row] = lessons_for_event(event_id)
    return row


def test_adds_activate_and_a_changed_trusted_lesson_waits(
    services_env: dict[str, str], tenant: str
) -> None:
    set_mode(tenant, "staged")
    first = answer(tenant, "Yes, from Oslo.")
    lesson(tenant, 1)
    v1 = improve_now(tenant, AGENT)
    assert (v1.number, v1.version_status, v1.hold_reason) == (1, "active", None)
    lesson(tenant, 2)  # another ADD
    v2 = improve_now(tenant, AGENT)
    assert (v2.number, v2.version_status, v2.hold_reason) == (2, "active", None)

    answer(tenant, "Yes, from Oslo, and since March from Bergen too.")  # the fact UPDATEd
    v3 = improve_now(tenant, AGENT)
    fact = fact_lesson(first)
    assert fact.trust == "trusted" and "March" in fact.correction
    assert (v3.number, v3.version_status) == (3, "pending")
    assert v3.hold_reason == f"staged mode: it changes trusted lesson(s) #{fact.id} “{fact.title}”"
    assert current_number(tenant) == 2
    # the new lesson text is in force in the bank (pitfalls) at once: staged holds documents
    assert "March" in digest.pitfalls(tenant, AGENT, "Do we ship to Norway?")

    approve(tenant, AGENT, 3, by="owner")
    lesson(tenant, 3)  # after the approval, an ADD is active again
    assert improve_now(tenant, AGENT).version_status == "active"


def test_a_retired_trusted_lesson_waits(services_env: dict[str, str], tenant: str) -> None:
    set_mode(tenant, "staged")
    rules = [lesson(tenant, n) for n in range(3)]
    assert improve_now(tenant, AGENT).version_status == "active"
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, rules[0], "disabled")
        title = session.get(Lesson, rules[0]).title  # type: ignore[union-attr]
    held = improve_now(tenant, AGENT)
    assert held.version_status == "pending"
    assert held.hold_reason == f"staged mode: it retires trusted lesson(s) #{rules[0]} “{title}”"
    assert read_version(tenant, AGENT, held.number or 0).hold_reason == held.hold_reason


def test_changes_and_retirements_of_untrusted_lessons_activate(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The run's lesson covers its failure: dropping it loses coverage. This test is about
    # the apply mode alone, so the replay's margin lets any loss through.
    monkeypatch.setenv("DIGEST_REPLAY_MARGIN", "1")
    get_settings.cache_clear()
    with session_scope() as session:
        configure_tenant(
            session, tenant, learning_apply_mode="staged", frequency_gate=1,
            independent_spread_s=0,
        )  # fmt: skip
    lesson(tenant, 1)
    lesson(tenant, 2)
    run = digest.record_run(
        tenant, AGENT, task="Refund order 12", outcome="failure",
        tool_calls=[{"tool": "refund", "ok": False, "error": "amount is required"}],
    )  # fmt: skip
    assert improve_now(tenant, AGENT).version_status == "active"
    [observed] = lessons_for_event(run)
    assert observed.trust == "untrusted"
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, observed.id, "disabled")
    result = improve_now(tenant, AGENT)
    assert (result.version_status, result.hold_reason) == ("active", None)


def test_a_reviewed_lesson_is_protected_like_a_trusted_one(
    services_env: dict[str, str], tenant: str
) -> None:
    set_mode(tenant, "staged")
    rules = [lesson(tenant, n) for n in range(3)]
    reviewed = rules[0]
    with session_scope() as session:
        row = session.get(Lesson, reviewed)
        assert row is not None
        row.trust, row.status = "untrusted", "quarantined"
        release_lesson(session, tenant, AGENT, reviewed, by="owner")
        assert row.trust == "reviewed"
    assert improve_now(tenant, AGENT).version_status == "active"
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, reviewed, "deleted")
    held = improve_now(tenant, AGENT)
    assert held.version_status == "pending"
    assert held.hold_reason is not None and f"retires trusted lesson(s) #{reviewed}" in (
        held.hold_reason
    )


def test_approval_mode_says_why_every_version_waits(
    services_env: dict[str, str], tenant: str
) -> None:
    set_mode(tenant, "approval")
    lesson(tenant, 1)
    result = improve_now(tenant, AGENT)
    assert result.version_status == "pending"
    assert result.hold_reason == "the tenant's apply mode is approval"


def test_staged_is_an_apply_mode_and_others_are_refused(
    services_env: dict[str, str], tenant: str
) -> None:
    assert set_tenant(tenant, learning_apply_mode="staged").learning_apply_mode == "staged"
    with pytest.raises(InvalidEvent, match="staged"):
        set_tenant(tenant, learning_apply_mode="sometimes")
