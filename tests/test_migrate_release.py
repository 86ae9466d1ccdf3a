"""Migration 0015 (issue 25 point 1) on PostgreSQL and SQLite: ``lessons`` gains the release
state, backfilled with the product's own count (``digest.lessons.release.source_counts``):
distinct contacts, else threads, among the untrusted events citing a lesson, and the seconds
they span. Down again, every lesson, citation and history row stays; up again, the same."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from alembic import command
from sqlalchemy import inspect, text

from digest.db import make_engine
from digest.migrate import alembic_config, upgrade

T0, T1 = "2026-01-01 00:00:00+00:00", "2026-01-01 02:00:00+00:00"
COLUMNS = {"independent_sources", "source_span_s", "sources_since", "released_by", "released_at"}


@pytest.fixture()
def fresh_pg(pg_admin: str) -> Iterator[str]:
    name = f"digest_m15_{uuid.uuid4().hex[:8]}"
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
        return f"sqlite:///{tmp_path / 'm15.db'}"
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


def _columns(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return {c["name"] for c in inspect(engine).get_columns("lessons")}
    finally:
        engine.dispose()


def _event(event_id: int, trust: str, contact: str | None, thread: str | None, at: str) -> str:
    def value(x: str | None) -> str:
        return "NULL" if x is None else f"'{x}'"

    return (
        "INSERT INTO events (id, tenant_id, agent_id, kind, payload, trust, status, attempts, "
        "deferrals, output_faults, contact_id, thread_id, created_at, updated_at) VALUES "
        f"({event_id}, 1, 1, 'run_outcome', '{{}}', '{trust}', 'reflected', 0, 0, 0, "
        f"{value(contact)}, {value(thread)}, '{at}', '{at}')"
    )


def _lesson(lesson_id: int, trust: str) -> str:
    return (
        "INSERT INTO lessons (id, tenant_id, agent_id, scope, slug, title, situation, "
        "correction, tags, source, trust, outcome, confidence, support_count, success_count, "
        f"failure_count, hit_count, status, created_at, updated_at) VALUES ({lesson_id}, 1, 1, "
        f"'agent', 's{lesson_id}', 't', 'w', 'c', '[]', 'run_outcome', '{trust}', 'failure', "
        f"0.5, 1, 0, 0, 0, 'active', '{T0}', '{T0}')"
    )


def _cite(evidence_id: int, lesson_id: int, event_id: int) -> str:
    return (
        "INSERT INTO lesson_evidence (id, lesson_id, event_id, note, created_at) "
        f"VALUES ({evidence_id}, {lesson_id}, {event_id}, 'n', '{T0}')"
    )


def _seed(url: str) -> None:
    """Lesson 1: two contacts two hours apart, one of them twice, and a trusted event (no
    source). Lesson 2: one contact. Lesson 3: a thread and an event with neither, at once.
    Lesson 4: trusted, no untrusted citation."""
    _run(
        url,
        f"INSERT INTO tenants (id, name, learning_apply_mode, settings, created_at) "
        f"VALUES (1, 't1', 'auto', '{{}}', '{T0}')",
        "INSERT INTO agents (id, tenant_id, name, enable_learning, lesson_epoch, created_at) "
        f"VALUES (1, 1, 'bot', true, 0, '{T0}')",
        _event(1, "low", "ann", None, T0),
        _event(2, "low", "bob", "x", T1),
        _event(3, "low", "ann", None, T1),
        _event(4, "high", "carl", None, T1),
        _event(5, "low", None, "t-1", T0),
        _event(6, "low", None, None, T0),
        _lesson(1, "untrusted"),
        _lesson(2, "untrusted"),
        _lesson(3, "untrusted"),
        _lesson(4, "trusted"),
        _cite(1, 1, 1),
        _cite(2, 1, 2),
        _cite(3, 1, 3),
        _cite(4, 1, 4),
        _cite(5, 2, 1),
        _cite(6, 3, 5),
        _cite(7, 3, 6),
        _cite(8, 4, 4),
    )


def test_0015_backfills_the_counts_and_goes_down_and_up_keeping_every_row(url: str) -> None:
    upgrade(url, "0014")
    _seed(url)
    assert not COLUMNS & _columns(url)

    upgrade(url, "0015")
    assert _columns(url) >= COLUMNS
    counts = _run(
        url,
        "SELECT id, independent_sources, source_span_s, sources_since, released_by, "
        "released_at FROM lessons ORDER BY id",
    )
    assert counts == [
        (1, 2, 7200, None, None, None),
        (2, 1, 0, None, None, None),
        (3, 2, 0, None, None, None),
        (4, 0, 0, None, None, None),
    ]

    command.downgrade(alembic_config(url), "0014")
    assert not COLUMNS & _columns(url)
    assert _run(url, "SELECT count(*) FROM lesson_evidence") == [(8,)]
    assert _run(url, "SELECT count(*) FROM lessons") == [(4,)]

    upgrade(url)
    assert _run(url, "SELECT id, independent_sources FROM lessons ORDER BY id") == [
        (1, 2), (2, 1), (3, 2), (4, 0),
    ]  # fmt: skip
    assert _run(url, "SELECT count(*) FROM lesson_evidence") == [(8,)]
    if url.startswith("sqlite"):
        assert _run(url, "PRAGMA foreign_key_check") == []


def test_0016_adds_replaces_id_and_goes_down_keeping_every_row(url: str) -> None:
    """Migration 0016: ``lessons.replaces_id`` (a held change to a released lesson names the
    lesson it replaces once released), no backfill; down again every row stays."""
    upgrade(url, "0015")
    _seed(url)
    upgrade(url, "0016")
    assert "replaces_id" in _columns(url)
    assert _run(url, "SELECT count(*) FROM lessons WHERE replaces_id IS NULL") == [(4,)]
    _run(url, "UPDATE lessons SET replaces_id = 1 WHERE id = 2")
    command.downgrade(alembic_config(url), "0015")
    assert "replaces_id" not in _columns(url)
    assert _run(url, "SELECT count(*) FROM lessons") == [(4,)]
    assert _run(url, "SELECT count(*) FROM lesson_evidence") == [(8,)]
    if url.startswith("sqlite"):
        assert _run(url, "PRAGMA foreign_key_check") == []
