"""digest.reflect.repeats: the process's memory of which lesson a candidate text ended up in,
so a batch skips the neighbour search for an exact repeat. An entry never decides on its own:
the lesson must still be active, this agent's, unexpired and word for word the same
(embedded SQLite)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import update

from digest.config import Settings
from digest.db import session_scope
from digest.lessons.store import Candidate
from digest.models import Lesson, utcnow
from digest.reflect.repeats import known_repeats, known_texts, text_key
from digest.runtime import runtime
from digest.tenants import find_agent
from tests.conftest import make_claimed, manual_lesson

SETTINGS = Settings()
REFUNDS = Candidate("refunds", "always confirm the amount first")


@pytest.fixture()
def known(sqlite_env: str, tenant: str) -> tuple[Any, int]:
    """A claimed event of agent ``bot`` and a lesson remembered for ``REFUNDS``."""
    lesson_id = manual_lesson(tenant, "bot", "refunds: always confirm the amount first")
    with session_scope() as session:
        agent = find_agent(session, tenant, "bot")
        claimed = make_claimed(tenant_id=agent.tenant_id, agent_id=agent.id)
    runtime().piece(known_texts).put(
        text_key(claimed.agent_id, REFUNDS), lesson_id, SETTINGS.llm_cache_size
    )
    return claimed, lesson_id


def test_an_exact_repeat_is_its_own_lesson_scored_identical(known: tuple[Any, int]) -> None:
    claimed, lesson_id = known
    repeat = Candidate("Refunds:", "Always confirm the amount first!", tags=("other",))
    with session_scope() as session:
        snapshot = known_repeats(session, claimed, [repeat], SETTINGS)
    assert snapshot is not None
    [[neighbour]] = snapshot.neighbours
    assert (neighbour.lesson_id, neighbour.relevance, neighbour.identity) == (lesson_id, 1.0, 1.0)


@pytest.mark.parametrize(
    "change",
    [
        {"status": "disabled"},
        {"correction": "always confirm the amount first, and the currency"},
        {"expires_at": utcnow() - timedelta(seconds=1)},
    ],
    ids=["no-longer-active", "text-changed", "expired"],
)
def test_an_entry_whose_lesson_moved_on_decides_nothing(
    known: tuple[Any, int], change: dict[str, Any]
) -> None:
    claimed, lesson_id = known
    with session_scope() as session:
        session.execute(update(Lesson).where(Lesson.id == lesson_id).values(**change))
    with session_scope() as session:
        assert known_repeats(session, claimed, [REFUNDS], SETTINGS) is None


def test_every_candidate_must_be_a_known_repeat(known: tuple[Any, int]) -> None:
    claimed, _ = known
    with session_scope() as session:
        assert (
            known_repeats(session, claimed, [REFUNDS, Candidate("new", "text")], SETTINGS) is None
        )
        assert known_repeats(session, claimed, [], SETTINGS) is None


def test_entries_are_per_agent_and_off_without_a_cache(known: tuple[Any, int]) -> None:
    claimed, _ = known
    with session_scope() as session:
        other_agent = make_claimed(tenant_id=claimed.tenant_id, agent_id=claimed.agent_id + 1)
        assert known_repeats(session, other_agent, [REFUNDS], SETTINGS) is None
        off = Settings(llm_cache_size=0)
        assert known_repeats(session, claimed, [REFUNDS], off) is None
