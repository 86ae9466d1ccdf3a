"""Randomized holdouts (issue 29 point 1)

``holdout_exposures``: one row per eligible lesson per ``pitfalls`` turn given a turn id, shown
or withheld by the keyed draw (``digest.lessons.holdout``), unique per (agent, turn, lesson).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    op.create_table(
        "holdout_exposures",
        sa.Column("id", BigId, nullable=False),
        sa.Column("agent_id", BigId, nullable=False),
        sa.Column("lesson_id", BigId, nullable=False),
        sa.Column("turn_id", sa.String(length=200), nullable=False),
        sa.Column("shown", sa.Boolean(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_holdout_exposures_agent_id_agents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["lesson_id"], ["lessons.id"], name=op.f("fk_holdout_exposures_lesson_id_lessons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_holdout_exposures")),
        sa.UniqueConstraint(
            "agent_id", "turn_id", "lesson_id",
            name=op.f("uq_holdout_exposures_agent_id_turn_id_lesson_id"),
        ),
    )  # fmt: skip
    op.create_index(
        op.f("ix_holdout_exposures_lesson_id"), "holdout_exposures", ["lesson_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_holdout_exposures_lesson_id"), table_name="holdout_exposures")
    op.drop_table("holdout_exposures")
