"""An owner's change reported to a question asked in other words supersedes the fact it
reverses, through the one reflect core, in the embedded default and through a worker (issue
24: the old lesson ``superseded``, the new one active, the history says why); a look-alike
(gift cards beside gift wrapping) supersedes nothing."""

from __future__ import annotations

from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.models import Lesson, LessonEvidence, LessonHistory
from digest.pipeline import drain
from digest.tenants import find_agent
from tests.conftest import WorkerProcess, wait_for_event

DONE = {"reflected", "skipped", "failed", "dead"}

#: (agent, question, answer) in the order the owners gave them
STREAM = [
    ("salon", "Do you take walk-ins?", "Yes, walk-ins are welcome any time we are open."),
    ("salon", "Can I just drop by without booking?", "Not anymore: appointments only."),
    ("shop", "Do you offer gift wrapping?", "Yes, gift wrapping costs €2 per item."),
    ("shop", "Do you sell gift cards?", "No longer: gift cards were discontinued in May."),
]


def _lessons(tenant: str, agent: str) -> dict[int, Lesson]:
    """The agent's lessons by the one event each cites."""
    with session_scope() as session:
        agent_id = find_agent(session, tenant, agent).id
        found: dict[int, Lesson] = {}
        for lesson in session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)):
            [event_id] = session.scalars(
                select(LessonEvidence.event_id).where(LessonEvidence.lesson_id == lesson.id)
            )
            found[event_id] = lesson
        session.expunge_all()
    return found


def _check(tenant: str, ids: list[int]) -> None:
    salon = _lessons(tenant, "salon")
    old, new = salon[ids[0]], salon[ids[1]]
    assert (old.status, old.superseded_by_id, new.status) == ("superseded", new.id, "active")
    with session_scope() as session:
        why = session.scalar(
            select(LessonHistory.reason).where(
                LessonHistory.lesson_id == old.id, LessonHistory.op == "DELETE"
            )
        )
    assert why is not None and "reversed" in why and "other words" in why, why
    shop = _lessons(tenant, "shop")
    assert sorted(shop) == [ids[2], ids[3]]
    assert {lesson.status for lesson in shop.values()} == {"active"}


def test_a_change_in_other_words_supersedes_in_the_embedded_default(
    sqlite_env: str, tenant: str
) -> None:
    ids = []
    for agent, question, answer in STREAM:
        ids.append(digest.record_answer(tenant, agent, question=question, answer=answer))
        drain()
    _check(tenant, ids)


def test_a_change_in_other_words_supersedes_through_a_worker(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    ids = []
    for agent, question, answer in STREAM:
        ids.append(digest.record_answer(tenant, agent, question=question, answer=answer))
        assert wait_for_event(ids[-1], DONE)["status"] == "reflected"
    _check(tenant, ids)
