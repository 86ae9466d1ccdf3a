"""Migration 0013 (issue 23) on PostgreSQL and SQLite: the term index of 0004 (``lesson_terms``,
its triggers and functions) and the extensions of 0002 (``pg_trgm``, ``btree_gist``) are gone
at head, and every lesson stays. Down one step, they are back as 0002 and 0004 made them, and
``lesson_terms`` holds the terms of every active lesson, those written after 0013 included; up
again, gone again. SQLite never had any of it: the migration leaves its schema as it was. An
extension that something else in the database uses is kept."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from alembic import command
from sqlalchemy import inspect, text

from digest.db import make_engine
from digest.migrate import alembic_config, revisions, upgrade

NOW = "2026-01-01 00:00:00+00:00"
FUNCTIONS = {"digest_normalise", "digest_lesson_terms", "digest_index_lesson_terms"}
TRIGGERS = {"lessons_index_terms_on_insert", "lessons_index_terms_on_update"}
EXTENSIONS = {"pg_trgm", "btree_gist"}


@pytest.fixture()
def fresh_pg(pg_admin: str) -> Iterator[str]:
    """An empty PostgreSQL database of its own: the schema goes up and down."""
    name = f"digest_m13_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield f"{pg_admin.rsplit('/', 1)[0]}/{name}".replace("postgresql://", "postgresql+psycopg://")
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


@pytest.fixture(params=["postgresql", "sqlite"])
def url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'm13.db'}"
    return str(request.getfixturevalue("fresh_pg"))


def _run(url: str, *statements: str) -> list[tuple[object, ...]]:
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            result = None
            for statement in statements:
                result = conn.execute(text(statement))
            return (
                [tuple(row) for row in result] if result is not None and result.returns_rows else []
            )
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def _indexes(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return {str(ix["name"]) for ix in inspect(engine).get_indexes("lessons")}
    finally:
        engine.dispose()


def _lesson(url: str, lesson_id: int, correction: str, status: str = "active") -> None:
    _run(
        url,
        "INSERT INTO lessons (id, tenant_id, agent_id, scope, slug, title, situation, "
        "correction, tags, source, trust, outcome, confidence, support_count, success_count, "
        "failure_count, hit_count, status, created_at, updated_at) VALUES "
        f"({lesson_id}, 1, 1, 'agent', 'l{lesson_id}', 't', 'Refunds,', '{correction}', '[]', "
        f"'manual_lesson', 'trusted', 'mixed', 0.5, 1, 0, 0, 0, '{status}', '{NOW}', '{NOW}')",
    )


def _seed(url: str) -> None:
    _run(
        url,
        "INSERT INTO tenants (id, name, learning_apply_mode, settings, created_at) "
        f"VALUES (1, 'acme', 'auto', '{{}}', '{NOW}')",
        "INSERT INTO agents (id, tenant_id, name, enable_learning, lesson_epoch, created_at) "
        f"VALUES (1, 1, 'bot', true, 0, '{NOW}')",
    )
    _lesson(url, 1, "Ask a MANAGER (kept)")
    _lesson(url, 2, "Ask a manager (off)", status="disabled")


def _lessons(url: str) -> list[tuple[object, ...]]:
    return _run(url, "SELECT id, correction, status FROM lessons ORDER BY id")


def _leftovers(url: str) -> set[str]:
    """What of 0002 and 0004 is in the PostgreSQL database: table, functions, triggers,
    extensions."""
    engine = make_engine(url)
    try:
        with engine.connect() as conn:
            found = set(inspect(conn).get_table_names()) & {"lesson_terms"}
            found |= set(
                conn.scalars(
                    text("SELECT proname FROM pg_proc WHERE proname = ANY(:names)"),
                    {"names": sorted(FUNCTIONS)},
                )
            )
            found |= set(
                conn.scalars(
                    text(
                        "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"
                        " AND tgrelid = 'lessons'::regclass"
                    )
                )
            )
            found |= set(
                conn.scalars(
                    text("SELECT extname FROM pg_extension WHERE extname = ANY(:names)"),
                    {"names": sorted(EXTENSIONS)},
                )
            )
            return found
    finally:
        engine.dispose()


def _indexed(url: str) -> set[object]:
    """The lessons ``lesson_terms`` holds terms of."""
    return {lesson for (lesson,) in _run(url, "SELECT DISTINCT lesson_id FROM lesson_terms")}


def _terms_match_active_lessons(url: str) -> bool:
    """``lesson_terms`` holds exactly the terms of the active lessons (PostgreSQL, before
    0013), as 0004's function computes them."""
    stored = set(_run(url, "SELECT lesson_id, term FROM lesson_terms"))
    expected = set(
        _run(
            url,
            "SELECT id, unnest(digest_lesson_terms(situation || ' ' || correction))"
            " FROM lessons WHERE status = 'active'",
        )
    )
    return bool(expected) and stored == expected


def test_0013_up_down_and_up_again_keeps_every_lesson(url: str) -> None:
    postgres = url.startswith("postgresql")
    upgrade(url, "0012")
    _seed(url)
    tables = _tables(url)
    if postgres:
        assert _leftovers(url) == {"lesson_terms"} | FUNCTIONS | TRIGGERS | EXTENSIONS
        assert _terms_match_active_lessons(url)
        assert _indexed(url) == {1}
    else:
        assert "lesson_terms" not in tables
    seeded = _lessons(url)

    upgrade(url)
    assert revisions(url) == ("0016", "0016")
    assert _lessons(url) == seeded
    assert _tables(url) == tables - {"lesson_terms"}
    if postgres:
        assert _leftovers(url) == set()
    else:
        assert _run(url, "PRAGMA foreign_key_check") == []
    # Lessons are written as before, with no trigger left to write anywhere else.
    _lesson(url, 3, "Ask a manager (later)")
    _run(url, "UPDATE lessons SET status = 'active' WHERE id = 2")
    written = _lessons(url)

    command.downgrade(alembic_config(url), "0012")
    assert _lessons(url) == written
    assert _tables(url) == tables
    if postgres:
        assert _leftovers(url) == {"lesson_terms"} | FUNCTIONS | TRIGGERS | EXTENSIONS
        # Rebuilt from the lessons: the ones written or reactivated after 0013 too.
        assert _terms_match_active_lessons(url)
        assert _indexed(url) == {1, 2, 3}
        # and kept by the trigger again
        _run(url, "UPDATE lessons SET correction = 'Refuse politely', status = 'active'")
        _run(url, "UPDATE lessons SET status = 'disabled' WHERE id = 3")
        assert _terms_match_active_lessons(url)
        assert ("refuse politely",) in _run(url, "SELECT term FROM lesson_terms")
    else:
        assert _run(url, "PRAGMA foreign_key_check") == []
    downgraded = _lessons(url)

    upgrade(url)
    assert _lessons(url) == downgraded
    assert _tables(url) == tables - {"lesson_terms"}
    if postgres:
        assert _leftovers(url) == set()
        # 0004's downgrade rebuilds 0002's trigram index on the extensions 0013 recreated.
        command.downgrade(alembic_config(url), "0003")
        assert "ix_lessons_text_trgm" in _indexes(url)
        upgrade(url)
        assert _leftovers(url) == set()
    else:
        assert _run(url, "PRAGMA foreign_key_check") == []


def test_an_extension_something_else_uses_is_kept(fresh_pg: str) -> None:
    upgrade(fresh_pg, "0012")
    # An operator's own trigram index: pg_trgm is not digest's alone to drop any more.
    _run(fresh_pg, "CREATE INDEX ix_ops_title_trgm ON lessons USING gin (title gin_trgm_ops)")

    upgrade(fresh_pg)

    assert _leftovers(fresh_pg) == {"pg_trgm"}
    assert "ix_ops_title_trgm" in _indexes(fresh_pg)
    command.downgrade(alembic_config(fresh_pg), "0012")
    assert _leftovers(fresh_pg) == {"lesson_terms"} | FUNCTIONS | TRIGGERS | EXTENSIONS
