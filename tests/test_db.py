"""digest.db: engines and sessions. The pool follows a threads-pool worker's concurrency
unless configured; a session scope commits or rolls back as a unit; a read scope runs each
statement on its own; engines are one per URL until disposed; SQLite gets its pragmas."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, text

from digest import db
from digest.config import get_settings
from digest.models import Tenant


def test_pool_size_follows_a_threads_worker_unless_configured(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("DIGEST_DB_POOL_SIZE", raising=False)
    get_settings.cache_clear()
    assert db.pool_size() == 5
    db.follow_concurrency(32)
    assert db.pool_size() == 32
    monkeypatch.setenv("DIGEST_DB_POOL_SIZE", "12")
    get_settings.cache_clear()
    assert db.pool_size() == 12
    get_settings.cache_clear()


def test_a_session_scope_commits_or_rolls_back_as_a_unit(sqlite_env: str) -> None:
    with db.session_scope() as session:
        session.add(Tenant(name="kept", learning_apply_mode="auto", settings={}))
    with pytest.raises(RuntimeError), db.session_scope() as session:
        session.add(Tenant(name="dropped", learning_apply_mode="auto", settings={}))
        session.flush()
        raise RuntimeError("something failed after the write")
    with db.read_scope() as session:
        names = session.scalars(select(Tenant.name)).all()
    assert list(names) == ["kept"]


def test_one_engine_per_url_until_disposed(sqlite_env: str, tmp_path: Path) -> None:
    engine = db.get_engine()
    assert db.get_engine(sqlite_env) is engine
    other = db.get_engine(f"sqlite:///{tmp_path / 'other.db'}")
    assert other is not engine
    db.dispose_engines()
    assert db.get_engine() is not engine


def test_sqlite_connections_get_their_pragmas(sqlite_env: str) -> None:
    with db.session_scope() as session:
        assert not db.is_postgres(session)
        assert session.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert session.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert session.execute(text("PRAGMA busy_timeout")).scalar() == 10000


def test_postgres_sessions_know_their_dialect(services_env: dict[str, str]) -> None:
    with db.read_scope() as session:
        assert db.is_postgres(session)
        assert session.execute(text("SELECT 1")).scalar() == 1
