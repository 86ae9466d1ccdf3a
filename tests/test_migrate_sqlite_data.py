"""Upgrading an embedded SQLite database keeps every row.

SQLite changes a constraint or drops a column by copying the table and dropping the old one
(Alembic's batch mode). With foreign keys on, as the app's engine has them, that drop deletes
or nulls every row pointing at the table: ``lessons`` (0006) took every citation and history
entry with it, ``events`` (0008, 0009) every citation. The migration environment runs with
foreign keys off and checks every key after each migration, so a row pointing nowhere stops
the upgrade, names its table, and the migration that left it is not kept."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, text

from digest.db import make_engine
from digest.errors import DigestError
from digest.migrate import alembic_config, revisions, upgrade

NOW = "2026-01-01 00:00:00+00:00"

#: (the revision from which the statements can run, the statements): two tenants with an agent
#: each, versions chained by ``previous_version_id``, events, a lesson superseded by another,
#: their citations and history, runs pointing at events and versions
SEEDS: list[tuple[str, list[str]]] = [
    (
        "0001",
        [
            "INSERT INTO tenants (id, name, learning_apply_mode, settings, created_at) VALUES "
            f"(1, 'acme', 'auto', '{{}}', '{NOW}'), (2, 'beta', 'approval', '{{}}', '{NOW}')",
            "INSERT INTO agents (id, tenant_id, name, enable_learning, lesson_epoch, created_at) "
            f"VALUES (1, 1, 'bot', 1, 3, '{NOW}'), (2, 2, 'helper', 0, 0, '{NOW}')",
            "INSERT INTO learning_versions (id, tenant_id, agent_id, number, previous_version_id, "
            "status, body_markdown, change_summary, folded_lesson_ids, supporting_event_ids, "
            "proposed_by, trigger, llm_calls, prompt_tokens, completion_tokens, cost_usd, "
            "created_at) VALUES "
            "(1, 1, 1, 1, NULL, 'superseded', 'first', '', '[1]', '[1]', 'digest', 'threshold', "
            f"1, 10, 5, 0.01, '{NOW}'), "
            "(2, 1, 1, 2, 1, 'active', 'second', 'more', '[1, 2]', '[1, 2]', 'operator', "
            f"'manual', 0, 0, 0, 0, '{NOW}'), "
            "(3, 2, 2, 1, NULL, 'active', 'theirs', '', '[3]', '[3]', 'digest', 'sweep', "
            f"0, 0, 0, 0, '{NOW}')",
            "UPDATE agents SET current_version_id = 2 WHERE id = 1",
            "UPDATE agents SET current_version_id = 3 WHERE id = 2",
            "INSERT INTO events (id, tenant_id, agent_id, kind, idempotency_key, payload, trust, "
            "status, attempts, created_at, updated_at) VALUES "
            f"(1, 1, 1, 'run_outcome', 'k1', '{{}}', 'low', 'reflected', 1, '{NOW}', '{NOW}'), "
            f"(2, 1, 1, 'operator_edit', 'k2', '{{}}', 'high', 'reflected', 1, '{NOW}', '{NOW}'), "
            f"(3, 2, 2, 'owner_answer', NULL, '{{}}', 'high', 'pending', 0, '{NOW}', '{NOW}')",
            "INSERT INTO lessons (id, tenant_id, agent_id, scope, slug, title, situation, "
            "correction, tags, source, outcome, confidence, support_count, success_count, "
            "failure_count, hit_count, status, superseded_by_id, created_at, updated_at) VALUES "
            "(1, 1, 1, 'agent', 'refunds', 'Refunds', 'refund asked', 'ask a manager', '[]', "
            f"'run_outcome', 'failure', 0.6, 2, 0, 1, 4, 'active', NULL, '{NOW}', '{NOW}'), "
            "(2, 1, 1, 'agent', 'refunds-old', 'Old', 'refund', 'refuse', '[]', "
            f"'operator_edit', 'mixed', 0.4, 1, 0, 0, 0, 'superseded', 1, '{NOW}', '{NOW}'), "
            "(3, 2, 2, 'org', 'tone', 'Tone', 'any reply', 'be brief', '[\"style\"]', "
            f"'owner_answer', 'success', 0.9, 1, 1, 0, 0, 'active', NULL, '{NOW}', '{NOW}')",
            "INSERT INTO lesson_evidence (id, lesson_id, event_id, note, created_at) VALUES "
            f"(1, 1, 1, 'failed run', '{NOW}'), (2, 2, 2, 'the edit', '{NOW}'), "
            f"(3, 1, 2, 'also', '{NOW}'), (4, 3, 3, 'the answer', '{NOW}')",
            "INSERT INTO lesson_history (id, lesson_id, tenant_id, agent_id, op, reason, "
            "event_id, at) VALUES "
            f"(1, 1, 1, 1, 'ADD', 'new', 1, '{NOW}'), (2, 2, 1, 1, 'ADD', 'edit', 2, '{NOW}'), "
            f"(3, 2, 1, 1, 'UPDATE', 'merged', NULL, '{NOW}'), "
            f"(4, 3, 2, 2, 'ADD', 'answer', 3, '{NOW}')",
            "INSERT INTO digest_runs (id, tenant_id, agent_id, event_id, kind, trigger, n_add, "
            "n_update, n_delete, n_noop, n_skip, llm_calls, prompt_tokens, completion_tokens, "
            "cost_usd, duration_ms, started_at) VALUES "
            f"(1, 1, 1, 1, 'reflect', 'event', 1, 0, 0, 0, 0, 1, 10, 5, 0.01, 7, '{NOW}'), "
            f"(2, 1, 1, NULL, 'compose', 'manual', 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, '{NOW}'), "
            f"(3, 2, 2, 3, 'reflect', 'event', 1, 0, 0, 0, 0, 1, 10, 5, 0.01, 9, '{NOW}')",
        ],
    ),
    ("0003", ["UPDATE digest_runs SET version_id = 2 WHERE id = 2"]),
    ("0006", ["UPDATE lessons SET trust = 'reviewed' WHERE id = 1"]),
    (
        "0007",
        [
            "UPDATE lessons SET fingerprint = 'fp-refunds' WHERE id = 1",
            "INSERT INTO judgements (id, agent_id, signature, model, prompt_hash, verdict, "
            "lesson_ids, event_id, reused, created_at) VALUES "
            f"(1, 1, 'sig-1', 'offline/rules', 'h', 'lessons', '[1]', 1, 2, '{NOW}'), "
            f"(2, 2, 'sig-2', 'offline/rules', 'h', 'skip', '[]', 3, 0, '{NOW}')",
        ],
    ),
    ("0009", ["UPDATE events SET deferrals = 2, output_faults = 1 WHERE id = 3"]),
    (
        "0010",
        [
            "INSERT INTO api_keys (id, tenant_id, kind, prefix, key_hash, created_at) VALUES "
            f"(1, 1, 'owner', 'dg_o_1', 'h1', '{NOW}'), (2, 2, 'agent', 'dg_a_2', 'h2', '{NOW}')",
        ],
    ),
    (
        "0011",
        [
            "INSERT INTO review_sessions (id, key_id, token_hash, created_at, expires_at) "
            f"VALUES (1, 1, 't1', '{NOW}', '{NOW}')",
        ],
    ),
]

#: (the revision from which the query can run, a name, the query): what must read back the same
QUERIES: list[tuple[str, str, str]] = [
    ("0001", "tenants", "SELECT id, name, learning_apply_mode FROM tenants ORDER BY id"),
    (
        "0001",
        "agents",
        "SELECT id, tenant_id, name, lesson_epoch, current_version_id FROM agents ORDER BY id",
    ),
    (
        "0001",
        "learning_versions",
        "SELECT id, agent_id, number, previous_version_id, status, body_markdown "
        "FROM learning_versions ORDER BY id",
    ),
    (
        "0001",
        "events",
        "SELECT id, tenant_id, agent_id, kind, idempotency_key, status FROM events ORDER BY id",
    ),
    (
        "0001",
        "lessons",
        "SELECT id, agent_id, slug, status, superseded_by_id, hit_count FROM lessons ORDER BY id",
    ),
    (
        "0001",
        "lesson_evidence",
        "SELECT id, lesson_id, event_id, note FROM lesson_evidence ORDER BY id",
    ),
    (
        "0001",
        "lesson_history",
        "SELECT id, lesson_id, agent_id, op, event_id FROM lesson_history ORDER BY id",
    ),
    ("0001", "digest_runs", "SELECT id, agent_id, event_id, kind FROM digest_runs ORDER BY id"),
    ("0003", "digest_runs.version_id", "SELECT id, version_id FROM digest_runs ORDER BY id"),
    ("0006", "lessons.trust", "SELECT id, trust FROM lessons ORDER BY id"),
    ("0007", "lessons.fingerprint", "SELECT id, fingerprint FROM lessons ORDER BY id"),
    (
        "0007",
        "judgements",
        "SELECT id, agent_id, signature, event_id, reused FROM judgements ORDER BY id",
    ),
    ("0009", "events.deferrals", "SELECT id, deferrals, output_faults FROM events ORDER BY id"),
    ("0010", "api_keys", "SELECT id, tenant_id, kind, prefix FROM api_keys ORDER BY id"),
    ("0011", "review_sessions", "SELECT id, key_id, token_hash FROM review_sessions ORDER BY id"),
]


def _run(url: str, *statements: str) -> list[tuple[object, ...]]:
    """Run the statements in one transaction through the app's engine (foreign keys on)."""
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


def _seed(url: str, revision: str) -> None:
    for since, statements in SEEDS:
        if since <= revision:
            _run(url, *statements)


def _rows(url: str, revision: str) -> dict[str, list[tuple[object, ...]]]:
    return {name: _run(url, query) for since, name, query in QUERIES if since <= revision}


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


@pytest.mark.parametrize("start", ["0001", "0008", "0011"])
def test_upgrading_down_and_up_again_keeps_every_row(tmp_path: Path, start: str) -> None:
    url = f"sqlite:///{tmp_path / 'embedded.db'}"
    upgrade(url, start)
    _seed(url, start)
    seeded = _rows(url, start)
    assert all(seeded.values()), "every table holds rows before the upgrade"

    upgrade(url)  # what `digest db upgrade` runs
    assert _rows(url, start) == seeded
    assert _run(url, "PRAGMA foreign_key_check") == []

    command.downgrade(alembic_config(url), start)
    assert _rows(url, start) == seeded

    upgrade(url)
    assert _rows(url, start) == seeded
    assert _run(url, "PRAGMA foreign_key_check") == []
    # The copied tables still enforce their keys: a tenant deleted takes its rows with it.
    _run(url, "DELETE FROM tenants WHERE id = 2")
    assert _run(url, "SELECT DISTINCT agent_id FROM events") == [(1,)]
    assert _run(url, "SELECT DISTINCT lesson_id FROM lesson_evidence ORDER BY 1") == [(1,), (2,)]


def test_a_row_pointing_nowhere_stops_the_upgrade_and_names_its_table(tmp_path: Path) -> None:
    path = tmp_path / "orphan.db"
    url = f"sqlite:///{path}"
    upgrade(url, "0010")
    _seed(url, "0010")
    # The sqlite3 shell has foreign keys off: a citation of a lesson and an event never stored.
    with sqlite3.connect(path) as shell:
        shell.execute(
            "INSERT INTO lesson_evidence (id, lesson_id, event_id, note, created_at) "
            f"VALUES (99, 77, 88, 'orphan', '{NOW}')"
        )
    shell.close()
    seeded = _rows(url, "0010")

    with pytest.raises(DigestError, match=r"0011.*lesson_evidence") as failed:
        upgrade(url)
    assert "lesson_evidence.lesson_id → lessons" in str(failed.value)
    assert "lesson_evidence.event_id → events" in str(failed.value)
    # The migration that found it is not kept, its table included; nothing else changed.
    assert revisions(url)[0] == "0010"
    assert "review_sessions" not in _tables(url)
    assert _rows(url, "0010") == seeded

    _run(url, "DELETE FROM lesson_evidence WHERE id = 99")
    upgrade(url)
    assert revisions(url) == ("0016", "0016")
