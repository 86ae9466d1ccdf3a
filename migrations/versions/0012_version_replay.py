"""Learning that proves itself (issue 16): replay before publishing, and the staged apply mode

- ``learning_versions.replay``: the replay of the agent's recent failed or edited events
  against the version and the one active when it was proposed, per event and in totals
  (``digest.versions.replay``);
- ``learning_versions.hold_reason``: why the version waited for a person instead of becoming
  active on its own (approval mode, coverage lost beyond the margin, a sharp shrink, trusted
  lessons changed in staged mode);
- ``replay_probes``: the embedding of each replayed event's task or prompt, kept from its first
  replay so that later composes do not embed it again;
- ``tenants.learning_apply_mode`` accepts ``staged``.

Downgrading turns ``staged`` tenants into ``approval`` ones: the older schema's mode that
still makes a person decide every version ``staged`` would have held.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON().with_variant(JSONB(), "postgresql")

_OLD = "learning_apply_mode IN ('auto', 'approval')"
_NEW = "learning_apply_mode IN ('auto', 'approval', 'staged')"


@contextmanager
def _foreign_keys_off() -> Iterator[None]:
    """On SQLite, run the block with foreign keys off, in a transaction of its own.

    SQLite changes a CHECK constraint or drops a column by copying the table and dropping the
    old one; with foreign keys on, that drop acts on every row that points at it: ``tenants``
    would take every agent, event, lesson and version with it (ON DELETE CASCADE), and
    ``learning_versions`` every agent's current version (SET NULL). The switch is ignored
    inside a transaction, so the one in progress is committed first (``autocommit_block``).
    PostgreSQL alters the tables in place: nothing to do there."""
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
    with _foreign_keys_off(), op.batch_alter_table("tenants") as batch:
        batch.drop_constraint(op.f("ck_tenants_apply_mode"), type_="check")
        batch.create_check_constraint(op.f("ck_tenants_apply_mode"), sa.text(_NEW))
    with op.batch_alter_table("learning_versions") as batch:
        batch.add_column(sa.Column("replay", Json, nullable=True))
        batch.add_column(sa.Column("hold_reason", sa.Text(), nullable=True))
    op.create_table(
        "replay_probes",
        sa.Column("event_id", BigId, nullable=False),
        sa.Column("embedding_key", sa.String(length=40), nullable=False),
        sa.Column("embedding", sa.LargeBinary(), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_replay_probes_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("event_id", name=op.f("pk_replay_probes")),
    )


def downgrade() -> None:
    op.drop_table("replay_probes")
    with _foreign_keys_off():
        with op.batch_alter_table("learning_versions") as batch:
            batch.drop_column("hold_reason")
            batch.drop_column("replay")
        op.execute(
            "UPDATE tenants SET learning_apply_mode = 'approval' "
            "WHERE learning_apply_mode = 'staged'"
        )
        with op.batch_alter_table("tenants") as batch:
            batch.drop_constraint(op.f("ck_tenants_apply_mode"), type_="check")
            batch.create_check_constraint(op.f("ck_tenants_apply_mode"), sa.text(_OLD))
