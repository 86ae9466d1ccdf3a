"""Migration 0012 (issue 16) on PostgreSQL and SQLite: ``tenants.learning_apply_mode`` accepts
``staged``; ``learning_versions`` gains ``replay`` and ``hold_reason``; ``replay_probes`` holds
probe vectors. Down again, a ``staged`` tenant becomes an ``approval`` one (a person still
decides every version) and the CHECK refuses ``staged``; up again, it is accepted."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from alembic import command
from sqlalchemy import inspect, text
from sqlalchemy.exc import IntegrityError

from digest.db import make_engine
from digest.migrate import alembic_config, upgrade

NOW = "2026-01-01 00:00:00+00:00"


@pytest.fixture()
def fresh_pg(pg_admin: str) -> Iterator[str]:
    """An empty PostgreSQL database of its own: the schema goes up and down."""
    name = f"digest_m12_{uuid.uuid4().hex[:8]}"
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
        return f"sqlite:///{tmp_path / 'm12.db'}"
    return str(request.getfixturevalue("fresh_pg"))


def _columns(url: str, table: str) -> set[str]:
    engine = make_engine(url)
    try:
        return {c["name"] for c in inspect(engine).get_columns(table)}
    finally:
        engine.dispose()


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


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


def _tenant(url: str, tenant_id: int, mode: str) -> None:
    _run(
        url,
        "INSERT INTO tenants (id, name, learning_apply_mode, settings, created_at) "
        f"VALUES ({tenant_id}, 't{tenant_id}', '{mode}', '{{}}', '{NOW}')",
    )


def _seed(url: str) -> None:
    """Tenant 2 with an agent, its active version 1, an event, a lesson citing it and a
    compose run: what a copied-and-dropped parent table must not take with it (SQLite copies
    a table to change a CHECK or drop a column; the app's engine keeps foreign keys on)."""
    _tenant(url, 2, "approval")
    _run(
        url,
        "INSERT INTO agents (id, tenant_id, name, enable_learning, lesson_epoch, created_at) "
        f"VALUES (1, 2, 'bot', true, 0, '{NOW}')",
        "INSERT INTO learning_versions (id, tenant_id, agent_id, number, status, body_markdown, "
        "change_summary, folded_lesson_ids, supporting_event_ids, proposed_by, trigger, "
        "llm_calls, prompt_tokens, completion_tokens, cost_usd, created_at) VALUES (1, 2, 1, 1, "
        f"'active', 'b', '', '[1]', '[1]', 'digest', 'manual', 0, 0, 0, 0, '{NOW}')",
        "UPDATE agents SET current_version_id = 1 WHERE id = 1",
        "INSERT INTO events (id, tenant_id, agent_id, kind, payload, trust, status, attempts, "
        "deferrals, output_faults, created_at, updated_at) VALUES (1, 2, 1, 'run_outcome', "
        f"'{{}}', 'low', 'reflected', 0, 0, 0, '{NOW}', '{NOW}')",
        "INSERT INTO lessons (id, tenant_id, agent_id, scope, slug, title, situation, "
        "correction, tags, source, trust, outcome, confidence, support_count, success_count, "
        "failure_count, hit_count, status, created_at, updated_at) VALUES (1, 2, 1, 'agent', "
        "'s', 't', 'w', 'c', '[]', 'run_outcome', 'untrusted', 'failure', 0.5, 1, 0, 0, 0, "
        f"'active', '{NOW}', '{NOW}')",
        "INSERT INTO lesson_evidence (id, lesson_id, event_id, note, created_at) "
        f"VALUES (1, 1, 1, 'n', '{NOW}')",
        "INSERT INTO digest_runs (id, tenant_id, agent_id, version_id, kind, trigger, n_add, "
        "n_update, n_delete, n_noop, n_skip, n_fast_path, llm_calls, prompt_tokens, "
        "completion_tokens, cost_usd, duration_ms, started_at) VALUES (1, 2, 1, 1, 'compose', "
        f"'manual', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, '{NOW}')",
    )


#: every seeded row, as the queries below read them back
SEEDED = [
    [(1, "bot", 1)],
    [(1, 1)],
    [(1,)],
    [(1,)],
    [(1, 1)],
    [(1, 1)],
]


def _seeded(url: str) -> list[list[tuple[object, ...]]]:
    return [
        _run(url, "SELECT id, name, current_version_id FROM agents"),
        _run(url, "SELECT id, number FROM learning_versions"),
        _run(url, "SELECT id FROM events"),
        _run(url, "SELECT id FROM lessons"),
        _run(url, "SELECT lesson_id, event_id FROM lesson_evidence"),
        _run(url, "SELECT id, version_id FROM digest_runs"),
    ]


def test_0012_up_down_and_up_again_keeps_every_row(url: str) -> None:
    upgrade(url, "0011")
    _tenant(url, 1, "auto")
    with pytest.raises(IntegrityError):
        _tenant(url, 3, "staged")  # before 0012 the CHECK knows no staged mode
    _seed(url)
    assert "replay_probes" not in _tables(url)

    upgrade(url, "0012")
    assert _seeded(url) == SEEDED
    assert {"replay", "hold_reason"} <= _columns(url, "learning_versions")
    assert _columns(url, "replay_probes") == {"event_id", "embedding_key", "embedding"}
    _run(
        url,
        "UPDATE tenants SET learning_apply_mode = 'staged' WHERE id = 2",
        "UPDATE learning_versions SET replay = '{\"events\": 0}', "
        "hold_reason = 'shrink: it folds 0 lesson(s)' WHERE id = 1",
    )
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            conn.execute(text("INSERT INTO replay_probes VALUES (1, 'k', :v)"), {"v": b"\0" * 8})
    finally:
        engine.dispose()
    held = _run(url, "SELECT hold_reason FROM learning_versions WHERE id = 1")
    assert held == [("shrink: it folds 0 lesson(s)",)]

    command.downgrade(alembic_config(url), "0011")
    assert _seeded(url) == SEEDED
    modes = _run(url, "SELECT id, learning_apply_mode FROM tenants ORDER BY id")
    assert modes == [(1, "auto"), (2, "approval")]  # staged: a person still decides
    assert not {"replay", "hold_reason"} & _columns(url, "learning_versions")
    assert "replay_probes" not in _tables(url)
    with pytest.raises(IntegrityError):
        _tenant(url, 3, "staged")

    upgrade(url)
    assert _seeded(url) == SEEDED
    _tenant(url, 3, "staged")
    assert _run(url, "SELECT learning_apply_mode FROM tenants WHERE id = 3") == [("staged",)]
    assert _run(url, "SELECT replay, hold_reason FROM learning_versions") == [(None, None)]
    engine = make_engine(url)
    try:
        [fk] = inspect(engine).get_foreign_keys("replay_probes")
    finally:
        engine.dispose()
    assert (fk["referred_table"], fk["options"].get("ondelete")) == ("events", "CASCADE")
    if url.startswith("sqlite"):
        assert _run(url, "PRAGMA foreign_key_check") == []  # no row points nowhere
