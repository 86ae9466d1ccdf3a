"""Alembic environment. The URL comes from the alembic config (set by `digest db upgrade`)
or, failing that, from DIGEST_DATABASE_URL through digest's settings.

On SQLite the migrations run with foreign keys off, each in a transaction of its own, and every
foreign key is checked before each one commits (``digest.migrate.sqlite_migrations``): copying
a table must not take the rows that point at it along."""

from __future__ import annotations

from contextlib import nullcontext

from alembic import context
from sqlalchemy import Connection

from digest.config import get_settings
from digest.db import make_engine
from digest.migrate import check_foreign_keys, sqlite_migrations
from digest.models import Base

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    return config.get_main_option("sqlalchemy.url") or get_settings().database_url


def run_migrations_offline() -> None:
    context.configure(
        url=_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=_url().startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    connectable = config.attributes.get("connection")
    if connectable is not None:
        _run(connectable)
        return
    engine = make_engine(_url())
    try:
        with engine.connect() as connection:
            _run(connection)
    finally:
        engine.dispose()


def _run(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    with sqlite_migrations(connection) if sqlite else nullcontext():
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=sqlite,
            compare_type=True,
            on_version_apply=[check_foreign_keys] if sqlite else [],
        )
        with context.begin_transaction():
            context.run_migrations()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
