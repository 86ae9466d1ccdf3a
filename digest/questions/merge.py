"""The worker's half of question identity (issue 28): merge a new question into the open one it
paraphrases.

``digest.ask`` stays on the capture path's budget: it joins an open question when the words
say it is one (``digest.questions.same``) and otherwise opens a new one, and queues
``digest.merge_questions`` for the agent (``digest.outbox.publish.publish_merge_questions``,
coalesced per agent like the reflect message). The task compares each question the worker has
not judged yet (``judged_at`` empty) with the agent's older open and held questions:

1. by the facts, as ``ask`` does (two asks that raced each other past the join);
2. by embedding neighbours (``NEIGHBOUR_RELEVANCE`` on the embedder's scale, no name or number
   apart);
3. where neither settles it, by the judge (``prompts/same_question``: the reconcile model;
   ``offline/rules`` answers with ``digest.model.offline_questions``).

Each open question is compared in every wording it was asked in (its asks', and those of the
questions merged into it). When the new question asks again several open ones, they are all
one question: the new one and the others merge into the oldest.

A merge is one transaction holding both rows: the new question's asks (its threads and their
contexts) move to the older one (the survivor), its count is added there, and it is closed as
``merged`` with ``duplicate_of`` naming the survivor. The owner then answers one question for
every thread, and a later ask in the merged question's words is ``known`` from the survivor's
answer. A question answered, dismissed or merged meanwhile is left as it is.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import read_scope, session_scope
from digest.errors import LLMError, LLMOutputError
from digest.logs import get_logger
from digest.models import Agent, Question, QuestionAsk, Tenant, utcnow
from digest.questions.same import NEIGHBOUR_RELEVANCE, question_fact, same_question
from digest.tenants import named

log = get_logger("digest.questions.merge")

#: open questions shown to the judge at once (the most asked first)
JUDGED_AT_ONCE = 20
#: who closes a merged question
MERGED_BY = "digest (same question)"
_QUEUED = ("open", "held")


@dataclass(frozen=True)
class Merge:
    """``merged`` was found to ask what ``survivor`` asks (``how``: facts, neighbours, judge)."""

    merged: int
    survivor: int
    how: str


def merge_questions(agent_id: int, settings: Settings | None = None) -> list[Merge]:
    """Judge the agent's questions not judged yet, oldest first, and merge each into the open
    question it asks again, if any (see the module's docstring). The merges made."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        agent = session.get(Agent, agent_id)
        if agent is None:
            return []
        name = agent.name
        rows = session.execute(
            select(Question.id, Question.text, Question.ask_count, Question.judged_at)
            .where(Question.agent_id == agent_id, Question.status.in_(_QUEUED))
            .order_by(Question.id)
        ).all()
        wordings = _wordings(session, [r.id for r in rows])
    from digest.model.seam import time_budget

    with time_budget(settings.model_deadline_s):  # the judge's calls end before the task's
        return _merge_new(agent_id, name, rows, wordings, settings)


def _merge_new(
    agent_id: int, name: str, rows: Any, wordings: dict[int, tuple[str, ...]], settings: Settings
) -> list[Merge]:
    merges: list[Merge] = []
    gone: set[int] = set()
    for new in (r for r in rows if r.judged_at is None):
        older = [
            _Open(r.id, r.text, r.ask_count, wordings.get(r.id, ()))
            for r in rows
            if r.id < new.id and r.id not in gone
        ]
        try:
            found = _matches(new, older, name, settings) if older else None
        except LLMOutputError as exc:  # the model broke its contract every try: not the same
            log.warning("question_judge_refused", question_id=new.id, error=str(exc))
            found = None
        except LLMError as exc:  # a passing fault: left unjudged, the relay queues it again
            log.warning("question_judge_failed", question_id=new.id, error=str(exc))
            continue
        with session_scope(settings.database_url) as session:
            if found is not None:
                # the new question and every open one it asks again are one: the oldest stays
                ids, how = found
                survivor = min(ids)
                for merged in sorted({new.id, *ids} - {survivor}):
                    if _merge(session, merged, survivor, how):
                        merges.append(Merge(merged, survivor, how))
                        gone.add(merged)
                        # the survivor is now asked in the merged question's words too
                        wordings[survivor] = (
                            *wordings.get(survivor, ()), *wordings.get(merged, ()),
                        )  # fmt: skip
            session.execute(
                update(Question).where(Question.id == new.id).values(judged_at=utcnow())
            )
    if merges:
        log.info("questions_merged", agent_id=agent_id, merges=len(merges))
    return merges


@dataclass(frozen=True)
class _Open:
    """An older open question as the new one is compared with it: its words, and every
    other wording it was asked in (its asks', those of questions merged into it)."""

    id: int
    text: str
    ask_count: int
    also: tuple[str, ...]

    @property
    def wordings(self) -> tuple[str, ...]:
        return (self.text, *(w for w in self.also if w != self.text))


#: wordings of one question shown to the judge and compared with (the latest asks first)
WORDINGS_SHOWN = 5


def _wordings(session: Session, ids: list[int]) -> dict[int, tuple[str, ...]]:
    """Each question's distinct ask wordings, the latest first (at most ``WORDINGS_SHOWN``)."""
    found: dict[int, list[str]] = {}
    if not ids:
        return {}
    for question_id, text in session.execute(
        select(QuestionAsk.question_id, QuestionAsk.text)
        .where(QuestionAsk.question_id.in_(ids))
        .order_by(QuestionAsk.id.desc())
    ):
        kept = found.setdefault(question_id, [])
        if text not in kept and len(kept) < WORDINGS_SHOWN:
            kept.append(text)
    return {k: tuple(v) for k, v in found.items()}


def _matches(
    new: Any, older: list[_Open], agent: str, settings: Settings
) -> tuple[list[int], str] | None:
    """(the older questions ``new`` asks again, how they were found), or None: by the facts,
    else the nearest embedding neighbour, else the judge (any that it names)."""
    asked = question_fact(new.text)
    by_facts = [
        r.id for r in older if any(same_question(asked, question_fact(w)) for w in r.wordings)
    ]
    if by_facts:
        return by_facts, "facts"
    from digest import facts
    from digest.questions.neighbours import nearest

    near = [
        _Row(r.id, w)
        for r in older
        for w in r.wordings
        if not facts.names_apart(asked, question_fact(w))
    ]
    found = nearest(new.text, near, NEIGHBOUR_RELEVANCE) if near else None
    if found is not None:
        return [found.id], "neighbours"
    shown = sorted(older, key=lambda r: (-r.ask_count, r.id))[:JUDGED_AT_ONCE]
    same_as = ask_judge(new.text, shown, agent, settings)
    return (same_as, "judge") if same_as else None


@dataclass(frozen=True)
class _Row:
    id: int
    text: str


def ask_judge(
    question: str, open_questions: list[_Open], agent: str, settings: Settings
) -> list[int]:
    """The judge's answer (``prompts/same_question``): the ids of the open questions that
    ``question`` asks again (none: an empty list). Raises ``LLMError`` as
    ``call_and_parse`` does."""
    from digest.model import seam as llm
    from digest.model.contracts import whole_number
    from digest.model.prompts import load_prompt

    ids = {q.id for q in open_questions}
    messages = load_prompt("same_question").render(
        agent=agent,
        question_json=_quoted({"text": question}),
        open_json=_quoted(
            [
                {"id": q.id, "text": q.text, "count": q.ask_count, "also": list(q.wordings[1:])}
                for q in open_questions
            ]
        ),
    )

    def parse(text: str) -> list[int]:
        try:
            answer = json.loads(_json_object(text))
        except ValueError as exc:
            raise LLMOutputError(f"the same-question answer is not JSON: {exc}") from exc
        same_as = answer.get("same_as") if isinstance(answer, dict) else None
        if same_as is None:
            return []
        listed = same_as if isinstance(same_as, list) else [same_as]
        found: set[int] = set()
        for one in listed:
            number = whole_number(one)  # 7 or "7"
            if number is None or number not in ids:
                raise LLMOutputError(f"same_as {one!r} is not one of the open questions' ids")
            found.add(number)
        return sorted(found)

    model = settings.model_for("reconcile")
    return llm.call_and_parse(messages, parse, model=model, usage=llm.Usage(), settings=settings)


def _quoted(value: Any) -> str:
    """JSON for a prompt block: no ``<`` in it, so a question cannot close its block."""
    return json.dumps(value, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")


def _json_object(text: str) -> str:
    """The JSON object in a model's answer (a model may fence it or say a word around it)."""
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else text


def _merge(session: Session, merged_id: int, survivor_id: int, how: str) -> bool:
    """Merge question ``merged_id`` into ``survivor_id`` (both rows locked, in id order): False
    when either is no longer open or held."""
    pair = {
        q.id: q
        for q in session.scalars(
            select(Question)
            .where(Question.id.in_((merged_id, survivor_id)))
            .order_by(Question.id)
            .with_for_update()
        )
    }
    merged, survivor = pair.get(merged_id), pair.get(survivor_id)
    if merged is None or survivor is None:
        return False
    if merged.status not in _QUEUED or survivor.status not in _QUEUED:
        return False
    session.execute(
        update(QuestionAsk)
        .where(QuestionAsk.question_id == merged_id)
        .values(question_id=survivor_id)
    )
    # questions merged into this one before now point to the survivor (no chains)
    session.execute(
        update(Question)
        .where(Question.duplicate_of == merged_id)
        .values(duplicate_of=survivor_id)
        .execution_options(synchronize_session=False)
    )
    survivor.ask_count += merged.ask_count
    survivor.last_asked_at = max(survivor.last_asked_at, merged.last_asked_at)
    if survivor.status == "held" and merged.status == "open":  # the budget let it in already
        survivor.status, survivor.opened_at = "open", merged.opened_at
    # a paraphrase costs no budget: the merged question no longer counts as opened
    merged.opened_at = None
    merged.status = "merged"
    merged.duplicate_of = survivor_id
    merged.closed_at = utcnow()
    merged.closed_by = MERGED_BY
    merged.reason = f"the same question as question {survivor_id} ({how})"
    return True


def agents_with_new_questions(
    settings: Settings, *, tenant: str | None = None, agent: str | None = None
) -> list[int]:
    """Agents with open or held questions the worker has not judged yet (``digest.pipeline.
    drain`` merges them in its process, embedded)."""
    query = (
        select(Question.agent_id)
        .join(Agent, Agent.id == Question.agent_id)
        .join(Tenant, Tenant.id == Question.tenant_id)
        .where(Question.judged_at.is_(None), Question.status.in_(_QUEUED))
        .group_by(Question.agent_id)
        .order_by(func.min(Question.id))
    )
    with read_scope(settings.database_url) as session:
        return list(session.scalars(query.where(*named(tenant, agent))))


__all__ = ["Merge", "agents_with_new_questions", "ask_judge", "merge_questions"]
