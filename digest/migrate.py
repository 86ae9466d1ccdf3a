"""`digest db upgrade`: run the Alembic migrations against DIGEST_DATABASE_URL.

On SQLite, ``migrations/env.py`` runs them inside ``sqlite_migrations`` and checks every
foreign key after each one (``check_foreign_keys``): see there why."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, event

from digest.config import get_settings, resource_dir
from digest.errors import DigestError

if TYPE_CHECKING:
    from alembic.runtime.migration import MigrationContext, MigrationInfo


@contextmanager
def sqlite_migrations(connection: Connection) -> Iterator[None]:
    """Run migrations on this SQLite connection with foreign keys off, each migration in one
    transaction that holds its DDL too; foreign keys are on again afterwards.

    SQLite changes a constraint or drops a column by copying the table and dropping the old
    one (Alembic's batch mode). With foreign keys on, as the app's engine has them, that drop
    deletes or nulls every row that points at the table (ON DELETE CASCADE or SET NULL):
    upgrading lost every ``lesson_evidence`` and ``lesson_history`` row (0006, 0008, 0009).
    SQLite ignores the switch inside a transaction, so it is set as each transaction of this
    connection begins, before an explicit BEGIN: the driver would otherwise begin only at the
    first write and commit the DDL before it on its own, so a migration rolled back would leave
    half a table copy behind. An ``autocommit_block`` (migration 0012) gets no BEGIN, and
    whatever it switches, the next transaction starts with foreign keys off again."""
    if connection.in_transaction():
        raise DigestError(
            "SQLite migrations need a connection outside a transaction: "
            "foreign keys cannot be turned off inside one"
        )
    event.listen(connection, "begin", _begin_without_foreign_keys)
    try:
        yield
    finally:
        event.remove(connection, "begin", _begin_without_foreign_keys)
        if connection.in_transaction():
            connection.rollback()  # every migration committed its own; what is left only read
        _execute_raw(connection, "PRAGMA foreign_keys=ON")


def _begin_without_foreign_keys(connection: Connection) -> None:
    _execute_raw(connection, "PRAGMA foreign_keys=OFF")
    if connection.get_execution_options().get("isolation_level") != "AUTOCOMMIT":
        _execute_raw(connection, "BEGIN")


def _execute_raw(connection: Connection, statement: str) -> None:
    """On the driver's connection: no SQLAlchemy transaction begins (nor its events fire)."""
    cursor = connection.connection.cursor()
    try:
        cursor.execute(statement)
    finally:
        cursor.close()


def check_foreign_keys(*, ctx: MigrationContext, step: MigrationInfo, **_: object) -> None:
    """Alembic's ``on_version_apply`` hook on SQLite, run in each migration's transaction
    before it commits: the migration ran with foreign keys off, and no row points at a row
    that does not exist. Otherwise it raises: the migration is rolled back (all but what its
    own ``autocommit_block`` committed) and the upgrade stops at the revision before it."""
    if step.is_stamp:
        return
    connection = ctx.connection
    assert connection is not None
    migration = f"migration {step.up_revision_id}" + ("" if step.is_upgrade else " (downgrade)")
    if connection.exec_driver_sql("PRAGMA foreign_keys").scalar():
        raise DigestError(
            f"{migration} ran with SQLite foreign keys on, which can delete rows "
            "when it copies a table; it was rolled back"
        )
    broken = foreign_key_violations(connection)
    if broken:
        raise DigestError(
            f"foreign keys broken after {migration}: {'; '.join(broken)}; it was rolled back: "
            "repair or delete the rows that point at rows that do not exist, then run it again"
        )


def foreign_key_violations(connection: Connection) -> list[str]:
    """Each SQLite foreign key some rows break, as ``table.column → parent: N row(s) (rowid
    1, 2)`` (``PRAGMA foreign_key_check``, which works whether foreign keys are on or off)."""
    rowids: dict[tuple[str, str, int], list[int]] = {}
    for table, rowid, parent, fk in connection.exec_driver_sql("PRAGMA foreign_key_check"):
        rowids.setdefault((table, parent, fk), []).append(rowid)
    broken = []
    for (table, parent, fk), rows in rowids.items():
        columns = connection.exec_driver_sql(
            'SELECT "from" FROM pragma_foreign_key_list(?) WHERE id = ? ORDER BY seq', (table, fk)
        ).scalars()
        shown = ", ".join(str(rowid) for rowid in rows[:5]) + (", …" if len(rows) > 5 else "")
        broken.append(
            f"{table}.{', '.join(columns)} → {parent}: {len(rows)} row(s) (rowid {shown})"
        )
    return broken


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
