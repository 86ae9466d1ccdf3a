"""A lesson's release state (issue 25 point 1): one release rule for everything an agent reads

- ``lessons.independent_sources`` / ``source_span_s``: the distinct sources (contacts, else
  threads) among the untrusted events citing the lesson, and the whole seconds those events
  span. ``digest.lessons.release`` keeps them where evidence is written, and applies the
  tenant's gate and spread when an agent reads, so no read on an agent's turn joins evidence;
- ``lessons.sources_since``: counting starts here (an untrusted event rewrote the text);
- ``lessons.released_by`` / ``released_at``: a person released it before it was corroborated.

The backfill counts every existing lesson with the same function the product uses
(``digest.lessons.release.source_counts``), from all its evidence. So a lesson a version
folded under the old rule (independent support at the gate) is released under the new one,
and one that a single run taught, which ``pitfalls`` used to serve, is held.

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-28
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: lessons counted per statement in the backfill
CHUNK = 500


def upgrade() -> None:
    # Adding columns is an ALTER TABLE in place on both databases: no copy.
    with op.batch_alter_table("lessons") as batch:
        batch.add_column(
            sa.Column("independent_sources", sa.Integer(), nullable=False, server_default="0")
        )
        batch.add_column(
            sa.Column("source_span_s", sa.Integer(), nullable=False, server_default="0")
        )
        batch.add_column(sa.Column("sources_since", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("released_by", sa.String(200), nullable=True))
        batch.add_column(sa.Column("released_at", sa.DateTime(timezone=True), nullable=True))
    _backfill()


def _backfill() -> None:
    from digest.lessons.release import source_counts

    bind = op.get_bind()
    lessons = sa.table(
        "lessons",
        sa.column("id", sa.BigInteger()),
        sa.column("independent_sources", sa.Integer()),
        sa.column("source_span_s", sa.Integer()),
    )
    ids = [row[0] for row in bind.execute(sa.select(lessons.c.id).order_by(lessons.c.id))]
    update = (
        lessons.update()
        .where(lessons.c.id == sa.bindparam("lesson_id"))
        .values(independent_sources=sa.bindparam("sources"), source_span_s=sa.bindparam("span"))
    )
    for start in range(0, len(ids), CHUNK):
        counts = source_counts(bind, ids[start : start + CHUNK])
        rows = [
            {"lesson_id": lesson_id, "sources": sources, "span": span}
            for lesson_id, (sources, span) in counts.items()
            if sources or span
        ]
        if rows:
            bind.execute(update, rows)


@contextmanager
def _foreign_keys_off() -> Iterator[None]:
    """On SQLite, run the block with foreign keys off, in a transaction of its own (as 0014):
    dropping a column copies the table and drops the old one, which with foreign keys on would
    take every citation and history row with it (ON DELETE CASCADE)."""
    if op.get_bind().dialect.name != "sqlite":
        yield
        return
    with op.get_context().autocommit_block():
        op.execute("PRAGMA foreign_keys=OFF")
        try:
            op.execute("BEGIN")
            yield
            op.execute("COMMIT")
        except BaseException:
            op.execute("ROLLBACK")
            raise
        finally:
            op.execute("PRAGMA foreign_keys=ON")


def downgrade() -> None:
    with _foreign_keys_off(), op.batch_alter_table("lessons") as batch:
        batch.drop_column("released_at")
        batch.drop_column("released_by")
        batch.drop_column("sources_since")
        batch.drop_column("source_span_s")
        batch.drop_column("independent_sources")
