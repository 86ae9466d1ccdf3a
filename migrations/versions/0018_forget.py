"""Forget a person (issue 29 point 2)

``forgotten``: the audit row ``digest forget`` leaves: tenant, the sha256 of the contact id or
event id it erased (never the id itself), the rows erased per table, who asked, when.

Revision ID: 0018
Revises: 0017
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "forgotten",
        sa.Column("id", BigId, nullable=False),
        sa.Column("tenant_id", BigId, nullable=False),
        sa.Column("kind", sa.String(length=8), nullable=False),
        sa.Column("subject_hash", sa.String(length=64), nullable=False),
        sa.Column("counts", Json, nullable=False),
        sa.Column("by", sa.String(length=200), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('contact', 'event')", name=op.f("ck_forgotten_kind")),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_forgotten_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_forgotten")),
    )  # fmt: skip
    op.create_index(op.f("ix_forgotten_tenant_id"), "forgotten", ["tenant_id"])
    op.create_index(op.f("ix_forgotten_subject_hash"), "forgotten", ["subject_hash"])


def downgrade() -> None:
    op.drop_index(op.f("ix_forgotten_subject_hash"), table_name="forgotten")
    op.drop_index(op.f("ix_forgotten_tenant_id"), table_name="forgotten")
    op.drop_table("forgotten")
