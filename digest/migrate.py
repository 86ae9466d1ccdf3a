"""`digest db upgrade`: run the Alembic migrations against DIGEST_DATABASE_URL."""

from __future__ import annotations

from typing import Any

from alembic import command
from alembic.config import Config

from digest.config import get_settings, resource_dir

#: indexes that exist only on one dialect and only in migrations (an expression index the ORM
#: cannot describe portably); autogenerate must not propose dropping them.
MIGRATION_ONLY_INDEXES = frozenset({"ix_lessons_text_trgm"})


def include_object(
    obj: Any, name: str | None, type_: str, reflected: bool, compare_to: Any
) -> bool:
    return not (type_ == "index" and name in MIGRATION_ONLY_INDEXES)


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
