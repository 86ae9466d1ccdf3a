"""Owner sessions for the review page (issue 15)

``review_sessions`` holds the sha256 of each session cookie's token, never the token, with the
owner key it was opened with: revoking that key ends its sessions (the row goes with it).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "review_sessions",
        sa.Column("id", BigId, nullable=False),
        sa.Column("key_id", BigId, nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["key_id"],
            ["api_keys.id"],
            name=op.f("fk_review_sessions_key_id_api_keys"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_review_sessions")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_review_sessions_token_hash")),
    )
    op.create_index(op.f("ix_review_sessions_key_id"), "review_sessions", ["key_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_review_sessions_key_id"), table_name="review_sessions")
    op.drop_table("review_sessions")
