"""Identity (issue 13): lesson fingerprints and embeddings, and the fleet-wide judgement cache

- ``lessons.fingerprint``: the structural identity of what a lesson is about
  (``digest.identity.fingerprint``), indexed per agent;
- ``lessons.embedding`` / ``lessons.embedding_key``: the lesson's sentence embedding as
  little-endian float32 bytes, and which model and text it was computed from (a vector whose
  key no longer matches the lesson's text or the configured model is recomputed). Without
  pgvector the vectors are scored in each process (``digest.identity.index``); DESIGN says
  where a ``vector`` column and an HNSW index would plug in;
- ``judgements``: a judgement (skip, or the lessons it produced) per agent, event signature,
  model and prompt version, reused by every worker for a later event with the same signature.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import JSONB

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
Json = sa.JSON().with_variant(JSONB(), "postgresql")


def upgrade() -> None:
    with op.batch_alter_table("lessons") as batch:
        batch.add_column(sa.Column("fingerprint", sa.String(40), nullable=True))
        batch.add_column(sa.Column("embedding", sa.LargeBinary(), nullable=True))
        batch.add_column(sa.Column("embedding_key", sa.String(40), nullable=True))
    op.create_index("ix_lessons_agent_id_fingerprint", "lessons", ["agent_id", "fingerprint"])
    op.create_table(
        "judgements",
        sa.Column("id", BigId, nullable=False),
        sa.Column("agent_id", BigId, nullable=False),
        sa.Column("signature", sa.String(length=40), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=False),
        sa.Column("prompt_hash", sa.String(length=64), nullable=False),
        sa.Column("verdict", sa.String(length=8), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("lesson_ids", Json, nullable=False),
        sa.Column("event_id", sa.BigInteger(), nullable=True),
        sa.Column("reused", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("verdict IN ('skip', 'lessons')", name=op.f("ck_judgements_verdict")),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agents.id"],
            name=op.f("fk_judgements_agent_id_agents"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judgements")),
        sa.UniqueConstraint(
            "agent_id",
            "signature",
            "model",
            "prompt_hash",
            name=op.f("uq_judgements_agent_id_signature_model_prompt_hash"),
        ),
    )


def downgrade() -> None:
    op.drop_table("judgements")
    op.drop_index("ix_lessons_agent_id_fingerprint", table_name="lessons")
    with op.batch_alter_table("lessons") as batch:
        batch.drop_column("embedding_key")
        batch.drop_column("embedding")
        batch.drop_column("fingerprint")
