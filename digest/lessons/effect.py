"""Measured lesson effect (issue 16): does an agent succeed more, or less, when a lesson is
applied?

Only outcomes count, never a model's opinion. A run outcome names the lessons the agent had in
context (``applied_lesson_ids``) and how the run ended; from those rows alone, per lesson:

- **applied**: the runs it was applied in, since it exists (and within
  ``DIGEST_EFFECT_WINDOW_DAYS``), that ended ``success`` or ``failure``;
- **baseline**: the agent's other runs over the same period, those in which the lesson was
  *not* applied. Not all runs: a lesson applied in most runs would pull an all-runs baseline
  towards itself and hide its own harm. Not all time: runs before the lesson existed belong to
  an agent that knew less, which would flatter or blame the lesson for what changed since;
- a **Wilson score interval** for each success rate (at ``DIGEST_EFFECT_CONFIDENCE``), which
  stays honest for small counts and rates near 0 or 1;
- a **verdict**: ``harms`` when the lesson's interval lies wholly below the baseline's,
  ``helps`` when wholly above, ``unclear`` when they overlap, and ``insufficient`` while either
  side has fewer than ``DIGEST_EFFECT_MIN_RUNS`` runs (no verdict on a handful of runs).

Escalated runs count on neither side: handing a run to a person may be exactly what a lesson
asks for (the lesson counters of ``apply_outcome_feedback`` ignore them too). Every captured
run counts, reflected or not: the outcome is known when the agent reports it.

Comparing intervals rather than a rate with a rate is deliberately conservative: a lesson is
offered for the situations it is about, which may be harder than the agent's average, so only a
gap beyond both intervals' uncertainty says the lesson itself is the problem.

The weekly sweep retires (``disabled``, through ``transition``, with the evidence in the
history row) active lessons measured as harmful, unless a person wrote or reviewed them
(trust ``trusted`` or ``reviewed``): those are flagged for their owner (``action`` ``review``
in ``digest lesson effect``) and never removed behind the owner's back.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import NormalDist
from typing import Any

from sqlalchemy import exists, func, select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.lessons.transition import lock_agent_lessons, transition
from digest.logs import get_logger
from digest.models import (
    PROTECTED_TRUST,
    Agent,
    Event,
    Lesson,
    LessonHistory,
    as_utc,
    utcnow,
)
from digest.tenants import find_agent

log = get_logger("digest.effect")

#: verdicts, worst first (the order ``digest lesson effect`` lists them in)
VERDICTS = ("harms", "unclear", "helps", "insufficient")
#: rows fetched at a time while reading an agent's run outcomes
_BATCH = 2000


# --- the statistics (pure) -------------------------------------------------------------------


def z_score(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (0.95 → 1.96)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, runs: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a success rate: ``successes`` of ``runs`` at
    ``confidence``. No runs: ``(0.0, 1.0)``, nothing is known."""
    if runs < 0 or not 0 <= successes <= max(runs, 0):
        raise ValueError(f"need 0 <= successes <= runs, got {successes} of {runs}")
    if runs == 0:
        return 0.0, 1.0
    z = z_score(confidence)
    p = successes / runs
    z2 = z * z
    denominator = 1 + z2 / runs
    centre = (p + z2 / (2 * runs)) / denominator
    half = z * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs)) / denominator
    # The bounds are exact at the ends (no float noise: 0 of 10 starts at 0, not 3e-17).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == runs else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Tally:
    """Runs that ended ``success`` or ``failure``."""

    successes: int = 0
    failures: int = 0

    @property
    def runs(self) -> int:
        return self.successes + self.failures

    @property
    def rate(self) -> float | None:
        """The success rate, or None with no runs."""
        return self.successes / self.runs if self.runs else None

    @property
    def failure_rate(self) -> float | None:
        return self.failures / self.runs if self.runs else None

    def interval(self, confidence: float) -> tuple[float, float]:
        return wilson_interval(self.successes, self.runs, confidence)

    def __sub__(self, other: Tally) -> Tally:
        return Tally(self.successes - other.successes, self.failures - other.failures)


def judge_effect(applied: Tally, baseline: Tally, *, min_runs: int, confidence: float) -> str:
    """The verdict (one of ``VERDICTS``) on a lesson applied in ``applied`` runs, against the
    ``baseline`` runs without it: ``insufficient`` while either has fewer than ``min_runs``
    runs; then ``harms`` / ``helps`` when the intervals do not overlap, else ``unclear``."""
    if applied.runs < min_runs or baseline.runs < min_runs:
        return "insufficient"
    low, high = applied.interval(confidence)
    base_low, base_high = baseline.interval(confidence)
    if high < base_low:
        return "harms"
    if low > base_high:
        return "helps"
    return "unclear"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


@dataclass(frozen=True)
class LessonEffect:
    """One lesson's measured effect."""

    lesson_id: int
    title: str
    status: str
    trust: str
    fingerprint: str | None
    #: the first moment whose runs count (the lesson's creation, or the window's start)
    since: datetime
    applied: Tally
    baseline: Tally
    confidence: float
    min_runs: int
    verdict: str

    @property
    def protected(self) -> bool:
        """A person wrote or reviewed it: the sweep flags it, never retires it."""
        return self.trust in PROTECTED_TRUST

    @property
    def action(self) -> str | None:
        """``retire`` (the sweep will disable it), ``review`` (harmful but a person's: its
        owner decides) or None."""
        if self.verdict != "harms" or self.status != "active":
            return None
        return "review" if self.protected else "retire"

    def evidence(self) -> str:
        """The measurement as one sentence (a history row's reason, the CLI's note)."""
        low, high = self.applied.interval(self.confidence)
        base_low, base_high = self.baseline.interval(self.confidence)
        level = f"{self.confidence:.0%}".rstrip("%")
        return (
            f"applied in {self.applied.runs} runs since {self.since:%Y-%m-%d}: "
            f"{self.applied.successes} succeeded, {self.applied.failures} failed "
            f"(success {_pct(self.applied.rate)}, {level}% interval {_pct(low)}-{_pct(high)}); "
            f"without it {self.baseline.runs} runs: {self.baseline.successes} succeeded, "
            f"{self.baseline.failures} failed (success {_pct(self.baseline.rate)}, "
            f"{_pct(base_low)}-{_pct(base_high)}); verdict {self.verdict}"
        )

    def to_json(self) -> dict[str, Any]:
        low, high = self.applied.interval(self.confidence)
        base_low, base_high = self.baseline.interval(self.confidence)
        return {
            "lesson_id": self.lesson_id,
            "title": self.title,
            "status": self.status,
            "trust": self.trust,
            "fingerprint": self.fingerprint,
            "since": self.since.isoformat(),
            "applied": {
                "runs": self.applied.runs,
                "successes": self.applied.successes,
                "failures": self.applied.failures,
                "success_rate": _rounded(self.applied.rate),
                "failure_rate": _rounded(self.applied.failure_rate),
                "interval": [round(low, 4), round(high, 4)],
            },
            "baseline": {
                "runs": self.baseline.runs,
                "successes": self.baseline.successes,
                "failures": self.baseline.failures,
                "success_rate": _rounded(self.baseline.rate),
                "failure_rate": _rounded(self.baseline.failure_rate),
                "interval": [round(base_low, 4), round(base_high, 4)],
            },
            "confidence": self.confidence,
            "min_runs": self.min_runs,
            "verdict": self.verdict,
            "action": self.action,
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


@dataclass(frozen=True)
class EffectReport:
    """``digest lesson effect``: every lesson of one agent applied in a counted run."""

    tenant: str
    agent: str
    #: where counting starts (None: the whole history)
    window_start: datetime | None
    #: all the agent's counted runs in the window
    runs: Tally
    confidence: float
    min_runs: int
    lessons: list[LessonEffect] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "agent": self.agent,
            "window_start": self.window_start.isoformat() if self.window_start else None,
            "runs": {
                "runs": self.runs.runs,
                "successes": self.runs.successes,
                "failures": self.runs.failures,
                "success_rate": _rounded(self.runs.rate),
            },
            "confidence": self.confidence,
            "min_runs": self.min_runs,
            "lessons": [effect.to_json() for effect in self.lessons],
        }


# --- counting runs ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """One run outcome as the count sees it: when, whether it succeeded, what it applied."""

    at: datetime
    success: bool
    applied: frozenset[int]


def measure(
    runs: Iterable[Run],
    lessons: Sequence[Lesson],
    counted_from: datetime | None,
    settings: Settings,
    activated: dict[int, datetime] | None = None,
) -> tuple[Tally, list[LessonEffect]]:
    """The agent's tally and each lesson's effect, from ``runs`` in time order (one pass,
    memory per lesson, not per run). A lesson's runs count from its start: the latest of its
    creation, when a person last put it back in use (``activated``) and ``counted_from``.
    Lessons never applied in a counted run since their start are left out."""
    activated = activated or {}
    starts: dict[int, datetime] = {}
    for lesson in lessons:
        bounds = [as_utc(lesson.created_at)]
        if counted_from is not None:
            bounds.append(counted_from)
        if lesson.id in activated:
            bounds.append(activated[lesson.id])
        starts[lesson.id] = max(bounds)
    # Totals of the runs before each lesson's start are snapshotted as the stream passes it.
    order = sorted(starts.items(), key=lambda item: item[1])
    moments = [moment for _, moment in order]
    before: dict[int, Tally] = {}
    passed = 0
    successes = failures = 0
    applied: dict[int, list[int]] = {}
    for run in runs:
        at = as_utc(run.at)
        while passed < len(order) and moments[passed] <= at:
            before[order[passed][0]] = Tally(successes, failures)
            passed += 1
        if run.success:
            successes += 1
        else:
            failures += 1
        for lesson_id in run.applied:
            start = starts.get(lesson_id)
            if start is None or at < start:
                continue
            counts = applied.setdefault(lesson_id, [0, 0])
            counts[0 if run.success else 1] += 1
    total = Tally(successes, failures)
    effects = []
    for lesson in lessons:
        if lesson.id not in applied:
            continue
        mine = Tally(*applied[lesson.id])
        # A lesson applied in a counted run had its start passed by the stream.
        baseline = total - before[lesson.id] - mine
        effects.append(
            LessonEffect(
                lesson_id=lesson.id,
                title=lesson.title,
                status=lesson.status,
                trust=lesson.trust,
                fingerprint=lesson.fingerprint,
                since=starts[lesson.id],
                applied=mine,
                baseline=baseline,
                confidence=settings.effect_confidence,
                min_runs=settings.effect_min_runs,
                verdict=judge_effect(
                    mine,
                    baseline,
                    min_runs=settings.effect_min_runs,
                    confidence=settings.effect_confidence,
                ),
            )
        )
    effects.sort(key=lambda e: (VERDICTS.index(e.verdict), -e.applied.runs, e.lesson_id))
    return total, effects


def window_start(settings: Settings, now: datetime | None = None) -> datetime | None:
    """The first moment whose runs count (None: ``DIGEST_EFFECT_WINDOW_DAYS`` is 0, all)."""
    if not settings.effect_window_days:
        return None
    return (now or utcnow()) - timedelta(days=settings.effect_window_days)


def _runs(session: Session, agent_id: int, start: datetime | None) -> Iterator[Run]:
    """The agent's runs that ended success or failure (from ``start``), oldest first."""
    outcome = Event.payload["outcome"].as_string()
    query = select(Event.created_at, outcome, Event.payload["applied_lesson_ids"]).where(
        Event.agent_id == agent_id,
        Event.kind == "run_outcome",
        outcome.in_(("success", "failure")),
    )
    if start is not None:
        query = query.where(Event.created_at >= start)
    rows = session.execute(
        query.order_by(Event.created_at, Event.id).execution_options(yield_per=_BATCH)
    )
    for at, ended, ids in rows:
        named = ids if isinstance(ids, list) else ()
        applied = frozenset(i for i in named if isinstance(i, int) and not isinstance(i, bool))
        yield Run(at, ended == "success", applied)


def _activations(session: Session, agent_id: int) -> dict[int, datetime]:
    """Lesson id → when a person last put it back in use (enabled, released): its runs count
    from then on, so an owner who keeps a retired lesson gives it a fresh measurement."""
    before = LessonHistory.before["status"].as_string()
    after = LessonHistory.after["status"].as_string()
    rows = session.execute(
        select(LessonHistory.lesson_id, func.max(LessonHistory.at))
        .where(LessonHistory.agent_id == agent_id, after == "active", before != "active")
        .group_by(LessonHistory.lesson_id)
    )
    return {lesson_id: as_utc(at) for lesson_id, at in rows}


def agent_effects(
    session: Session,
    agent_id: int,
    settings: Settings | None = None,
    *,
    now: datetime | None = None,
) -> tuple[Tally, list[LessonEffect]]:
    """The agent's counted runs, and the effect of each of its lessons applied in one of them
    (any status), worst verdict first. Reads only: takes no lock."""
    settings = settings or get_settings()
    start = window_start(settings, now)
    lessons = session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)).all()
    activated = _activations(session, agent_id)
    return measure(_runs(session, agent_id, start), lessons, start, settings, activated)


def effect_report(
    tenant: str, agent: str, settings: Settings | None = None, *, now: datetime | None = None
) -> EffectReport:
    """``digest lesson effect``: the measured effect of the agent's lessons. ``NotFound`` for
    an unknown tenant or agent."""
    settings = settings or get_settings()
    now = now or utcnow()
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        runs, effects = agent_effects(session, agent_row.id, settings, now=now)
    return EffectReport(
        tenant=tenant,
        agent=agent,
        window_start=window_start(settings, now),
        runs=runs,
        confidence=settings.effect_confidence,
        min_runs=settings.effect_min_runs,
        lessons=effects,
    )


# --- the sweep's part ------------------------------------------------------------------------

#: how a retirement's history reason begins
RETIRED_REASON = "measured harmful, retired by the sweep"


def retire_harmful_lessons(
    settings: Settings | None = None, *, now: datetime | None = None
) -> list[LessonEffect]:
    """Disable every active, untrusted lesson measured as harmful (``action == "retire"``),
    agent by agent, through ``transition``: a history row whose reason is the evidence, the
    agent's epoch moved and ``updated_at`` stamped (so the sweep then recomposes the agent).
    Agents with learning turned off are left alone; ``DIGEST_EFFECT_RETIRE=false`` turns this
    off. Returns the effects of the lessons retired."""
    settings = settings or get_settings()
    if not settings.effect_retire:
        return []
    candidates = exists(
        select(Lesson.id).where(
            Lesson.agent_id == Agent.id,
            Lesson.status == "active",
            Lesson.trust.not_in(PROTECTED_TRUST),
        )
    )
    with read_scope(settings.database_url) as session:
        agent_ids = list(
            session.scalars(
                select(Agent.id)
                .where(Agent.enable_learning.is_(True), candidates)
                .order_by(Agent.id)
            )
        )
    retired: list[LessonEffect] = []
    for agent_id in agent_ids:
        try:
            retired += retire_for_agent(agent_id, settings, now=now)
        except Exception as exc:  # one agent's fault must not stop the sweep for the others
            log.error("effect_retire_failed", agent_id=agent_id, error=str(exc))
    return retired


def retire_for_agent(
    agent_id: int, settings: Settings | None = None, *, now: datetime | None = None
) -> list[LessonEffect]:
    """One agent's part of ``retire_harmful_lessons``. Measured without a lock, then each
    lesson to retire is read again under the agent's lesson lock: one a person changed
    meanwhile (disabled, deleted, released) is left as it is."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        _, effects = agent_effects(session, agent_id, settings, now=now)
    doomed = [effect for effect in effects if effect.action == "retire"]
    if not doomed:
        return []
    retired = []
    with session_scope(settings.database_url) as session:
        lock_agent_lessons(session, agent_id)
        for effect in doomed:
            lesson = session.get(Lesson, effect.lesson_id, populate_existing=True)
            if lesson is None or lesson.status != "active" or lesson.trust in PROTECTED_TRUST:
                continue
            transition(
                session, lesson, op="UPDATE", reason=f"{RETIRED_REASON}: {effect.evidence()}",
                status="disabled",
                status_reason=(
                    f"retired by the sweep: measured harmful (success "
                    f"{_pct(effect.applied.rate)} in {effect.applied.runs} runs applied, "
                    f"{_pct(effect.baseline.rate)} in {effect.baseline.runs} runs without it)"
                ),
            )  # fmt: skip
            retired.append(effect)
    if retired:
        log.info(
            "harmful_lessons_retired",
            agent_id=agent_id,
            lesson_ids=[effect.lesson_id for effect in retired],
        )
    return retired
