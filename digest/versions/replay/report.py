"""What a replay found: per event, how the current (active) and the proposed version cover it
(``EventReplay``: surfaced, folded or missed), and the totals compose stores with the version
(``ReplayReport``, ``learning_versions.replay``)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

#: per event and version: a relevant lesson in the retrieval's top k, only in the document,
#: or nowhere in the version
SURFACED, FOLDED, MISSED = "surfaced", "folded", "missed"


@dataclass(frozen=True)
class EventReplay:
    """One replayed event: how the current (active) and the proposed version cover it."""

    event_id: int
    kind: str
    #: captured after the current version was made (what the proposal should have learned)
    since_current: bool
    #: the start of the text replayed (a run's task, an edit's context or draft), one line
    probe: str
    current: str
    proposed: str
    #: the relevant lesson the retrieval surfaced, else one the version folds (None: missed)
    current_lesson: int | None = None
    proposed_lesson: int | None = None


@dataclass(frozen=True)
class ReplayReport:
    """The side-by-side replay of one proposed version against the version active then."""

    #: events replayed
    events: int
    #: the retrieval's k
    k: int
    #: the active version replayed as "current" (None: the agent had none)
    current_number: int | None
    current_lessons: int
    proposed_lessons: int
    #: events a relevant lesson was surfaced for (covered), per version
    current_covered: int
    proposed_covered: int
    #: events a version folds a relevant lesson for, surfaced or not
    current_folded: int
    proposed_folded: int
    #: events the proposal covers and the current version does not, and the other way round
    gained: int
    lost: int
    #: events captured after the current version was made
    since_current: int
    #: what the replay took, in milliseconds (reading, embedding new probes, ranking)
    ms: float
    #: lessons of the current version the sweep withdrew since (retired as measured harmful,
    #: or expired): replayed as gone, so the coverage they gave is not counted as lost
    withdrawn: int = 0
    per_event: tuple[EventReplay, ...] = ()

    @property
    def current_coverage(self) -> float | None:
        return self.current_covered / self.events if self.events else None

    @property
    def proposed_coverage(self) -> float | None:
        return self.proposed_covered / self.events if self.events else None

    def to_json(self, *, per_event: bool = True) -> dict[str, Any]:
        """As stored in ``learning_versions.replay``, coverages included (a listing may leave
        the events out)."""
        data = {name: getattr(self, name) for name in _REPORT_FIELDS}
        data["ms"] = round(self.ms, 1)
        data["current_coverage"] = self.current_coverage
        data["proposed_coverage"] = self.proposed_coverage
        data["per_event"] = [_event_json(e) for e in self.per_event] if per_event else None
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ReplayReport:
        names = {f for f in cls.__dataclass_fields__ if f != "per_event"}
        events = tuple(EventReplay(**row) for row in data.get("per_event") or ())
        return cls(**{k: v for k, v in data.items() if k in names}, per_event=events)


_EVENT_FIELDS = tuple(f.name for f in fields(EventReplay))
_REPORT_FIELDS = tuple(f.name for f in fields(ReplayReport) if f.name != "per_event")


def _event_json(event: EventReplay) -> dict[str, Any]:
    # not dataclasses.asdict: it deep-copies every value, a third of a replay's time
    return {name: getattr(event, name) for name in _EVENT_FIELDS}
