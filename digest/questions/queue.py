"""The owner's side of the question queue (issue 28): list, answer, dismiss, expire.

The queue lists open questions by how many times they were asked, each with the threads and
contexts it came from. Their words are the agent's (often a user's): they are shown as
quotations, screened (``digest.reflect.screen``: a question that reads as an instruction is
flagged beside it), secrets already masked when asked.

Answering is an owner answer like ``digest.record_answer``: an ``owner_answer`` event with the
question's text (idempotency key ``question-<id>``), reflected by the worker into a trusted
lesson, delivered like any other; the question closes for every thread that asked it, and the
next ``ask`` of it returns ``known``. Dismissing closes it with a reason. An open or held
question nobody asked again for ``DIGEST_QUESTION_TTL_DAYS`` expires when the queue is read.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from digest.capture.schemas import parse_event
from digest.capture.store import insert_event
from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import IdempotencyConflict, NotFound, OwnerInputError, StateError
from digest.models import QUESTION_STATUSES, Agent, Question, QuestionAsk, Tenant, as_utc, utcnow
from digest.outbox import publish
from digest.questions.ask import promote_held
from digest.reflect.screen import injection_reason
from digest.tenants import find_agent, missing_tenant, tenant_named

#: asks shown per question (the latest)
ASKS_SHOWN = 5
ANSWER_MAX = 4000
#: ``--status`` values: one status, or every one
STATUS_CHOICES = (*QUESTION_STATUSES, "all")


@dataclass(frozen=True)
class AskRow:
    """One time the question was asked, as the owner sees it."""

    thread_id: str | None
    contact_id: str | None
    context: str | None
    asked_at: datetime
    #: the words of this ask (a paraphrase merged into the question keeps its own)
    text: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "text": self.text,
            "thread_id": self.thread_id,
            "contact_id": self.contact_id,
            "context": self.context,
            "asked_at": self.asked_at.isoformat(),
        }


@dataclass(frozen=True)
class QuestionRow:
    id: int
    agent: str
    text: str
    status: str
    count: int
    threads: int
    created_at: datetime
    last_asked_at: datetime
    opened_at: datetime | None
    closed_at: datetime | None
    closed_by: str | None
    answer: str | None
    reason: str | None
    answer_event_id: int | None
    #: the question it was merged into (``merged``), whose answer answers it
    duplicate_of: int | None
    #: why the screen reads the question (or a context) as an instruction, or None
    flagged: str | None
    asks: list[AskRow] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        moments = ("created_at", "last_asked_at", "opened_at", "closed_at")
        out = {k: getattr(self, k) for k in self.__dataclass_fields__ if k != "asks"}
        for k in moments:
            out[k] = out[k].isoformat() if out[k] else None
        out["asks"] = [a.to_json() for a in self.asks]
        return out


def list_questions(
    tenant: str,
    *,
    agent: str | None = None,
    status: str = "open",
    limit: int = 100,
    settings: Settings | None = None,
) -> list[QuestionRow]:
    """The tenant's questions (of one agent if given) with ``status`` (``all``: any), most
    asked first. Expires stale ones and opens held ones the budget now allows, first."""
    if status not in STATUS_CHOICES:
        raise OwnerInputError(f"status {status!r} is not one of {', '.join(STATUS_CHOICES)}")
    settings = settings or get_settings()
    now = utcnow()
    with session_scope(settings.database_url) as session:
        tenant_row = _tenant(session, tenant)
        agent_id = find_agent(session, tenant, agent).id if agent is not None else None
        tidy(session, settings, tenant_row.id, now)
        query = (
            select(Question, Agent.name)
            .join(Agent, Agent.id == Question.agent_id)
            .where(Question.tenant_id == tenant_row.id)
            .order_by(Question.ask_count.desc(), Question.last_asked_at.desc(), Question.id)
            .limit(limit)
        )
        if agent_id is not None:
            query = query.where(Question.agent_id == agent_id)
        if status != "all":
            query = query.where(Question.status == status)
        found = session.execute(query).all()
        return _rows(session, [(q, name) for q, name in found])


def get_question(tenant: str, question_id: int, settings: Settings | None = None) -> QuestionRow:
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        question, agent = _question(session, tenant, question_id)
        return _rows(session, [(question, agent)])[0]


def tidy(session: Session, settings: Settings, tenant_id: int, now: datetime) -> None:
    """Expire stale questions of the tenant and open the held ones its budget now allows."""
    if settings.question_ttl_days:
        stale = now - timedelta(days=settings.question_ttl_days)
        session.execute(
            update(Question)
            .where(
                Question.tenant_id == tenant_id,
                Question.status.in_(("open", "held")),
                Question.last_asked_at < stale,
            )
            .values(
                status="expired",
                closed_at=now,
                reason=f"nobody asked it again in {settings.question_ttl_days} days",
            )
        )
    held_agents = session.scalars(
        select(Question.agent_id)
        .where(Question.tenant_id == tenant_id, Question.status == "held")
        .distinct()
    ).all()
    for agent_id in held_agents:
        promote_held(session.connection(), settings, tenant_id, agent_id, now)


def answer_question(
    tenant: str, question_id: int, answer: str, *, by: str, settings: Settings | None = None
) -> QuestionRow:
    """Answer a question as its owner: an owner_answer event (a trusted lesson once the worker
    reflects it), and the question closed for every thread that asked it.

    Closing the question and storing the event are one transaction, and the close is
    conditional on the question being still open: an answer and a dismissal of one question
    arriving together end with one of them (the other gets ``StateError``), and the answer's
    event (so its lesson) exists exactly when the question is answered."""
    answer = _required("answer", answer, ANSWER_MAX)
    by = _required("by", by, 200)
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        question, agent = _question(session, tenant, question_id)
        _claim(session, question, status="answered", by=by, answer=answer)
        parsed = parse_event(
            "owner_answer",
            {
                "tenant": tenant,
                "agent": agent,
                "question": question.text,
                "answer": answer,
                "idempotency_key": f"question-{question_id}",
            },
        )
        try:
            event_id, created = insert_event(
                session.connection(), parsed, (question.tenant_id, question.agent_id)
            )
        except IdempotencyConflict:
            raise StateError(f"question {question_id} was answered already") from None
        session.execute(
            update(Question).where(Question.id == question_id).values(answer_event_id=event_id)
        )
        # the questions merged into it are answered with it: an ask in their words is known
        session.execute(
            update(Question)
            .where(Question.duplicate_of == question_id, Question.status == "merged")
            .values(answer=answer, answer_event_id=event_id)
            .execution_options(synchronize_session=False)
        )
        agent_id = question.agent_id
    if created:  # after the commit: the worker must find the event
        publish.publish_reflect(event_id, agent_id=agent_id)
    return get_question(tenant, question_id, settings)


def dismiss_question(
    tenant: str, question_id: int, reason: str, *, by: str, settings: Settings | None = None
) -> QuestionRow:
    """Set a question aside with a reason: it leaves the queue, nothing is learned."""
    reason = _required("reason", reason, 1000)
    by = _required("by", by, 200)
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        question, _agent = _question(session, tenant, question_id)
        _claim(session, question, status="dismissed", by=by, reason=reason)
    return get_question(tenant, question_id, settings)


def _claim(
    session: Session,
    question: Question,
    *,
    status: str,
    by: str,
    answer: str | None = None,
    reason: str | None = None,
) -> None:
    """Close ``question`` with ``status`` if it is still open, held or expired (one conditional
    UPDATE: of two closes at once, the second waits for the first and then finds it closed);
    else ``StateError`` saying who closed it."""
    _still_open(question)
    claimed = session.execute(
        update(Question)
        .where(Question.id == question.id, Question.status.in_(("open", "held", "expired")))
        .values(
            status=status,
            closed_at=utcnow(),
            closed_by=by,
            answer=answer,
            reason=reason,
        )
        .returning(Question.id)
        .execution_options(synchronize_session=False)
    ).first()
    if claimed is None:
        session.refresh(question)
        _still_open(question)
        raise StateError(f"question {question.id} is {question.status}")


def _still_open(question: Question) -> None:
    if question.status == "merged":
        raise StateError(
            f"question {question.id} was merged into question {question.duplicate_of}, "
            "which asks the same: answer that one"
        )
    if question.status in ("answered", "dismissed"):
        when = (
            as_utc(question.closed_at).strftime("%Y-%m-%d %H:%M UTC") if question.closed_at else ""
        )
        raise StateError(
            f"question {question.id} was {question.status} already"
            + (f" by {question.closed_by}" if question.closed_by else "")
            + (f" at {when}" if when else "")
        )


def _required(name: str, value: Any, limit: int) -> str:
    if not isinstance(value, str) or not value.strip():
        raise OwnerInputError(f"{name} must not be empty")
    if len(value) > limit:
        raise OwnerInputError(f"{name} is {len(value)} characters; at most {limit}")
    return value.strip()


def _tenant(session: Session, tenant: str) -> Tenant:
    row = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
    if row is None:
        raise missing_tenant(session, tenant)
    return row


def _question(session: Session, tenant: str, question_id: int) -> tuple[Question, str]:
    """The tenant's question ``question_id`` and its agent's name; another tenant's is
    ``NotFound`` like one that does not exist."""
    tenant_row = _tenant(session, tenant)
    found = (
        session.execute(
            select(Question, Agent.name)
            .join(Agent, Agent.id == Question.agent_id)
            .where(Question.id == question_id, Question.tenant_id == tenant_row.id)
        ).first()
        if isinstance(question_id, int) and 0 < question_id < 2**63
        else None
    )
    if found is None:
        raise NotFound(f"no question {question_id} in tenant {tenant!r}")
    return found[0], found[1]


def _rows(session: Session, found: list[tuple[Question, str]]) -> list[QuestionRow]:
    ids = [q.id for q, _ in found]
    asks: dict[int, list[QuestionAsk]] = defaultdict(list)
    threads: dict[int, set[str]] = defaultdict(set)
    if ids:
        for a in session.scalars(
            select(QuestionAsk)
            .where(QuestionAsk.question_id.in_(ids))
            .order_by(QuestionAsk.asked_at.desc(), QuestionAsk.id.desc())
        ):
            asks[a.question_id].append(a)
            threads[a.question_id].add(a.thread_id or a.contact_id or f"ask-{a.id}")
    rows = []
    for q, agent in found:
        shown = asks[q.id][:ASKS_SHOWN]
        flagged = injection_reason(q.text, run_text=True) or next(
            (
                r
                for a in shown
                for said in (a.text if a.text != q.text else None, a.context)
                if said and (r := injection_reason(said, run_text=True))
            ),
            None,
        )
        rows.append(
            QuestionRow(
                id=q.id,
                agent=agent,
                text=q.text,
                status=q.status,
                count=q.ask_count,
                threads=len(threads[q.id]),
                created_at=as_utc(q.created_at),
                last_asked_at=as_utc(q.last_asked_at),
                opened_at=as_utc(q.opened_at) if q.opened_at else None,
                closed_at=as_utc(q.closed_at) if q.closed_at else None,
                closed_by=q.closed_by,
                answer=q.answer,
                reason=q.reason,
                answer_event_id=q.answer_event_id,
                duplicate_of=q.duplicate_of,
                flagged=flagged,
                asks=[
                    AskRow(a.thread_id, a.contact_id, a.context, as_utc(a.asked_at), a.text)
                    for a in shown
                ],
            )
        )
    return rows


__all__ = [
    "STATUS_CHOICES",
    "AskRow",
    "QuestionRow",
    "answer_question",
    "dismiss_question",
    "get_question",
    "list_questions",
    "tidy",
]
