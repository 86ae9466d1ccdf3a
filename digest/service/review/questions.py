"""The review page's question queue (issue 28): what an agent asked its owner, answered or
dismissed where the owner already reviews. The same calls as ``digest question``."""

from __future__ import annotations

from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response

from digest.errors import NotFound
from digest.questions.queue import (
    answer_question,
    dismiss_question,
    get_question,
    list_questions,
)
from digest.service.review.access import owner_decision, owner_page
from digest.service.review.pages import agent_url, page
from digest.service.sessions import Owner

router = APIRouter(include_in_schema=False)

#: closed questions shown under the queue
CLOSED_SHOWN = 20


@router.get("/agents/{agent}/questions")
async def questions_page(request: Request, agent: str) -> Response:
    note = request.query_params.get("done")

    def render(owner: Owner) -> Response:
        open_ = list_questions(owner.tenant, agent=agent, status="open")
        closed = [
            q
            for q in list_questions(owner.tenant, agent=agent, status="all", limit=200)
            if q.status in ("answered", "dismissed")
        ]
        closed.sort(key=lambda q: q.closed_at or q.last_asked_at, reverse=True)
        return page(
            "questions.html", owner, agent=agent, questions=open_,
            closed=closed[:CLOSED_SHOWN], note=note, agent_url=agent_url,
        )  # fmt: skip

    return await owner_page(request, render)


@router.post("/agents/{agent}/questions/{question_id}/{action}")
async def question_decision(
    request: Request, agent: str, question_id: int, action: str
) -> Response:
    def act(owner: Owner, form: dict[str, str]) -> str:
        if get_question(owner.tenant, question_id).agent != agent:
            raise NotFound(f"no question {question_id} of agent {agent!r}")
        if action == "answer":
            row = answer_question(owner.tenant, question_id, form.get("answer", ""), by=owner.who)
        elif action == "dismiss":
            row = dismiss_question(owner.tenant, question_id, form.get("reason", ""), by=owner.who)
        else:
            raise NotFound(f"no question action {action!r}")
        done = f"question {question_id} {row.status}"
        return agent_url(agent, "questions") + f"?done={quote(done)}"

    return await owner_decision(request, act)
