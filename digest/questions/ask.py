"""``digest.ask``: an agent asks its owner, and learns at once whether it needs to (issue 28).

An agent that meets an unknown it cannot resolve ("Do you take weekend appointments?") calls
``ask`` instead of guessing. The answer comes back on the capture path's budget (no model call,
a few statements on one connection), as one of:

- ``known``: the owner already answered it: an active owner-answer lesson says so (its id and
  text), or an owner's answer given in the queue waits for the worker to make it a lesson (its
  text, no lesson id yet). The agent uses it instead of asking;
- ``asked``: the question is in the owner's queue. A repeat or paraphrase of a question already
  there joins it (its count rises; every thread it came from is kept), and costs no budget;
- ``limited``: the agent's (or its tenant's) question budget for the last 24 hours is spent
  (``DIGEST_ASK_AGENT_DAILY``, ``DIGEST_ASK_TENANT_DAILY``). The question is kept (``held``)
  and opens in the queue when the budget frees (``frees_at``); nothing is lost.

Identity is ``digest.questions.same`` on this path (the facts: meaning, not words); a question
they do not join opens, and the worker compares it with the open ones by embedding neighbours
and the judge and merges paraphrases (``digest.questions.merge``; told off the caller's turn,
``digest.questions.tell``). The question's wording is the
agent's, often a user's: it is stored with secrets masked and only ever shown as a quotation
(the owner's page screens it); it never becomes a lesson by itself, only the owner's answer does.

On PostgreSQL an ask is one read (the agent's owner-answer lessons, its answered, open and
held questions, and the tenant's question clock) and at most one write, each its own
statement: a join counts the ask in one statement; a new question opens in one statement that
moves the tenant's clock only if it still reads what the read saw (so nothing opened in the
tenant meanwhile: the identity check and the budget counted in that statement still hold),
else the ask reads again. Ten threads asking one question at once make one question. After
``OPTIMISTIC_TRIES`` moved clocks, or when held questions must open first, or on SQLite, the
ask takes the clock's row lock (``_lock``) and decides under it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Literal

from sqlalchemy import and_, func, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.engine import Connection

from digest.capture.schemas import text_problem
from digest.capture.store import agent_ids_for, cached_agent_ids, storage_errors
from digest.config import Settings, get_settings
from digest.db import get_engine
from digest.errors import InvalidEvent
from digest.models import QUESTION_MAX, Question, QuestionAsk, QuestionClock, as_utc, utcnow
from digest.questions.same import (
    answered_by,
    lesson_fact_of,
    question_fact,
    queued_match,
    same_question,
)
from digest.questions.statements import statements
from digest.questions.tell import tell_worker
from digest.redact import redact
from digest.tenants import key_problem, lookup_key

#: the budget's window
WINDOW = timedelta(hours=24)
#: an answer event still on its way to becoming a lesson
_UNREFLECTED = ("pending", "processing", "waiting")
#: context kept per ask (the rest is cut)
CONTEXT_MAX = 2000
ID_MAX = 200

Status = Literal["known", "asked", "limited"]


@dataclass(frozen=True)
class Asked:
    """What ``ask`` found. ``question_id`` is the queue's question (None when a lesson answered
    it); ``count`` how many times it has been asked; ``answer`` and ``lesson_id`` say what the
    owner answered (``known``); ``frees_at`` when the budget lets a new question in
    (``limited``; None when the budget is 0)."""

    status: Status
    question_id: int | None = None
    count: int = 0
    answer: str | None = None
    lesson_id: int | None = None
    frees_at: datetime | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "question_id": self.question_id,
            "count": self.count,
            "answer": self.answer,
            "lesson_id": self.lesson_id,
            "frees_at": self.frees_at.isoformat() if self.frees_at else None,
        }


def ask(
    tenant: str,
    agent: str,
    question: str,
    *,
    contact_id: str | None = None,
    thread_id: str | None = None,
    context: str | None = None,
) -> Asked:
    """Ask the agent's owner ``question``, unless the owner already answered it (see the
    module's docstring). Raises ``InvalidEvent`` naming the field for bad input (nothing
    stored) and ``CaptureUnavailable`` when the database cannot be reached."""
    given = _validated(tenant, agent, question, contact_id, thread_id, context)
    settings = get_settings()
    asked, agent_id = _ask(given, settings)
    if asked.count == 1:  # a new question: the worker compares it with the open ones
        tell_worker(agent_id, settings)
    return asked


@dataclass(frozen=True)
class _Given:
    tenant: str
    agent: str
    question: str
    contact_id: str | None
    thread_id: str | None
    context: str | None


def _validated(
    tenant: Any, agent: Any, question: Any, contact_id: Any, thread_id: Any, context: Any
) -> _Given:
    for field, value in (("tenant", tenant), ("agent", agent)):
        problem = key_problem(value)
        if problem is not None:
            raise InvalidEvent(field, problem)
    if not isinstance(question, str) or not question.strip():
        raise InvalidEvent("question", "must be a non-empty string")
    if len(question) > QUESTION_MAX:
        raise InvalidEvent("question", f"is {len(question)} characters; at most {QUESTION_MAX}")
    for field, value in (("contact_id", contact_id), ("thread_id", thread_id)):
        if value is not None and (not isinstance(value, str) or not value.strip()):
            raise InvalidEvent(field, "must be a non-empty string when given")
        if isinstance(value, str) and len(value) > ID_MAX:
            raise InvalidEvent(field, f"is {len(value)} characters; at most {ID_MAX}")
    if context is not None and not isinstance(context, str):
        raise InvalidEvent("context", "must be a string when given")
    for field, value in (
        ("question", question), ("context", context),
        ("thread_id", thread_id), ("contact_id", contact_id),
    ):  # fmt: skip
        problem = text_problem(value) if isinstance(value, str) else None
        if problem is not None:
            raise InvalidEvent(field, problem)
    return _Given(
        tenant=lookup_key(tenant),
        agent=lookup_key(agent),
        question=redact(" ".join(question.split())),
        contact_id=contact_id,
        thread_id=thread_id,
        context=redact(context[:CONTEXT_MAX]) if context else None,
    )


#: reads and tries of ``ask``'s one-statement paths before it takes the tenant's lock
OPTIMISTIC_TRIES = 3


@storage_errors("the question")
def _ask(given: _Given, settings: Settings) -> tuple[Asked, int]:
    """What ``ask`` found, and the agent's id (a new question has ``count`` 1: a join
    counts 2 or more)."""
    url = settings.database_url
    engine = get_engine(url)
    asked = question_fact(given.question)
    now = utcnow()
    ids = cached_agent_ids(url, given.tenant, given.agent)
    if ids is None:
        with engine.begin() as conn:
            ids = agent_ids_for(conn, url, given.tenant, given.agent)
    tenant_id, agent_id = ids
    if engine.dialect.name == "postgresql":
        with engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
            done = _at_once(conn, given, asked, now, settings, tenant_id, agent_id)
            if done is not None:
                return done, agent_id
    # SQLite (one writer), or PostgreSQL after others kept opening questions: the tenant's lock
    with engine.begin() as conn:
        _lock(conn, tenant_id)
        # read again: this statement sees every commit before the lock was granted
        rows = _read(conn, agent_id, tenant_id, now)
        known = _known(rows, asked)
        if known is not None:
            return known, agent_id
        found = _queued(rows, asked)
        if found is not None:
            return _join(conn, found, given, now, settings, tenant_id, agent_id), agent_id
        return _open(conn, given, now, settings, tenant_id, agent_id), agent_id


def _at_once(
    conn: Connection,
    given: _Given,
    asked: Any,
    now: datetime,
    settings: Settings,
    tenant_id: int,
    agent_id: int,
) -> Asked | None:
    """PostgreSQL, each statement its own transaction: one read (the agent's lessons and
    questions, and the tenant's question clock), then at most one write: join the open question
    it repeats, or open a new one if the clock still reads what it read (nothing opened in the
    tenant meanwhile, so the identity check and the budget still hold). None when that failed
    every time: the caller takes the lock."""
    built = statements()
    for _ in range(OPTIMISTIC_TRIES):
        rows = _read(conn, agent_id, tenant_id, now)
        known = _known(rows, asked)
        if known is not None:
            return known
        found = _queued(rows, asked)
        values = {
            "text": given.question, "context": given.context, "thread_id": given.thread_id,
            "contact_id": given.contact_id, "now": now,
        }  # fmt: skip
        if found is not None:
            joined = conn.execute(built.join, {**values, "question_id": found.id}).first()
            if joined is None:
                continue  # answered or dismissed meanwhile: decide again
            if joined.status == "open":
                return Asked("asked", question_id=found.id, count=joined.ask_count)
            frees_at = _budget(conn, settings, tenant_id, agent_id, now)[1]
            return Asked("limited", question_id=found.id, count=joined.ask_count,
                         frees_at=frees_at)  # fmt: skip
        if any(r.kind == "held" for r in rows):
            return None  # held questions open first: under the lock (``_open``)
        seen = next(r.id for r in rows if r.kind == "clock")
        made = conn.execute(
            built.open,
            {
                **values, "tenant_id": tenant_id, "agent_id": agent_id, "seen": seen,
                "since": now - WINDOW, "agent_daily": settings.ask_agent_daily,
                "tenant_daily": settings.ask_tenant_daily,
            },
        ).first()  # fmt: skip
        if made is None:
            continue  # a question opened in the tenant since the read: read again
        if made.status == "open":
            return Asked("asked", question_id=made.id, count=1)
        frees_at = _budget(conn, settings, tenant_id, agent_id, now)[1]
        return Asked("limited", question_id=made.id, count=1, frees_at=frees_at)
    return None


def _read(conn: Connection, agent_id: int, tenant_id: int, now: datetime) -> Sequence[Any]:
    return conn.execute(
        statements().candidates, {"agent_id": agent_id, "tenant_id": tenant_id, "now": now}
    ).all()


def _known(rows: Sequence[Any], asked: Any) -> Asked | None:
    """The owner's answer to ``asked``, if the agent has one: an active owner-answer lesson
    about the same subject (the newest first); else a question the owner answered in the queue
    that ``asked`` repeats, while its answer is on its way to the worker or its lesson is still
    active (the queue's decision that they are one question stands)."""
    for row in sorted((r for r in rows if r.kind == "lesson"), key=lambda r: -r.id):
        stated = lesson_fact_of(row.situation, row.correction)
        if answered_by(asked, stated):
            return Asked("known", answer=stated.answer, lesson_id=row.id)
    for given in sorted((r for r in rows if r.kind == "answered"), key=lambda r: -r.id):
        if not same_question(asked, question_fact(given.text)):
            continue
        if given.event_status in _UNREFLECTED:
            return Asked("known", question_id=given.id, answer=given.answer, count=given.ask_count)
        if given.lesson_status == "active":
            stated = lesson_fact_of(given.situation, given.correction)
            return Asked(
                "known", question_id=given.id, answer=stated.answer,
                lesson_id=given.lesson_id, count=given.ask_count,
            )  # fmt: skip
    return None


def _queued(rows: Sequence[Any], asked: Any) -> Any:
    """The agent's open or held question that ``asked`` repeats by the facts, if any
    (``digest.questions.same.queued_match``); a paraphrase the facts miss opens a new
    question, which the worker merges (``digest.questions.merge``)."""
    queued = [r for r in rows if r.kind in ("open", "held")]
    return queued_match(asked, queued)


def _record_ask(conn: Connection, question_id: int, given: _Given, now: datetime) -> None:
    conn.execute(
        insert(QuestionAsk).values(
            question_id=question_id,
            text=given.question,
            context=given.context,
            thread_id=given.thread_id,
            contact_id=given.contact_id,
            asked_at=now,
        )
    )


def _join(
    conn: Connection,
    found: Any,
    given: _Given,
    now: datetime,
    settings: Settings,
    tenant_id: int,
    agent_id: int,
) -> Asked:
    count = conn.execute(
        update(Question)
        .where(Question.id == found.id, Question.status.in_(("open", "held")))
        .values(ask_count=Question.ask_count + 1, last_asked_at=now)
        .returning(Question.ask_count, Question.status)
    ).first()
    if count is None:  # closed since it was read (an answer takes no lock): a new question
        return _open(conn, given, now, settings, tenant_id, agent_id)
    _record_ask(conn, found.id, given, now)
    if count.status == "open":
        return Asked("asked", question_id=found.id, count=count.ask_count)
    frees_at = _budget(conn, settings, tenant_id, agent_id, now)[1]
    return Asked("limited", question_id=found.id, count=count.ask_count, frees_at=frees_at)


def _open(
    conn: Connection,
    given: _Given,
    now: datetime,
    settings: Settings,
    tenant_id: int,
    agent_id: int,
) -> Asked:
    room, frees_at = _budget(conn, settings, tenant_id, agent_id, now)
    if room > 0:  # older held questions go first
        room -= promote_held(conn, settings, tenant_id, agent_id, now, room=room)
    status = "open" if room > 0 else "held"
    question_id = conn.execute(
        insert(Question)
        .values(
            tenant_id=tenant_id,
            agent_id=agent_id,
            text=given.question,
            status=status,
            ask_count=1,
            opened_at=now if status == "open" else None,
            created_at=now,
            last_asked_at=now,
        )
        .returning(Question.id)
    ).scalar_one()
    _record_ask(conn, question_id, given, now)
    if status == "open":
        return Asked("asked", question_id=question_id, count=1)
    return Asked("limited", question_id=question_id, count=1, frees_at=frees_at)


def promote_held(
    conn: Connection,
    settings: Settings,
    tenant_id: int,
    agent_id: int,
    now: datetime,
    *,
    room: int | None = None,
) -> int:
    """Open the agent's held questions, oldest first, as far as the budget now allows (or
    ``room``, already measured). How many opened."""
    if room is None:  # not under ``_open``'s lock: take it (opening moves the budget)
        _lock(conn, tenant_id)
        room = _budget(conn, settings, tenant_id, agent_id, now)[0]
    if room <= 0:
        return 0
    held = conn.scalars(
        select(Question.id)
        .where(Question.agent_id == agent_id, Question.status == "held")
        .order_by(Question.created_at, Question.id)
        .limit(room)
    ).all()
    if held:
        conn.execute(
            update(Question)
            .where(Question.id.in_(held), Question.status == "held")
            .values(status="open", opened_at=now)
        )
    return len(held)


def _budget(
    conn: Connection, settings: Settings, tenant_id: int, agent_id: int, now: datetime
) -> tuple[int, datetime | None]:
    """(how many new questions may open now, when the next one may if none can). Questions
    opened within the last 24 hours count, per agent and per tenant."""
    since = now - WINDOW
    counted = and_(Question.tenant_id == tenant_id, Question.opened_at > since)
    row = conn.execute(
        select(
            func.count().filter(Question.agent_id == agent_id),
            func.min(Question.opened_at).filter(Question.agent_id == agent_id),
            func.count(),
            func.min(Question.opened_at),
        ).where(counted)
    ).one()
    agent_n, agent_first, tenant_n, tenant_first = row
    room = min(settings.ask_agent_daily - agent_n, settings.ask_tenant_daily - tenant_n)
    if room > 0:
        return room, None
    if settings.ask_agent_daily == 0 or settings.ask_tenant_daily == 0:
        return 0, None
    frees = [
        as_utc(first) + WINDOW
        for n, limit, first in (
            (agent_n, settings.ask_agent_daily, agent_first),
            (tenant_n, settings.ask_tenant_daily, tenant_first),
        )
        if n >= limit and first is not None
    ]
    return 0, max(frees) if frees else None


def _lock(conn: Connection, tenant_id: int) -> None:
    """Serialise the opening of questions within a tenant, and tell ``ask``'s one-statement
    path that one may open: move the tenant's question clock (its row stays locked until the
    transaction ends)."""
    insert_ = pg_insert if conn.dialect.name == "postgresql" else sqlite_insert
    statement = insert_(QuestionClock).values(tenant_id=tenant_id, seq=1)
    conn.execute(
        statement.on_conflict_do_update(
            index_elements=[QuestionClock.tenant_id], set_={"seq": QuestionClock.seq + 1}
        )
    )
