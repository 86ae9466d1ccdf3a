"""The ORM models and the Alembic migrations describe the same schema, on both databases."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect

from digest.migrate import alembic_config, include_object, upgrade
from digest.models import Base

TABLES = {
    "tenants", "agents", "events", "lessons", "lesson_evidence", "lesson_history",
    "learning_versions", "digest_runs",
}  # fmt: skip


def _diff(url: str) -> list[object]:
    engine = create_engine(url)
    try:
        with engine.connect() as conn:
            context = MigrationContext.configure(
                conn, opts={"compare_type": True, "include_object": include_object}
            )
            return list(compare_metadata(context, Base.metadata))
    finally:
        engine.dispose()


@pytest.mark.services
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
