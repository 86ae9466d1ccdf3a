"""A partial index on ``lessons (expires_at)``, lessons with an expiry only (issue 26)

The relay's beat task now expires lessons whose time has passed every relay interval
(``digest.versions.triggers.expire_due``), not only the weekly sweep, so that an expired
lesson leaves the learning document within a minute. Few lessons have an expiry: the index
holds only those, and the check reads it instead of every active lesson. PostgreSQL and SQLite
both take the ``WHERE``; no data changes.

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_WITH_AN_EXPIRY = sa.text("expires_at IS NOT NULL")


def upgrade() -> None:
    op.create_index(
        "ix_lessons_expires_at",
        "lessons",
        ["expires_at"],
        postgresql_where=_WITH_AN_EXPIRY,
        sqlite_where=_WITH_AN_EXPIRY,
    )


def downgrade() -> None:
    op.drop_index("ix_lessons_expires_at", table_name="lessons")
