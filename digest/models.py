"""The data model (DESIGN §3): SQLAlchemy 2 typed ORM, Postgres first, SQLite works.

Table names are part of the operator-facing surface. Enumerations are plain strings guarded by
CHECK constraints, so adding a value is a small migration on both databases.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    String,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, validates

from digest import clock
from digest.redact import redact

# Integer primary keys: BIGINT on Postgres, INTEGER (the rowid alias) on SQLite.
BigId = BigInteger().with_variant(Integer(), "sqlite")
Json = JSON().with_variant(JSONB(), "postgresql")

NAMING = {
    "ix": "ix_%(column_0_N_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

#: text caps (DESIGN §3): signature/title, and every lesson body
TITLE_MAX = 200
BODY_MAX = 4096

#: event kinds (and so lesson sources) that are trusted: a person wrote them
TRUSTED_KINDS = frozenset({"operator_edit", "owner_answer", "manual_lesson"})

#: a lesson's trust (issue 12): ``trusted`` (a person wrote its source: an owner answer, an
#: operator edit, a manual lesson, an import marked trusted), ``untrusted`` (distilled from
#: run text, or imported without ``--trusted``) or ``reviewed`` (untrusted, then released
#: from quarantine by a person). Reconciliation never raises it.
LESSON_TRUST = ("trusted", "untrusted", "reviewed")
#: trust levels an untrusted event can never UPDATE, supersede or rewrite
PROTECTED_TRUST = frozenset({"trusted", "reviewed"})

EVENT_KINDS = ("run_outcome", "operator_edit", "owner_answer", "manual_lesson")
#: ``waiting``: a transient model fault (rate limit, 5xx, timeout) put the event back; it is
#: claimable again from ``next_attempt_at`` (issue 14)
EVENT_STATUSES = ("pending", "processing", "waiting", "reflected", "skipped", "failed", "dead")
TRUST_LEVELS = ("high", "low")
LESSON_SCOPES = ("contact", "agent", "org")
LESSON_OUTCOMES = ("success", "failure", "mixed")
LESSON_STATUSES = ("active", "disabled", "superseded", "deleted", "quarantined")
HISTORY_OPS = ("ADD", "UPDATE", "DELETE", "NOOP")
VERSION_STATUSES = ("pending", "active", "superseded", "rejected")
VERSION_TRIGGERS = ("threshold", "sweep", "manual", "rollback")
#: ``auto``: every new version is active at once; ``approval``: every one waits for a person;
#: ``staged``: only a version that changes or retires a trusted (or reviewed) lesson waits
APPLY_MODES = ("auto", "approval", "staged")


def utcnow() -> datetime:
    """Now (UTC) on lesson digest's clock: the system's, moved by ``DIGEST_CLOCK_OFFSET_S``
    (a test and drill knob: the budget day, waiting events and every timestamp move with it)."""
    return clock.now()


def as_utc(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes for timezone-aware columns; all we store is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _one_of(column: str, values: tuple[str, ...], name: str) -> CheckConstraint:
    listed = ", ".join(f"'{v}'" for v in values)
    return CheckConstraint(f"{column} IN ({listed})", name=name)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING)


class Tenant(Base):
    __tablename__ = "tenants"
    __table_args__ = (_one_of("learning_apply_mode", APPLY_MODES, "apply_mode"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    name: Mapped[str] = mapped_column(String(200), unique=True)
    learning_apply_mode: Mapped[str] = mapped_column(String(16), default="auto")
    settings: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    #: the daily model budget (issue 29; ``digest.model.spend``): tokens, cost in USD; None: none
    daily_tokens: Mapped[int | None] = mapped_column(BigInteger)
    daily_cost_usd: Mapped[float | None] = mapped_column(Numeric(14, 6, asdecimal=False))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Agent(Base):
    __tablename__ = "agents"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(200))
    enable_learning: Mapped[bool] = mapped_column(Boolean, default=True)
    learning_instructions: Mapped[str | None] = mapped_column(Text)
    llm_model: Mapped[str | None] = mapped_column(String(200))
    current_version_id: Mapped[int | None] = mapped_column(
        ForeignKey("learning_versions.id", use_alter=True, ondelete="SET NULL")
    )
    #: bumped on every lesson write; writers compare it to detect a concurrent change.
    lesson_epoch: Mapped[int] = mapped_column(Integer, default=0)
    #: when a compose last looked at this agent (signals after it are "undigested").
    composed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: the latest scheduled threshold compose; an older scheduled task finds it replaced.
    compose_token: Mapped[str | None] = mapped_column(String(32))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class Event(Base):
    """The durable signal and the outbox: written on the agent's hot path, then reflected."""

    __tablename__ = "events"
    __table_args__ = (
        UniqueConstraint("agent_id", "idempotency_key"),
        _one_of("kind", EVENT_KINDS, "kind"),
        _one_of("status", EVENT_STATUSES, "status"),
        _one_of("trust", TRUST_LEVELS, "trust"),
        Index("ix_events_status_created_at", "status", "created_at"),
        Index("ix_events_agent_id_status", "agent_id", "status"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    kind: Mapped[str] = mapped_column(String(32))
    idempotency_key: Mapped[str | None] = mapped_column(String(200))
    payload: Mapped[dict[str, Any]] = mapped_column(Json)
    trust: Mapped[str] = mapped_column(String(8))
    thread_id: Mapped[str | None] = mapped_column(String(200))
    contact_id: Mapped[str | None] = mapped_column(String(200))
    edit_distance: Mapped[int | None] = mapped_column(Integer)
    edit_ratio: Mapped[float | None] = mapped_column(Float)
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    skip_reason: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: last time the relay re-published it (the hot path publishes without writing this).
    published_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    processing_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: the Celery task id of the delivery that claimed it (a redelivery takes its claims back)
    claim_token: Mapped[str | None] = mapped_column(String(64))
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: ``waiting`` events: when a worker may take it again
    next_attempt_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: when the current run of transient faults began (the give-up clock); None once decided
    waiting_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: what a ``waiting`` event waits for: ``budget`` (its tenant's daily model budget is
    #: spent), else None (a passing model fault)
    wait_kind: Mapped[str | None] = mapped_column(String(16))
    #: how many times a transient fault put it back (the backoff's exponent)
    deferrals: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: deferrals after which every answer of the model had broken its output contract
    output_faults: Mapped[int] = mapped_column(Integer, default=0, server_default="0")

    @validates("last_error")
    def _redact_error(self, _key: str, value: str | None) -> str | None:
        # Error text often quotes what failed (a URL with its password, a key in a 401 body).
        return redact(value) if value else value


class Lesson(Base):
    __tablename__ = "lessons"
    __table_args__ = (
        UniqueConstraint("agent_id", "slug"),
        _one_of("scope", LESSON_SCOPES, "scope"),
        _one_of("outcome", LESSON_OUTCOMES, "outcome"),
        _one_of("status", LESSON_STATUSES, "status"),
        _one_of("trust", LESSON_TRUST, "trust"),
        Index("ix_lessons_agent_id_status", "agent_id", "status"),
        Index("ix_lessons_agent_id_fingerprint", "agent_id", "fingerprint"),
        # the relay's expiry check (digest.versions.triggers.expire_due): lessons with one only
        Index(
            "ix_lessons_expires_at",
            "expires_at",
            postgresql_where=text("expires_at IS NOT NULL"),
            sqlite_where=text("expires_at IS NOT NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    scope: Mapped[str] = mapped_column(String(16), default="agent")
    contact_id: Mapped[str | None] = mapped_column(String(200))
    slug: Mapped[str] = mapped_column(String(120))
    title: Mapped[str] = mapped_column(String(200))
    situation: Mapped[str] = mapped_column(Text)
    mistake: Mapped[str | None] = mapped_column(Text)
    correction: Mapped[str] = mapped_column(Text)
    tags: Mapped[list[str]] = mapped_column(Json, default=list)
    #: the telling words of the tasks of the runs it was learned from (digest.lessons.cues):
    #: retrieval matches prompts against them; nothing an agent reads renders them
    cues: Mapped[list[str] | None] = mapped_column(Json, default=list)
    source: Mapped[str] = mapped_column(String(32))
    trust: Mapped[str] = mapped_column(String(12), default="untrusted", server_default="untrusted")
    outcome: Mapped[str] = mapped_column(String(16), default="failure")
    confidence: Mapped[float] = mapped_column(Float, default=0.5)
    support_count: Mapped[int] = mapped_column(Integer, default=1)
    success_count: Mapped[int] = mapped_column(Integer, default=0)
    failure_count: Mapped[int] = mapped_column(Integer, default=0)
    hit_count: Mapped[int] = mapped_column(Integer, default=0)
    status: Mapped[str] = mapped_column(String(16), default="active")
    status_reason: Mapped[str | None] = mapped_column(Text)
    superseded_by_id: Mapped[int | None] = mapped_column(
        ForeignKey("lessons.id", ondelete="SET NULL")
    )
    expires_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    last_seen_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: what the lesson is about, structurally (digest.fingerprint); None: unknown
    fingerprint: Mapped[str | None] = mapped_column(String(40))
    #: the lesson's sentence embedding (little-endian float32), and the model and text it was
    #: computed from (digest.identity.embedding.vector_key): a stale key means recompute
    embedding: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    embedding_key: Mapped[str | None] = mapped_column(String(40))
    #: what those tasks meant: up to four sums of their words' embeddings, one per kind of
    #: task, and the model they are of (digest.lessons.vectors.add_task_meaning)
    cue_embedding: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True)
    cue_embedding_key: Mapped[str | None] = mapped_column(String(40))
    #: the release state (issue 25, ``digest.lessons.release``), kept where evidence is
    #: written so no agent's read joins evidence: the distinct sources (contacts, else threads)
    #: among the untrusted events citing it since ``sources_since``, and how many whole seconds
    #: those events span
    independent_sources: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    source_span_s: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    #: counting starts here: when an untrusted event last rewrote its text (None: from birth)
    sources_since: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: who released it before it was corroborated, and when (None: nobody)
    released_by: Mapped[str | None] = mapped_column(String(200))
    released_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: a held change an untrusted run made to that lesson: once this one is released, it
    #: supersedes that one (until then an agent reads the old one; digest.lessons.release)
    replaces_id: Mapped[int | None] = mapped_column(ForeignKey("lessons.id", ondelete="SET NULL"))


class Judgement(Base):
    """A reflect judgement any worker may reuse for a later event with the same signature
    (``digest.fingerprint.event_signature``): skip, or the lessons it produced."""

    __tablename__ = "judgements"
    __table_args__ = (
        UniqueConstraint("agent_id", "signature", "model", "prompt_hash"),
        _one_of("verdict", ("skip", "lessons"), "verdict"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    signature: Mapped[str] = mapped_column(String(40))
    model: Mapped[str] = mapped_column(String(200))
    prompt_hash: Mapped[str] = mapped_column(String(64))
    verdict: Mapped[str] = mapped_column(String(8))
    reason: Mapped[str | None] = mapped_column(Text)
    lesson_ids: Mapped[list[int]] = mapped_column(Json, default=list)
    #: the event first judged
    event_id: Mapped[int | None] = mapped_column(BigInteger)
    reused: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LessonEvidence(Base):
    __tablename__ = "lesson_evidence"
    __table_args__ = (UniqueConstraint("lesson_id", "event_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    lesson_id: Mapped[int] = mapped_column(ForeignKey("lessons.id", ondelete="CASCADE"))
    event_id: Mapped[int] = mapped_column(ForeignKey("events.id", ondelete="CASCADE"), index=True)
    note: Mapped[str] = mapped_column(String(300))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HoldoutExposure(Base):
    """One eligible lesson on one turn of ``pitfalls``: shown, or withheld by the randomized
    holdout (``digest.lessons.holdout``). Written off the agent's turn."""

    __tablename__ = "holdout_exposures"
    __table_args__ = (UniqueConstraint("agent_id", "turn_id", "lesson_id"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    lesson_id: Mapped[int] = mapped_column(ForeignKey("lessons.id", ondelete="CASCADE"), index=True)
    turn_id: Mapped[str] = mapped_column(String(200))
    shown: Mapped[bool] = mapped_column(Boolean)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LessonHistory(Base):
    """Append-only audit of every lesson write."""

    __tablename__ = "lesson_history"
    __table_args__ = (_one_of("op", HISTORY_OPS, "op"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    lesson_id: Mapped[int] = mapped_column(ForeignKey("lessons.id", ondelete="CASCADE"), index=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    op: Mapped[str] = mapped_column(String(8))
    before: Mapped[dict[str, Any] | None] = mapped_column(Json)
    after: Mapped[dict[str, Any] | None] = mapped_column(Json)
    reason: Mapped[str | None] = mapped_column(Text)
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id", ondelete="SET NULL"))
    model: Mapped[str | None] = mapped_column(String(200))
    prompt_hash: Mapped[str | None] = mapped_column(String(64))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class LearningVersion(Base):
    __tablename__ = "learning_versions"
    __table_args__ = (
        UniqueConstraint("agent_id", "number"),
        _one_of("status", VERSION_STATUSES, "status"),
        _one_of("trigger", VERSION_TRIGGERS, "trigger"),
        _one_of("proposed_by", ("digest", "operator"), "proposed_by"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    number: Mapped[int] = mapped_column(Integer)
    previous_version_id: Mapped[int | None] = mapped_column(
        ForeignKey("learning_versions.id", ondelete="SET NULL")
    )
    status: Mapped[str] = mapped_column(String(16))
    body_markdown: Mapped[str] = mapped_column(Text)
    change_summary: Mapped[str] = mapped_column(Text, default="")
    folded_lesson_ids: Mapped[list[int]] = mapped_column(Json, default=list)
    supporting_event_ids: Mapped[list[int]] = mapped_column(Json, default=list)
    proposed_by: Mapped[str] = mapped_column(String(16), default="digest")
    trigger: Mapped[str] = mapped_column(String(16))
    approved_by: Mapped[str | None] = mapped_column(String(200))
    approved_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    llm_calls: Mapped[int] = mapped_column(Integer, default=0)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost_usd: Mapped[float] = mapped_column(Float, default=0.0)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: the replay of recent failed or edited events against this version and the one active
    #: when it was proposed (``digest.versions.replay.report.ReplayReport.to_json``); None: not run.
    #: Deferred: a thousand events make it large, and most reads of a version never look.
    replay: Mapped[dict[str, Any] | None] = mapped_column(Json, deferred=True)
    #: why this version waited for a person instead of becoming active on its own (apply
    #: mode, lost coverage, a sharp shrink, trusted lessons changed); None: it did not wait
    hold_reason: Mapped[str | None] = mapped_column(Text)


class ReplayProbe(Base):
    """The embedding of an event's replay probe (its task or prompt), kept from its first
    replay so later composes need not embed it again. ``embedding_key`` names the model and
    the text (``digest.lessons.vectors.vector_key``): another model means embed again."""

    __tablename__ = "replay_probes"

    event_id: Mapped[int] = mapped_column(
        ForeignKey("events.id", ondelete="CASCADE"), primary_key=True
    )
    embedding_key: Mapped[str] = mapped_column(String(40))
    embedding: Mapped[bytes] = mapped_column(LargeBinary)


class DigestRun(Base):
    """One row per reflect or compose run: what it did and what it cost."""

    __tablename__ = "digest_runs"
    __table_args__ = (
        _one_of("kind", ("reflect", "compose"), "kind"),
        Index("ix_digest_runs_agent_id_started_at", "agent_id", "started_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    event_id: Mapped[int | None] = mapped_column(ForeignKey("events.id", ondelete="SET NULL"))
    #: the version a compose run created (None: no change, or a reflect run)
    version_id: Mapped[int | None] = mapped_column(
        ForeignKey("learning_versions.id", ondelete="SET NULL")
    )
    kind: Mapped[str] = mapped_column(String(16))
    trigger: Mapped[str] = mapped_column(String(32))
    n_add: Mapped[int] = mapped_column(Integer, default=0)
    n_update: Mapped[int] = mapped_column(Integer, default=0)
    n_delete: Mapped[int] = mapped_column(Integer, default=0)
    n_noop: Mapped[int] = mapped_column(Integer, default=0)
    n_skip: Mapped[int] = mapped_column(Integer, default=0)
    #: candidates decided without a model call (no neighbour → ADD, near-identical → NOOP).
    n_fast_path: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    llm_calls: Mapped[int] = mapped_column(Integer, default=0)
    prompt_tokens: Mapped[int] = mapped_column(Integer, default=0)
    completion_tokens: Mapped[int] = mapped_column(Integer, default=0)
    cost_usd: Mapped[float] = mapped_column(Float, default=0.0)
    model: Mapped[str | None] = mapped_column(String(200))
    duration_ms: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    # the one place a run's error text is redacted: the ORM calls it for an object, and
    # ``digest.lessons.plain_rows`` for a plain row (with no object: it reads only the value)
    @validates("error")
    def _redact_error(self, _key: str, value: str | None) -> str | None:
        return redact(value) if value else value


class Heartbeat(Base):
    """When a periodic duty last ran (the relay, the sweep), for ``digest doctor`` and
    ``digest stats`` to warn when it has stopped."""

    __tablename__ = "heartbeats"

    name: Mapped[str] = mapped_column(String(64), primary_key=True)
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    detail: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)


#: an API key's kind (issue 15): ``agent`` keys capture and read, ``owner`` keys review
API_KEY_KINDS = ("agent", "owner")


class ApiKey(Base):
    """A tenant's key to the HTTP service. Only the sha256 of the secret is stored; ``prefix``
    (the kind and the first random characters) names the key in lists and on revocation."""

    __tablename__ = "api_keys"
    __table_args__ = (_one_of("kind", API_KEY_KINDS, "kind"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    prefix: Mapped[str] = mapped_column(String(32))
    #: sha256 hex of the whole secret
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    label: Mapped[str | None] = mapped_column(String(200))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class ReviewSession(Base):
    """A signed-in owner on the review page. Only the sha256 of the cookie's token is stored;
    the session speaks for the owner key it was opened with and ends with it."""

    __tablename__ = "review_sessions"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    key_id: Mapped[int] = mapped_column(ForeignKey("api_keys.id", ondelete="CASCADE"), index=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))


#: an owner question's state (issue 28): ``open`` waits in the owner's queue; ``held`` was
#: asked while the agent's question budget was spent (kept, opened when the budget frees);
#: ``answered`` an owner answered it (that answer is an owner_answer event, and so a trusted
#: lesson); ``dismissed`` an owner set it aside with a reason; ``expired`` nobody asked again
#: within the question time-to-live; ``merged`` the worker found it a paraphrase of another open
#: question (``duplicate_of``), which took its asks and count
QUESTION_STATUSES = ("open", "held", "answered", "dismissed", "expired", "merged")
#: a question's text as stored and shown: screened run text, a quotation, never a lesson
QUESTION_MAX = 1000


class Question(Base):
    """A question an agent asked its owner (``digest.ask``). Repeats and paraphrases from any
    thread join one row (``ask_count``); each ask is a ``QuestionAsk``. Only the owner's answer
    becomes a lesson: the question's own words never do."""

    __tablename__ = "questions"
    __table_args__ = (
        _one_of("status", QUESTION_STATUSES, "status"),
        Index("ix_questions_agent_id_status", "agent_id", "status"),
        Index("ix_questions_tenant_id_opened_at", "tenant_id", "opened_at"),
    )

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"))
    agent_id: Mapped[int] = mapped_column(ForeignKey("agents.id", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(16), default="open")
    ask_count: Mapped[int] = mapped_column(Integer, default=1)
    #: when it entered the owner's queue (None while ``held``): the question budget counts these
    opened_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    last_asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    closed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    closed_by: Mapped[str | None] = mapped_column(String(200))
    #: the owner's answer, or why it was dismissed or expired
    answer: Mapped[str | None] = mapped_column(Text)
    reason: Mapped[str | None] = mapped_column(Text)
    #: the owner_answer event the answer was captured as (its lesson cites it)
    answer_event_id: Mapped[int | None] = mapped_column(
        ForeignKey("events.id", ondelete="SET NULL")
    )
    #: the question this one was merged into (``merged``): its answer answers this one
    duplicate_of: Mapped[int | None] = mapped_column(
        ForeignKey("questions.id", ondelete="SET NULL")
    )
    #: when the worker compared it with the agent's other open questions (None: not yet)
    judged_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))


class QuestionClock(Base):
    """Per tenant, how many times a question opened (``digest.questions.ask``): ``ask`` opens
    a new question only if the clock still reads what it read with the agent's questions."""

    __tablename__ = "question_clocks"

    tenant_id: Mapped[int] = mapped_column(
        ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    seq: Mapped[int] = mapped_column(BigInteger, default=0)


class QuestionAsk(Base):
    """One time an agent asked a question: the thread and contact it came from, and the
    context it gave (screened, secrets masked), so the owner sees where it matters."""

    __tablename__ = "question_asks"

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    question_id: Mapped[int] = mapped_column(
        ForeignKey("questions.id", ondelete="CASCADE"), index=True
    )
    text: Mapped[str] = mapped_column(Text)
    context: Mapped[str | None] = mapped_column(Text)
    thread_id: Mapped[str | None] = mapped_column(String(200))
    contact_id: Mapped[str | None] = mapped_column(String(200))
    asked_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


#: what a forget request named (issue 29): every event of a contact, or one event
FORGET_KINDS = ("contact", "event")


class Forgotten(Base):
    """The audit row a forget request leaves (``digest.forget``): which tenant, the sha256 of
    what was named (never the contact id, the event id or any text), how much was erased, who
    asked and when."""

    __tablename__ = "forgotten"
    __table_args__ = (_one_of("kind", FORGET_KINDS, "kind"),)

    id: Mapped[int] = mapped_column(BigId, primary_key=True)
    tenant_id: Mapped[int] = mapped_column(ForeignKey("tenants.id", ondelete="CASCADE"), index=True)
    kind: Mapped[str] = mapped_column(String(8))
    #: sha256 hex of ``<kind>:<contact id or event id>``
    subject_hash: Mapped[str] = mapped_column(String(64), index=True)
    #: rows erased or rewritten, per table (``ForgetResult.counts``)
    counts: Mapped[dict[str, Any]] = mapped_column(Json, default=dict)
    by: Mapped[str | None] = mapped_column(String(200))
    at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
