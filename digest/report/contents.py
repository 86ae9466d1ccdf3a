"""What a struggled-with report holds (``Report``): the agent's runs per week by outcome
(``WeekRuns``), the topics it failed on and the edits operators made (``Topic``), each topic's
lesson and its measured effect (``LessonRef``), and the effects of all its applied lessons.

Every text in a ``Report`` that comes from an event (topic labels, edit labels) is untrusted,
attacker-written text: the HTML page escapes it and the terminal prints it literally.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from digest.lessons.edit_rate import EditRate
from digest.lessons.effect.measure import LessonEffect
from digest.lessons.effect.verdict import Tally

#: failure topics and edit topics a report keeps (the most frequent)
TOPICS_SHOWN = 12
EDITS_SHOWN = 8


#: under the topics (terminal and page), when a topic's lesson is held: what it waits for and
#: what changes that
HELD_NOTE = (
    "A held lesson reaches agents once enough independent sources (distinct contacts, else "
    "threads) report the same failure, or once you release it (`digest lesson release ID --by "
    "WHO`); `digest tenant set --gate N` or DIGEST_FREQUENCY_GATE sets how many sources."
)


@dataclass(frozen=True)
class LessonRef:
    """The lesson a topic has, and what its measured effect says."""

    id: int
    title: str
    status: str
    trust: str
    #: why no agent reads it yet ("held: 1 of 2 independent sources"); None: released
    held: str | None
    #: the effect verdict (``digest.lessons.effect.verdict.VERDICTS``); None: never applied in a
    #: counted run
    verdict: str | None
    applied_runs: int
    success_rate: float | None
    baseline_rate: float | None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "title": self.title,
            "status": self.status,
            "trust": self.trust,
            "held": self.held,
            "verdict": self.verdict,
            "applied_runs": self.applied_runs,
            "success_rate": _rounded(self.success_rate),
            "baseline_rate": _rounded(self.baseline_rate),
        }


@dataclass(frozen=True)
class Topic:
    """One thing the agent failed on (or one kind of edit operators made)."""

    #: the fingerprint (``tool:…``, ``run:…``, ``edit:…``), ``lesson:<id>`` or ``other``
    key: str
    #: tool, run, lesson, other (failures); edit
    kind: str
    #: what a person reads: untrusted text from the events
    label: str
    #: per week, oldest first
    counts: list[int]
    lesson: LessonRef | None
    #: the topic's events by status (``digest.models.EVENT_STATUSES``)
    statuses: dict[str, int] = field(default_factory=dict)

    @property
    def total(self) -> int:
        return sum(self.counts)

    @property
    def why_none(self) -> str:
        """Why the topic has no lesson, from its events' statuses ("" when it has one)."""
        if self.lesson is not None:
            return ""
        count = self.statuses.get
        parts = []
        waiting = count("pending", 0) + count("processing", 0) + count("waiting", 0)
        if waiting:
            parts.append(f"{waiting} not reflected yet")
        if count("skipped", 0):
            parts.append(f"the judge found nothing to learn in {count('skipped')}")
        if count("failed", 0) + count("dead", 0):
            broken = count("failed", 0) + count("dead", 0)
            parts.append(f"{broken} could not be reflected (`digest stats` says why)")
        if count("reflected", 0):
            parts.append(f"{count('reflected')} reflected without a lesson kept")
        return "; ".join(parts)

    def to_json(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "kind": self.kind,
            "label": self.label,
            "counts": list(self.counts),
            "total": self.total,
            "lesson": self.lesson.to_json() if self.lesson else None,
            "why_no_lesson": self.why_none or None,
        }


@dataclass(frozen=True)
class WeekRuns:
    """The agent's runs of one week, by outcome."""

    start: datetime
    success: int = 0
    failure: int = 0
    escalated: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "success": self.success,
            "failure": self.failure,
            "escalated": self.escalated,
        }


@dataclass(frozen=True)
class Report:
    """What one agent struggled with over ``weeks`` weeks ending at ``generated_at``."""

    tenant: str
    agent: str
    weeks: int
    generated_at: datetime
    runs: list[WeekRuns]
    #: the most frequent failure topics, most failures first
    topics: list[Topic]
    #: how many distinct failure topics there were (``topics`` keeps TOPICS_SHOWN)
    topics_found: int
    #: the most frequent operator edits, most first
    edits: list[Topic]
    edits_found: int
    #: every operator edit in these weeks (``edits`` keeps the most frequent kinds)
    edit_count: int
    #: every lesson applied in a counted run, worst verdict first
    effects: list[LessonEffect] = field(default_factory=list)
    #: the agent's runs the effects were measured over
    effect_runs: Tally = field(default_factory=Tally)
    #: the settings the effects were measured with
    effect_window_days: int = 0
    effect_confidence: float = 0.95
    effect_min_runs: int = 10
    #: how much the agent's drafts needed editing, week by week (None: not measured)
    edit_rate: EditRate | None = None
    #: events waiting for the tenant's daily model budget, in words (None: none wait)
    budget_wait: str | None = None

    @property
    def week_starts(self) -> list[datetime]:
        return [week.start for week in self.runs]

    def to_json(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "agent": self.agent,
            "weeks": self.weeks,
            "generated_at": self.generated_at.isoformat(),
            "runs": [week.to_json() for week in self.runs],
            "topics": [topic.to_json() for topic in self.topics],
            "topics_found": self.topics_found,
            "budget_wait": self.budget_wait,
            "edits": [edit.to_json() for edit in self.edits],
            "edits_found": self.edits_found,
            "edit_count": self.edit_count,
            "effects": [effect.to_json() for effect in self.effects],
            "effect_runs": {
                "runs": self.effect_runs.runs,
                "successes": self.effect_runs.successes,
                "failures": self.effect_runs.failures,
            },
            "effect_window_days": self.effect_window_days,
            "effect_confidence": self.effect_confidence,
            "effect_min_runs": self.effect_min_runs,
            "edit_rate": self.edit_rate.to_json() if self.edit_rate else None,
        }


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)
