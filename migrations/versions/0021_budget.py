"""Daily model budgets per tenant (issue 29, part 3)

``tenants.daily_tokens`` and ``tenants.daily_cost_usd``: the tenant's daily budget of model
tokens and of cost (NULL: no limit on that measure; ``digest tenant set --daily-tokens N
--daily-cost USD``). The day's spend is kept fleet-wide in Redis (``digest.model.budget``).
``events.wait_kind``: what a ``waiting`` event waits for, ``budget`` when its tenant's budget
is spent (it resumes the next UTC day and never counts towards the give-up horizon of model
faults), NULL after a passing model fault.

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("tenants", sa.Column("daily_tokens", sa.BigInteger(), nullable=True))
    op.add_column(
        "tenants", sa.Column("daily_cost_usd", sa.Numeric(14, 6, asdecimal=False), nullable=True)
    )
    op.add_column("events", sa.Column("wait_kind", sa.String(16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("wait_kind")
    with op.batch_alter_table("tenants") as batch:
        batch.drop_column("daily_cost_usd")
        batch.drop_column("daily_tokens")
