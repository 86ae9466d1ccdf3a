"""The question queue's clock and budget index (issue 28)

``question_clocks``: one row per tenant whose ``seq`` rises each time a question of the tenant
opens (or a held one is opened). ``digest.ask`` opens a new question in one statement that
succeeds only if the clock still reads what it read with the agent's questions: nothing opened
meanwhile, so its identity check and the budget it counted still hold. The index on
``questions (tenant_id, opened_at)`` serves the budget's count.

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "question_clocks",
        sa.Column("tenant_id", BigId, nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_question_clocks_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("tenant_id", name=op.f("pk_question_clocks")),
    )  # fmt: skip
    op.create_index("ix_questions_tenant_id_opened_at", "questions", ["tenant_id", "opened_at"])


def downgrade() -> None:
    op.drop_index("ix_questions_tenant_id_opened_at", table_name="questions")
    op.drop_table("question_clocks")
