"""A lesson's cues (issue 24 point 5): what the tasks it was learned from asked for

- ``lessons.cues`` (JSON list of words, ``digest.lessons.cues``): the telling words of the
  tasks of the runs that taught or supported a lesson, ids masked and common words left out;
- ``lessons.cue_embedding`` / ``cue_embedding_key``: the sum of those tasks' word embeddings
  (little-endian float32), and the embedding model it is of.

The agent's index matches a prompt's keywords against the words and its embedding against the
sum's direction, so a lesson comes back for a later task of the same kind; nothing an agent
reads renders them (DESIGN §8: never the user's task text), which is why they are columns of
their own and not part of the situation or the tags.

Existing lessons keep NULL (no cues: found by their own words, as before) until a run
supports them.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-27
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

Json = sa.JSON().with_variant(JSONB(), "postgresql")


@contextmanager
def _foreign_keys_off() -> Iterator[None]:
    """On SQLite, run the block with foreign keys off, in a transaction of its own (as 0012).

    SQLite drops a column by copying the table and dropping the old one; with foreign keys
    on, that drop would take every citation and history row of every lesson with it (ON
    DELETE CASCADE). The switch is ignored inside a transaction, so the one in progress is
    committed first (``autocommit_block``). PostgreSQL alters the table in place."""
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


def upgrade() -> None:
    # Adding a nullable column is an ALTER TABLE in place on both databases: no copy.
    with op.batch_alter_table("lessons") as batch:
        batch.add_column(sa.Column("cues", Json, nullable=True))
        batch.add_column(sa.Column("cue_embedding", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("cue_embedding_key", sa.String(40), nullable=True))


def downgrade() -> None:
    with _foreign_keys_off(), op.batch_alter_table("lessons") as batch:
        batch.drop_column("cue_embedding_key")
        batch.drop_column("cue_embedding")
        batch.drop_column("cues")
