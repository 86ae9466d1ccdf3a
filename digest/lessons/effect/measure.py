"""Counting an agent's run outcomes into each lesson's measured effect (``measure``,
``agent_effects``): the runs a lesson was applied in since its start against the agent's other
runs over the same days, and ``digest lesson effect``'s report of them (``effect_report``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.lessons.effect.randomized import Randomized, randomized_effects
from digest.lessons.effect.verdict import VERDICTS, Tally, judge_effect
from digest.models import PROTECTED_TRUST, Event, Lesson, LessonHistory, as_utc, utcnow
from digest.tenants import find_agent

#: rows fetched at a time while reading an agent's run outcomes
_BATCH = 2000


def percent(value: float | None) -> str:
    """A rate as a whole percentage, ``-`` for none."""
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
    #: the randomized (causal) estimate from holdout turns, when the lesson had any
    randomized: Randomized | None = None

    @property
    def decided_by(self) -> str:
        """``randomized`` when the holdout estimate has a verdict (it is causal and wins),
        else ``observational``."""
        if self.randomized is not None and self.randomized.verdict != "insufficient":
            return "randomized"
        return "observational"

    @property
    def final_verdict(self) -> str:
        """The verdict the sweep acts on: the randomized one when it decides."""
        if self.randomized is not None and self.decided_by == "randomized":
            return self.randomized.verdict
        return self.verdict

    @property
    def protected(self) -> bool:
        """A person wrote or reviewed it: the sweep flags it, never retires it."""
        return self.trust in PROTECTED_TRUST

    @property
    def action(self) -> str | None:
        """``retire`` (the sweep will disable it), ``review`` (harmful but a person's: its
        owner decides) or None."""
        if self.final_verdict != "harms" or self.status != "active":
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
            f"(success {percent(self.applied.rate)}, "
            f"{level}% interval {percent(low)}-{percent(high)}); "
            f"without it {self.baseline.runs} runs: {self.baseline.successes} succeeded, "
            f"{self.baseline.failures} failed (success {percent(self.baseline.rate)}, "
            f"{percent(base_low)}-{percent(base_high)}); verdict {self.verdict}"
            + (f"; {self.randomized.evidence()}" if self.randomized is not None else "")
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
            "randomized": None if self.randomized is None else self.randomized.to_json(),
            "decided_by": self.decided_by,
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
    total, effects = measure(_runs(session, agent_id, start), lessons, start, settings, activated)
    causal = randomized_effects(
        session,
        agent_id,
        confidence=settings.effect_confidence,
        min_turns=settings.holdout_min_turns,
        start=start,
    )
    if not causal:
        return total, effects
    by_id = {lesson.id: lesson for lesson in lessons}
    merged = [replace(e, randomized=causal.get(e.lesson_id)) for e in effects]
    seen = {e.lesson_id for e in effects}
    for lesson_id, estimate in causal.items():
        lesson = by_id.get(lesson_id)
        if lesson is None or lesson_id in seen:
            continue
        merged.append(
            LessonEffect(
                lesson_id=lesson.id, title=lesson.title, status=lesson.status,
                trust=lesson.trust, fingerprint=lesson.fingerprint,
                since=start or as_utc(lesson.created_at), applied=Tally(), baseline=Tally(),
                confidence=settings.effect_confidence, min_runs=settings.effect_min_runs,
                verdict="insufficient", randomized=estimate,
            )
        )  # fmt: skip
    merged.sort(key=lambda e: (VERDICTS.index(e.final_verdict), -e.applied.runs, e.lesson_id))
    return total, merged


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
