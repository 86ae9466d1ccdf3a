"""digest.lessons.own_view: a transaction that has written an agent's lessons (a batch of
events) searches what was committed with its own writes laid over it, from the session's
objects: a lesson it added is found before its row is flushed, a rewrite by its new words, a
superseded lesson no more; nothing of it outlives a rollback (PostgreSQL, where a new
lesson's row waits for the transaction's next flush)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from sqlalchemy import event, select

from digest.db import get_engine, session_scope
from digest.lessons.neighbours import find_neighbours, read_agent_held
from digest.lessons.store import Candidate, add_lesson, supersede_lesson, update_lesson
from digest.lessons.transition import lesson_by_id
from digest.models import Event, Lesson, LessonEvidence
from tests.conftest import manual_lesson

AGENT = "bot"


@contextmanager
def statements() -> Iterator[list[str]]:
    """The statements this process sends meanwhile."""
    sent: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        sent.append(statement)

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", seen)
    try:
        yield sent
    finally:
        event.remove(engine, "before_cursor_execute", seen)


def found(session: Any, lesson: Lesson, probe: str) -> list[int]:
    """The neighbours' ids, searched as a batch does (the agent read once under the lock)."""
    read = read_agent_held(session, lesson.agent_id)
    return [
        n.lesson_id
        for n in find_neighbours(session, lesson.tenant_id, lesson.agent_id, probe, read=read)
    ]


def citing(session: Any, lesson_id: int) -> Event:
    return session.scalars(
        select(Event).join(LessonEvidence).where(LessonEvidence.lesson_id == lesson_id)
    ).one()


def test_a_writing_transaction_searches_its_own_writes_without_reading_them(
    services_env: dict[str, str], tenant: str
) -> None:
    refund_id = manual_lesson(tenant, AGENT, "refunds: ask a manager before refunding over 200")
    shipping_id = manual_lesson(tenant, AGENT, "shipping: Norway ships from the Oslo depot")
    with session_scope() as session:
        # read as a batch reads the lessons it writes, with their vectors
        refund, shipping = lesson_by_id(session, refund_id), lesson_by_id(session, shipping_id)
        assert refund is not None and shipping is not None
        cause, other = citing(session, refund_id), citing(session, shipping_id)
        # as a batch's events are: their citations go in with its flush
        cause.status = other.status = "processing"
        assert found(session, refund, "refunds over 200 need a manager")[0] == refund_id
        # as a batch writes: rows wait for its flush (``digest.reflect.batch``)
        with statements() as sent, session.no_autoflush:
            gift = add_lesson(
                session, event=cause, source="manual_lesson", outcome="mixed", note="test",
                candidate=Candidate("gift cards", "gift cards are never refundable"),
            )  # fmt: skip
            assert gift.id is not None
            assert found(session, refund, "gift cards never refundable")[0] == gift.id
            update_lesson(
                session, refund, Candidate("loyalty points", "loyalty points expire in a year"),
                event=other, reason="test", model=None, prompt_hash=None,
            )  # fmt: skip
            assert found(session, refund, "loyalty points expire in a year")[0] == refund_id
            assert refund_id not in found(session, refund, "a manager before refunding over 200")
        # no lesson row read, none written: the session's objects were laid over the view
        assert not [s for s in sent if "lessons" in s and "nextval" not in s], sent
        supersede_lesson(
            session, shipping, gift, event=cause, reason="test", model=None, prompt_hash=None
        )
        assert shipping_id not in found(session, refund, "Norway ships from the Oslo depot")
    # committed: the superseding lesson went in before the row that names it
    with session_scope() as session:
        assert found(session, refund, "gift cards never refundable")[0] == gift.id
        assert shipping_id not in found(session, refund, "Norway ships from the Oslo depot")
        assert found(session, refund, "loyalty points expire in a year")[0] == refund_id
        stored = session.get(Lesson, shipping_id)
        assert stored is not None and stored.superseded_by_id == gift.id


def test_what_a_rolled_back_transaction_wrote_is_never_found_after_it(
    services_env: dict[str, str], tenant: str
) -> None:
    refund_id = manual_lesson(tenant, AGENT, "refunds: ask a manager before refunding over 200")
    with session_scope() as session:
        refund = session.get(Lesson, refund_id)
        assert refund is not None
    with pytest.raises(RuntimeError), session_scope() as session:
        cause = citing(session, refund_id)
        gift = add_lesson(
            session, event=cause, source="manual_lesson", outcome="mixed", note="test",
            candidate=Candidate("gift cards", "gift cards are never refundable"),
        )  # fmt: skip
        assert found(session, refund, "gift cards never refundable")[0] == gift.id
        raise RuntimeError("roll back")
    with session_scope() as session:
        assert gift.id not in found(session, refund, "gift cards never refundable")
        assert session.get(Lesson, gift.id) is None
