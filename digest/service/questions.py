"""HTTP for the question queue (issue 28): an agent key asks, an owner key answers.

- ``POST /v1/agents/{agent}/ask`` (agent key): ``digest.ask``; 200 with ``known``, ``asked`` or
  ``limited``.
- ``GET /v1/questions`` and ``GET /v1/questions/{id}`` (owner key): the key's tenant's queue.
- ``POST /v1/questions/{id}/answer`` and ``/dismiss`` (owner key): close it.

A question of another tenant is 404, like one that does not exist; an agent key on the owner's
routes is 403; a question answered or dismissed already is 409.
"""

# no `from __future__ import annotations`: FastAPI reads the routes' annotations, which name
# the app's key dependency given to `routes`

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import HTTPException, Path, Query
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from digest.apikeys import KeyHolder
from digest.models import QUESTION_MAX
from digest.questions.ask import CONTEXT_MAX, ask
from digest.questions.queue import (
    STATUS_CHOICES,
    QuestionRow,
    answer_question,
    dismiss_question,
    get_question,
    list_questions,
)


class AskBody(BaseModel):
    question: str = Field(min_length=1, max_length=QUESTION_MAX)
    thread_id: str | None = Field(default=None, min_length=1, max_length=200)
    contact_id: str | None = Field(default=None, min_length=1, max_length=200)
    context: str | None = Field(default=None, max_length=CONTEXT_MAX)


class AskResult(BaseModel):
    status: Literal["known", "asked", "limited"] = Field(
        description="known: the owner answered it (use `answer`); asked: in the owner's queue; "
        "limited: the question budget is spent, the question is kept and opens at `frees_at`."
    )
    question_id: int | None
    count: int = Field(description="How many times the question has been asked.")
    answer: str | None
    lesson_id: int | None
    frees_at: datetime | None


class AskEntry(BaseModel):
    text: str | None = Field(
        default=None, description="This ask's words, a quotation (a merged paraphrase's own)."
    )
    thread_id: str | None
    contact_id: str | None
    context: str | None
    asked_at: datetime


class QuestionOut(BaseModel):
    id: int
    agent: str
    text: str = Field(description="The agent's words, a quotation (secrets masked).")
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
    duplicate_of: int | None = Field(
        default=None,
        description="merged: the question it was merged into (the worker found it asks the same).",
    )
    flagged: str | None = Field(description="Why the screen reads it as an instruction, if so.")
    asks: list[AskEntry]


class AnswerBody(BaseModel):
    answer: str = Field(min_length=1, max_length=4000)
    by: str = Field(min_length=1, max_length=200)


class DismissBody(BaseModel):
    reason: str = Field(min_length=1, max_length=1000)
    by: str = Field(min_length=1, max_length=200)


def _out(row: QuestionRow) -> QuestionOut:
    return QuestionOut.model_validate(row.to_json())


def _owner(holder: KeyHolder) -> None:
    if holder.kind != "owner":
        raise HTTPException(403, "the question queue takes an owner key")


def _agent(holder: KeyHolder) -> None:
    if holder.kind != "agent":
        raise HTTPException(403, "asking takes an agent key")


QuestionId = Annotated[int, Path(ge=1, le=2**63 - 1, description="The question's id.")]


AgentName = Annotated[str, Path(min_length=1, max_length=200, description="The agent's key.")]


def routes(holder_dependency: Any) -> list[tuple[str, str, Any]]:
    """(method, path, endpoint) of the question routes, with the app's key dependency."""
    Holder = Annotated[KeyHolder, holder_dependency]

    async def post_ask(agent: AgentName, body: AskBody, holder: Holder) -> AskResult:
        """Ask the agent's owner (`digest.ask`): `known` with the owner's answer, `asked`, or
        `limited` with when the question budget frees."""
        _agent(holder)
        found = await run_in_threadpool(
            ask, holder.tenant, agent, body.question,
            contact_id=body.contact_id, thread_id=body.thread_id, context=body.context,
        )  # fmt: skip
        return AskResult.model_validate(found.to_json())

    def get_questions(
        holder: Holder,
        agent: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
        status: Annotated[Literal[STATUS_CHOICES], Query()] = "open",  # type: ignore[valid-type]
    ) -> list[QuestionOut]:
        """The tenant's questions, most asked first (`digest question list`)."""
        _owner(holder)
        return [_out(r) for r in list_questions(holder.tenant, agent=agent, status=status)]

    def get_one(question_id: QuestionId, holder: Holder) -> QuestionOut:
        """One question with the threads it came from."""
        _owner(holder)
        return _out(get_question(holder.tenant, question_id))

    def post_answer(question_id: QuestionId, body: AnswerBody, holder: Holder) -> QuestionOut:
        """Answer as the owner: a trusted lesson once reflected; closed for every thread."""
        _owner(holder)
        return _out(answer_question(holder.tenant, question_id, body.answer, by=body.by))

    def post_dismiss(question_id: QuestionId, body: DismissBody, holder: Holder) -> QuestionOut:
        """Set a question aside with a reason."""
        _owner(holder)
        return _out(dismiss_question(holder.tenant, question_id, body.reason, by=body.by))

    return [
        ("POST", "/v1/agents/{agent}/ask", post_ask),
        ("GET", "/v1/questions", get_questions),
        ("GET", "/v1/questions/{question_id}", get_one),
        ("POST", "/v1/questions/{question_id}/answer", post_answer),
        ("POST", "/v1/questions/{question_id}/dismiss", post_dismiss),
    ]
