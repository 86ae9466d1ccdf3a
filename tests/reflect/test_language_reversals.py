"""Through the one reflect core, in the embedded default and through a worker (issue 24): a
Hungarian tool reversal and an Indonesian owner reversal supersede what they reverse (the
old lesson ``superseded``, the new one active, the history says why); a Romanian reversal of
another field of the same tool and a Norwegian "ikke lenger" about another day stay apart; a
German owner answer that ended a service ("haben wir eingestellt"), a Swedish one dated by a
season ("sedan i våras") and a Spanish one stating a switch ("nos hemos pasado al pago con
tarjeta"), each asked in other words than the fact it may reverse, reach the judge (and the
offline rules keep both)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from digest.db import session_scope
from digest.models import DigestRun, LessonHistory
from tests.conftest import WorkerProcess
from tests.reflect.helpers import failed_run as _run
from tests.reflect.helpers import lessons_by_event, play


def _answer(question: str, answer: str) -> dict[str, Any]:
    return {"question": question, "answer": answer}


#: (agent, kind, payload) in order, two events per agent
STREAM: list[tuple[str, str, dict[str, Any]]] = [
    # reversals: supersede
    ("hu", "run", _run("rendeles_felvetel", {"tetel": "A-17"}, "Hiba: a 'megye' mező kötelező")),
    ("hu", "run", _run("rendeles_felvetel", {"tetel": "B-02", "megye": "Pest"},
                       "Hiba: a 'megye' mező már nem használható, helyette 'regio' kell")),
    ("id", "answer", _answer("Apakah ada wifi gratis?", "Ya, untuk semua tamu.")),
    ("id", "answer", _answer("Apakah wifi masih gratis?", "Tidak lagi, sekarang wifi berbayar.")),
    # look-alikes: two lessons each
    ("ro", "run", _run("emite_aviz", {"nr": 11}, "Eroare: câmpul 'cnp' este obligatoriu")),
    ("ro", "run", _run("emite_aviz", {"nr": 12, "cnp": "1800101"},
                       "Eroare: câmpul 'telefon' nu mai este acceptat; folosiți 'email'")),
    ("no", "answer", _answer("Har dere åpent på lørdager?", "Ja, fra 10 til 14.")),
    ("no", "answer", _answer("Har dere åpent på søndager?", "Nei, ikke lenger.")),
    # a service ended, asked in other words: asked, kept apart by the rules
    ("de", "answer", _answer("Holen Sie Altglas ab?", "Ja, jeden Dienstag.")),
    ("de", "answer", _answer("Nehmen Sie meine leeren Flaschen mit?",
                             "Nein, den Abholservice haben wir eingestellt.")),
    # a change dated by a season, and a switch stated as done, each asked in other words:
    # asked too, kept apart by the rules
    ("sv", "answer", _answer("Har ni uteservering?", "Ja, på baksidan.")),
    ("sv", "answer", _answer("Kan man äta ute på gården?", "Nej, sedan i våras är gården stängd.")),
    ("es", "answer", _answer("¿Aceptan efectivo?", "Sí, claro.")),
    ("es", "answer", _answer("¿Puedo pagar con billetes?",
                             "No, nos hemos pasado al pago con tarjeta.")),
]  # fmt: skip


def _check(tenant: str, ids: list[int]) -> None:
    for agent, first in (("hu", 0), ("id", 2)):
        lessons = lessons_by_event(tenant, agent)
        old, new = lessons[ids[first]], lessons[ids[first + 1]]
        assert (old.status, old.superseded_by_id, new.status) == ("superseded", new.id, "active")
        with session_scope() as session:
            why = session.scalar(
                select(LessonHistory.reason).where(
                    LessonHistory.lesson_id == old.id, LessonHistory.op == "DELETE"
                )
            )
        assert why and "reversed" in why, why
    for agent, first in (("ro", 4), ("no", 6), ("de", 8), ("sv", 10), ("es", 12)):
        lessons = lessons_by_event(tenant, agent)
        assert sorted(lessons) == [ids[first], ids[first + 1]], agent
        assert {lesson.status for lesson in lessons.values()} == {"active"}, agent
    for asked in (9, 11, 13):
        with session_scope() as session:
            runs = session.scalars(
                select(DigestRun).where(
                    DigestRun.event_id == ids[asked], DigestRun.kind == "reflect"
                )
            ).all()
        written = sum(r.n_add + r.n_update + r.n_delete + r.n_noop for r in runs)
        assert written > sum(r.n_fast_path for r in runs), STREAM[asked]


def test_reversals_in_more_languages_in_the_embedded_default(sqlite_env: str, tenant: str) -> None:
    ids = play(tenant, STREAM, worker=False)
    _check(tenant, ids)


def test_reversals_in_more_languages_through_a_worker(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    ids = play(tenant, STREAM, worker=True)
    _check(tenant, ids)
