"""A change an untrusted run makes to a released lesson waits for the release rule (issue 25)

- ``lessons.replaces_id``: this lesson is a held change to another one. An untrusted run's
  UPDATE or supersede of a released lesson is stored as a new lesson naming the one it would
  replace; the old one stays active, and an agent keeps reading it, until the new one is
  released (corroborated by independent sources, or by a person). Then the old one is
  superseded by it (``digest.lessons.release.settle_replacements``).

No backfill: every change made before this revision was applied in place, as it was then.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-26
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("lessons") as batch:
        batch.add_column(
            sa.Column(
                "replaces_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
            )
        )
        batch.create_foreign_key(
            op.f("fk_lessons_replaces_id_lessons"), "lessons", ["replaces_id"], ["id"],
            ondelete="SET NULL",
        )  # fmt: skip


@contextmanager
def _foreign_keys_off() -> Iterator[None]:
    """On SQLite, run the block with foreign keys off, in a transaction of its own (as 0014 and
    0015): dropping a column copies the table and drops the old one, which with foreign keys
    on would take every citation and history row with it (ON DELETE CASCADE)."""
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
        batch.drop_constraint(op.f("fk_lessons_replaces_id_lessons"), type_="foreignkey")
        batch.drop_column("replaces_id")
