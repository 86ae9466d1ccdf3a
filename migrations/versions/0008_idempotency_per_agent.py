"""Idempotency keys are unique per agent, not per tenant (issue 14)

Two agents of one tenant may use the same key: each gets its own event. (Keys unique per
tenant are unique per agent too, so existing rows need no change.)

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint(op.f("uq_events_tenant_id_idempotency_key"), type_="unique")
        batch.create_unique_constraint(
            op.f("uq_events_agent_id_idempotency_key"), ["agent_id", "idempotency_key"]
        )


def downgrade() -> None:
    # Fails if two agents of one tenant now share a key: that is data the old rule forbids.
    with op.batch_alter_table("events") as batch:
        batch.drop_constraint(op.f("uq_events_agent_id_idempotency_key"), type_="unique")
        batch.create_unique_constraint(
            op.f("uq_events_tenant_id_idempotency_key"), ["tenant_id", "idempotency_key"]
        )
