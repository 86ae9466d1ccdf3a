"""The worker merges paraphrased questions (issue 28)

``digest.ask`` opens a new question when the words alone do not tell it is a paraphrase of an
open one; the worker then asks the judge and merges the two (``digest.questions.merge``):

- ``questions.status`` gains ``merged``: the question was found to be another's paraphrase;
  its asks (threads, contexts) and count moved to that one;
- ``questions.duplicate_of``: the question it was merged into (the survivor), whose answer
  answers it;
- ``questions.judged_at``: when the worker compared it with the agent's other open questions
  (NULL: not yet; the relay queues the work again for one left so).

Revision ID: 0023
Revises: 0022
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD = "status IN ('open', 'held', 'answered', 'dismissed', 'expired')"
_NEW = "status IN ('open', 'held', 'answered', 'dismissed', 'expired', 'merged')"
BigId = sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def upgrade() -> None:
    with op.batch_alter_table("questions") as batch:
        batch.add_column(sa.Column("duplicate_of", BigId, nullable=True))
        batch.add_column(sa.Column("judged_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_foreign_key(
            op.f("fk_questions_duplicate_of_questions"), "questions", ["duplicate_of"], ["id"],
            ondelete="SET NULL",
        )  # fmt: skip
        batch.drop_constraint(op.f("ck_questions_status"), type_="check")
        batch.create_check_constraint(op.f("ck_questions_status"), sa.text(_NEW))
    # questions asked before this revision were never compared: the worker need not either
    op.execute("UPDATE questions SET judged_at = created_at")


def downgrade() -> None:
    # a merged question goes back to a dismissal with its reason (the old schema's nearest)
    op.execute("UPDATE questions SET status = 'dismissed' WHERE status = 'merged'")
    with op.batch_alter_table("questions") as batch:
        batch.drop_constraint(op.f("ck_questions_status"), type_="check")
        batch.create_check_constraint(op.f("ck_questions_status"), sa.text(_OLD))
        batch.drop_constraint(op.f("fk_questions_duplicate_of_questions"), type_="foreignkey")
        batch.drop_column("judged_at")
        batch.drop_column("duplicate_of")
