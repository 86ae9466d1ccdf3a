"""Building the struggled-with report (``build_report``) from rows: what one agent failed on,
week by week, the lessons it has for each of those topics and their measured effect, and the
edits operators keep making.

Only rows are read: run outcomes, operator edits, lessons and their evidence. What a report
holds is ``digest.report.contents``; how event text reads in it, ``digest.report.labels``.

- A **topic** is a fingerprint (``digest.fingerprint``) of a failed run: a tool's failure
  (tool and error template) or the run's own error. A run failing in two ways counts under
  both. A failed run reporting neither counts under the lesson it taught (``lesson:<id>``,
  from its evidence) or, with none, under ``other``.
- A topic's **lesson** is the agent's lesson with the topic's fingerprint (an active one before
  others), else the lesson most of the topic's runs are evidence of; with its measured effect
  (``digest.lessons.effect``, counted over ``DIGEST_EFFECT_WINDOW_DAYS``, not the report's
  weeks: the same verdict the sweep acts on).
- An **edit** topic is an operator edit's shape (``edit_key``: its rules together, a promise
  removed, the reply shortened, …) or, with none, the words it changed; its lesson is the
  lesson of the shape's first rule (the promise, else the tone: ``edit_keys``).
- **Weeks** are seven-day windows ending at ``now``, oldest first (none is a partial week).
  Only ``failure`` outcomes count as failed; ``escalated`` runs are counted apart.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import InvalidArgument
from digest.fingerprint import edit_family, edit_key, edit_keys, run_failures
from digest.lessons.budgets import budget_wait_sentence
from digest.lessons.edit_rate import edit_rate
from digest.lessons.effect.measure import LessonEffect, agent_effects
from digest.lessons.release import Gate, agent_gate, held_note
from digest.models import Event, Lesson, LessonEvidence, as_utc, utcnow
from digest.report.contents import EDITS_SHOWN, TOPICS_SHOWN, LessonRef, Report, Topic, WeekRuns
from digest.report.labels import edit_label, short_label
from digest.tenants import find_agent

#: the most weeks a report covers
WEEKS_MAX = 52
#: rows fetched at a time while reading events
_BATCH = 1000


class _Topics:
    """Counts per key and week, the first label seen for each key, and which lessons the
    counted events are evidence of."""

    def __init__(self, weeks: int) -> None:
        self.weeks = weeks
        self.counts: dict[str, list[int]] = {}
        self.labels: dict[str, tuple[str, str]] = {}
        self.statuses: defaultdict[str, Counter[str]] = defaultdict(Counter)
        self.cited: defaultdict[str, Counter[int]] = defaultdict(Counter)
        #: the fingerprint of a topic's lesson, where it is not the topic's own key
        self.lesson_keys: dict[str, str] = {}

    def add(
        self,
        key: str,
        kind: str,
        label: str,
        week: int,
        cited: list[int],
        lesson_key: str = "",
        status: str = "",
    ) -> None:
        counts = self.counts.setdefault(key, [0] * self.weeks)
        counts[week] += 1
        if status:
            self.statuses[key][status] += 1
        self.labels.setdefault(key, (kind, label))
        self.cited[key].update(cited)
        if lesson_key:
            self.lesson_keys.setdefault(key, lesson_key)

    def ranked(self, limit: int) -> list[str]:
        """The ``limit`` keys counted most (ties by key, so the order is stable)."""
        return sorted(self.counts, key=lambda key: (-sum(self.counts[key]), key))[:limit]

    def top(self, ranked: list[str], lessons: dict[str, LessonRef | None]) -> list[Topic]:
        return [
            Topic(
                key=key,
                kind=self.labels[key][0],
                label=self.labels[key][1],
                counts=self.counts[key],
                lesson=lessons.get(key),
                statuses=dict(self.statuses[key]),
            )
            for key in ranked
        ]


def _week_of(moment: datetime, start: datetime, weeks: int) -> int | None:
    index = int((as_utc(moment) - start) // timedelta(days=7))
    return index if 0 <= index < weeks else None


def _evidence(session: Session, agent_id: int, kind: str, start: datetime) -> dict[int, list[int]]:
    """Event id → the lessons it is evidence of, for the agent's ``kind`` events since
    ``start``."""
    rows = session.execute(
        select(LessonEvidence.event_id, LessonEvidence.lesson_id)
        .join(Event, Event.id == LessonEvidence.event_id)
        .where(Event.agent_id == agent_id, Event.kind == kind, Event.created_at >= start)
        .order_by(LessonEvidence.lesson_id)
    )
    cited: dict[int, list[int]] = {}
    for event_id, lesson_id in rows:
        cited.setdefault(event_id, []).append(lesson_id)
    return cited


def _lesson_refs(
    session: Session,
    agent_id: int,
    topics: _Topics,
    shown: list[str],
    effects: dict[int, LessonEffect],
) -> dict[str, LessonRef | None]:
    """Topic key → its lesson, for the ``shown`` keys: the agent's lesson with that
    fingerprint (or the topic's ``lesson_keys``; active first, then the most recently
    changed), else the lesson most of its events are evidence of."""
    fingerprint_of = {key: topics.lesson_keys.get(key, key) for key in shown}
    keys = [fingerprint_of[k] for k in shown if ":" in k and not k.startswith("lesson:")]
    by_fingerprint: dict[str, Lesson] = {}
    if keys:
        rank = {"active": 0}
        for lesson in session.scalars(
            select(Lesson)
            .where(Lesson.agent_id == agent_id, Lesson.fingerprint.in_(keys))
            .order_by(Lesson.updated_at.desc(), Lesson.id.desc())
        ):
            assert lesson.fingerprint is not None
            held = by_fingerprint.get(lesson.fingerprint)
            if held is None or rank.get(lesson.status, 1) < rank.get(held.status, 1):
                by_fingerprint[lesson.fingerprint] = lesson
    wanted = {key: by_fingerprint.get(fingerprint_of[key]) for key in shown}
    missing: dict[str, int] = {}
    for key in shown:
        if key.startswith("lesson:"):
            missing[key] = int(key.removeprefix("lesson:"))
        elif wanted[key] is None and topics.cited[key]:
            missing[key] = topics.cited[key].most_common(1)[0][0]
    if missing:
        found = {
            lesson.id: lesson
            for lesson in session.scalars(
                select(Lesson).where(
                    Lesson.agent_id == agent_id, Lesson.id.in_(set(missing.values()))
                )
            )
        }
        for key, lesson_id in missing.items():
            wanted[key] = found.get(lesson_id)
    gate = agent_gate(session, agent_id)
    return {key: _ref(lesson, effects, gate) if lesson else None for key, lesson in wanted.items()}


def _ref(lesson: Lesson, effects: dict[int, LessonEffect], gate: Gate) -> LessonRef:
    effect = effects.get(lesson.id)
    return LessonRef(
        id=lesson.id,
        title=lesson.title,
        status=lesson.status,
        trust=lesson.trust,
        held=_held(lesson, gate),
        verdict=effect.verdict if effect else None,
        applied_runs=effect.applied.runs if effect else 0,
        success_rate=effect.applied.rate if effect else None,
        baseline_rate=effect.baseline.rate if effect else None,
    )


def _failure_topics(
    session: Session, agent_id: int, start: datetime, weeks: int
) -> tuple[list[WeekRuns], _Topics]:
    """The agent's runs per week by outcome, and its failed runs' topics."""
    outcomes = [Counter[str]() for _ in range(weeks)]
    outcome = Event.payload["outcome"].as_string()
    for at, ended in session.execute(
        select(Event.created_at, outcome)
        .where(Event.agent_id == agent_id, Event.kind == "run_outcome", Event.created_at >= start)
        .execution_options(yield_per=_BATCH)
    ):
        week = _week_of(at, start, weeks)
        if week is not None:
            outcomes[week][str(ended)] += 1
    runs = [
        WeekRuns(
            start=start + timedelta(days=7 * i),
            success=counts["success"],
            failure=counts["failure"],
            escalated=counts["escalated"],
        )
        for i, counts in enumerate(outcomes)
    ]
    cited = _evidence(session, agent_id, "run_outcome", start)
    topics = _Topics(weeks)
    for event_id, at, payload, status in session.execute(
        select(Event.id, Event.created_at, Event.payload, Event.status)
        .where(
            Event.agent_id == agent_id,
            Event.kind == "run_outcome",
            Event.created_at >= start,
            outcome == "failure",
        )
        .order_by(Event.id)
        .execution_options(yield_per=_BATCH)
    ):
        week = _week_of(at, start, weeks)
        if week is None or not isinstance(payload, dict):
            continue
        lessons = cited.get(event_id, [])
        failures = run_failures(payload)
        for failure in failures:
            if failure.tool:
                kind, label = "tool", f"{failure.tool}: {failure.template}"
            else:
                kind, label = "run", f"run error: {failure.template}"
            topics.add(failure.key, kind, short_label(label), week, lessons, status=status)
        if failures:
            continue
        if lessons:
            topics.add(f"lesson:{lessons[0]}", "lesson", "", week, lessons, status=status)
        else:
            label = "failed without reporting an error"
            topics.add("other", "other", label, week, [], status=status)
    return runs, topics


def _edit_topics(session: Session, agent_id: int, start: datetime, weeks: int) -> _Topics:
    cited = _evidence(session, agent_id, "operator_edit", start)
    topics = _Topics(weeks)
    for event_id, at, payload, status in session.execute(
        select(Event.id, Event.created_at, Event.payload, Event.status)
        .where(
            Event.agent_id == agent_id,
            Event.kind == "operator_edit",
            Event.created_at >= start,
        )
        .order_by(Event.id)
        .execution_options(yield_per=_BATCH)
    ):
        week = _week_of(at, start, weeks)
        if week is None or not isinstance(payload, dict):
            continue
        original, final = str(payload.get("original") or ""), payload.get("final")
        final = final if isinstance(final, str) else None
        # the edit's shape is taught by its first rule that is not its content (the promise,
        # else the tone), a lesson of its own (digest.edits)
        shape = [k for k in edit_keys(original, final) if edit_family(k) != "content"]
        topics.add(
            edit_key(original, final), "edit", edit_label(original, final), week,
            cited.get(event_id, []), lesson_key=shape[0] if shape else "", status=status,
        )  # fmt: skip
    return topics


def _named_lesson_topics(topics: _Topics, refs: dict[str, LessonRef | None]) -> None:
    """``lesson:<id>`` topics read as their lesson's title."""
    for key, (kind, label) in list(topics.labels.items()):
        ref = refs.get(key)
        if kind == "lesson" and not label:
            title = ref.title if ref else key
            topics.labels[key] = (kind, short_label(f"taught: {title}"))


def build_report(
    tenant: str,
    agent: str,
    weeks: int = 4,
    settings: Settings | None = None,
    *,
    now: datetime | None = None,
) -> Report:
    """What the agent struggled with over the last ``weeks`` weeks (1 to WEEKS_MAX) ending at
    ``now``. ``NotFound`` for an unknown tenant or agent, ``InvalidArgument`` for ``weeks``
    out of range. Reads only."""
    if isinstance(weeks, bool) or not isinstance(weeks, int) or not 1 <= weeks <= WEEKS_MAX:
        raise InvalidArgument(f"weeks must be a whole number from 1 to {WEEKS_MAX}, not {weeks!r}")
    settings = settings or get_settings()
    now = as_utc(now) if now is not None else utcnow()
    start = now - timedelta(days=7 * weeks)
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        effect_runs, effects = agent_effects(session, agent_row.id, settings, now=now)
        by_lesson = {effect.lesson_id: effect for effect in effects}
        runs, failed = _failure_topics(session, agent_row.id, start, weeks)
        edited = _edit_topics(session, agent_row.id, start, weeks)
        rate = edit_rate(session, agent_row.id, start, weeks, settings.edit_ratio_threshold)
        shown_failures, shown_edits = failed.ranked(TOPICS_SHOWN), edited.ranked(EDITS_SHOWN)
        failed_refs = _lesson_refs(session, agent_row.id, failed, shown_failures, by_lesson)
        edit_refs = _lesson_refs(session, agent_row.id, edited, shown_edits, by_lesson)
        budget_wait = budget_wait_sentence(session, agent_row.id)
    _named_lesson_topics(failed, failed_refs)
    return Report(
        tenant=tenant,
        agent=agent,
        weeks=weeks,
        generated_at=now,
        runs=runs,
        topics=failed.top(shown_failures, failed_refs),
        topics_found=len(failed.counts),
        edits=edited.top(shown_edits, edit_refs),
        edits_found=len(edited.counts),
        edit_count=sum(sum(counts) for counts in edited.counts.values()),
        effects=effects,
        effect_runs=effect_runs,
        effect_window_days=settings.effect_window_days,
        effect_confidence=settings.effect_confidence,
        effect_min_runs=settings.effect_min_runs,
        edit_rate=rate,
        budget_wait=budget_wait,
    )


def _held(lesson: Lesson, gate: Gate) -> str | None:
    """Why an active lesson waits (``None``: released, or not active)."""
    if lesson.status != "active":
        return None
    counts = (lesson.trust, lesson.independent_sources, lesson.source_span_s, gate)
    return held_note(*counts, replaces=lesson.replaces_id)
