"""The randomized estimate of a lesson's effect (issue 29), from holdout exposures.

On each eligible turn (``digest.lessons.holdout``) a keyed draw decided whether the lesson was
shown or withheld; the run outcome reported with that turn's id says how the turn ended. The
difference of success rates, shown minus withheld, over those turns is an unbiased estimate of
the lesson's effect on the turns it is eligible for: the draw is independent of everything
else about the turn, so both groups are alike but for the lesson. Its interval is Newcombe's
hybrid score interval for a difference of proportions (built from the two Wilson intervals);
no verdict while either group has fewer than ``DIGEST_HOLDOUT_MIN_TURNS`` turns.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.lessons.effect.verdict import Tally
from digest.models import Event, HoldoutExposure


def newcombe_interval(
    shown: Tally, withheld: Tally, confidence: float
) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval for ``shown.rate - withheld.rate``; None with no
    turns on a side."""
    if shown.rate is None or withheld.rate is None:
        return None
    p1, p2 = shown.rate, withheld.rate
    l1, u1 = shown.interval(confidence)
    l2, u2 = withheld.interval(confidence)
    d = p1 - p2
    low = d - math.sqrt((p1 - l1) ** 2 + (u2 - p2) ** 2)
    high = d + math.sqrt((u1 - p1) ** 2 + (p2 - l2) ** 2)
    return max(-1.0, low), min(1.0, high)


@dataclass(frozen=True)
class Randomized:
    """One lesson's randomized estimate: outcomes of its eligible turns, shown vs withheld."""

    shown: Tally
    withheld: Tally
    confidence: float
    min_turns: int

    @property
    def difference(self) -> float | None:
        if self.shown.rate is None or self.withheld.rate is None:
            return None
        return self.shown.rate - self.withheld.rate

    @property
    def interval(self) -> tuple[float, float] | None:
        return newcombe_interval(self.shown, self.withheld, self.confidence)

    @property
    def verdict(self) -> str:
        """``harms`` (interval wholly below 0), ``helps`` (wholly above), ``unclear``, or
        ``insufficient`` while either side has fewer than ``min_turns`` turns."""
        if self.shown.runs < self.min_turns or self.withheld.runs < self.min_turns:
            return "insufficient"
        interval = self.interval
        assert interval is not None  # both sides have turns
        if interval[1] < 0:
            return "harms"
        if interval[0] > 0:
            return "helps"
        return "unclear"

    def evidence(self) -> str:
        interval = self.interval
        span = "-" if interval is None else f"{interval[0]:+.0%} to {interval[1]:+.0%}"
        diff = "-" if self.difference is None else f"{self.difference:+.0%}"
        return (
            f"randomized (causal): success {_pct(self.shown.rate)} in {self.shown.runs} turns "
            f"shown, {_pct(self.withheld.rate)} in {self.withheld.runs} turns withheld, "
            f"difference {diff} ({self.confidence:.0%} interval {span}); verdict {self.verdict}"
        )

    def to_json(self) -> dict[str, Any]:
        interval = self.interval
        return {
            "causal": True,
            "shown": {"turns": self.shown.runs, "successes": self.shown.successes},
            "withheld": {"turns": self.withheld.runs, "successes": self.withheld.successes},
            "difference": None if self.difference is None else round(self.difference, 4),
            "interval": None if interval is None else [round(v, 4) for v in interval],
            "min_turns": self.min_turns,
            "verdict": self.verdict,
        }


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def randomized_effects(
    session: Session,
    agent_id: int,
    *,
    confidence: float,
    min_turns: int,
    start: datetime | None = None,
) -> dict[int, Randomized]:
    """Lesson id → its randomized estimate: each exposure of the agent credited with the
    outcome (``success`` / ``failure``) of the run reported with the same turn id. Exposures
    without a reported outcome, and escalated runs, count on neither side."""
    outcome = Event.payload["outcome"].as_string()
    turn = Event.payload["turn_id"].as_string()
    runs = select(turn.label("turn_id"), outcome.label("outcome")).where(
        Event.agent_id == agent_id,
        Event.kind == "run_outcome",
        turn.is_not(None),
        outcome.in_(("success", "failure")),
    )
    if start is not None:
        runs = runs.where(Event.created_at >= start)
    ended = {row.turn_id: row.outcome == "success" for row in session.execute(runs)}
    if not ended:
        return {}
    counts: dict[int, list[int]] = {}
    exposures = select(HoldoutExposure.lesson_id, HoldoutExposure.turn_id, HoldoutExposure.shown)
    exposures = exposures.where(HoldoutExposure.agent_id == agent_id)
    if start is not None:
        exposures = exposures.where(HoldoutExposure.at >= start)
    for lesson_id, turn_id, shown in session.execute(exposures):
        success = ended.get(turn_id)
        if success is None:
            continue
        c = counts.setdefault(lesson_id, [0, 0, 0, 0])
        c[(0 if shown else 2) + (0 if success else 1)] += 1
    return {
        lesson_id: Randomized(Tally(c[0], c[1]), Tally(c[2], c[3]), confidence, min_turns)
        for lesson_id, c in counts.items()
    }
