"""initial schema

Revision ID: 0001
Revises:
Create Date: 2026-11-21 23:17:12.628285
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "tenants",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("learning_apply_mode", sa.String(length=16), nullable=False),
        sa.Column(
            "settings",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "learning_apply_mode IN ('auto', 'approval')", name=op.f("ck_tenants_apply_mode")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_tenants")),
        sa.UniqueConstraint("name", name=op.f("uq_tenants_name")),
    )
    op.create_table(
        "agents",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "tenant_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("name", sa.String(length=200), nullable=False),
        sa.Column("enable_learning", sa.Boolean(), nullable=False),
        sa.Column("learning_instructions", sa.Text(), nullable=True),
        sa.Column("llm_model", sa.String(length=200), nullable=True),
        sa.Column(
            "current_version_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.Column("lesson_epoch", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_agents_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_agents")),
        sa.UniqueConstraint("tenant_id", "name", name=op.f("uq_agents_tenant_id_name")),
    )
    op.create_table(
        "events",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "tenant_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("agent_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("idempotency_key", sa.String(length=200), nullable=True),
        sa.Column(
            "payload",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("trust", sa.String(length=8), nullable=False),
        sa.Column("thread_id", sa.String(length=200), nullable=True),
        sa.Column("contact_id", sa.String(length=200), nullable=True),
        sa.Column("edit_distance", sa.Integer(), nullable=True),
        sa.Column("edit_ratio", sa.Float(), nullable=True),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.Column("skip_reason", sa.Text(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("published_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("processing_started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "kind IN ('run_outcome', 'operator_edit', 'owner_answer', 'manual_lesson')",
            name=op.f("ck_events_kind"),
        ),
        sa.CheckConstraint(
            "status IN ('pending', 'processing', 'reflected', 'skipped', 'failed', 'dead')",
            name=op.f("ck_events_status"),
        ),
        sa.CheckConstraint("trust IN ('high', 'low')", name=op.f("ck_events_trust")),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_events_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_events_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_events")),
        sa.UniqueConstraint(
            "tenant_id", "idempotency_key", name=op.f("uq_events_tenant_id_idempotency_key")
        ),
    )
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.create_index("ix_events_agent_id_status", ["agent_id", "status"], unique=False)
        batch_op.create_index("ix_events_status_created_at", ["status", "created_at"], unique=False)

    op.create_table(
        "learning_versions",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "tenant_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("agent_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column(
            "previous_version_id",
            sa.BigInteger().with_variant(sa.Integer(), "sqlite"),
            nullable=True,
        ),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("body_markdown", sa.Text(), nullable=False),
        sa.Column("change_summary", sa.Text(), nullable=False),
        sa.Column(
            "folded_lesson_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column(
            "supporting_event_ids",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("proposed_by", sa.String(length=16), nullable=False),
        sa.Column("trigger", sa.String(length=16), nullable=False),
        sa.Column("approved_by", sa.String(length=200), nullable=True),
        sa.Column("approved_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "proposed_by IN ('digest', 'operator')", name=op.f("ck_learning_versions_proposed_by")
        ),
        sa.CheckConstraint(
            "status IN ('pending', 'active', 'superseded', 'rejected')",
            name=op.f("ck_learning_versions_status"),
        ),
        sa.CheckConstraint(
            "trigger IN ('threshold', 'sweep', 'manual', 'rollback')",
            name=op.f("ck_learning_versions_trigger"),
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agents.id"],
            name=op.f("fk_learning_versions_agent_id_agents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["previous_version_id"],
            ["learning_versions.id"],
            name=op.f("fk_learning_versions_previous_version_id_learning_versions"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_learning_versions_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_learning_versions")),
        sa.UniqueConstraint(
            "agent_id", "number", name=op.f("uq_learning_versions_agent_id_number")
        ),
    )
    # agents.current_version_id ↔ learning_versions.agent_id is a cycle: add that key last.
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.create_foreign_key(
            op.f("fk_agents_current_version_id_learning_versions"),
            "learning_versions",
            ["current_version_id"],
            ["id"],
            ondelete="SET NULL",
        )

    op.create_table(
        "lessons",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "tenant_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("agent_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("scope", sa.String(length=16), nullable=False),
        sa.Column("contact_id", sa.String(length=200), nullable=True),
        sa.Column("slug", sa.String(length=120), nullable=False),
        sa.Column("title", sa.String(length=200), nullable=False),
        sa.Column("situation", sa.Text(), nullable=False),
        sa.Column("mistake", sa.Text(), nullable=True),
        sa.Column("correction", sa.Text(), nullable=False),
        sa.Column(
            "tags",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.Column("source", sa.String(length=32), nullable=False),
        sa.Column("outcome", sa.String(length=16), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=False),
        sa.Column("support_count", sa.Integer(), nullable=False),
        sa.Column("success_count", sa.Integer(), nullable=False),
        sa.Column("failure_count", sa.Integer(), nullable=False),
        sa.Column("hit_count", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("status_reason", sa.Text(), nullable=True),
        sa.Column(
            "superseded_by_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True
        ),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("last_seen_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "outcome IN ('success', 'failure', 'mixed')", name=op.f("ck_lessons_outcome")
        ),
        sa.CheckConstraint("scope IN ('contact', 'agent', 'org')", name=op.f("ck_lessons_scope")),
        sa.CheckConstraint(
            "status IN ('active', 'disabled', 'superseded', 'deleted', 'quarantined')",
            name=op.f("ck_lessons_status"),
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"], ["agents.id"], name=op.f("fk_lessons_agent_id_agents"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["superseded_by_id"],
            ["lessons.id"],
            name=op.f("fk_lessons_superseded_by_id_lessons"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_lessons_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lessons")),
        sa.UniqueConstraint("agent_id", "slug", name=op.f("uq_lessons_agent_id_slug")),
    )
    with op.batch_alter_table("lessons", schema=None) as batch_op:
        batch_op.create_index("ix_lessons_agent_id_status", ["agent_id", "status"], unique=False)

    op.create_table(
        "digest_runs",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "tenant_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("agent_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("event_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("trigger", sa.String(length=32), nullable=False),
        sa.Column("n_add", sa.Integer(), nullable=False),
        sa.Column("n_update", sa.Integer(), nullable=False),
        sa.Column("n_delete", sa.Integer(), nullable=False),
        sa.Column("n_noop", sa.Integer(), nullable=False),
        sa.Column("n_skip", sa.Integer(), nullable=False),
        sa.Column("llm_calls", sa.Integer(), nullable=False),
        sa.Column("prompt_tokens", sa.Integer(), nullable=False),
        sa.Column("completion_tokens", sa.Integer(), nullable=False),
        sa.Column("cost_usd", sa.Float(), nullable=False),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('reflect', 'compose')", name=op.f("ck_digest_runs_kind")),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agents.id"],
            name=op.f("fk_digest_runs_agent_id_agents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_digest_runs_event_id_events"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_digest_runs_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_digest_runs")),
    )
    with op.batch_alter_table("digest_runs", schema=None) as batch_op:
        batch_op.create_index(
            "ix_digest_runs_agent_id_started_at", ["agent_id", "started_at"], unique=False
        )

    op.create_table(
        "lesson_evidence",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "lesson_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("event_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("note", sa.String(length=300), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_lesson_evidence_event_id_events"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["lesson_id"],
            ["lessons.id"],
            name=op.f("fk_lesson_evidence_lesson_id_lessons"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lesson_evidence")),
        sa.UniqueConstraint(
            "lesson_id", "event_id", name=op.f("uq_lesson_evidence_lesson_id_event_id")
        ),
    )
    with op.batch_alter_table("lesson_evidence", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_lesson_evidence_event_id"), ["event_id"], unique=False)

    op.create_table(
        "lesson_history",
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column(
            "lesson_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column(
            "tenant_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False
        ),
        sa.Column("agent_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("op", sa.String(length=8), nullable=False),
        sa.Column(
            "before",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column(
            "after",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=True,
        ),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("event_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=True),
        sa.Column("model", sa.String(length=200), nullable=True),
        sa.Column("prompt_hash", sa.String(length=64), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "op IN ('ADD', 'UPDATE', 'DELETE', 'NOOP')", name=op.f("ck_lesson_history_op")
        ),
        sa.ForeignKeyConstraint(
            ["agent_id"],
            ["agents.id"],
            name=op.f("fk_lesson_history_agent_id_agents"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["event_id"],
            ["events.id"],
            name=op.f("fk_lesson_history_event_id_events"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["lesson_id"],
            ["lessons.id"],
            name=op.f("fk_lesson_history_lesson_id_lessons"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["tenant_id"],
            ["tenants.id"],
            name=op.f("fk_lesson_history_tenant_id_tenants"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_lesson_history")),
    )
    with op.batch_alter_table("lesson_history", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_lesson_history_lesson_id"), ["lesson_id"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("lesson_history", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lesson_history_lesson_id"))

    op.drop_table("lesson_history")
    with op.batch_alter_table("lesson_evidence", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_lesson_evidence_event_id"))

    op.drop_table("lesson_evidence")
    with op.batch_alter_table("digest_runs", schema=None) as batch_op:
        batch_op.drop_index("ix_digest_runs_agent_id_started_at")

    op.drop_table("digest_runs")
    with op.batch_alter_table("lessons", schema=None) as batch_op:
        batch_op.drop_index("ix_lessons_agent_id_status")

    op.drop_table("lessons")
    with op.batch_alter_table("agents", schema=None) as batch_op:
        batch_op.drop_constraint(
            op.f("fk_agents_current_version_id_learning_versions"), type_="foreignkey"
        )
    op.drop_table("learning_versions")
    with op.batch_alter_table("events", schema=None) as batch_op:
        batch_op.drop_index("ix_events_status_created_at")
        batch_op.drop_index("ix_events_agent_id_status")

    op.drop_table("events")
    op.drop_table("agents")
    op.drop_table("tenants")
