"""Forget a person (issue 29 point 2): erase a contact's events, or one event, and everything
derived from them, keeping only a hashed audit row (``forgotten``).

What is erased, in one transaction:

- the events themselves (payload, contact, thread), their citations (``lesson_evidence``),
  their cached judgements, replay probes, and the event's mark on ``digest_runs`` (the run row
  stays for the cost figures, without its event and error) and ``lesson_history``;
- with ``--contact``, the contact's asks of owner questions; a question nobody else asked goes,
  one others asked too keeps their words; an owner's answer to a question only they asked
  stays, without their question's words (in its event and the lessons citing it);
- a lesson every citation of which was forgotten (or a contact-scoped lesson of the contact)
  is retired: status ``deleted``, its text replaced by ``[forgotten]``, its history snapshots
  too. A lesson with other evidence loses the citations; its support, independent sources and
  cues are recounted from what is left;
- the quotations: every string of 12 or more characters of the forgotten payloads, the contact
  and thread ids, and the retired lessons' words (as stored and as a version renders them)
  are replaced by ``[forgotten]`` wherever derived text keeps them: the remaining lessons and
  their history, every learning version's body, change summary, hold reason and replay report
  (whose per-event rows for the forgotten events go).

Afterwards an agent whose active (or pending) version folded a retired lesson gets a new
version composed (``compose_version``), its change summary saying why. The review pages render
from the database, so they change with it; exports written before must be written again.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, delete, or_, select, update
from sqlalchemy.orm import Session

from digest.agent_text import UNSHOWN_TITLE, agent_title
from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import DigestError, InvalidArgument
from digest.lessons.called import called_names
from digest.lessons.cues import event_cues, merged
from digest.lessons.release import recount
from digest.lessons.store import slugify, unique_slug
from digest.lessons.transition import transition
from digest.logs import get_logger
from digest.models import (
    DigestRun,
    Event,
    Forgotten,
    Judgement,
    LearningVersion,
    Lesson,
    LessonEvidence,
    LessonHistory,
    Question,
    QuestionAsk,
    ReplayProbe,
    Tenant,
    utcnow,
)
from digest.tenants import lookup_key, missing_tenant, tenant_named
from digest.versions.compose import compose_version
from digest.versions.document import render_body

log = get_logger("digest.forget")

#: what replaces forgotten text
MARK = "[forgotten]"
#: the shortest payload string treated as a quotation to erase elsewhere (shorter ones are
#: words like "failure" or a tool's name, which other text shares by right)
QUOTE_MIN = 12
#: the shortest contact or thread id erased where derived text quotes it (a shorter one, "42",
#: would match unrelated text)
ID_MIN = 6
#: the history reason of a lesson retired or changed by a forget request
FORGOTTEN_REASON = "forgotten"
#: the change summary's first words on a version composed after a forget request
RECOMPOSED_NOTE = "Recomposed after a forget request"


@dataclass
class ForgetResult:
    """What a forget request erased: ``counts`` per table (rows deleted or rewritten), the
    lessons retired and kept, the versions composed, and the audit row's hash."""

    kind: str
    subject_hash: str
    counts: dict[str, int] = field(default_factory=dict)
    retired_lessons: list[int] = field(default_factory=list)
    recounted_lessons: list[int] = field(default_factory=list)
    composed_versions: list[int] = field(default_factory=list)
    audit_id: int | None = None

    @property
    def nothing(self) -> bool:
        return not any(self.counts.values())

    def to_json(self) -> dict[str, Any]:
        found = asdict(self)
        found["nothing"] = self.nothing
        found["exports"] = EXPORT_NOTE
        return found


#: exports are files this process does not track: they are written again, not edited
EXPORT_NOTE = "exports written before this hold the forgotten data: run `digest export` again"


def subject_hash(kind: str, value: str) -> str:
    """The audit row's fingerprint of what was forgotten: sha256 of ``<kind>:<value>``."""
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()


def forget(
    tenant: str,
    *,
    contact: str | None = None,
    event_id: int | None = None,
    by: str | None = None,
    settings: Settings | None = None,
) -> ForgetResult:
    """Erase the tenant's events of ``contact`` (or the one event ``event_id``) and what was
    derived from them; see the module's docstring. ``NotFound`` (suggesting the closest name)
    for an unknown tenant; ``InvalidArgument`` unless exactly one of contact and event is given.
    Nothing found is a result with no counts (and no audit row)."""
    if (contact is None) == (event_id is None):
        raise InvalidArgument("forget: give exactly one of contact and event")
    if contact is not None and not contact.strip():
        raise InvalidArgument("contact: must not be empty")
    settings = settings or get_settings()
    kind, value = ("contact", contact) if contact is not None else ("event", str(event_id))
    result = ForgetResult(kind, subject_hash(kind, str(value)))
    with session_scope(settings.database_url) as session:
        found = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
        if found is None:
            raise missing_tenant(session, tenant)
        recompose = _erase(session, found, contact, event_id, result)
        if not result.nothing:
            audit = Forgotten(
                tenant_id=found.id, kind=kind, subject_hash=result.subject_hash,
                counts=dict(result.counts), by=by, at=utcnow(),
            )  # fmt: skip
            session.add(audit)
            session.flush()
            result.audit_id = audit.id
    for agent_id in recompose:
        result.composed_versions += _recompose(agent_id, len(result.retired_lessons), settings)
    log.info(
        "forgotten", tenant=tenant, kind=kind, subject_hash=result.subject_hash,
        counts=result.counts, by=by,
    )  # fmt: skip
    return result


def _erase(
    session: Session,
    tenant: Tenant,
    contact: str | None,
    event_id: int | None,
    result: ForgetResult,
) -> list[int]:
    """Erase in ``session``; fill ``result``; return the agents to compose a version for."""
    counts = result.counts
    where = [Event.tenant_id == tenant.id]
    if contact is not None:
        where.append(Event.contact_id.in_(_spellings(contact)))
    else:
        where.append(Event.id == event_id)
    # locked, as a reflection's write locks its event: one in flight finishes first (and its
    # lessons are found here), one that comes after finds its event gone
    events = list(session.scalars(select(Event).where(*where).order_by(Event.id).with_for_update()))
    ids = [e.id for e in events]
    quotes = _quotations(events, contact)
    agent_ids = {e.agent_id for e in events}
    # their questions' words, and an owner's answer to a question only they asked, which
    # quotes it (the answer is the owner's: it stays, without their words)
    asked, answers = _their_questions(session, tenant, contact)
    quotes |= {words for words in asked if len(words) >= QUOTE_MIN}
    answered = Scrubber(quotes)
    counts["answer_events"] = 0
    for answer in session.scalars(select(Event).where(Event.id.in_(answers))):
        payload = answered.json(answer.payload)
        if payload != answer.payload:
            answer.payload = payload
            counts["answer_events"] += 1
            agent_ids.add(answer.agent_id)

    # the lessons that cite them, and the contact's own (contact-scoped or first seen there)
    citing = [*ids, *answers]
    cited = (
        set(
            session.scalars(
                select(LessonEvidence.lesson_id).where(LessonEvidence.event_id.in_(citing))
            )
        )
        if citing
        else set()
    )
    lesson_where: ColumnElement[bool] = Lesson.id.in_(cited)
    if contact is not None:
        lesson_where = lesson_where | (
            (Lesson.tenant_id == tenant.id) & (Lesson.contact_id.in_(_spellings(contact)))
        )
    lessons = list(session.scalars(select(Lesson).where(lesson_where).order_by(Lesson.id)))
    agent_ids |= {lesson.agent_id for lesson in lessons}

    counts["lesson_evidence"] = _deleted(
        session, delete(LessonEvidence).where(LessonEvidence.event_id.in_(ids))
    )
    remaining = _remaining_evidence(session, [lesson.id for lesson in lessons])
    theirs = _spellings(contact) if contact is not None else set()
    retired = [
        lesson
        for lesson in lessons
        if lesson.status != "deleted" or lesson.title != MARK
        if not remaining.get(lesson.id)
        or (lesson.scope == "contact" and lesson.contact_id in theirs)
    ]
    kept = [x for x in lessons if x not in retired and remaining.get(x.id)]
    retired_ids = {x.id for x in retired}
    # a string a remaining source said too is not the forgotten person's alone
    for left in remaining.values():
        for event in left:
            quotes -= set(_strings(event.payload))
    quotes |= _retired_words(session, retired)
    scrub = Scrubber(quotes)

    for lesson in retired:
        transition(
            session, lesson, op="DELETE", reason=FORGOTTEN_REASON, status="deleted",
            status_reason=FORGOTTEN_REASON, slug=f"forgotten-{lesson.id}", title=MARK,
            situation=MARK, mistake=None, correction=MARK, tags=[], cues=[], contact_id=None,
            fingerprint=None, embedding=None, embedding_key=None, cue_embedding=None,
            cue_embedding_key=None, support_count=0, independent_sources=0, source_span_s=0,
        )  # fmt: skip
    for lesson in kept:
        left = remaining[lesson.id]
        first_contact = next((e.contact_id for e in left if e.contact_id), None)
        cues: list[str] = []
        for event in left:
            cues = merged(cues, event_cues(event.kind, event.payload))
        title = scrub.text(lesson.title) or MARK
        slug = (
            lesson.slug
            if title == lesson.title
            else unique_slug(session, lesson.agent_id, title, f"{slugify(title)}-{lesson.id}")
        )
        transition(
            session, lesson, op="UPDATE", reason=FORGOTTEN_REASON,
            support_count=len(left), cues=cues, slug=slug,
            contact_id=first_contact if lesson.contact_id in theirs else lesson.contact_id,
            title=title, situation=scrub.text(lesson.situation),
            mistake=scrub.text(lesson.mistake) if lesson.mistake else lesson.mistake,
            correction=scrub.text(lesson.correction), tags=scrub.json(lesson.tags),
        )  # fmt: skip
    session.flush()
    recount(session, [x.id for x in kept])
    result.retired_lessons = sorted(retired_ids)
    result.recounted_lessons = sorted(x.id for x in kept)
    counts["lessons_retired"] = len(retired)
    counts["lessons_recounted"] = len(kept)

    # history: the forgotten events' mark goes; the snapshots keep no quotation
    if ids:
        session.execute(
            update(LessonHistory).where(LessonHistory.event_id.in_(ids)).values(event_id=None)
        )
    touched = 0
    for row in session.scalars(
        select(LessonHistory).where(LessonHistory.lesson_id.in_([x.id for x in lessons]))
    ):
        gone = row.lesson_id in retired_ids
        before, after = _snapshot(row.before, scrub, gone), _snapshot(row.after, scrub, gone)
        reason = MARK if gone and row.reason != FORGOTTEN_REASON else scrub.text(row.reason)
        if (before, after, reason) != (row.before, row.after, row.reason):
            row.before, row.after, row.reason = before, after, reason
            touched += 1
    counts["lesson_history"] = touched

    counts["judgements"] = _forget_judgements(session, agent_ids, [*ids, *answers], retired_ids)
    counts["replay_probes"] = _deleted(
        session, delete(ReplayProbe).where(ReplayProbe.event_id.in_(ids))
    )
    counts["digest_runs"] = _changed(
        session,
        update(DigestRun).where(DigestRun.event_id.in_(ids)).values(event_id=None, error=None),
    )
    counts["questions"], counts["question_asks"] = _forget_asks(
        session, tenant, contact, ids, scrub
    )
    counts["learning_versions"] = _scrub_versions(session, agent_ids, set(ids), scrub)
    counts["events"] = _deleted(session, delete(Event).where(Event.id.in_(ids)))
    return sorted(_recompose_needed(session, agent_ids, retired_ids))


def _spellings(contact: str) -> set[str]:
    """The contact id as given and in NFC (the form keys are looked up in)."""
    return {contact, lookup_key(contact)}


def _deleted(session: Session, statement: Any) -> int:
    return _changed(session, statement)


def _changed(session: Session, statement: Any) -> int:
    outcome = session.execute(statement.execution_options(synchronize_session=False))
    return int(getattr(outcome, "rowcount", 0) or 0)


def _quotations(events: Iterable[Event], contact: str | None) -> set[str]:
    """The strings of the forgotten events that derived text may quote. The contact and
    thread ids only when a whole contact is forgotten: one event's contact has others."""
    found: set[str] = {contact} if contact and len(contact) >= ID_MIN else set()
    for event in events:
        for named in (event.thread_id, event.contact_id) if contact else ():
            if named and len(named) >= ID_MIN:
                found.add(named)
        found |= {s for s in _strings(event.payload) if len(s) >= QUOTE_MIN}
    return found


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
        yield " ".join(value.split())  # as one line, the way documents render text
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def _retired_words(session: Session, lessons: list[Lesson]) -> set[str]:
    """A retired lesson's words as stored, as a change note names it and as a version body
    renders it (its lines), so old versions can lose them."""
    found: set[str] = set()
    if not lessons:
        return found
    called = called_names(session, [x.id for x in lessons if x.trust != "trusted"])
    for lesson in lessons:
        if lesson.title == MARK:
            continue
        for text in (lesson.title, lesson.situation, lesson.mistake, lesson.correction):
            if text and len(text) >= QUOTE_MIN:
                found |= {text, " ".join(text.split())}
        title = agent_title(lesson.title, lesson.trust)
        if title != UNSHOWN_TITLE and len(title) >= QUOTE_MIN:
            found.add(title)
        body = render_body(
            "-", [lesson], {lesson.id: called[lesson.id]} if lesson.id in called else None
        )
        for line in body.splitlines()[1:]:
            line = line.strip().removeprefix("- ").strip()
            if len(line) >= QUOTE_MIN and not line.startswith("#"):
                found.add(line)
    return found


class Scrubber:
    """Replaces every quotation (longest first) by ``MARK`` in text and in JSON values."""

    def __init__(self, quotes: Iterable[str]) -> None:
        self.quotes = sorted({q for q in quotes if q and q != MARK}, key=len, reverse=True)

    def text(self, value: str | None) -> str | None:
        if not value:
            return value
        for quote in self.quotes:
            if quote in value:
                value = value.replace(quote, MARK)
        return value

    def json(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self.json(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.json(item) for item in value]
        return value


def _remaining_evidence(session: Session, lesson_ids: list[int]) -> dict[int, list[Event]]:
    found: dict[int, list[Event]] = {}
    if not lesson_ids:
        return found
    rows = session.execute(
        select(LessonEvidence.lesson_id, Event)
        .join(Event, Event.id == LessonEvidence.event_id)
        .where(LessonEvidence.lesson_id.in_(lesson_ids))
        .order_by(Event.id)
    )
    for lesson_id, event in rows:
        found.setdefault(lesson_id, []).append(event)
    return found


#: the snapshot fields that hold a lesson's words
_WORDS = ("title", "situation", "mistake", "correction")


def _snapshot(value: dict[str, Any] | None, scrub: Scrubber, gone: bool) -> dict[str, Any] | None:
    if value is None:
        return None
    if not gone:
        return dict(scrub.json(value))
    return {
        **value,
        **{key: MARK for key in _WORDS if value.get(key)},
        "tags": [],
    }


def _their_questions(
    session: Session, tenant: Tenant, contact: str | None
) -> tuple[set[str], list[int]]:
    """(the words of the contact's asks, and of the questions only they asked; the answer
    events of those questions)."""
    if contact is None:
        return set(), []
    asks = list(
        session.scalars(
            select(QuestionAsk)
            .join(Question, Question.id == QuestionAsk.question_id)
            .where(
                Question.tenant_id == tenant.id,
                QuestionAsk.contact_id.in_(_spellings(contact)),
            )
        )
    )
    words = {text for ask in asks for text in (ask.text, ask.context) if text}
    answers: list[int] = []
    for question in session.scalars(
        select(Question).where(Question.id.in_({ask.question_id for ask in asks}))
    ):
        others = session.scalar(
            select(QuestionAsk.id).where(
                QuestionAsk.question_id == question.id,
                or_(
                    QuestionAsk.contact_id.is_(None),
                    QuestionAsk.contact_id.not_in(_spellings(contact)),
                ),
            )
        )
        if others is None:
            words.add(question.text)
            if question.answer_event_id is not None:
                answers.append(question.answer_event_id)
    return words, answers


def _forget_judgements(
    session: Session, agent_ids: set[int], ids: list[int], retired: set[int]
) -> int:
    """Cached judgements first made on a forgotten event, or that produced a retired lesson
    (a later event with the same signature would bring the lesson back)."""
    if not agent_ids:
        return 0
    doomed = [
        judgement.id
        for judgement in session.scalars(select(Judgement).where(Judgement.agent_id.in_(agent_ids)))
        if judgement.event_id in ids or retired.intersection(judgement.lesson_ids or [])
    ]
    if not doomed:
        return 0
    return _deleted(session, delete(Judgement).where(Judgement.id.in_(doomed)))


def _forget_asks(
    session: Session, tenant: Tenant, contact: str | None, ids: list[int], scrub: Scrubber
) -> tuple[int, int]:
    """(questions deleted or rewritten, asks deleted) for the contact's asks."""
    if ids:
        session.execute(
            update(Question).where(Question.answer_event_id.in_(ids)).values(answer_event_id=None)
        )
    if contact is None:
        return 0, 0
    asks = list(
        session.execute(
            select(QuestionAsk.id, QuestionAsk.question_id)
            .join(Question, Question.id == QuestionAsk.question_id)
            .where(
                Question.tenant_id == tenant.id,
                QuestionAsk.contact_id.in_(_spellings(contact)),
            )
        )
    )
    if not asks:
        return 0, 0
    session.execute(delete(QuestionAsk).where(QuestionAsk.id.in_([a.id for a in asks])))
    questions = 0
    for question in session.scalars(
        select(Question).where(Question.id.in_({a.question_id for a in asks}))
    ):
        left = list(
            session.scalars(
                select(QuestionAsk)
                .where(QuestionAsk.question_id == question.id)
                .order_by(QuestionAsk.asked_at)
            )
        )
        questions += 1
        if not left:
            session.delete(question)
            continue
        # the question keeps the words of someone who still asks it
        question.text = scrub.text(left[0].text) or MARK
        question.ask_count = len(left)
        question.answer = scrub.text(question.answer)
        question.reason = scrub.text(question.reason)
    return questions, len(asks)


def _scrub_versions(session: Session, agent_ids: set[int], ids: set[int], scrub: Scrubber) -> int:
    """Every version of these agents loses the quotations and the forgotten events."""
    if not agent_ids:
        return 0
    touched = 0
    for version in session.scalars(
        select(LearningVersion).where(LearningVersion.agent_id.in_(agent_ids))
    ):
        replay = version.replay
        if isinstance(replay, dict) and isinstance(replay.get("per_event"), list):
            replay = {
                **replay,
                "per_event": [
                    row
                    for row in replay["per_event"]
                    if not (isinstance(row, dict) and row.get("event_id") in ids)
                ],
            }
        changed = {
            "body_markdown": scrub.text(version.body_markdown) or "",
            "change_summary": scrub.text(version.change_summary) or "",
            "hold_reason": scrub.text(version.hold_reason),
            "supporting_event_ids": [x for x in version.supporting_event_ids or [] if x not in ids],
            "replay": scrub.json(replay),
        }
        if any(getattr(version, key) != value for key, value in changed.items()):
            for key, value in changed.items():
                setattr(version, key, value)
            touched += 1
    return touched


def _recompose_needed(session: Session, agent_ids: set[int], retired: set[int]) -> set[int]:
    """The agents whose active or pending version folded a retired lesson."""
    if not retired or not agent_ids:
        return set()
    return {
        version.agent_id
        for version in session.scalars(
            select(LearningVersion).where(
                LearningVersion.agent_id.in_(agent_ids),
                LearningVersion.status.in_(("active", "pending")),
            )
        )
        if retired.intersection(version.folded_lesson_ids or [])
    }


def _recompose(agent_id: int, retired: int, settings: Settings) -> list[int]:
    """A new version without the retired lessons, its change summary saying why."""
    try:
        composed = compose_version(agent_id, "manual", settings)
    except DigestError as exc:  # the erasure stands; the next compose catches up
        log.warning("forget_compose_failed", agent_id=agent_id, error=str(exc))
        return []
    if composed.version_id is None:
        return []
    with session_scope(settings.database_url) as session:
        version = session.get(LearningVersion, composed.version_id)
        if version is not None:
            note = f"{RECOMPOSED_NOTE} ({retired} lesson(s) retired)."
            version.change_summary = f"{note} {version.change_summary}".strip()
    return [composed.version_id]
