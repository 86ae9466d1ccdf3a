"""An owner's change reported to the same question asked again supersedes the fact it
reverses, through the one reflect core, in the embedded default and through a worker (issue
24: the old lesson ``superseded``, the new one active, the history says why); a change
reported about another subject (credit cards beside parking) or a look-alike (gift cards
beside gift wrapping) supersedes nothing: the offline rules never guess which fact a change
is about."""

from __future__ import annotations

from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.models import LessonHistory
from digest.pipeline import drain
from tests.conftest import WorkerProcess, wait_for_event
from tests.reflect.helpers import lessons_by_event

DONE = {"reflected", "skipped", "failed", "dead"}

#: (agent, question, answer) in the order the owners gave them
STREAM = [
    ("salon", "Do you take walk-ins?", "Yes, walk-ins are welcome any time we are open."),
    ("salon", "Do you still take walk-ins?", "Not anymore: appointments only."),
    ("shop", "Do you offer gift wrapping?", "Yes, gift wrapping costs €2 per item."),
    ("shop", "Do you sell gift cards?", "No longer: gift cards were discontinued in May."),
    ("cafe", "Do you have parking?", "Yes, free parking behind the building."),
    ("cafe", "Do you accept credit cards?", "Not anymore: since March we only take cash."),
]


def _check(tenant: str, ids: list[int]) -> None:
    salon = lessons_by_event(tenant, "salon")
    old, new = salon[ids[0]], salon[ids[1]]
    assert (old.status, old.superseded_by_id, new.status) == ("superseded", new.id, "active")
    with session_scope() as session:
        why = session.scalar(
            select(LessonHistory.reason).where(
                LessonHistory.lesson_id == old.id, LessonHistory.op == "DELETE"
            )
        )
    assert why is not None and "reversed" in why, why
    for agent, first in (("shop", 2), ("cafe", 4)):
        lessons = lessons_by_event(tenant, agent)
        assert sorted(lessons) == [ids[first], ids[first + 1]], agent
        assert {lesson.status for lesson in lessons.values()} == {"active"}, agent


def test_a_reported_change_supersedes_only_its_own_fact_in_the_embedded_default(
    sqlite_env: str, tenant: str
) -> None:
    ids = []
    for agent, question, answer in STREAM:
        ids.append(digest.record_answer(tenant, agent, question=question, answer=answer))
        drain()
    _check(tenant, ids)


def test_a_reported_change_supersedes_only_its_own_fact_through_a_worker(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    ids = []
    for agent, question, answer in STREAM:
        ids.append(digest.record_answer(tenant, agent, question=question, answer=answer))
        assert wait_for_event(ids[-1], DONE)["status"] == "reflected"
    _check(tenant, ids)
