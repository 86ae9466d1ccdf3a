"""Settings: one pydantic-settings class, environment prefix ``DIGEST_``, read once.

Every knob the worker and the capture path use lives here, so that the Celery app, the CLI and
the library agree. ``get_settings()`` reads them on first use and keeps them in the process's
runtime (``digest.runtime``) until it is reset; code that changes the environment calls
``forget_settings()`` (or ``get_settings.cache_clear()``) to have them read again.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from digest.errors import ConfigError
from digest.runtime import runtime

DEFAULT_DATABASE_URL = "sqlite:///digest.db"
DEFAULT_LLM_MODEL = "offline/rules"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
#: database URLs lesson digest can open (``postgres://`` and ``postgresql://`` are rewritten
#: to name psycopg 3)
DATABASE_SCHEMES = ("postgresql+psycopg://", "sqlite://", "sqlite+pysqlite://")
#: model steps of one reflection (judge, reconcile) in the time budget
REFLECT_STEPS = 2
#: seconds of a task's soft limit kept for everything but model calls (database, embeddings):
#: this much, or a tenth of the limit when that is less
BUDGET_MARGIN_S = 20
#: model strings answered in this process (digest.model: offline rules, scripted test models)
IN_PROCESS_MODELS = ("offline/", "scripted/")


class Settings(BaseSettings):
    """Runtime settings. Each field maps to ``DIGEST_<FIELD>`` in the environment."""

    model_config = SettingsConfigDict(env_prefix="DIGEST_", extra="ignore")

    # --- storage and broker -------------------------------------------------------------------
    database_url: str = DEFAULT_DATABASE_URL
    #: connections each process keeps per database. None: 5, or the worker's concurrency in a
    #: threads-pool worker (every thread may hold one connection at once).
    db_pool_size: int | None = Field(default=None, ge=1)
    #: prepare the capture INSERT on the server, once per pooled connection (PostgreSQL).
    #: False behind a pooler that does not keep prepared statements (PgBouncer in transaction
    #: or statement mode before 1.21, or without ``max_prepared_statements``).
    db_prepare: bool = True
    broker_url: str | None = Field(
        default=None,
        description="Redis URL of the Celery broker. None = embedded mode: nothing is "
        "published and events are reflected in-process (digest demo, digest drain).",
    )
    queue: str = "digest"
    #: socket timeouts for the capture-side publisher: a dead broker must not hold the agent.
    publish_timeout_s: float = Field(default=1.0, gt=0, le=1.0)
    #: after a failed publish, skip publishing for this long (the relay catches up).
    publish_backoff_s: float = Field(default=5.0, ge=0)

    # --- model seam ---------------------------------------------------------------------------
    llm_model: str = DEFAULT_LLM_MODEL
    llm_reflect_model: str | None = None
    llm_reconcile_model: str | None = None
    llm_summarize_model: str | None = None
    llm_api_base: str | None = None
    llm_api_key: SecretStr | None = None
    llm_timeout_s: float = Field(default=60.0, gt=0)
    llm_max_attempts: int = Field(default=3, ge=1, le=10)
    llm_retry_wait_max_s: float = Field(default=20.0, ge=0)
    llm_max_tokens: int = Field(default=1024, ge=64)
    #: after the in-task attempts, a transient fault (429, 5xx, timeout, connection) puts the
    #: event back as ``waiting`` with an exponential, jittered delay (honouring Retry-After);
    #: it fails for good only once its faults have lasted this long
    llm_give_up_after_s: float = Field(default=6 * 3600.0, ge=0)
    #: the first delay of a waiting event, doubled at each deferral up to the max
    llm_defer_base_s: float = Field(default=30.0, ge=0)
    llm_defer_max_s: float = Field(default=1800.0, ge=0)
    #: fleet-wide limits per model, kept in Redis (the broker's): model calls in flight at
    #: once, and calls per DIGEST_LLM_RATE_WINDOW_S (60 s: per minute). 0 = no limit.
    llm_max_concurrency: int = Field(default=16, ge=0)
    llm_rpm: int = Field(default=0, ge=0)
    llm_rate_window_s: float = Field(default=60.0, gt=0)
    #: how long one call may wait for a free slot before the event is put back as waiting
    llm_slot_wait_s: float = Field(default=10.0, ge=0)
    #: lesson digest's clock runs this many seconds ahead of the system's: a test and drill
    #: knob (one day ahead is "tomorrow": budgets reset, waiting events resume); 0 in production
    clock_offset_s: float = Field(default=0.0, ge=-(10**9), le=10**9)

    # --- identity: embeddings for semantic neighbours (digest.identity) ----------------------
    #: "static" (a static table distilled from all-MiniLM-L6-v2: numpy only, microseconds per
    #: text), "local" (all-MiniLM-L6-v2 itself, int8 ONNX, on this CPU through onnxruntime;
    #: both installed with the package), "none" (lexical neighbours only), or any litellm
    #: embedding model, e.g.
    #: "openai/text-embedding-3-small" (with embedding_api_base / embedding_api_key)
    embedding_model: str = "static"
    embedding_api_base: str | None = None
    embedding_api_key: SecretStr | None = None
    embedding_timeout_s: float = Field(default=30.0, gt=0)
    #: vectors of texts each process remembers (a repeated text is not embedded again)
    embedding_cache_size: int = Field(default=8192, ge=0)
    #: MiB the agents' lesson indexes one process keeps may hold together, at most (least
    #: recently searched dropped first, built again when searched: digest.lessons.bank)
    kept_index_mb: int = Field(default=96, ge=1)

    # --- reflection policy --------------------------------------------------------------------
    reflect_success_runs: bool = False
    reflect_tool_errors: bool = True
    reflect_failures: bool = True
    edit_ratio_threshold: float = Field(default=0.1, ge=0, le=1)
    max_event_attempts: int = Field(default=5, ge=1)
    #: events of one agent a reflect task takes on together when its models answer in
    #: process (offline/*): one transaction, one lock, one message for all of them
    reflect_batch_size: int = Field(default=32, ge=1, le=1000)

    # --- reconciliation ------------------------------------------------------------------------
    reconcile_k: int = Field(default=5, ge=1, le=20)
    #: below this relevance no existing lesson is a neighbour: ADD without a model call.
    reconcile_floor: float = Field(default=0.5, ge=0, le=1)
    #: at or above this identity a neighbour is the same lesson: NOOP without a model call.
    reconcile_identical: float = Field(default=0.95, ge=0, le=1.01)
    reconcile_max_rounds: int = Field(default=3, ge=1, le=10)
    #: with a remote model, how long an event waits for an older event of its agent still
    #: being judged: before reconciling, and before its model call when that event is the same
    #: incident (``digest.reflect.order``); 0: never waits
    order_wait_s: float = Field(default=15.0, ge=0, le=300)
    #: parsed reflect and reconcile answers each worker process remembers, so an exact repeat
    #: (same agent, model, prompt version and input) needs no model call; 0 turns it off.
    llm_cache_size: int = Field(default=4096, ge=0)

    # --- the agent asks its owner (digest.ask, issue 28) --------------------------------------
    #: new questions an agent may put in its owner's queue per rolling 24 hours; a question
    #: asked beyond it is kept (``held``) and opens when the budget frees. A repeat of an open
    #: question never counts
    ask_agent_daily: int = Field(default=10, ge=0)
    #: the same across all of a tenant's agents
    ask_tenant_daily: int = Field(default=50, ge=0)
    #: an open question nobody asked again for this many days expires (0: never)
    question_ttl_days: int = Field(default=30, ge=0)

    # --- versions and their triggers (tenants may override the first four) -------------------
    threshold_signals: int = Field(default=5, ge=1)
    quiet_seconds: int = Field(default=120, ge=0)
    #: the release rule (digest.lessons.release): an untrusted lesson reaches an agent
    #: (pitfalls, examples, the document) once this many independent sources corroborate it
    #: (distinct contacts, else threads); a trusted one at once
    frequency_gate: int = Field(default=2, ge=1)
    #: those sources count apart only when their runs span at least this many seconds (0: at
    #: once). Raising it makes a burst from many contacts one source, and makes a trial in a
    #: burst wait that long too (docs/security.md)
    independent_spread_s: int = Field(default=0, ge=0)
    keep_versions: int = Field(default=20, ge=2)
    #: a contact-scoped lesson supported by this many distinct contacts becomes agent-wide
    promotion_contacts: int = Field(default=3, ge=2)
    #: crontab of the weekly sweep: minute hour day-of-month month day-of-week (UTC)
    sweep_cron: str = "0 3 * * 1"

    # --- lessons nobody confirms or needs -------------------------------------------------------
    #: the weekly sweep disables an active untrusted lesson that no independent source has
    #: corroborated and no person released (held by the release rule) this many days after it
    #: began waiting (its creation, or the untrusted rewrite that restarted its count); 0: never.
    #: Trusted and reviewed lessons are never retired this way (``digest lesson expire`` sets
    #: an owner's own expiry)
    unconfirmed_ttl_days: int = Field(default=30, ge=0, le=36_500)
    #: ranking fades unused lessons: a lesson's relevance to a prompt is weighed by 1/2 per this
    #: many days since it was last surfaced, supported or learned (``last_seen_at``, in whole
    #: days), so a lesson nobody needed for months yields to an equally relevant fresh one;
    #: 0: no fading
    lesson_half_life_days: float = Field(default=90.0, ge=0, le=36_500)

    # --- replay before publishing (digest.versions.replay) -----------------------------------
    #: the agent's most recent failed or edited events every compose replays against the
    #: active version and the proposed one (0: no replay; the shrink check still holds)
    replay_events: int = Field(default=200, ge=0, le=10_000)
    #: lessons the replayed retrieval puts in front of the agent per event (pitfalls' k)
    replay_k: int = Field(default=3, ge=1, le=20)
    #: a proposal covering fewer replayed events than the active version by more than this
    #: share of them waits for a person, even in auto mode
    replay_margin: float = Field(default=0.05, ge=0, le=1)
    #: a proposal folding fewer than this share of the active version's lessons has shrunk
    #: sharply and waits for a person, even in auto mode (0: never)
    replay_shrink_ratio: float = Field(default=0.5, ge=0, le=1)

    # --- measured lesson effect (digest.lessons.effect) ---------------------------------------
    #: runs a lesson must have been applied in (and runs without it) before any verdict; a
    #: handful of runs never decides
    effect_min_runs: int = Field(default=10, ge=5, le=1_000_000)
    #: confidence of the Wilson intervals a verdict compares
    effect_confidence: float = Field(default=0.95, ge=0.8, le=0.999)
    #: only run outcomes of the last this many days count (0: all of them)
    effect_window_days: int = Field(default=90, ge=0, le=36_500)
    #: the weekly sweep disables active untrusted lessons measured as harmful
    effect_retire: bool = True

    # --- randomized holdouts (digest.lessons.holdout) -----------------------------------------
    #: the share of turns (given a ``turn_id``) on which each eligible lesson is withheld, to
    #: measure its causal effect; 0 turns holdouts off (a tenant may override it)
    holdout_share: float = Field(default=0.1, ge=0, le=0.5)
    #: leave trusted and reviewed lessons out of the holdout (always shown when they rank)
    holdout_exclude_trusted: bool = False
    #: turns a lesson needs both shown and withheld before the randomized estimate decides
    holdout_min_turns: int = Field(default=30, ge=5, le=1_000_000)

    # --- worker reliability (DESIGN §6) -------------------------------------------------------
    #: soft and hard limits of one reflect (and compose) task. The soft limit must hold the
    #: model budget (``model_budget_s``): `digest doctor` and the worker refuse one that
    #: does not. Relay, sweep and improve-now have limits of their own (worker.config).
    task_soft_time_limit_s: int = Field(default=540, ge=1)
    task_time_limit_s: int = Field(default=600, ge=2)
    #: improve-now waits up to this long for events other workers are reflecting right now
    improve_wait_s: float = Field(default=120.0, ge=0)
    visibility_timeout_s: int = Field(default=3600, ge=60)
    relay_pending_age_s: int = Field(default=60, ge=0)
    #: a `processing` claim is stale after the hard time limit plus this grace.
    processing_grace_s: int = Field(default=30, ge=0)
    relay_interval_s: float = Field(default=60.0, gt=0)
    relay_batch_size: int = Field(default=500, ge=1)
    #: each worker runs the relay once whenever it (re)connects to the broker
    relay_on_connect: bool = True

    # --- worker process (`celery -A worker worker` reads these; its CLI flags still win) -----
    # threads overlaps model latency (LLM calls are I/O); prefork suits CPU-bound offline/rules.
    worker_pool: Literal["prefork", "threads", "solo"] | None = None
    worker_concurrency: int | None = Field(default=None, ge=1, le=512)
    #: give freed heap back to the system after each task (glibc's malloc_trim; nothing on
    #: other C libraries): a batch's transient memory does not stay in RSS
    worker_malloc_trim: bool = True

    # --- the review page (`digest serve`, /review) -------------------------------------------
    #: how long an owner stays signed in to the review page after logging in with an owner key
    review_session_hours: float = Field(default=8.0, gt=0, le=24 * 30)

    # --- logging ------------------------------------------------------------------------------
    log_level: str = "INFO"
    log_json: bool = True

    @field_validator("database_url")
    @classmethod
    def _normalise_database_url(cls, value: str) -> str:
        # People paste libpq-style URLs; SQLAlchemy needs the psycopg 3 driver named.
        for prefix in ("postgres://", "postgresql://"):
            if value.startswith(prefix):
                return "postgresql+psycopg://" + value[len(prefix) :]
        if value.startswith(DATABASE_SCHEMES):
            return value
        scheme, found, _ = value.partition("://")
        if not found:
            raise ValueError("must be a URL: postgresql://user@host:5432/name or sqlite:///path")
        kind, _, driver = scheme.partition("+")
        if kind in ("postgresql", "postgres", "sqlite"):
            raise ValueError(
                f"the driver {driver!r} is not the one lesson digest uses: write "
                f"{'postgresql://' if kind != 'sqlite' else 'sqlite:///'}… (psycopg 3 for "
                "PostgreSQL, Python's sqlite3 for SQLite)"
            )
        raise ValueError(
            f"the database {kind!r} is not supported: use PostgreSQL "
            "(postgresql://user@host:5432/name) or SQLite (sqlite:///path/to/file.db)"
        )

    @field_validator("broker_url")
    @classmethod
    def _redis_broker(cls, value: str | None) -> str | None:
        # digest.outbox.publish writes Celery's Redis messages itself (one LPUSH per task).
        if value and not value.startswith(REDIS_SCHEMES):
            raise ValueError(f"must be a Redis URL ({', '.join(REDIS_SCHEMES)}) or unset")
        return value

    @field_validator("sweep_cron")
    @classmethod
    def _five_cron_fields(cls, value: str) -> str:
        if len(value.split()) != 5:
            raise ValueError("needs 5 fields: minute hour day-of-month month day-of-week")
        return value

    @field_validator("task_time_limit_s")
    @classmethod
    def _hard_above_soft(cls, value: int, info: object) -> int:
        soft = getattr(info, "data", {}).get("task_soft_time_limit_s")
        if soft is not None and value <= soft:
            raise ValueError(f"must be greater than DIGEST_TASK_SOFT_TIME_LIMIT_S ({soft})")
        return value

    @field_validator("visibility_timeout_s")
    @classmethod
    def _visibility_above_hard_limit(cls, value: int, info: object) -> int:
        # The visibility timeout must outlast the longest task, or Redis redelivers live work.
        hard = getattr(info, "data", {}).get("task_time_limit_s")
        if hard is not None and value <= hard:
            raise ValueError(f"must exceed DIGEST_TASK_TIME_LIMIT_S ({hard})")
        return value

    @property
    def step_budget_s(self) -> float:
        """The longest one model step can take: every attempt waiting for a fleet slot and
        running to its timeout, with the longest wait between attempts."""
        attempts = self.llm_max_attempts
        return (
            attempts * (self.llm_slot_wait_s + self.llm_timeout_s)
            + (attempts - 1) * self.llm_retry_wait_max_s
        )

    @property
    def model_budget_s(self) -> float:
        """The longest the model calls of one reflection can take: two steps (judge, then
        reconcile), each ``step_budget_s``."""
        return REFLECT_STEPS * self.step_budget_s

    @property
    def model_deadline_s(self) -> float:
        """Seconds of a reflect task in which its model calls must end: the soft limit less
        the margin kept for the rest of the work."""
        soft = self.task_soft_time_limit_s
        return soft - min(BUDGET_MARGIN_S, soft / 10)

    def budget_problems(self) -> list[str]:
        """Why this configuration's model budget does not fit the task limits, as sentences
        naming the settings to change (empty: it fits, or every configured model answers in
        process, where no call waits on a network)."""
        models = {self.model_for(step) for step in ("reflect", "reconcile", "summarize")}
        if all(m.startswith(IN_PROCESS_MODELS) for m in models):
            return []
        room = self.model_deadline_s
        if self.model_budget_s <= room:
            return []
        margin = self.task_soft_time_limit_s - room
        return [
            f"one reflection may spend {self.model_budget_s:.0f} s on model calls "
            f"({REFLECT_STEPS} steps × (DIGEST_LLM_MAX_ATTEMPTS={self.llm_max_attempts} × "
            f"(DIGEST_LLM_SLOT_WAIT_S={self.llm_slot_wait_s:g} + "
            f"DIGEST_LLM_TIMEOUT_S={self.llm_timeout_s:g}) + "
            f"{self.llm_max_attempts - 1} × DIGEST_LLM_RETRY_WAIT_MAX_S="
            f"{self.llm_retry_wait_max_s:g})), more than DIGEST_TASK_SOFT_TIME_LIMIT_S="
            f"{self.task_soft_time_limit_s} leaves ({room:g} s after a {margin:g} s "
            "margin): raise DIGEST_TASK_SOFT_TIME_LIMIT_S (and DIGEST_TASK_TIME_LIMIT_S) to "
            f"at least {int(self.model_budget_s) + BUDGET_MARGIN_S + 1}, or lower those "
            "model settings"
        ]

    @property
    def embedded(self) -> bool:
        return not self.broker_url

    @property
    def processing_stale_after_s(self) -> int:
        """A `processing` claim older than this belongs to a dead worker (hard limit + margin)."""
        return self.task_time_limit_s + self.processing_grace_s

    def model_for(self, step: str) -> str:
        override = getattr(self, f"llm_{step}_model", None)
        return override or self.llm_model

    def __repr__(self) -> str:  # secrets stay out of logs and tracebacks
        return (
            f"Settings(database_url={redact_url(self.database_url)!r}, "
            f"broker_url={redact_url(self.broker_url or '')!r}, llm_model={self.llm_model!r})"
        )


def redact_url(url: str) -> str:
    """Hide the password part of a URL (``scheme://user:secret@host`` → ``user:***@host``)."""
    if "@" not in url or "://" not in url:
        return url
    scheme, rest = url.split("://", 1)
    creds, host = rest.rsplit("@", 1)
    user = creds.split(":", 1)[0]
    return f"{scheme}://{user}:***@{host}"


def get_settings() -> Settings:
    """The settings, read once (until ``forget_settings()`` or a reset of the runtime). An
    invalid value raises ``ConfigError`` naming the variable."""
    return runtime().piece(_read_settings)


def forget_settings() -> None:
    """Read the settings again on next use (after a change to the environment)."""
    runtime().drop(_read_settings)


# The name it had as an ``lru_cache``, which tests and benchmarks call after changing the
# environment.
get_settings.cache_clear = forget_settings  # type: ignore[attr-defined]


#: ``DIGEST_*`` variables of this repository's own test suite and benchmarks: not settings, and
#: not worth a warning
HARNESS_PREFIXES = ("DIGEST_TEST_", "DIGEST_BENCH_", "DIGEST_FAULT_", "DIGEST_SECURITY_SUMMARY")


def setting_names() -> list[str]:
    """Every setting's variable, ``DIGEST_DATABASE_URL`` …"""
    return sorted(f"DIGEST_{name.upper()}" for name in Settings.model_fields)


def unknown_names(environ: Mapping[str, str] | None = None) -> list[str]:
    """One sentence per ``DIGEST_*`` variable of ``environ`` (the process's by default) that is
    no setting, so it is ignored: a typo (``DIGEST_THRESHOLD`` for
    ``DIGEST_THRESHOLD_SIGNALS``) would otherwise change nothing, silently. Says the closest
    setting when there is one."""
    environ = os.environ if environ is None else environ
    known = setting_names()
    found = []
    for name in sorted(environ):
        if not name.startswith("DIGEST_") or name in known or name.startswith(HARNESS_PREFIXES):
            continue
        # compared without the prefix they share, which would make any two names look alike
        short = {x.removeprefix("DIGEST_"): x for x in known}
        bare = name.removeprefix("DIGEST_")
        close = [short[x] for x in difflib.get_close_matches(bare, list(short), n=1, cutoff=0.7)]
        if not close:  # a prefix of a setting's name: DIGEST_THRESHOLD
            close = [x for x in known if x.startswith(name + "_")][:1]
        guess = f"; did you mean {close[0]}?" if close else ""
        found.append(f"{name} is not a setting and is ignored{guess}")
    return found


def _read_settings() -> Settings:
    try:
        return Settings()
    except ValidationError as exc:
        first = exc.errors()[0]
        name = str(first["loc"][0]) if first.get("loc") else ""
        variable = f"DIGEST_{name.upper()}" if name else "DIGEST_* settings"
        message = str(first.get("msg", "invalid value")).removeprefix("Value error, ")
        raise ConfigError(variable, message) from None


def resource_dir(name: str) -> Path:
    """Locate a top-level resource folder (prompts, migrations, examples).

    In a checkout (and an editable install) they sit beside the package; a built wheel carries
    them inside the package as ``digest/_<name>``.
    """
    here = Path(__file__).resolve().parent
    for candidate in (here / f"_{name}", here.parent / name):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"resource folder {name!r} not found next to {here}")
