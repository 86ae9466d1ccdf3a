"""digest.lessons.neighbours: the active lessons of one agent most like a candidate.

The agent's index is kept per process and epoch (a search at the same epoch reads no lesson),
follows every write to a lesson, and ranks the same on both databases."""

from __future__ import annotations

from typing import Any

from sqlalchemy import event, select, text, update
from sqlalchemy.orm import Session

import digest
from digest.db import autocommit_engine, get_engine, session_scope
from digest.lessons.neighbours import find_neighbours, refresh_kept
from digest.lessons.owner import reset_lessons, set_lesson_status
from digest.lessons.store import Candidate, supersede_lesson, update_lesson
from digest.lessons.transition import bump_epoch
from digest.models import Event, Lesson, LessonEvidence
from digest.reflect.compact import compact
from digest.text import lesson_text
from tests.conftest import manual_lesson

AGENT = "bot"
#: how the index's reads of lesson rows begin (``digest.lessons.bank._rows_query``)
INDEX_READ = "SELECT lessons.id, lessons.title, lessons.situation, lessons.mistake"
#: a search's read of its hits' texts, by id (the kept index holds no title, situation,
#: mistake or correction)
TEXTS_READ = (
    "SELECT lessons.id, lessons.title, lessons.situation, lessons.mistake, lessons.correction,"
    " lessons.tags \nFROM lessons \nWHERE lessons.id IN ("
)


def bank_reads(statements: list[str]) -> list[str]:
    """The statements that read lesson rows but the hits' texts."""
    return [s for s in statements if "FROM lessons" in s and not s.startswith(TEXTS_READ)]


def texts_reads(statements: list[str]) -> list[str]:
    return [s for s in statements if s.startswith(TEXTS_READ)]


def first_lesson(tenant: str, agent: str = AGENT, line: str = "seed: seed lesson") -> Lesson:
    """A manual lesson, which also creates the tenant and the agent."""
    lesson_id = manual_lesson(tenant, agent, line)
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        return lesson


def bulk_lessons(session: Session, anchor: Lesson, n: int, situation: str, correction: str) -> None:
    """``n`` active lessons for the anchor's agent; ``situation`` and ``correction`` are SQL
    expressions of the series number ``g``."""
    session.execute(
        text(
            "INSERT INTO lessons (tenant_id, agent_id, scope, slug, title, situation,"
            " correction, tags, source, outcome, confidence, support_count, success_count,"
            " failure_count, hit_count, status, created_at, updated_at)"
            f" SELECT :t, :a, 'agent', 'bulk-' || g, 'bulk ' || g, {situation}, {correction},"
            " '[]'::jsonb, 'manual_lesson', 'mixed', 0.5, 1, 0, 0, 0, 'active', now(), now()"
            " FROM generate_series(1, :n) AS g"
        ),
        {"t": anchor.tenant_id, "a": anchor.agent_id, "n": n},
    )


def citing_event(session: Session, lesson_id: int) -> Event:
    return session.scalars(
        select(Event).join(LessonEvidence).where(LessonEvidence.lesson_id == lesson_id)
    ).one()


def neighbour_ids(anchor: Lesson, probe: str) -> list[int]:
    with session_scope() as session:
        return [
            n.lesson_id for n in find_neighbours(session, anchor.tenant_id, anchor.agent_id, probe)
        ]


def test_the_index_is_kept_per_epoch_and_only_new_rows_are_read_after_a_write(
    services_env: dict[str, str], tenant: str
) -> None:
    anchor = first_lesson(tenant)
    with session_scope() as session:
        bulk_lessons(
            session, anchor, 2000,
            "'When calling ' || (array['refund','shipping','lookup','ticket','invoice'])"
            "[1 + g % 5] || ' for customer ' || g",
            "'Check the ' || (array['amount','order id','tracking code','currency','size'])"
            "[1 + (g / 5) % 5] || ' before case ' || md5(g::text)",
        )  # fmt: skip
    probe = "When calling refund for customer 42: check the amount"
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", seen)
    try:
        with session_scope() as session:  # first search: the whole bank is read once
            find_neighbours(session, anchor.tenant_id, anchor.agent_id, probe)
        first = [s for s in statements if "FROM lessons" in s]
        assert first, statements
        statements.clear()
        with session_scope() as session:  # same epoch: no lesson row is read but the hits'
            found = find_neighbours(session, anchor.tenant_id, anchor.agent_id, probe)
        assert not bank_reads(statements), statements
        assert len(texts_reads(statements)) == 1, statements
        assert found
        with session_scope() as session:  # a write moves the epoch
            bump_epoch(session, anchor.agent_id)
        statements.clear()
        with session_scope() as session:
            find_neighbours(session, anchor.tenant_id, anchor.agent_id, probe)
        read = bank_reads(statements)
        assert len(read) == 1 and "updated_at >=" in read[0], read  # only the rows since
    finally:
        event.remove(engine, "before_cursor_execute", seen)


def test_a_write_refreshes_the_kept_index_so_the_next_search_reads_no_lesson(
    services_env: dict[str, str], tenant: str
) -> None:
    anchor = first_lesson(tenant)
    other = first_lesson(tenant, "never-searched")
    probe = "seed lesson"
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    # the refresh reads through ``read_scope``, whose engine on PostgreSQL is the autocommit
    # one: both are watched
    engines = {get_engine(), autocommit_engine()}
    with session_scope() as session:
        find_neighbours(session, anchor.tenant_id, anchor.agent_id, probe)
        bump_epoch(session, anchor.agent_id)  # a write, committed with this scope
    for engine in engines:
        event.listen(engine, "before_cursor_execute", seen)
    try:
        refresh_kept(other.agent_id)  # not kept here: nothing is built, nothing read
        assert not statements, statements
        refresh_kept(anchor.agent_id)  # after the write, as the pipeline does
        assert [s for s in statements if "FROM lessons" in s], statements
        statements.clear()
        with session_scope() as session:  # the agent's next turn: its index is current
            found = find_neighbours(session, anchor.tenant_id, anchor.agent_id, probe)
        assert not bank_reads(statements), statements
        assert [n.lesson_id for n in found] == [anchor.id]
    finally:
        for engine in engines:
            event.remove(engine, "before_cursor_execute", seen)


def test_the_overlay_is_folded_into_the_kept_index_without_reading_the_bank_again(
    services_env: dict[str, str], tenant: str, monkeypatch: Any
) -> None:
    from digest.lessons import bank as kept
    from digest.runtime import runtime

    monkeypatch.setattr(kept, "DELTA_FOLD", 2)
    anchor = first_lesson(tenant, AGENT, "seed: a seed lesson about parcels")
    assert neighbour_ids(anchor, "seed lesson about parcels") == [anchor.id]  # index kept
    statements: list[str] = []

    def seen(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        statements.append(statement)

    engine = get_engine()
    event.listen(engine, "before_cursor_execute", seen)
    try:
        added = [
            manual_lesson(tenant, AGENT, f"topic{i}: lesson number {i} about wombat{i}")
            for i in range(5)
        ]
        for i, lesson_id in enumerate(added):  # each search follows the writes before it
            assert neighbour_ids(anchor, f"lesson number {i} about wombat{i}")[0] == lesson_id
        with session_scope() as session:
            set_lesson_status(session, tenant, AGENT, added[0], "disabled")
        assert added[0] not in neighbour_ids(anchor, "lesson number 0 about wombat0")
        assert neighbour_ids(anchor, "seed lesson about parcels")[0] == anchor.id
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    # the index read only changed rows: never the whole bank again (a build filters on status)
    index_reads = [s for s in statements if s.startswith(INDEX_READ)]
    assert index_reads and not [s for s in index_reads if "lessons.status = " in s]
    banks = runtime().piece(kept._Banks).by_agent
    (bank,) = [b for key, b in banks.items() if key[1] == anchor.agent_id]
    held = {e.lesson_id for e in bank.index.entries} - bank.hidden
    held |= {e.lesson_id for e in bank.delta}
    assert held == {anchor.id, *added[1:]}
    assert len(bank.delta) <= 2 and len(bank.index.entries) > 2  # folded in, not overlaid


def test_exact_repeat_is_found_among_lessons_of_the_same_words(
    services_env: dict[str, str], tenant: str
) -> None:
    # 2,000 lessons, each the same eight words in its own order: every word and nearly every
    # word pair is common, and relevance (a token-set ratio) is 1.0 for all of them. Only the
    # whole-text key tells the repeated one apart.
    anchor = first_lesson(tenant)
    words = "array['refund','order','customer','check','amount','before','ticket','always']"
    shuffled = f"(SELECT string_agg(w, ' ' ORDER BY md5(g || w)) FROM unnest({words}) AS w)"
    with session_scope() as session:
        bulk_lessons(session, anchor, 2000, shuffled, "'Ask the manager'")
        target = session.scalars(
            select(Lesson).where(Lesson.agent_id == anchor.agent_id, Lesson.slug == "bulk-1234")
        ).one()
        repeat = lesson_text(target.situation.upper(), target.correction + ".")
    with session_scope() as session:
        neighbours = find_neighbours(session, anchor.tenant_id, anchor.agent_id, repeat, 5)
    assert neighbours[0].lesson_id == target.id
    assert neighbours[0].identity == 1.0
    assert all(n.relevance == 1.0 for n in neighbours)  # the others share every word


def test_paraphrase_is_found_in_a_large_bank(services_env: dict[str, str], tenant: str) -> None:
    anchor = first_lesson(tenant)
    with session_scope() as session:
        bulk_lessons(
            session, anchor, 2000,
            "'When a customer asks about order ' || md5(g::text)",
            "'Check the ' || (array['amount','tracking code','currency'])[1 + g % 3]"
            " || ' before replying to ticket ' || md5((g * 7)::text)",
        )  # fmt: skip
        target = session.scalars(
            select(Lesson).where(Lesson.agent_id == anchor.agent_id, Lesson.slug == "bulk-777")
        ).one()
    # Words dropped, one replaced, case and punctuation changed.
    situation = target.situation.replace("When a customer asks about", "If the client asks about")
    correction = target.correction.replace("Check the", "first, CHECK").replace(" to ", " ")
    assert neighbour_ids(anchor, lesson_text(situation, correction))[0] == target.id


def test_neighbours_never_come_from_another_agent_or_tenant(
    services_env: dict[str, str], tenant: str
) -> None:
    line = "refunds: ask a manager before refunding more than 200 EUR"
    mine = first_lesson(tenant, AGENT, line)
    colleague = first_lesson(tenant, "other-bot", line)
    stranger = first_lesson(f"{tenant}-x", AGENT, line)
    found = neighbour_ids(mine, lesson_text(mine.situation, mine.correction))
    assert found == [mine.id]
    assert {colleague.id, stranger.id}.isdisjoint(found)


def test_the_search_follows_every_write_to_a_lesson(
    services_env: dict[str, str], tenant: str
) -> None:
    refund = first_lesson(tenant, AGENT, "refunds: ask a manager before refunding above 200 EUR")
    shipping = manual_lesson(tenant, AGENT, "shipping: Norway ships from the Oslo depot")
    assert neighbour_ids(refund, "refunds above 200 EUR need a manager")[0] == refund.id

    # UPDATE: the new words find it, the words it lost no longer do.
    with session_scope() as session:
        lesson, event = session.get(Lesson, refund.id), citing_event(session, refund.id)
        assert lesson is not None
        update_lesson(
            session, lesson, Candidate("gift cards", "gift cards are never refundable"),
            event=event, reason="test", model=None, prompt_hash=None,
        )  # fmt: skip
    assert refund.id in neighbour_ids(refund, "gift cards never refundable")
    assert refund.id not in neighbour_ids(refund, "manager 200 EUR")

    # Owner status changes: disabled lessons are not found, enabled ones are again.
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, refund.id, "disabled")
    assert refund.id not in neighbour_ids(refund, "gift cards never refundable")
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, refund.id, "active")
    assert refund.id in neighbour_ids(refund, "gift cards never refundable")

    # DELETE (supersede) by reconciliation.
    with session_scope() as session:
        old, new = session.get(Lesson, refund.id), session.get(Lesson, shipping)
        assert old is not None and new is not None
        event = citing_event(session, shipping)
        supersede_lesson(
            session, old, new, event=event, reason="test", model=None, prompt_hash=None
        )
    assert refund.id not in neighbour_ids(refund, "gift cards never refundable")

    # Compaction merges a duplicate (the manual path adds without reconciling).
    # (under another name: the same lesson word for word would only add support)
    twin = manual_lesson(tenant, AGENT, "shipping-no: Norway ships from the Oslo depot")
    assert neighbour_ids(refund, "Norway ships from the Oslo depot") == [shipping, twin]
    assert compact(tenant, AGENT).merged == [(twin, shipping)]
    assert neighbour_ids(refund, "Norway ships from the Oslo depot") == [shipping]

    # A hand-written UPDATE by an operator is followed too.
    with session_scope() as session:
        session.execute(
            update(Lesson).where(Lesson.id == shipping).values(correction="Sweden ships from Malmo")
        )
    assert neighbour_ids(refund, "Sweden ships from Malmo") == [shipping]

    # Reset soft-deletes everything: nothing of the agent is found any more.
    with session_scope() as session:
        assert reset_lessons(session, tenant, AGENT) == 3  # two superseded, one active
    assert neighbour_ids(refund, "Sweden ships from Malmo") == []


# --- the embedded default (SQLite) ---------------------------------------------------------------


def test_sqlite_ranks_the_agents_active_unexpired_lessons(sqlite_env: str, tenant: str) -> None:
    from datetime import timedelta

    from digest.models import utcnow

    refund = first_lesson(tenant, AGENT, "refunds: ask a manager before refunding above 200 EUR")
    close = manual_lesson(tenant, AGENT, "refunds: ask a manager before any refund")
    expired = manual_lesson(tenant, AGENT, "refunds: ask a manager above 200 EUR")
    disabled = manual_lesson(tenant, AGENT, "refunds: ask before refunding above 200 EUR")
    digest.record_lesson(tenant, "other-bot", "refunds: ask a manager before refunding above 200")
    digest.record_lesson(tenant, AGENT, "shipping: Norway ships from Oslo")
    with session_scope() as session:
        session.execute(
            update(Lesson).where(Lesson.id == expired).values(expires_at=utcnow() - timedelta(1))
        )
        session.execute(update(Lesson).where(Lesson.id == disabled).values(status="disabled"))
    probe = lesson_text(refund.situation, refund.correction)
    with session_scope() as session:
        found = find_neighbours(session, refund.tenant_id, refund.agent_id, probe, k=2)
    assert [n.lesson_id for n in found] == [refund.id, close]
    assert (found[0].relevance, found[0].identity) == (1.0, 1.0)
    assert found[1].relevance > found[1].identity


def test_a_bank_stamped_all_at_once_is_overlaid_without_listing_every_row(
    services_env: dict[str, str], tenant: str
) -> None:
    """Thousands of lessons stamped by one transaction (a bulk import, a reset) within the
    overlay's margin: the next write's overlay read compares their stamps here instead of
    sending every (id, stamp) pair as one NOT IN, which PostgreSQL refused ("stack depth
    limit exceeded") and so failed every reflection of the agent for two minutes."""
    anchor = first_lesson(tenant)
    with session_scope() as session:
        bulk_lessons(session, anchor, 10_000, "'bulk situation ' || g", "'bulk correction ' || g")
        bump_epoch(session, anchor.agent_id)
    probe = "refunds above 200 EUR need a manager"
    assert neighbour_ids(anchor, probe)  # the kept index: every row read, all stamped alike
    written = manual_lesson(tenant, AGENT, "refunds: above 200 EUR need a manager's approval")
    found = neighbour_ids(anchor, probe)  # an overlay read past 10,001 recent stamps
    assert found[0] == written
