"""versions: compose bookkeeping on agents, the version a compose run created

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-21
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.add_column(sa.Column("composed_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("compose_token", sa.String(length=32), nullable=True))
    with op.batch_alter_table("digest_runs", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "version_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
            )
        )
        batch_op.create_foreign_key(
            op.f("fk_digest_runs_version_id_learning_versions"),
            "learning_versions",
            ["version_id"],
            ["id"],
            ondelete="SET NULL",
        )


def downgrade() -> None:
    with op.batch_alter_table("digest_runs", schema=None) as batch_op:
        batch_op.drop_constraint(
            op.f("fk_digest_runs_version_id_learning_versions"), type_="foreignkey"
        )
        batch_op.drop_column("version_id")
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.drop_column("compose_token")
        batch_op.drop_column("composed_at")
