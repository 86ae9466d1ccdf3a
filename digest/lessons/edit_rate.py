"""How much an agent's drafts needed editing, week by week (issue 28 point 4): the metric an
owner reads as "your agent needed editing 34% → 21% over 4 weeks".

Every ``record_edit`` is a draft an operator reviewed: sent as drafted (``final`` equal to
the draft, or changed less than ``DIGEST_EDIT_RATIO_THRESHOLD``), edited, or rejected
(``final=None``). A week's *edit rate* is the share of its reviewed drafts that were edited or
rejected; *changed* is the mean normalised edit distance of those (0 = untouched, 1 = rewritten),
the distance reflection stores on the event (measured here for events not reflected yet).
Report every draft an operator reviews, unchanged ones included, or the rate only counts edits.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.models import Event, as_utc

_BATCH = 1000


@dataclass(frozen=True)
class WeekEdits:
    start: datetime
    #: drafts operators reviewed (every operator_edit event of the week)
    drafts: int = 0
    edited: int = 0
    rejected: int = 0
    #: the sum of the edited and rejected drafts' edit ratios (``changed`` is their mean)
    ratio_sum: float = 0.0

    @property
    def needed(self) -> int:
        return self.edited + self.rejected

    @property
    def rate(self) -> float | None:
        return self.needed / self.drafts if self.drafts else None

    @property
    def changed(self) -> float | None:
        return self.ratio_sum / self.needed if self.needed else None

    def to_json(self) -> dict[str, Any]:
        return {
            "start": self.start.isoformat(),
            "drafts": self.drafts,
            "edited": self.edited,
            "rejected": self.rejected,
            "rate": None if self.rate is None else round(self.rate, 4),
            "changed": None if self.changed is None else round(self.changed, 4),
        }


@dataclass(frozen=True)
class EditRate:
    weeks: list[WeekEdits]
    threshold: float

    @property
    def drafts(self) -> int:
        return sum(w.drafts for w in self.weeks)

    def sentence(self) -> str:
        """``needed editing 34% → 21% over 4 weeks`` (first and last week with drafts)."""
        measured = [w for w in self.weeks if w.rate is not None]
        if not measured:
            return "no drafts reviewed by operators in these weeks (record_edit reports them)"
        first, last = measured[0], measured[-1]
        if first is last:
            return f"needed editing {_pct(first.rate)} of {first.drafts} drafts (one week measured)"
        span = round((last.start - first.start).days / 7) + 1
        return f"needed editing {_pct(first.rate)} → {_pct(last.rate)} over {span} weeks"

    def to_json(self) -> dict[str, Any]:
        return {
            "weeks": [w.to_json() for w in self.weeks],
            "threshold": self.threshold,
            "drafts": self.drafts,
            "summary": self.sentence(),
        }


def _pct(rate: float | None) -> str:
    return "-" if rate is None else f"{round(100 * rate)}%"


def edit_rate(
    session: Session, agent_id: int, start: datetime, weeks: int, threshold: float
) -> EditRate:
    """The agent's edit rate per week over ``weeks`` weeks from ``start`` (see the module)."""
    tallies = [{"drafts": 0, "edited": 0, "rejected": 0, "ratio_sum": 0.0} for _ in range(weeks)]
    rows = session.execute(
        select(Event.created_at, Event.edit_ratio, Event.payload)
        .where(
            Event.agent_id == agent_id,
            Event.kind == "operator_edit",
            Event.created_at >= start,
        )
        .execution_options(yield_per=_BATCH)
    )
    for at, ratio, payload in rows:
        week = int((as_utc(at) - start) / timedelta(days=7))
        if not 0 <= week < weeks or not isinstance(payload, dict):
            continue
        final = payload.get("final")
        if ratio is None:
            # here, not at the top: ``stats`` and the CLI's read commands import this module,
            # and digest.text loads rapidfuzz for the few edits stored before their ratio was
            from digest.text import edit_metrics

            ratio = edit_metrics(str(payload.get("original") or ""), final)[1]
        tally = tallies[week]
        tally["drafts"] += 1
        if not isinstance(final, str):
            tally["rejected"] += 1
            tally["ratio_sum"] += 1.0
        elif ratio >= threshold:
            tally["edited"] += 1
            tally["ratio_sum"] += float(ratio)
    return EditRate(
        weeks=[
            WeekEdits(start=start + timedelta(days=7 * i), **tally)  # type: ignore[arg-type]
            for i, tally in enumerate(tallies)
        ],
        threshold=threshold,
    )
