"""events.claim_token: which delivery of a reflect message holds an event's claim

A reflect task records its Celery task id on every event it claims. When the same message is
delivered again (its worker process died and Celery re-queued it, or the task retried after a
database fault), the new delivery knows the claims are its own dead run's and takes them over
at once, instead of waiting for them to go stale (the hard time limit plus the grace).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable, no default: instant on Postgres however many events there are.
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("claim_token", sa.String(64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("events") as batch:
        batch.drop_column("claim_token")
