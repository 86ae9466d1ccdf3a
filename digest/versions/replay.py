"""Replay before publishing (issue 16): would a version have put a relevant lesson in front of
the agent for its recent failures?

Every compose (and ``digest version replay``) takes the agent's most recent failed or edited
events, ``DIGEST_REPLAY_EVENTS`` of them, from before and after the active version alike:

- run outcomes that ended ``failure`` or ``escalated``;
- operator edits that changed the draft (or rejected it).

Events the judge skipped (transient faults: nothing to learn) are left out. Each event is
replayed on its *probe*, the text the agent had when it asked for its pitfalls: a run's task,
an edit's context (else the draft the operator edited).

**The retrieval is the agent's own**: ``digest.retrieve.ranked_parts``, ``merged_scores`` and
``best_of``, the ranking ``pitfalls`` runs (the prompt's keywords and, with embeddings, its
cosine; ties to the lesson surfaced more often, then seen last), over the agent's kept index
with the masks cut to the lessons a version folds (no hit is counted). A version's lessons that
index no longer holds (superseded, disabled or expired since) are indexed apart for the
replay, so the active version is replayed with what it shows. Lessons are ranked with their
text as it is now.

**Coverage.** A lesson is *relevant* to an event when it cites the event as evidence (it was
learned from it, or a repeat of it added support), or when its fingerprint is one of the
event's (``digest.fingerprint.event_keys``: the same tool and error template, the same edit
rule). Neither depends on the words of the lesson or of the event: a lesson stuffed with every
keyword is surfaced for everything and relevant to nothing it was not learned from, and a
paraphrased repeat of a failure still has its fingerprint. Per event and version:

- ``surfaced``: the retrieval's top ``DIGEST_REPLAY_K`` for the probe holds a relevant lesson
  (the event is *covered*);
- ``folded``: a relevant lesson is in the document, but the retrieval does not rank it in
  the top k for the probe;
- ``missed``: no lesson of the version is relevant.

Coverage is the share of replayed events covered. Compose holds a proposal that covers fewer
events than the active version by more than ``DIGEST_REPLAY_MARGIN`` of them.

**Cost.** Ranking is in memory (the index is the one ``pitfalls`` keeps), once per event for
both versions; an event no lesson of either version is relevant to is not ranked at all. Each
process keeps what it read of an event (``_Facts``: events never change), and with an
embedding model each probe is embedded once and stored (``replay_probes``), so a compose in
another process reads its vector instead of embedding it again. Nothing here calls a
language model. ``bench/replay.py`` measures it against the compose itself.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import and_, func, or_, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.fingerprint import event_keys
from digest.identity.embedding import Embedder, from_bytes, to_bytes
from digest.identity.index import AgentIndex, Entry
from digest.lessons.effect import RETIRED_REASON
from digest.lessons.neighbours import agent_view, lessons_index
from digest.lessons.transition import EXPIRED_REASON
from digest.lessons.vectors import vector_key, vectors_for
from digest.models import (
    Event,
    LearningVersion,
    Lesson,
    LessonEvidence,
    LessonHistory,
    ReplayProbe,
    as_utc,
)
from digest.retrieve import PREFETCH, best_of, merged_scores, prompt_keywords, ranked_parts

#: per event and version: a relevant lesson in the retrieval's top k, only in the document,
#: or nowhere in the version
SURFACED, FOLDED, MISSED = "surfaced", "folded", "missed"
#: run outcomes that count as failed
FAILED_OUTCOMES = ("failure", "escalated")
#: characters of an event's probe kept in the report (one line), for a person to recognise it
PROBE_EXCERPT = 80
#: rows per INSERT of stored probe vectors (SQLite binds at most 32,766 parameters)
_PROBE_ROWS = 500


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


@dataclass(frozen=True)
class _Facts:
    """What a replay keeps of an event from one compose to the next (an event's payload never
    changes): its probe's excerpt and keywords, its fingerprints, and its probe's vector
    under the embedding model ``model`` (``vector_key`` names model and text)."""

    excerpt: str
    words: tuple[str, ...]
    keys: tuple[str, ...]
    model: str | None
    vector_key: str | None
    vector: np.ndarray | None = None


#: (database, event id) → its facts; events this process replayed most recently last
_FACTS: OrderedDict[tuple[str, int], _Facts] = OrderedDict()
_FACTS_LOCK = threading.Lock()
#: events whose facts one process keeps (a few hundred bytes each, 1.5 kB more with a vector)
FACTS_MAX = 20_000


def forget_facts() -> None:
    """Drop what this process keeps of replayed events (tests)."""
    with _FACTS_LOCK:
        _FACTS.clear()


def _remember(database: str, event_id: int, facts: _Facts) -> None:
    with _FACTS_LOCK:
        _FACTS[(database, event_id)] = facts
        _FACTS.move_to_end((database, event_id))
        while len(_FACTS) > FACTS_MAX:
            _FACTS.popitem(last=False)


@dataclass
class _Probe:
    event_id: int
    kind: str
    since_current: bool
    facts: _Facts
    #: the probe's text, when this replay read the event's payload (new, or its vector due)
    text: str | None = None
    #: lessons relevant to the event (evidence or fingerprint), among the replayed versions'
    relevant: set[int] = field(default_factory=set)
    #: a vector embedded by this replay, to be stored
    new_vector: bool = False


@dataclass(frozen=True)
class _Lesson:
    id: int
    hit_count: int
    last_seen_at: datetime | None


@dataclass
class ReplayPlan:
    """What a replay read from the database, ready to run with no transaction open (the
    embedding of new probes may call a provider)."""

    k: int
    current_number: int | None
    current_ids: frozenset[int]
    proposed_ids: frozenset[int]
    probes: list[_Probe]
    lessons: dict[int, _Lesson]
    #: (index, what it may return now, the lesson id of each entry) of the agent's kept
    #: index, and of one of the replayed lessons it no longer holds
    parts: list[tuple[AgentIndex, np.ndarray, np.ndarray]]
    embedder: Embedder | None
    database: str
    seconds: float = 0.0
    #: lessons of the current version the sweep withdrew since (``withdrawn_lessons``)
    withdrawn: int = 0

    def run(self) -> ReplayReport:
        started = time.perf_counter()
        self._embed()
        union = self.current_ids | self.proposed_ids
        wanted = np.fromiter(union, dtype=np.int64, count=len(union))
        parts = [(index, allowed & np.isin(held, wanted)) for index, allowed, held in self.parts]
        versions = (self.current_ids, self.proposed_ids)
        # Both versions are ranked from one ranking of the lessons of either: within an index
        # part, a version's best m entries are the first m of its own in the union's order,
        # and they lie within the union's best m + (lessons of the union not in the version).
        beyond = [len(union - ids) for ids in versions]
        rows = []
        for probe in self.probes:
            relevant = [probe.relevant & ids for ids in versions]
            found: list[tuple[str, int | None]] = [(MISSED, None), (MISSED, None)]
            if any(relevant):
                extra = max(b for b, r in zip(beyond, relevant, strict=True) if r)
                ranked = ranked_parts(
                    parts, list(probe.facts.words), probe.facts.vector,
                    PREFETCH * self.k + extra,
                )  # fmt: skip
                own = [
                    self._own(ranked, ids) if relevant[i] else [] for i, ids in enumerate(versions)
                ]
                for i in (0, 1):
                    if not relevant[i]:
                        continue
                    if i == 1 and relevant[1] == relevant[0] and own[1] == own[0]:
                        found[1] = found[0]  # the same candidates: the same answer
                    else:
                        found[i] = self._cover(own[i], relevant[i])
            rows.append(
                EventReplay(
                    probe.event_id,
                    probe.kind,
                    probe.since_current,
                    probe.facts.excerpt,
                    current=found[0][0],
                    proposed=found[1][0],
                    current_lesson=found[0][1],
                    proposed_lesson=found[1][1],
                )
            )
        self.seconds += time.perf_counter() - started
        return _report(self, rows)

    def stored_vectors(self) -> list[tuple[int, str, bytes]]:
        """(event id, key, vector bytes) of the probes this replay embedded."""
        return [
            (p.event_id, p.facts.vector_key, to_bytes(p.facts.vector))
            for p in self.probes
            if p.new_vector and p.facts.vector_key is not None and p.facts.vector is not None
        ]

    def _embed(self) -> None:
        if self.embedder is None:
            return
        missing = [p for p in self.probes if p.facts.vector is None and p.text]
        vectors = vectors_for(self.embedder, [p.text or "" for p in missing]) if missing else None
        for probe, vector in zip(missing, vectors or [], strict=False):
            probe.facts = replace(probe.facts, vector=vector)
            probe.new_vector = True
            _remember(self.database, probe.event_id, probe.facts)

    def _own(
        self, ranked: list[list[tuple[Entry, float]]], ids: frozenset[int]
    ) -> list[list[tuple[Entry, float]]]:
        """The ranking ``ranked_parts`` gives for the version folding ``ids``, cut out of the
        union's ``ranked``: per part, the first ``PREFETCH * k`` entries of that version."""
        m = PREFETCH * self.k
        return [[(e, s) for e, s in part if e.lesson_id in ids][:m] for part in ranked]

    def _cover(
        self, own: list[list[tuple[Entry, float]]], relevant: set[int]
    ) -> tuple[str, int | None]:
        """Whether the version's own ranking surfaces one of ``relevant`` (the version's
        lessons relevant to the event) in its top k, as ``pitfalls`` orders them."""
        if not any(e.lesson_id in relevant for part in own for e, _ in part):
            return FOLDED, min(relevant)  # not even a candidate: no need to order them
        scores = merged_scores(own)
        candidates = [self.lessons[i] for i in scores if i in self.lessons]
        for row in best_of(candidates, scores, self.k):
            if row.id in relevant:
                return SURFACED, row.id
        return FOLDED, min(relevant)


def _ids(index: AgentIndex) -> np.ndarray:
    return np.fromiter((e.lesson_id for e in index.entries), dtype=np.int64, count=len(index))


def _excerpt(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= PROBE_EXCERPT else line[: PROBE_EXCERPT - 1].rstrip() + "…"


def _report(plan: ReplayPlan, rows: list[EventReplay]) -> ReplayReport:
    covered_now = {r.event_id for r in rows if r.current == SURFACED}
    covered_then = {r.event_id for r in rows if r.proposed == SURFACED}
    return ReplayReport(
        events=len(rows),
        k=plan.k,
        current_number=plan.current_number,
        current_lessons=len(plan.current_ids),
        proposed_lessons=len(plan.proposed_ids),
        current_covered=len(covered_now),
        proposed_covered=len(covered_then),
        current_folded=sum(1 for r in rows if r.current != MISSED),
        proposed_folded=sum(1 for r in rows if r.proposed != MISSED),
        gained=len(covered_then - covered_now),
        lost=len(covered_now - covered_then),
        since_current=sum(1 for r in rows if r.since_current),
        ms=plan.seconds * 1000,
        withdrawn=plan.withdrawn,
        per_event=tuple(rows),
    )


# --- reading ------------------------------------------------------------------------------------


def probe_text(kind: str, payload: dict[str, Any]) -> str:
    """What the agent had when it asked for its pitfalls: a run's task; an edit's context,
    else the draft the operator edited."""
    if kind == "run_outcome":
        return str(payload.get("task") or "")
    return str(payload.get("context") or payload.get("original") or "")


def _replayable(agent_id: int) -> Any:
    """The agent's failed runs and operator edits (skipped events left out: the judge found
    nothing to learn in them)."""
    failed_run = and_(
        Event.kind == "run_outcome",
        Event.payload["outcome"].as_string().in_(FAILED_OUTCOMES),
    )
    edited = and_(
        Event.kind == "operator_edit",
        or_(Event.edit_distance.is_(None), Event.edit_distance > 0),
    )
    return and_(Event.agent_id == agent_id, Event.status != "skipped", or_(failed_run, edited))


def recent_events(session: Session, agent_id: int, n: int) -> list[Any]:
    """The agent's ``n`` most recent failed runs and operator edits, newest first: rows of
    (id, kind, created_at)."""
    return list(
        session.execute(
            select(Event.id, Event.kind, Event.created_at)
            .where(_replayable(agent_id))
            .order_by(Event.id.desc())
            .limit(n)
        )
    )


def prepare(
    session: Session,
    agent_id: int,
    current: LearningVersion | None,
    proposed_ids: Iterable[int],
    settings: Settings | None = None,
    events: int | None = None,
) -> ReplayPlan | None:
    """Read what the replay of ``proposed_ids`` against ``current`` needs (None when the
    replay is off: ``DIGEST_REPLAY_EVENTS=0``, or ``events`` 0)."""
    settings = settings or get_settings()
    n = settings.replay_events if events is None else events
    if n <= 0:
        return None
    started = time.perf_counter()
    database = session.get_bind().engine.url.render_as_string(hide_password=True)
    current_ids = frozenset(current.folded_lesson_ids or []) if current is not None else frozenset()
    proposed = frozenset(proposed_ids)
    withdrawn = withdrawn_lessons(session, current_ids - proposed)
    current_ids -= withdrawn
    replayed = current_ids | proposed
    since = as_utc(current.created_at) if current is not None else None
    view = agent_view(session, agent_id, settings)
    probes = _probes(session, database, agent_id, n, since, view.embedder)
    lessons = _relevance(session, agent_id, replayed, probes)
    parts = [(index, allowed, _ids(index)) for index, allowed in view.parts()]
    held: set[int] = set()
    for _, allowed, ids in parts:
        held.update(ids[allowed].tolist())
    apart = sorted(replayed - held)
    if apart:
        extra = lessons_index(session, agent_id, apart, view.embedder)
        parts.append((extra, np.ones(len(extra), dtype=bool), _ids(extra)))
    return ReplayPlan(
        k=settings.replay_k,
        current_number=current.number if current is not None else None,
        current_ids=current_ids,
        proposed_ids=proposed,
        probes=probes,
        lessons=lessons,
        parts=parts,
        embedder=view.embedder,
        database=database,
        seconds=time.perf_counter() - started,
        withdrawn=len(withdrawn),
    )


def withdrawn_lessons(session: Session, lesson_ids: Iterable[int]) -> frozenset[int]:
    """Those of ``lesson_ids`` the sweep withdrew on the evidence: retired as measured harmful
    (``digest.lessons.effect``) or expired. A proposal without them has not lost what they
    covered, since the outcomes (or the owner's expiry date) decided they should go. Every
    other drop counts, a person's own disable included: the replay then shows that person
    what the decision costs before the next version goes live."""
    ids = list(lesson_ids)
    if not ids:
        return frozenset()
    latest = (
        select(LessonHistory.lesson_id, func.max(LessonHistory.id).label("last"))
        .where(LessonHistory.lesson_id.in_(ids))
        .group_by(LessonHistory.lesson_id)
        .subquery()
    )
    rows = session.scalars(
        select(Lesson.id)
        .join(latest, latest.c.lesson_id == Lesson.id)
        .join(LessonHistory, LessonHistory.id == latest.c.last)
        .where(
            Lesson.status == "disabled",
            LessonHistory.model.is_(None),
            LessonHistory.event_id.is_(None),
            or_(
                LessonHistory.reason.startswith(RETIRED_REASON, autoescape=True),
                LessonHistory.reason == EXPIRED_REASON,
            ),
        )
    )
    return frozenset(rows)


def _probes(
    session: Session,
    database: str,
    agent_id: int,
    n: int,
    since: datetime | None,
    embedder: Embedder | None,
) -> list[_Probe]:
    """The recent events as probes. What this process kept of an event (``_Facts``) is
    reused; the others' payloads are read (and, with an embedder, stored probe vectors)."""
    model = embedder.name if embedder is not None else None
    probes = []
    with _FACTS_LOCK:
        for row in recent_events(session, agent_id, n):
            facts = _FACTS.get((database, row.id))
            if facts is not None:
                _FACTS.move_to_end((database, row.id))
            is_new = since is None or as_utc(row.created_at) > since
            probes.append(_Probe(row.id, row.kind, is_new, facts or _UNKNOWN))
    unknown = [p for p in probes if p.facts is _UNKNOWN or p.facts.model != model]
    _read_payloads(session, unknown, model)
    if embedder is not None:
        lacking = [p for p in probes if p.facts.vector is None]
        _stored(session, lacking)
        _read_payloads(
            session, [p for p in lacking if p.facts.vector is None and not p.text], model
        )
    for probe in probes:
        _remember(database, probe.event_id, probe.facts)
    return probes


#: a probe whose facts are not known yet
_UNKNOWN = _Facts("", (), (), None, None)


def _read_payloads(session: Session, probes: list[_Probe], model: str | None) -> None:
    """Read these probes' events and make their facts (no vector yet)."""
    if not probes:
        return
    by_id = {p.event_id: p for p in probes}
    for event_id, kind, payload in session.execute(
        select(Event.id, Event.kind, Event.payload).where(Event.id.in_(list(by_id)))
    ):
        text = probe_text(kind, payload or {})
        probe = by_id[event_id]
        probe.text = text
        probe.facts = _Facts(
            _excerpt(text),
            tuple(prompt_keywords(text)),
            tuple(event_keys(kind, payload or {})),
            model,
            vector_key(model, text) if model is not None else None,
        )


def _relevance(
    session: Session, agent_id: int, replayed: frozenset[int], probes: list[_Probe]
) -> dict[int, _Lesson]:
    """The replayed lessons' rows; each probe's relevant lessons filled in: those citing its
    event, and those with one of its fingerprints."""
    if not replayed or not probes:
        return {}
    rows = session.execute(
        select(Lesson.id, Lesson.hit_count, Lesson.last_seen_at, Lesson.fingerprint).where(
            Lesson.agent_id == agent_id, Lesson.id.in_(sorted(replayed))
        )
    ).all()
    by_fingerprint: dict[str, set[int]] = defaultdict(set)
    for row in rows:
        if row.fingerprint:
            by_fingerprint[row.fingerprint].add(row.id)
    by_event = {p.event_id: p for p in probes}
    # The citations of the replayed window's events, by range: two parameters, where lists of
    # a thousand ids cost more to send than the rows they select.
    cited = session.execute(
        select(LessonEvidence.event_id, LessonEvidence.lesson_id)
        .join(Event, Event.id == LessonEvidence.event_id)
        .where(Event.agent_id == agent_id, Event.id >= min(by_event))
    )
    for event_id, lesson_id in cited:
        probe = by_event.get(event_id)
        if probe is not None and lesson_id in replayed:
            probe.relevant.add(lesson_id)
    for probe in probes:
        for key in probe.facts.keys:
            probe.relevant |= by_fingerprint.get(key, set())
    return {row.id: _Lesson(row.id, row.hit_count, row.last_seen_at) for row in rows}


def _stored(session: Session, probes: list[_Probe]) -> None:
    """The stored vectors of these probes, when stored under their model and text."""
    if not probes:
        return
    by_id = {p.event_id: p for p in probes}
    for event_id, key, embedding in session.execute(
        select(ReplayProbe.event_id, ReplayProbe.embedding_key, ReplayProbe.embedding).where(
            ReplayProbe.event_id.in_(list(by_id))
        )
    ):
        probe = by_id[event_id]
        if key == probe.facts.vector_key:
            probe.facts = replace(probe.facts, vector=from_bytes(embedding))


def store_probes(session: Session, vectors: Sequence[tuple[int, str, bytes]]) -> None:
    """Keep probe vectors a replay embedded (replacing ones of another model or text)."""
    if not vectors:
        return
    dialect = postgresql if session.get_bind().dialect.name == "postgresql" else sqlite
    insert: Any = dialect.insert
    for start in range(0, len(vectors), _PROBE_ROWS):
        chunk = vectors[start : start + _PROBE_ROWS]
        statement = insert(ReplayProbe).values(
            [{"event_id": e, "embedding_key": k, "embedding": v} for e, k, v in chunk]
        )
        session.execute(
            statement.on_conflict_do_update(
                index_elements=["event_id"],
                set_={
                    "embedding_key": statement.excluded.embedding_key,
                    "embedding": statement.excluded.embedding,
                },
            )
        )


# --- the verdict --------------------------------------------------------------------------------


def replay_reasons(report: ReplayReport | None, settings: Settings) -> list[str]:
    """Why a proposal with this replay must wait for a person: it covers fewer of the replayed
    events than the current version by more than ``DIGEST_REPLAY_MARGIN`` of them."""
    if report is None or not report.events or report.current_number is None:
        return []
    loss = (report.current_covered - report.proposed_covered) / report.events
    if loss <= settings.replay_margin:
        return []
    return [
        f"replay: it covers {report.proposed_covered} of the {report.events} recent failed or "
        f"edited events, version {report.current_number} covered {report.current_covered} "
        f"({report.lost} lost, {report.gained} gained): a loss of {loss:.0%}, beyond the "
        f"margin of {settings.replay_margin:.0%} (DIGEST_REPLAY_MARGIN)"
    ]


def shrink_reasons(
    session: Session, current: LearningVersion | None, lesson_ids: Sequence[int],
    settings: Settings,
) -> list[str]:  # fmt: skip
    """Why a proposal folding ``lesson_ids`` must wait for a person because it shrank sharply:
    it folds fewer than ``DIGEST_REPLAY_SHRINK_RATIO`` of the current version's lessons, not
    counting those the sweep withdrew since (``withdrawn_lessons``)."""
    if current is None:
        return []
    folded = frozenset(current.folded_lesson_ids or [])
    withdrawn = withdrawn_lessons(session, folded - frozenset(lesson_ids))
    before = len(folded - withdrawn)
    proposed_lessons = len(lesson_ids)
    if not before or proposed_lessons >= settings.replay_shrink_ratio * before:
        return []
    apart = f" (not counting {len(withdrawn)} the sweep withdrew)" if withdrawn else ""
    return [
        f"shrink: it folds {proposed_lessons} lesson(s), version {current.number} folded "
        f"{before}{apart}: fewer than {settings.replay_shrink_ratio:.0%} of them "
        "(DIGEST_REPLAY_SHRINK_RATIO)"
    ]
