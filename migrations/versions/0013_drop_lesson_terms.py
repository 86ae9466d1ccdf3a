"""Dead weight out (issue 23): the PostgreSQL term index of 0004 and the extensions of 0002

The neighbour search reads an in-memory index per agent (``digest.lessons.neighbours``, since
issue 13); nothing reads ``lesson_terms`` any more, yet its trigger rewrote an active lesson's
terms on every change to its text or status. Dropped:

- the triggers ``lessons_index_terms_on_insert`` and ``lessons_index_terms_on_update``;
- the table ``lesson_terms`` (and its index);
- the functions ``digest_index_lesson_terms()``, ``digest_lesson_terms(text)`` and
  ``digest_normalise(text)``, used only by that trigger;
- the extensions ``pg_trgm`` and ``btree_gist`` (0002), created for the GiST trigram index
  that 0004 dropped. Neither digest's code nor its schema uses them now. An extension that
  something else in the database depends on, or that the migrating role does not own (it was
  there before digest), is kept: dropping it is not digest's to decide.

Downgrading recreates all of it as 0002 and 0004 made it and rebuilds ``lesson_terms`` from
the active lessons, as the trigger would have kept it.

SQLite never had any of it (0002 and 0004 only act on PostgreSQL): nothing to do there.

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

#: created by 0002, in this order
EXTENSIONS = ("pg_trgm", "btree_gist")

TRIGGER_NAMES = ("lessons_index_terms_on_update", "lessons_index_terms_on_insert")

#: Drop an extension unless something depends on it or it is not ours to drop. The block is a
#: subtransaction of its own, so a refusal leaves the migration's transaction intact.
DROP_EXTENSION_UNLESS_USED = """
DO $$
BEGIN
    DROP EXTENSION IF EXISTS {name};
EXCEPTION WHEN dependent_objects_still_exist OR insufficient_privilege THEN
    RAISE NOTICE '{name} kept: %', SQLERRM;
END
$$
"""

# --- as migration 0004 made them (copied: a migration never imports another) -----------------

#: Lowercase, punctuation to spaces, whitespace collapsed: digest.text.normalise in SQL.
NORMALISE = r"""
CREATE FUNCTION digest_normalise(body text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN btrim(regexp_replace(regexp_replace(lower(body), '[^\w\s]+', ' ', 'g'), '\s+', ' ', 'g'))
"""

#: The terms a text is indexed and searched by. Distinct; words are cut at 40 characters so a
#: pasted token never exceeds a btree entry. "=" cannot occur in a normalised word, so the
#: whole-text key never collides with a word.
TERMS = """
CREATE FUNCTION digest_lesson_terms(body text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
    WITH words AS (
        SELECT left(word, 40) AS word, n
        FROM unnest(string_to_array(digest_normalise(body), ' ')) WITH ORDINALITY AS w(word, n)
        WHERE word <> ''
    )
    SELECT array_agg(DISTINCT term) FROM (
        SELECT '=' || md5(digest_normalise(body)) AS term
        UNION ALL
        SELECT word FROM words
        UNION ALL
        SELECT first.word || ' ' || second.word
        FROM words AS first JOIN words AS second ON second.n = first.n + 1
    ) AS terms
$$
"""

#: Only active lessons are indexed: neighbours are only ever drawn from them, and a term's
#: count then says how many live lessons share it.
INDEX_TERMS = """
CREATE FUNCTION digest_index_lesson_terms() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM lesson_terms WHERE lesson_id = OLD.id;
    END IF;
    IF NEW.status = 'active' THEN
        INSERT INTO lesson_terms (agent_id, term, lesson_id)
        SELECT NEW.agent_id, term, NEW.id
        FROM unnest(digest_lesson_terms(NEW.situation || ' ' || NEW.correction)) AS term;
    END IF;
    RETURN NULL;
END
$$
"""

TRIGGERS = [
    "CREATE TRIGGER lessons_index_terms_on_insert AFTER INSERT ON lessons"
    " FOR EACH ROW EXECUTE FUNCTION digest_index_lesson_terms()",
    # Support and hit counts change far more often than text or status: skip those updates.
    "CREATE TRIGGER lessons_index_terms_on_update"
    " AFTER UPDATE OF agent_id, situation, correction, status ON lessons FOR EACH ROW"
    " WHEN (OLD.agent_id IS DISTINCT FROM NEW.agent_id"
    " OR OLD.situation IS DISTINCT FROM NEW.situation"
    " OR OLD.correction IS DISTINCT FROM NEW.correction"
    " OR OLD.status IS DISTINCT FROM NEW.status)"
    " EXECUTE FUNCTION digest_index_lesson_terms()",
]

BACKFILL = """
INSERT INTO lesson_terms (agent_id, term, lesson_id)
SELECT lessons.agent_id, term, lessons.id
FROM lessons, unnest(digest_lesson_terms(lessons.situation || ' ' || lessons.correction)) AS term
WHERE lessons.status = 'active'
"""


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    for trigger in TRIGGER_NAMES:
        op.execute(f"DROP TRIGGER IF EXISTS {trigger} ON lessons")
    op.execute("DROP TABLE IF EXISTS lesson_terms")
    op.execute("DROP FUNCTION IF EXISTS digest_index_lesson_terms()")
    op.execute("DROP FUNCTION IF EXISTS digest_lesson_terms(text)")
    op.execute("DROP FUNCTION IF EXISTS digest_normalise(text)")
    for name in reversed(EXTENSIONS):
        op.execute(DROP_EXTENSION_UNLESS_USED.format(name=name))


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    # 0002's extensions: a further downgrade past 0004 rebuilds the GiST trigram index on them.
    for name in EXTENSIONS:
        op.execute(f"CREATE EXTENSION IF NOT EXISTS {name}")
    op.create_table(
        "lesson_terms",
        sa.Column("agent_id", sa.BigInteger(), nullable=False),
        sa.Column("term", sa.Text(), nullable=False),
        sa.Column(
            "lesson_id",
            sa.BigInteger(),
            sa.ForeignKey("lessons.id", ondelete="CASCADE", name="fk_lesson_terms_lesson_id"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("agent_id", "term", "lesson_id", name="pk_lesson_terms"),
    )
    op.create_index("ix_lesson_terms_lesson_id", "lesson_terms", ["lesson_id"])
    op.execute(NORMALISE)
    op.execute(TERMS)
    op.execute(INDEX_TERMS)
    for trigger in TRIGGERS:
        op.execute(trigger)
    op.execute(BACKFILL)
    op.execute("ANALYZE lesson_terms")
