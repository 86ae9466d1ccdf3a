"""The erasure of one forget request, in its transaction (``digest.forget``)."""

from __future__ import annotations

from sqlalchemy import ColumnElement, delete, select, update
from sqlalchemy.orm import Session

from digest.forget.derived import (
    changed,
    deleted,
    forget_asks,
    forget_exposures,
    forget_judgements,
    recompose_needed,
    remaining_evidence,
    scrub_versions,
    their_questions,
)
from digest.forget.quotes import (
    FORGOTTEN_REASON,
    MARK,
    QUOTE_MIN,
    Scrubber,
    quotations,
    retired_words,
    snapshot,
    spellings,
    strings,
)
from digest.forget.result import ForgetResult
from digest.lessons.cues import event_cues, merged
from digest.lessons.release import recount
from digest.lessons.slugs import slugify, unique_slug
from digest.lessons.transition import transition
from digest.models import (
    DigestRun,
    Event,
    Lesson,
    LessonEvidence,
    LessonHistory,
    ReplayProbe,
    Tenant,
)


def erase(
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
        where.append(Event.contact_id.in_(spellings(contact)))
    else:
        where.append(Event.id == event_id)
    # locked, as a reflection's write locks its event: one in flight finishes first (and its
    # lessons are found here), one that comes after finds its event gone
    events = list(session.scalars(select(Event).where(*where).order_by(Event.id).with_for_update()))
    ids = [e.id for e in events]
    quotes = quotations(events, contact)
    agent_ids = {e.agent_id for e in events}
    # their questions' words, and an owner's answer to a question only they asked, which
    # quotes it (the answer is the owner's: it stays, without their words)
    asked, answers = their_questions(session, tenant, contact)
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
            (Lesson.tenant_id == tenant.id) & (Lesson.contact_id.in_(spellings(contact)))
        )
    lessons = list(session.scalars(select(Lesson).where(lesson_where).order_by(Lesson.id)))
    agent_ids |= {lesson.agent_id for lesson in lessons}

    counts["lesson_evidence"] = deleted(
        session, delete(LessonEvidence).where(LessonEvidence.event_id.in_(ids))
    )
    remaining = remaining_evidence(session, [lesson.id for lesson in lessons])
    theirs = spellings(contact) if contact is not None else set()
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
            quotes -= set(strings(event.payload))
    quotes |= retired_words(session, retired)
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
        before, after = snapshot(row.before, scrub, gone), snapshot(row.after, scrub, gone)
        reason = MARK if gone and row.reason != FORGOTTEN_REASON else scrub.text(row.reason)
        if (before, after, reason) != (row.before, row.after, row.reason):
            row.before, row.after, row.reason = before, after, reason
            touched += 1
    counts["lesson_history"] = touched

    counts["judgements"] = forget_judgements(session, agent_ids, [*ids, *answers], retired_ids)
    counts["holdout_exposures"] = forget_exposures(session, events)
    counts["replay_probes"] = deleted(
        session, delete(ReplayProbe).where(ReplayProbe.event_id.in_(ids))
    )
    counts["digest_runs"] = changed(
        session,
        update(DigestRun).where(DigestRun.event_id.in_(ids)).values(event_id=None, error=None),
    )
    counts["questions"], counts["question_asks"] = forget_asks(session, tenant, contact, ids, scrub)
    counts["learning_versions"] = scrub_versions(session, agent_ids, set(ids), scrub)
    counts["events"] = deleted(session, delete(Event).where(Event.id.in_(ids)))
    return sorted(recompose_needed(session, agent_ids, retired_ids))
