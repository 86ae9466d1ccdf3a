"""``pitfalls``'s read on an agent's turn (digest.lessons.turn, issue 27): one statement when
nothing moved since the process's last turn for the agent, and never an older bank than the
database holds: a lesson written, a tenant's new gate and a lesson taken out between two turns
are read at the next one (PostgreSQL)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event, update

import digest
from digest.db import autocommit_engine, get_engine, session_scope
from digest.lessons.hits import flush_hits
from digest.models import Event, Lesson, LessonEvidence
from digest.tenants import set_tenant
from tests.conftest import manual_lesson

AGENT = "bot"
PROMPT = "the parcel for the wombat sanctuary is late"


@contextmanager
def statements_of_this_thread() -> Iterator[list[str]]:
    """The statements this thread sends while the block runs (the hit counts, written by a
    thread of their own after the call, are not the turn's)."""
    mine = threading.get_ident()
    seen: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if threading.get_ident() == mine:
            seen.append(statement)

    engines = {get_engine(), autocommit_engine()}
    for engine in engines:
        event.listen(engine, "before_cursor_execute", note)
    try:
        yield seen
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", note)


def shown(block: str) -> list[int]:
    return [int(part.split(")")[0]) for part in block.split("(#")[1:]]


def test_a_turn_reads_once_when_nothing_moved(services_env: dict[str, str], tenant: str) -> None:
    parcel = manual_lesson(tenant, AGENT, "wombat parcels: ask the sanctuary for a dock slot")
    manual_lesson(tenant, AGENT, "greetings: say hello first")
    assert shown(digest.pitfalls(tenant, AGENT, PROMPT)) == [parcel]  # the first turn
    flush_hits()
    with statements_of_this_thread() as seen:
        assert shown(digest.pitfalls(tenant, AGENT, PROMPT)) == [parcel]
    assert len(seen) == 1, seen
    assert "lesson_epoch" in seen[0] and "FROM agents" in seen[0], seen
    flush_hits()
    with statements_of_this_thread() as seen:  # nothing ranks: the epoch is still read
        assert digest.pitfalls(tenant, AGENT, "zebra crossing paperwork") == ""
    assert len(seen) == 1, seen


def test_a_lesson_written_between_turns_is_read_at_the_next(
    services_env: dict[str, str], tenant: str
) -> None:
    manual_lesson(tenant, AGENT, "greetings: say hello first")
    assert digest.pitfalls(tenant, AGENT, PROMPT) == ""
    parcel = manual_lesson(tenant, AGENT, "wombat parcels: ask the sanctuary for a dock slot")
    assert shown(digest.pitfalls(tenant, AGENT, PROMPT)) == [parcel]
    with session_scope() as session:  # taken out behind the index's back: no epoch moved
        session.execute(update(Lesson).where(Lesson.id == parcel).values(status="disabled"))
    assert digest.pitfalls(tenant, AGENT, PROMPT) == ""  # the row is read as of now


def test_a_tenant_s_new_gate_is_read_at_the_next_turn(
    services_env: dict[str, str], tenant: str
) -> None:
    trusted = manual_lesson(tenant, AGENT, "wombat parcels: ask the sanctuary for a dock slot")
    run_lesson = manual_lesson(tenant, AGENT, "wombat sanctuary parcels: label them fragile")
    with session_scope() as session:  # as if learned from one contact's run
        session.execute(
            update(Lesson)
            .where(Lesson.id == run_lesson)
            .values(trust="untrusted", independent_sources=1, source_span_s=0)
        )
    set_tenant(tenant, frequency_gate=2)
    assert shown(digest.pitfalls(tenant, AGENT, PROMPT, k=5)) == [trusted]
    assert shown(digest.pitfalls(tenant, AGENT, PROMPT, k=5)) == [trusted]  # read once
    set_tenant(tenant, frequency_gate=1)  # no lesson written: the epoch stands still
    assert sorted(shown(digest.pitfalls(tenant, AGENT, PROMPT, k=5))) == sorted(
        [trusted, run_lesson]
    )
    set_tenant(tenant, frequency_gate=2)
    assert shown(digest.pitfalls(tenant, AGENT, PROMPT, k=5)) == [trusted]


def test_examples_read_once_and_follow_a_lesson_taken_out(
    services_env: dict[str, str], tenant: str
) -> None:
    from digest.pipeline import drain
    from tests.conftest import lessons_for_event

    refund = digest.record_edit(
        tenant, AGENT, context="Customer wants a refund for a broken mug",
        original="We will refund you tomorrow.",
        final="Refunds for broken items take 5 working days once the mug is back with us.",
    )  # fmt: skip
    drain(tenant=tenant)
    assert [e.event_id for e in digest.examples(tenant, AGENT, "refund for a broken mug")] == [
        refund
    ]
    with statements_of_this_thread() as seen:
        found = digest.examples(tenant, AGENT, "refund for a broken mug")
    assert [e.event_id for e in found] == [refund]
    assert len(seen) == 1 and "FROM agents" in seen[0], seen
    with session_scope() as session:  # its lesson taken out: the edit is no longer accepted
        session.execute(
            update(Lesson)
            .where(Lesson.id.in_([x.id for x in lessons_for_event(refund)]))
            .values(status="disabled")
        )
    assert digest.examples(tenant, AGENT, "refund for a broken mug") == []
    assert digest.examples("no-such-tenant", AGENT, "refund for a broken mug") == []


def _cite_run(lesson_id: int, tools: list[str]) -> None:
    """Evidence for ``lesson_id``: a run of its agent that called ``tools``."""
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        run = Event(
            tenant_id=lesson.tenant_id, agent_id=lesson.agent_id, kind="run_outcome",
            payload={"outcome": "failure", "tool_calls": [{"tool": t} for t in tools]},
            trust="low", status="reflected",
        )  # fmt: skip
        session.add(run)
        session.flush()
        session.add(LessonEvidence(lesson_id=lesson_id, event_id=run.id, note="a run"))


def test_a_lesson_s_run_names_are_read_again_when_new_evidence_cites_it(
    services_env: dict[str, str], tenant: str
) -> None:
    """The names a lesson from run text may say are remembered per lesson while its evidence
    stands: a run that cites it later (a tool it names now called) is read at the next turn."""
    parcel = manual_lesson(tenant, AGENT, "wombat parcels: ask the sanctuary for a dock slot")
    with session_scope() as session:  # a reviewed lesson from runs: rendered as run text
        session.execute(
            update(Lesson)
            .where(Lesson.id == parcel)
            .values(
                trust="reviewed", source="run_outcome", title="Wombat parcels",
                correction="Call `dock_slot` before booking a wombat parcel.",
            )
        )  # fmt: skip
    _cite_run(parcel, ["track_parcel"])
    # its runs never called `dock_slot`: the sentence naming it may not be said, and with no
    # correction left the lesson is not rendered
    assert digest.pitfalls(tenant, AGENT, PROMPT) == ""
    assert digest.pitfalls(tenant, AGENT, PROMPT) == ""  # (remembered, same answer)
    _cite_run(parcel, ["dock_slot"])
    block = digest.pitfalls(tenant, AGENT, PROMPT)
    assert shown(block) == [parcel] and "`dock_slot`" in block, block
