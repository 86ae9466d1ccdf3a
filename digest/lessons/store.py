"""Storing lessons: the one place a lesson row, its evidence and its history are created, and
the operations reconciliation applies to them (each a ``transition``).

Reflection (LLM candidates) and the manual path (``record_lesson``) both end here, so every
lesson cites at least one event and has an ADD row in ``lesson_history`` from birth.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, inspect, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from digest.lessons.cues import event_cues, merged
from digest.lessons.release import is_released, note_cited, transaction_gate
from digest.lessons.slugs import slug_later, slugify
from digest.lessons.transition import (
    CITED,
    bump_epoch,
    first_in_transaction,
    give_id,
    lock_agent_lessons,
    note_written,
    record_history,
    transition,
)

if TYPE_CHECKING:  # a type only: capture imports this module and must not load the model seam
    from digest.model.contracts import LessonBlock

from digest.models import BODY_MAX, TITLE_MAX, Event, Lesson, LessonEvidence, utcnow

TAGS_MAX = 12
TAG_MAX = 40


@dataclass(frozen=True)
class Candidate:
    """A lesson proposed by reflection (or written by a person), before it is stored."""

    situation: str
    correction: str
    mistake: str | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    title: str | None = None
    #: a preferred slug (an imported LESSON.md keeps its own); used when still free
    slug: str | None = None
    #: what the lesson is about (digest.fingerprint); None: unknown
    fingerprint: str | None = None
    #: the keys its failure would have on its tool's siblings (``digest.tool_siblings``): a
    #: lesson holding one is the same error of a sibling, for the judge to join
    sibling_keys: tuple[str, ...] = ()

    @classmethod
    def of(cls, block: LessonBlock) -> Candidate:
        """The candidate a reflect answer's ``<lesson>`` block proposes."""
        return cls(block.situation, block.correction, block.mistake, block.tags)

    def normalised(self) -> Candidate:
        """Apply the caps of DESIGN §3 and derive the imperative title if none was given."""
        situation = _cap(self.situation, BODY_MAX)
        correction = _cap(self.correction, BODY_MAX)
        mistake = _cap(self.mistake, BODY_MAX) if self.mistake and self.mistake.strip() else None
        tags = tuple(dict.fromkeys(_tag(t) for t in self.tags if _tag(t)))[:TAGS_MAX]
        title = _cap(self.title or derive_title(correction), TITLE_MAX)
        slug = slugify(self.slug) if self.slug else None
        return Candidate(
            situation, correction, mistake, tags, title, slug, self.fingerprint, self.sibling_keys
        )


def _cap(text: str, limit: int) -> str:
    text = " ".join(text.split()) if limit <= TITLE_MAX else text.strip()
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _tag(raw: str) -> str:
    return re.sub(r"[^a-z0-9_.:-]+", "-", raw.strip().lower()).strip("-")[:TAG_MAX]


TITLE_SHORT = 90


def _unclosed(text: str) -> str:
    """The mark that closes a quotation ``text`` leaves open ('"' or '»'), else ''."""
    if text.count('"') % 2:
        return '"'
    return "»" if text.count("«") > text.count("»") else ""


def _quoted_question(text: str, opened: int, closer: str, room: int) -> str:
    """The first whole question of the quotation opened at ``opened`` in ``text`` (ending in
    "?", 12 to ``room`` characters), or ''."""
    end = text.find(closer, opened)
    quote = text[opened : end if end >= 0 else len(text)]
    for sentence in re.split(r"(?<=[.!?])\s+", quote):
        if sentence.endswith("?") and 12 <= len(sentence) <= room:
            return sentence
    return ""


def derive_title(correction: str) -> str:
    """A short imperative signature from the correction (which prompts ask to be imperative):
    its first sentence; if that is long, its first clause; if that is long too, its first
    words up to a word boundary. Never a sentence cut with an ellipsis. Quoted text ("…" or
    «…») is not split where it can stay whole: a quotation too long for the title keeps its
    question if it asks one, else its whole sentences, else its first words marked "…" inside
    the closing mark (a quote never reads as complete when it was cut)."""
    text = " ".join(correction.split())
    first = re.split(r"(?<=[.!?;])\s", text, maxsplit=1)[0]
    if _unclosed(first):  # the sentence end was inside a quotation
        first = text
    first = first.rstrip(".;")
    if len(first) <= TITLE_SHORT:
        return first or text[:TITLE_SHORT]
    # (a comma or colon between digits is a figure's: "14:00", "2,50 €")
    for clause in re.split(r"\s*(?:[;(—–]|[,:](?!\d)|\s-\s)\s*", first):
        clause = clause.strip()
        clause += _unclosed(clause)  # the clause ends inside a quotation: close it there
        if 12 <= len(clause) <= TITLE_SHORT:
            return clause[0].upper() + clause[1:]
    cut = first[: TITLE_SHORT - 1].rsplit(" ", 1)[0].rstrip(" ,;:(")
    closer = _unclosed(cut)
    if closer:  # cut inside a quotation: close it, after its last whole sentence if any
        opened = cut.rfind('"' if closer == '"' else "«") + 1
        asked = _quoted_question(first, opened, closer, TITLE_SHORT - opened - 1)
        if asked:  # a quoted question says what was asked: the sentences before it set it up
            return cut[:opened] + asked + closer
        ends = [m.end() for m in re.finditer(r"[.!?](?=\s)", cut[opened:])]
        if ends and opened + ends[-1] >= 12:
            cut = cut[: opened + ends[-1]].rstrip() + closer
        else:  # no whole sentence fits: the quotation's words, marked as cut
            cut = cut.rstrip(' ,;:("«') + "…" + closer
    else:  # the words after a whole quotation would stop mid-phrase: end at the quotation
        end = max(cut.rfind('"'), cut.rfind("»")) + 1
        if 12 <= end < len(cut):
            cut = cut[:end]
    return cut or first[:TITLE_SHORT]


def initial_scope(event: Event) -> str:
    """An operator's edit in one contact's thread is that contact's preference until other
    contacts show the same (then it is promoted); everything else is agent-wide."""
    return "contact" if event.kind == "operator_edit" and event.contact_id else "agent"


def promote_if_supported(
    session: Session, lesson: Lesson, *, min_contacts: int, event: Event
) -> bool:
    """Promote a contact-scoped lesson to agent scope once events from ``min_contacts``
    distinct contacts support it. Org scope stays off. Returns True if promoted."""
    if lesson.scope != "contact":
        return False
    session.flush()  # citations added in this transaction count too
    contacts = session.scalar(
        select(func.count(func.distinct(Event.contact_id)))
        .select_from(LessonEvidence)
        .join(Event, Event.id == LessonEvidence.event_id)
        .where(LessonEvidence.lesson_id == lesson.id, Event.contact_id.is_not(None))
    )
    if int(contacts or 0) < min_contacts:
        return False
    transition(
        session, lesson, op="UPDATE", event=event, scope="agent",
        reason=f"promoted to agent scope: supported by {contacts} distinct contacts",
    )  # fmt: skip
    return True


def add_lesson(
    session: Session,
    *,
    event: Event,
    candidate: Candidate,
    source: str,
    outcome: str,
    status: str = "active",
    status_reason: str | None = None,
    model: str | None = None,
    prompt_hash: str | None = None,
    note: str,
    vectors: Callable[[Lesson], None] | None = None,
) -> Lesson:
    """Create a lesson citing ``event``, with its evidence row and an ADD history row. Its
    embedding is the caller's to set: ``vectors`` sets it (and its task vectors) on the new
    row before the row is written, so that its INSERT carries them (reflection does; a
    lesson stored on the capture path gets one when the agent's index first reads it, and
    ``digest lesson reindex`` stores it).

    The lesson has its id at once; its row, citation and history go in with the session's
    next flush (``transition.give_id``), its slug made unique then (``slugs.unique_slugs``)."""
    cand = candidate.normalised()
    assert cand.title is not None
    lock_agent_lessons(session, event.agent_id)
    now = utcnow()
    lesson = Lesson(
        tenant_id=event.tenant_id,
        agent_id=event.agent_id,
        scope=initial_scope(event),
        contact_id=event.contact_id,
        slug=cand.slug or slugify(cand.title),
        title=cand.title,
        situation=cand.situation,
        mistake=cand.mistake,
        correction=cand.correction,
        tags=list(cand.tags),
        cues=event_cues(event.kind, event.payload),
        source=source,
        trust="trusted" if event.trust == "high" else "untrusted",
        outcome=outcome,
        confidence=0.5,
        support_count=1,
        success_count=0,
        failure_count=0,
        hit_count=0,
        status=status,
        status_reason=status_reason,
        # its one citation is its one source (digest.lessons.release)
        independent_sources=1 if event.trust == "low" else 0,
        source_span_s=0,
        last_seen_at=now,
        created_at=now,
        updated_at=now,
        fingerprint=cand.fingerprint,
        # set, even to nothing: a deferred column never set is read back by its first use
        embedding=None,
        embedding_key=None,
        cue_embedding=None,
        cue_embedding_key=None,
    )
    if vectors is not None:
        vectors(lesson)
    session.add(lesson)
    slug_later(session, lesson)
    give_id(session, lesson)
    note_written(session, lesson)
    # A new lesson has no evidence yet: no need to look for an existing citation.
    session.add(LessonEvidence(lesson_id=lesson.id, event_id=event.id, note=note[:300]))
    first_in_transaction(session, CITED, (lesson.id, event.id))
    record_history(
        session,
        lesson,
        "ADD",
        before=None,
        reason=status_reason or f"new lesson from {event.kind} event {event.id}",
        event=event,
        model=model,
        prompt_hash=prompt_hash,
    )
    bump_epoch(session, event.agent_id)
    return lesson


def add_evidence(session: Session, lesson: Lesson, event: Event, note: str) -> bool:
    """Cite ``event`` on ``lesson`` once. Returns False if it was already cited.

    One statement: the unique (lesson_id, event_id) constraint decides, ``ON CONFLICT DO
    NOTHING`` (Postgres and SQLite) reports whether a row went in.

    An event being reflected (``processing``) has no committed citation: its citations
    commit together with its final status. Only this transaction can have cited it, so that
    is remembered here and the row goes in with the session's next flush (a batch of events
    then writes its citations in one statement)."""
    if event.status == "processing" and lesson.id is not None:
        if not first_in_transaction(session, CITED, (lesson.id, event.id)):
            return False
        session.add(LessonEvidence(lesson_id=lesson.id, event_id=event.id, note=note[:300]))
        _counts_toward_release(session, lesson, event)
        return True
    session.flush()  # the lesson row must exist before its citation
    values = {
        "lesson_id": lesson.id,
        "event_id": event.id,
        "note": note[:300],
        "created_at": utcnow(),
    }
    if session.get_bind().dialect.name == "postgresql":
        inserted = session.scalar(
            pg_insert(LessonEvidence).values(**values).on_conflict_do_nothing()
            .returning(LessonEvidence.id)
        )  # fmt: skip
    else:
        inserted = session.scalar(
            sqlite_insert(LessonEvidence).values(**values).on_conflict_do_nothing()
            .returning(LessonEvidence.id)
        )  # fmt: skip
    if inserted is not None:
        _counts_toward_release(session, lesson, event)
    return inserted is not None


def _counts_toward_release(session: Session, lesson: Lesson, event: Event) -> None:
    """An untrusted citation may corroborate the lesson: recount its independent sources when
    the transaction commits (``digest.lessons.release``)."""
    if event.trust == "low":
        note_cited(session, lesson.id)


def support_lesson(
    session: Session,
    lesson: Lesson,
    *,
    event: Event,
    reason: str,
    model: str | None,
    prompt_hash: str | None,
) -> None:
    """NOOP: the event says what the lesson already says. More support, one more citation."""
    note = f"supports (from {event.kind} event {event.id})"
    _cite(session, lesson, "NOOP", note, event, reason, model, prompt_hash)


def update_lesson(
    session: Session,
    lesson: Lesson,
    merged: Candidate,
    *,
    event: Event,
    reason: str,
    model: str | None,
    prompt_hash: str | None,
) -> None:
    """UPDATE: same lesson id, merged text, the event cited, support + 1. Never moves the
    lesson to another tenant, agent or scope."""
    cand = merged.normalised()
    note = f"enriched by {event.kind} event {event.id}"
    restart: dict[str, Any] = {}
    rewritten = (cand.situation, cand.correction, cand.mistake or lesson.mistake) != (
        lesson.situation, lesson.correction, lesson.mistake,
    )  # fmt: skip
    if event.trust == "low" and rewritten:
        # Corroboration vouched for the old words: the new ones count their sources afresh,
        # from this citation on, so one run cannot swap the text of a released lesson.
        restart["sources_since"] = utcnow()
        note_cited(session, lesson.id)
    _cite(
        session, lesson, "UPDATE", note, event, reason, model, prompt_hash, **restart,
        situation=cand.situation,
        correction=cand.correction,
        mistake=cand.mistake or lesson.mistake,
        tags=list(dict.fromkeys([*(lesson.tags or []), *cand.tags]))[:TAGS_MAX],
        title=cand.title or lesson.title,
    )  # fmt: skip
    if lesson.fingerprint is None:
        lesson.fingerprint = cand.fingerprint


def _cite(
    session: Session,
    lesson: Lesson,
    op: str,
    note: str,
    event: Event,
    reason: str,
    model: str | None,
    prompt_hash: str | None,
    **changes: Any,
) -> None:
    """What NOOP and UPDATE share: the event cited once (support + 1 the first time), its
    task's words added to the lesson's cues (``digest.lessons.cues``), the lesson seen now,
    and the transition (history row, epoch moved).

    An untrusted event adds no cues to a lesson an agent already reads (released:
    ``digest.lessons.release``): cues choose which prompts surface it, and one run must not
    change what an agent reads. Unless the tenant's gate lets one run release a lesson
    (``_one_run_releases``: then one run may as well add its task's words) and the lesson
    keeps no meaning of its tasks (embeddings off): a later task of the kind that hit the
    error would find it by nothing else. With an embedder, each citing run's task meaning
    is added already (``digest.lessons.vectors.add_task_meaning``), and its words as well
    moved the static table's results both ways (bench/RESULTS.md, "words9"). It still counts as
    support and as a source."""
    cues = lesson.cues
    if (
        event.trust == "high"
        or not _released(session, lesson)
        or (lesson.cue_embedding is None and _one_run_releases(session, lesson))
    ):
        cues = merged(lesson.cues, event_cues(event.kind, event.payload))
    cited = add_evidence(session, lesson, event, note)
    now = utcnow()
    transition(
        session, lesson, op=op, reason=reason, event=event, model=model,
        prompt_hash=prompt_hash, support_count=lesson.support_count + (1 if cited else 0),
        last_seen_at=now, updated_at=now, cues=cues, **changes,
    )  # fmt: skip


def _released(session: Session, lesson: Lesson) -> bool:
    """Does an agent read ``lesson`` now (before this event counts)?"""
    gate = transaction_gate(session, lesson.agent_id)
    return lesson.status == "active" and is_released(
        lesson.trust, lesson.independent_sources or 0, lesson.source_span_s or 0, gate
    )


def _one_run_releases(session: Session, lesson: Lesson) -> bool:
    """Would one untrusted run release a lesson of this agent (the tenant's gate is 1)?"""
    return is_released("untrusted", 1, 0, transaction_gate(session, lesson.agent_id))


def supersede_lesson(
    session: Session,
    old: Lesson,
    new: Lesson,
    *,
    event: Event | None,
    reason: str,
    model: str | None,
    prompt_hash: str | None,
) -> None:
    """DELETE: the old lesson is contradicted. It is kept, marked superseded by the new one."""
    if inspect(new).pending:
        # a flush updates rows before it inserts them: the row ``superseded_by_id`` names
        # must be in first
        session.flush()
    transition(
        session, old, op="DELETE", reason=reason, event=event, model=model,
        prompt_hash=prompt_hash, status="superseded", superseded_by_id=new.id,
        status_reason=reason,
    )  # fmt: skip


def confidence_from_counts(success: int, failure: int) -> float:
    """Laplace-smoothed success rate: 0.5 with no evidence, moving with observed outcomes."""
    return round((success + 1) / (success + failure + 2), 4)
