"""The owner's question queue (issue 28)

``questions``: what agents asked their owner (``digest.ask``), one row per question however many
threads asked it, with its state (open, held by the question budget, answered, dismissed,
expired) and the owner's answer. ``question_asks``: each time it was asked, with the thread and
contact it came from.

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
STATUSES = ("open", "held", "answered", "dismissed", "expired")


def upgrade() -> None:
    listed = ", ".join(f"'{s}'" for s in STATUSES)
    op.create_table(
        "questions",
        sa.Column("id", BigId, nullable=False),
        sa.Column("tenant_id", BigId, nullable=False),
        sa.Column("agent_id", BigId, nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("ask_count", sa.Integer(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("last_asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("closed_by", sa.String(length=200), nullable=True),
        sa.Column("answer", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("answer_event_id", BigId, nullable=True),
        sa.CheckConstraint(f"status IN ({listed})", name=op.f("ck_questions_status")),
        sa.ForeignKeyConstraint(
            ["tenant_id"], ["tenants.id"], name=op.f("fk_questions_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_questions_agent_id_agents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["answer_event_id"], ["events.id"], name=op.f("fk_questions_answer_event_id_events"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_questions")),
    )  # fmt: skip
    op.create_index("ix_questions_agent_id_status", "questions", ["agent_id", "status"])
    op.create_table(
        "question_asks",
        sa.Column("id", BigId, nullable=False),
        sa.Column("question_id", BigId, nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("context", sa.Text(), nullable=True),
        sa.Column("thread_id", sa.String(length=200), nullable=True),
        sa.Column("contact_id", sa.String(length=200), nullable=True),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["question_id"], ["questions.id"],
            name=op.f("fk_question_asks_question_id_questions"), ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_question_asks")),
    )  # fmt: skip
    op.create_index(
        op.f("ix_question_asks_question_id"), "question_asks", ["question_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_question_asks_question_id"), table_name="question_asks")
    op.drop_table("question_asks")
    op.drop_index("ix_questions_agent_id_status", table_name="questions")
    op.drop_table("questions")
