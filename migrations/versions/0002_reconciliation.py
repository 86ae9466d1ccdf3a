"""reconciliation: trigram nearest-neighbour index (Postgres) and fast-path counts

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: the expression digest.lessons.neighbours queries with; the index is only used if they match.
TRGM_INDEX = "ix_lessons_text_trgm"


def upgrade() -> None:
    with op.batch_alter_table("digest_runs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("n_fast_path", sa.Integer(), nullable=False, server_default="0")
        )
    if op.get_bind().dialect.name == "postgresql":
        # GiST, not GIN: a GiST trigram index answers "the k nearest" (ORDER BY <-> LIMIT k)
        # by walking the index, where a GIN `%` filter degrades to a scan when lesson texts
        # share templates. btree_gist lets the same index narrow by agent first.
        op.execute("CREATE EXTENSION IF NOT EXISTS pg_trgm")
        op.execute("CREATE EXTENSION IF NOT EXISTS btree_gist")
        op.execute(
            f"CREATE INDEX IF NOT EXISTS {TRGM_INDEX} ON lessons USING gist "
            "(agent_id, lower(situation || ' ' || correction) gist_trgm_ops)"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(f"DROP INDEX IF EXISTS {TRGM_INDEX}")
    with op.batch_alter_table("digest_runs", schema=None) as batch_op:
        batch_op.drop_column("n_fast_path")
