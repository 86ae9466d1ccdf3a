"""digest.forget (issue 29 point 2): after forgetting a contact no table holds any string of
theirs, on PostgreSQL and SQLite; lessons learned only from them are retired, a lesson with
other evidence is recounted, the version that folded a retired lesson is recomposed, and
neither an export nor the report quotes them. The pipeline runs in this process (drain)."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from sqlalchemy import LargeBinary, MetaData, Text, cast, or_, select

import digest
from digest.db import get_engine, session_scope
from digest.forget import MARK, RECOMPOSED_NOTE, forget, subject_hash
from digest.lessons.holdout import flush_exposures
from digest.models import Forgotten, LearningVersion, Lesson
from digest.pipeline import drain
from digest.questions.queue import answer_question
from digest.versions.compose import compose_version
from tests.cli.conftest import run_cli
from tests.conftest import agent_id_of

AGENT = "bot"
COURIER_ERROR = "ValidationError: field 'carrier_code' is required"


def capture(tenant: str, marker: str, gone: str, stays: list[str]) -> None:
    """The forgotten contact: a failure only they had, one they share with two others, an
    edit, an owner answer to their question, and a question they asked; everything quotes
    ``marker``. The others: the shared failure, and a question of their own."""
    for i in range(2):
        digest.record_run(
            tenant, AGENT, task=f"Ship parcel {marker} to depot {i}", outcome="failure",
            tool_calls=[{"tool": "ship_parcel", "ok": False, "error": f"depot {marker} unknown"}],
            contact_id=gone, thread_id=f"th-{marker}-{i}",
        )  # fmt: skip
    digest.record_run(
        tenant, AGENT, task=f"Book a courier for {marker} parcel", outcome="failure",
        tool_calls=[{"tool": "book_courier", "ok": False, "error": COURIER_ERROR}],
        contact_id=gone,
    )  # fmt: skip
    for other in stays:
        digest.record_run(
            tenant, AGENT, task="Book a courier for order 12", outcome="failure",
            tool_calls=[{"tool": "book_courier", "ok": False, "error": COURIER_ERROR}],
            contact_id=other,
        )  # fmt: skip
    digest.record_edit(
        tenant, AGENT, original=f"Dear {marker}, your refund is late",
        final=f"Dear {marker}, your refund is on its way today", contact_id=gone,
    )  # fmt: skip
    digest.record_answer(
        tenant, AGENT, question=f"Where does {marker} keep spare keys?",
        answer=f"Ask {marker} at the front desk of the Oslo office", contact_id=gone,
    )  # fmt: skip
    asked = digest.ask(tenant, AGENT, f"Can {marker} get a bulk discount?", contact_id=gone,
                       context=f"customer {marker} asks")  # fmt: skip
    assert asked.question_id is not None
    # the owner's answer quotes their question: it stays, without their words
    answer_question(tenant, asked.question_id, "Yes, 10% above 50 units.", by="ann")
    digest.ask(tenant, AGENT, "Do we ship to Norway?", contact_id=stays[0])


def holders(needles: list[str]) -> list[str]:
    """``table.column: value`` of every cell in the database that holds one of ``needles``:
    every column of every table, cast to text (binary columns searched as bytes). One query
    per table."""
    engine = get_engine()
    meta = MetaData()
    meta.reflect(engine)
    found: list[str] = []
    with engine.connect() as conn:
        for table in meta.tables.values():
            binary = [c for c in table.columns if isinstance(c.type, LargeBinary)]
            texts = [c for c in table.columns if c not in binary]
            hit = or_(*(cast(c, Text).contains(n) for c in texts for n in needles))
            for row in conn.execute(select(*texts).where(hit)):
                found += [
                    f"{table.name}.{c.name}: {str(v)[:120]}"
                    for c, v in zip(texts, row, strict=True)
                    if v is not None and any(n in str(v) for n in needles)
                ]
            for column in binary:
                for (value,) in conn.execute(select(column).where(column.is_not(None))):
                    found += [f"{table.name}.{column.name}" for n in needles if n.encode() in value]
    return found


def run_and_forget(tenant: str, tmp_path: Path) -> None:
    marker = f"zq{uuid.uuid4().hex[:10]}"  # lower case: slugs and cues keep it whole
    gone, stays = f"cust-{marker}", [f"keep-{uuid.uuid4().hex[:6]}", f"keep-{uuid.uuid4().hex[:6]}"]
    capture(tenant, marker, gone, stays)
    drain(tenant=tenant)
    agent_id = agent_id_of(tenant, AGENT)
    first = compose_version(agent_id, "manual")
    assert first.status == "created" and first.version_status == "active"
    # a turn of theirs in the randomized holdout: its id names them (the agent's own id)
    turn = f"turn-{marker}"
    digest.pitfalls(tenant, AGENT, "Book a courier", turn_id=turn)  # shown or withheld
    digest.record_run(
        tenant, AGENT, task="Book a courier", outcome="success", turn_id=turn, contact_id=gone
    )
    assert flush_exposures()
    assert any(h.startswith("holdout_exposures.") for h in holders([marker]))
    assert holders([marker, gone]), "the capture left nothing to forget: the test proves nothing"
    with session_scope() as session:
        shared = session.scalars(
            select(Lesson).where(Lesson.agent_id == agent_id, Lesson.title.contains("book_courier"))
        ).one()
        shared_id, support_before = shared.id, shared.support_count

    done = forget(tenant, contact=gone, by="dpo@example.com")

    assert holders([marker, gone]) == []
    assert done.counts["events"] == 6 and done.counts["question_asks"] == 1
    assert done.counts["holdout_exposures"] >= 1
    assert done.counts["answer_events"] == 1
    assert done.retired_lessons and shared_id not in done.retired_lessons
    assert shared_id in done.recounted_lessons
    assert len(done.composed_versions) == 1
    with session_scope() as session:
        for lesson_id in done.retired_lessons:
            retired = session.get(Lesson, lesson_id)
            assert retired is not None
            assert (retired.status, retired.title, retired.correction) == ("deleted", MARK, MARK)
        shared = session.get(Lesson, shared_id)
        assert shared is not None and shared.status == "active"
        assert shared.support_count == support_before - 1 == len(stays)
        assert shared.independent_sources == len(stays)
        new = session.get(LearningVersion, done.composed_versions[0])
        assert new is not None and new.change_summary.startswith(RECOMPOSED_NOTE)
        assert not set(new.folded_lesson_ids) & set(done.retired_lessons)
        assert shared_id in new.folded_lesson_ids
        audit = session.scalars(select(Forgotten).where(Forgotten.id == done.audit_id)).one()
        assert audit.subject_hash == subject_hash("contact", gone)
        assert audit.by == "dpo@example.com" and audit.counts["events"] == 6

    # an export and the report quote nothing of them
    out = tmp_path / "export"
    assert (
        run_cli("export", "--tenant", tenant, "--agent", AGENT, "--out", str(out)).returncode == 0
    )
    exported = "".join(p.read_text() for p in out.rglob("*.md"))
    assert "book_courier" in exported  # the surviving lesson is exported
    assert marker not in exported and gone not in exported
    report = run_cli("report", "--tenant", tenant, "--agent", AGENT, "--json")
    assert report.returncode == 0 and "book_courier" in report.stdout
    assert marker not in report.stdout and gone not in report.stdout
    with session_scope() as session:  # the owner's answer is still known, without their words
        facts = session.scalars(
            select(Lesson.title).where(Lesson.agent_id == agent_id, Lesson.status == "active")
        ).all()
        assert any(MARK in title for title in facts), facts

    again = forget(tenant, contact=gone)
    assert again.nothing and again.audit_id is None


def test_forget_leaves_no_string_on_sqlite(sqlite_env: str, tenant: str, tmp_path: Path) -> None:
    run_and_forget(tenant, tmp_path)


def test_forget_leaves_no_string_on_postgres(
    services_env: dict[str, str], tenant: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from digest.outbox.publish import reset_publisher

    monkeypatch.delenv("DIGEST_BROKER_URL")  # reflected here: nothing queued for any worker
    reset_publisher()
    run_and_forget(tenant, tmp_path)


def test_forget_one_event_keeps_the_contacts_others(sqlite_env: str, tenant: str) -> None:
    gone, kept = (f"zq{uuid.uuid4().hex[:10]}" for _ in range(2))
    first = digest.record_run(
        tenant, AGENT, task=f"Ship parcel {gone}", outcome="failure", contact_id="ann-1182",
        tool_calls=[{"tool": "ship_parcel", "ok": False, "error": f"depot {gone} unknown"}],
    )  # fmt: skip
    digest.record_run(
        tenant, AGENT, task=f"Book a courier for {kept}", outcome="failure",
        contact_id="ann-1182",
        tool_calls=[{"tool": "book_courier", "ok": False, "error": COURIER_ERROR}],
    )  # fmt: skip
    drain(tenant=tenant)
    assert holders([gone])

    done = forget(tenant, event_id=first)

    assert holders([gone]) == []
    assert done.counts["events"] == 1 and len(done.retired_lessons) == 1
    # the contact's other event, and their id on it, stay
    assert any(h.startswith("events.payload") for h in holders([kept]))
    assert any(h.startswith("events.contact_id") for h in holders(["ann-1182"]))
