"""`digest db upgrade`: run the Alembic migrations against DIGEST_DATABASE_URL."""

from __future__ import annotations

from typing import Any

from alembic import command
from alembic.config import Config

from digest.config import get_settings, resource_dir

#: tables that exist only on PostgreSQL and only in migrations: the old neighbour-search term
#: index (migration 0004), still written by a trigger, no longer read (the search is in memory
#: since issue 13; dropping it is a migration of its own). Autogenerate must not propose
#: dropping them.
MIGRATION_ONLY_TABLES = frozenset({"lesson_terms"})


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    return not (type_ == "table" and name in MIGRATION_ONLY_TABLES)


def alembic_config(url: str | None = None) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(resource_dir("migrations")))
    # ConfigParser interpolation: a literal % in a password must be doubled.
    cfg.set_main_option("sqlalchemy.url", (url or get_settings().database_url).replace("%", "%%"))
    return cfg


def upgrade(url: str | None = None, revision: str = "head") -> None:
    command.upgrade(alembic_config(url), revision)


def current(url: str | None = None) -> None:
    command.current(alembic_config(url))


def revisions(url: str | None = None) -> tuple[str | None, str | None]:
    """(the database's revision, the code's head revision). The first is None for a database
    with no schema yet; raises the driver's error when the database cannot be reached."""
    from alembic.runtime.migration import MigrationContext
    from alembic.script import ScriptDirectory

    from digest.db import get_engine

    head = ScriptDirectory.from_config(alembic_config(url)).get_current_head()
    with get_engine(url or get_settings().database_url).connect() as connection:
        current_rev = MigrationContext.configure(connection).get_current_revision()
    return current_rev, head
