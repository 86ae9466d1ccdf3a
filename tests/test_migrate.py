"""digest.migrate: the Alembic migrations (``digest db upgrade``). They describe the same schema
as the ORM models on both databases, go down and up again, and the PostgreSQL term index
(migration 0004, dropped again by 0013: tests/test_migrate_drop_terms.py) backfills and
downgrades."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text

from digest.migrate import alembic_config, upgrade
from digest.models import Base

TABLES = {
    "tenants", "agents", "events", "lessons", "lesson_evidence", "lesson_history",
    "learning_versions", "digest_runs",
}  # fmt: skip


def _diff(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


def test_postgres_migrations_match_models(pg_url: str) -> None:
    assert _diff(pg_url) == []
    tables = set(inspect(create_engine(pg_url)).get_table_names())
    assert tables >= TABLES


def test_sqlite_migrations_match_models(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'schema.db'}"
    upgrade(url)
    assert _diff(url) == []
    assert set(inspect(create_engine(url)).get_table_names()) >= TABLES


def test_sqlite_downgrade_and_upgrade_again(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'roundtrip.db'}"
    upgrade(url)
    command.downgrade(alembic_config(url), "base")
    assert set(inspect(create_engine(url)).get_table_names()) <= {"alembic_version"}
    upgrade(url)
    assert _diff(url) == []


@pytest.fixture()
def fresh_pg_url(pg_admin: str) -> Iterator[str]:
    """An empty database of its own: these tests move the schema up and down."""
    name = f"digest_migrate_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = pg_admin.rsplit("/", 1)[0] + f"/{name}"
    yield url.replace("postgresql://", "postgresql+psycopg://", 1)
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def test_postgres_term_index_backfills_active_lessons_and_downgrades(fresh_pg_url: str) -> None:
    upgrade(fresh_pg_url, "0003")
    engine = create_engine(fresh_pg_url)
    try:
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO tenants (id, name, learning_apply_mode, settings, created_at)"
                    " VALUES (1, 'acme', 'auto', '{}', now());"
                    "INSERT INTO agents (id, tenant_id, name, enable_learning, lesson_epoch,"
                    " created_at) VALUES (1, 1, 'bot', true, 0, now())"
                )
            )
            for slug, status in (("kept", "active"), ("off", "disabled")):
                conn.execute(
                    text(
                        "INSERT INTO lessons (tenant_id, agent_id, scope, slug, title, situation,"
                        " correction, tags, source, outcome, confidence, support_count,"
                        " success_count, failure_count, hit_count, status, created_at,"
                        " updated_at) VALUES (1, 1, 'agent', :slug, :slug, 'Refunds,',"
                        " :correction, '[]', 'manual_lesson', 'mixed', 0.5, 1, 0, 0, 0, :status,"
                        " now(), now())"
                    ),
                    {"slug": slug, "correction": f"Ask a MANAGER ({slug})", "status": status},
                )
        upgrade(fresh_pg_url, "0012")  # the last revision with the term index
        with engine.connect() as conn:
            terms = {
                (row.slug, row.term)
                for row in conn.execute(
                    text(
                        "SELECT lessons.slug, lesson_terms.term FROM lesson_terms"
                        " JOIN lessons ON lessons.id = lesson_terms.lesson_id"
                    )
                )
            }
            indexes = {ix["name"] for ix in inspect(conn).get_indexes("lessons")}
        key = "=" + hashlib.md5(b"refunds ask a manager kept").hexdigest()
        assert terms == {
            ("kept", term)
            for term in (
                "refunds", "ask", "a", "manager", "kept", "refunds ask", "ask a", "a manager",
                "manager kept", key,
            )
        }  # fmt: skip
        assert "ix_lessons_text_trgm" not in indexes
        command.downgrade(alembic_config(fresh_pg_url), "0003")
        with engine.connect() as conn:
            assert "lesson_terms" not in inspect(conn).get_table_names()
            indexes = {ix["name"] for ix in inspect(conn).get_indexes("lessons")}
        assert "ix_lessons_text_trgm" in indexes
    finally:
        engine.dispose()


def test_a_percent_sign_in_a_password_survives_the_config() -> None:
    url = "postgresql+psycopg://digest:p%40ss@db/digest"
    assert alembic_config(url).get_main_option("sqlalchemy.url") == url
