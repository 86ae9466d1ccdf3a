"""neighbour search: an inverted index of lesson terms per agent (Postgres)

Replaces the GiST trigram index of 0002, whose nearest-neighbour walk slowed as an agent's
bank grew (lessons share too many trigrams for it to prune). ``lesson_terms`` holds, for each
active lesson, its words, its adjacent word pairs and one key for its whole normalised text;
``digest.lessons.neighbours`` looks up a candidate's rarest terms there, so the rows it reads are
bounded whatever the bank size. A trigger keeps the table in step with every write to a
lesson's text or status, whoever makes it (the ORM, a bulk load, an operator's UPDATE).

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-22
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TRGM_INDEX = "ix_lessons_text_trgm"

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
        return  # SQLite scores an agent's lessons in process; it needs no index.
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
        # The search reads (agent, term) → lessons; the trigger deletes by lesson.
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
    op.execute(f"DROP INDEX IF EXISTS {TRGM_INDEX}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.execute(
        f"CREATE INDEX IF NOT EXISTS {TRGM_INDEX} ON lessons USING gist "
        "(agent_id, lower(situation || ' ' || correction) gist_trgm_ops)"
    )
    op.execute("DROP TRIGGER IF EXISTS lessons_index_terms_on_update ON lessons")
    op.execute("DROP TRIGGER IF EXISTS lessons_index_terms_on_insert ON lessons")
    op.drop_table("lesson_terms")
    op.execute("DROP FUNCTION IF EXISTS digest_index_lesson_terms()")
    op.execute("DROP FUNCTION IF EXISTS digest_lesson_terms(text)")
    op.execute("DROP FUNCTION IF EXISTS digest_normalise(text)")
