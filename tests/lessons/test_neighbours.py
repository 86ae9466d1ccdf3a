"""digest.lessons.neighbours: the active lessons of one agent most like a candidate.

On PostgreSQL: the term index (migration 0004), how it is read (a bounded shortlist, never a
scan of the bank), and how it follows every write to a lesson. On SQLite: the agent's active
lessons scored in process, with the same ranking."""

from __future__ import annotations

from sqlalchemy import select, text, update
from sqlalchemy.orm import Session

import digest
from digest.db import session_scope
from digest.lessons.neighbours import find_neighbours, neighbour_query
from digest.lessons.owner import reset_lessons, set_lesson_status
from digest.lessons.store import Candidate, supersede_lesson, update_lesson
from digest.models import Event, Lesson, LessonEvidence
from digest.reflect.compact import compact
from digest.text import lesson_text

AGENT = "bot"


def first_lesson(tenant: str, agent: str = AGENT, line: str = "seed: seed lesson") -> Lesson:
    """A manual lesson, which also creates the tenant and the agent."""
    lesson_id = digest.record_lesson(tenant, agent, line)
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


def index_matches_active_lessons(agent_id: int) -> bool:
    """``lesson_terms`` holds exactly the terms of the agent's active lessons, nothing else."""
    with session_scope() as session:
        stored = {
            (row.lesson_id, row.term)
            for row in session.execute(
                text("SELECT lesson_id, term FROM lesson_terms WHERE agent_id = :a"),
                {"a": agent_id},
            )
        }
        expected = {
            (row.id, row.term)
            for row in session.execute(
                text(
                    "SELECT id, unnest(digest_lesson_terms(situation || ' ' || correction))"
                    " AS term FROM lessons WHERE agent_id = :a AND status = 'active'"
                ),
                {"a": agent_id},
            )
        }
    return bool(expected) and stored == expected


def citing_event(session: Session, lesson_id: int) -> Event:
    return session.scalars(
        select(Event).join(LessonEvidence).where(LessonEvidence.lesson_id == lesson_id)
    ).one()


def neighbour_ids(anchor: Lesson, probe: str) -> list[int]:
    with session_scope() as session:
        return [
            n.lesson_id for n in find_neighbours(session, anchor.tenant_id, anchor.agent_id, probe)
        ]


def test_neighbour_query_reads_the_term_index_not_the_bank(
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
        session.execute(text("ANALYZE lessons"))
        session.execute(text("ANALYZE lesson_terms"))
    with session_scope() as session:
        query = neighbour_query(
            session,
            anchor.tenant_id,
            anchor.agent_id,
            "When calling refund for customer 42: check the amount",
        )
        compiled = query.compile(session.get_bind(), compile_kwargs={"literal_binds": True})
        # The compiled text escapes "%" for the driver; an (empty) parameter tuple unescapes it.
        rows = session.connection().exec_driver_sql(f"EXPLAIN {compiled}", ())
        plan = "\n".join(row[0] for row in rows)
    assert "using pk_lesson_terms on lesson_terms" in plan, plan
    assert "Seq Scan on lesson_terms" not in plan, plan
    assert "Seq Scan on lessons" not in plan, plan


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


def test_term_index_follows_every_write_to_a_lesson(
    services_env: dict[str, str], tenant: str
) -> None:
    refund = first_lesson(tenant, AGENT, "refunds: ask a manager before refunding above 200 EUR")
    shipping = digest.record_lesson(tenant, AGENT, "shipping: Norway ships from the Oslo depot")
    agent_id = refund.agent_id
    assert index_matches_active_lessons(agent_id)  # ADD (the insert trigger)
    assert neighbour_ids(refund, "refunds above 200 EUR need a manager")[0] == refund.id

    # UPDATE: the new words find it, the words it lost no longer do.
    with session_scope() as session:
        lesson, event = session.get(Lesson, refund.id), citing_event(session, refund.id)
        assert lesson is not None
        update_lesson(
            session, lesson, Candidate("gift cards", "gift cards are never refundable"),
            event=event, reason="test", model=None, prompt_hash=None,
        )  # fmt: skip
    assert index_matches_active_lessons(agent_id)
    assert refund.id in neighbour_ids(refund, "gift cards never refundable")
    assert refund.id not in neighbour_ids(refund, "manager 200 EUR")

    # Owner status changes: disabled lessons leave the index, enabled ones come back.
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, refund.id, "disabled")
    assert index_matches_active_lessons(agent_id)
    assert refund.id not in neighbour_ids(refund, "gift cards never refundable")
    with session_scope() as session:
        set_lesson_status(session, tenant, AGENT, refund.id, "active")
    assert index_matches_active_lessons(agent_id)
    assert refund.id in neighbour_ids(refund, "gift cards never refundable")

    # DELETE (supersede) by reconciliation.
    with session_scope() as session:
        old, new = session.get(Lesson, refund.id), session.get(Lesson, shipping)
        assert old is not None and new is not None
        event = citing_event(session, shipping)
        supersede_lesson(
            session, old, new, event=event, reason="test", model=None, prompt_hash=None
        )
    assert index_matches_active_lessons(agent_id)
    assert refund.id not in neighbour_ids(refund, "gift cards never refundable")

    # Compaction merges a duplicate (the manual path adds without reconciling).
    twin = digest.record_lesson(tenant, AGENT, "shipping: Norway ships from the Oslo depot")
    assert neighbour_ids(refund, "Norway ships from the Oslo depot") == [shipping, twin]
    assert compact(tenant, AGENT).merged == [(twin, shipping)]
    assert index_matches_active_lessons(agent_id)
    assert neighbour_ids(refund, "Norway ships from the Oslo depot") == [shipping]

    # A hand-written UPDATE by an operator is followed too.
    with session_scope() as session:
        session.execute(
            update(Lesson).where(Lesson.id == shipping).values(correction="Sweden ships from Malmo")
        )
    assert index_matches_active_lessons(agent_id)
    assert neighbour_ids(refund, "Sweden ships from Malmo") == [shipping]

    # Reset soft-deletes everything: nothing of the agent is left in the index.
    with session_scope() as session:
        assert reset_lessons(session, tenant, AGENT) == 3  # two superseded, one active
        left = session.scalar(
            text("SELECT count(*) FROM lesson_terms WHERE agent_id = :a"), {"a": agent_id}
        )
    assert left == 0
    assert neighbour_ids(refund, "Sweden ships from Malmo") == []


# --- the embedded default (SQLite) ---------------------------------------------------------------


def test_sqlite_ranks_the_agents_active_unexpired_lessons(sqlite_env: str, tenant: str) -> None:
    from datetime import timedelta

    from digest.models import utcnow

    refund = first_lesson(tenant, AGENT, "refunds: ask a manager before refunding above 200 EUR")
    close = digest.record_lesson(tenant, AGENT, "refunds: ask a manager before any refund")
    expired = digest.record_lesson(tenant, AGENT, "refunds: ask a manager above 200 EUR")
    disabled = digest.record_lesson(tenant, AGENT, "refunds: ask before refunding above 200 EUR")
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
