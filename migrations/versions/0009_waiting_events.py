"""Events wait out transient model faults; periodic duties leave a heartbeat (issue 14)

``events.status`` gains ``waiting`` (a rate limit, 5xx or timeout put the event back until
``next_attempt_at``), with ``waiting_since`` (the give-up clock), ``deferrals`` (the
backoff's exponent) and ``output_faults`` (deferrals after nothing but answers out of
contract). ``heartbeats`` records when the relay last ran.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD = "status IN ('pending', 'processing', 'reflected', 'skipped', 'failed', 'dead')"
_NEW = "status IN ('pending', 'processing', 'waiting', 'reflected', 'skipped', 'failed', 'dead')"


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("next_attempt_at", sa.DateTime(timezone=True)))
        batch.add_column(sa.Column("waiting_since", sa.DateTime(timezone=True)))
        batch.add_column(sa.Column("deferrals", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(
            sa.Column("output_faults", sa.Integer(), nullable=False, server_default="0")
        )
        batch.drop_constraint(op.f("ck_events_status"), type_="check")
        batch.create_check_constraint(op.f("ck_events_status"), sa.text(_NEW))
    op.create_table(
        "heartbeats",
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column(
            "detail",
            sa.JSON().with_variant(postgresql.JSONB(astext_type=sa.Text()), "postgresql"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("name", name=op.f("pk_heartbeats")),
    )


def downgrade() -> None:
    op.drop_table("heartbeats")
    # Waiting events go back to pending: the old schema has no other place for them.
    op.execute("UPDATE events SET status = 'pending' WHERE status = 'waiting'")
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint(op.f("ck_events_status"), type_="check")
        batch.create_check_constraint(op.f("ck_events_status"), sa.text(_OLD))
        batch.drop_column("output_faults")
        batch.drop_column("deferrals")
        batch.drop_column("waiting_since")
        batch.drop_column("next_attempt_at")
