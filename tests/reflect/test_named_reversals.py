"""Through the one reflect core, in the embedded default and through a worker (issue 24): a
tool's reversal of one named field supersedes the lesson about that field (the old lesson
``superseded``, the new one active, the history says why), never the lesson about another
field of the same tool; an owner's answer stating a change about another subject, or another
figure for a noun both answers share, is asked about and supersedes nothing."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from digest.db import session_scope
from digest.models import DigestRun, LessonHistory
from tests.conftest import WorkerProcess
from tests.reflect.helpers import failed_run as _run
from tests.reflect.helpers import lessons_by_event, play

#: (agent, kind, payload) in order; each agent's pair is one case
STREAM: list[tuple[str, str, dict[str, Any]]] = [
    # a reversal of the named field: supersedes
    ("bank", "run", _run("create_transfer", {"iban": "DE89370400440532013000"},
                         "422: field 'bic' is required for SEPA transfers")),
    ("bank", "run", _run("create_transfer", {"iban": "FR14200410", "bic": "PSSTFRPP"},
                         "422: 'bic' must not be sent for SEPA transfers any longer; the bank is "
                         "derived from the IBAN")),
    # a reversal of another field of the same tool: two lessons
    ("wire", "run", _run("create_transfer", {"iban": "US-88120", "amount": 2000},
                         "422: field 'reference' is required for international transfers")),
    ("wire", "run", _run("create_transfer", {"iban": "GB33BUKB", "reference": "PO-7781"},
                         "422: 'purpose_code' is no longer optional for international "
                         "transfers; send one of SALA, SUPP")),
    ("ops", "run", _run("deploy", {"service": "cart"}, 'Error: required flag(s) "image" not set')),
    ("ops", "run", _run("deploy", {"service": "payments-api", "replicas": 4},
                        "Error: flag --replicas is no longer accepted; replica counts come from "
                        "the autoscaler")),
    # owner answers about two subjects, the second stating a change or another figure
    ("shop", "answer", {"question": "Do you sell gift cards?", "answer": "Yes, in store."}),
    ("shop", "answer", {"question": "Do you do layaway?",
                        "answer": "Not anymore, we had to end layaway last year."}),
    ("school", "answer", {"question": "How long is a lesson?", "answer": "45 minutes each."}),
    ("school", "answer", {"question": "How long is the lunch break?",
                          "answer": "The lunch break lasts 30 minutes."}),
]  # fmt: skip


def _check(tenant: str, ids: list[int]) -> None:
    bank = lessons_by_event(tenant, "bank")
    old, new = bank[ids[0]], bank[ids[1]]
    assert (old.status, old.superseded_by_id, new.status) == ("superseded", new.id, "active")
    with session_scope() as session:
        why = session.scalar(
            select(LessonHistory.reason).where(
                LessonHistory.lesson_id == old.id, LessonHistory.op == "DELETE"
            )
        )
    assert why, why
    for agent, first in (("wire", 2), ("ops", 4), ("shop", 6), ("school", 8)):
        lessons = lessons_by_event(tenant, agent)
        assert sorted(lessons) == [ids[first], ids[first + 1]], agent
        assert {lesson.status for lesson in lessons.values()} == {"active"}, agent
    with session_scope() as session:
        # the owner's change and the other figure reached the judge (not the fast path)
        for event_id in (ids[7], ids[9]):
            runs = session.scalars(
                select(DigestRun).where(DigestRun.event_id == event_id, DigestRun.kind == "reflect")
            ).all()
            written = sum(r.n_add + r.n_update + r.n_delete + r.n_noop for r in runs)
            assert written > sum(r.n_fast_path for r in runs), event_id


def test_a_named_reversal_supersedes_only_its_own_field_in_the_embedded_default(
    sqlite_env: str, tenant: str
) -> None:
    ids = play(tenant, STREAM, worker=False)
    _check(tenant, ids)


def test_a_named_reversal_supersedes_only_its_own_field_through_a_worker(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    ids = play(tenant, STREAM, worker=True)
    _check(tenant, ids)
