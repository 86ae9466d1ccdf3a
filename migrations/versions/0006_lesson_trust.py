"""lessons.trust: trusted, untrusted or reviewed, stored with every lesson

Trust travels with a lesson (issue 12): lessons from a person's words (owner answers, operator
edits, manual lessons) are ``trusted``; lessons distilled from run text are ``untrusted``; an
untrusted lesson a person released from quarantine is ``reviewed``. Existing lessons get the
trust of their source.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("lessons") as batch:
        batch.add_column(
            sa.Column("trust", sa.String(12), nullable=False, server_default="untrusted")
        )
    op.execute(
        "UPDATE lessons SET trust = 'trusted' "
        "WHERE source IN ('operator_edit', 'owner_answer', 'manual_lesson')"
    )
    op.execute(
        "UPDATE lessons SET trust = 'reviewed' "
        "WHERE trust = 'untrusted' AND status = 'active' "
        "AND status_reason LIKE 'released from quarantine%'"
    )
    with op.batch_alter_table("lessons") as batch:
        batch.create_check_constraint(
            op.f("ck_lessons_trust"), "trust IN ('trusted', 'untrusted', 'reviewed')"
        )


def downgrade() -> None:
    with op.batch_alter_table("lessons") as batch:
        batch.drop_constraint(op.f("ck_lessons_trust"), type_="check")
        batch.drop_column("trust")
