"""The review page's agent pages: the tenant's agents (with the versions waiting for a
decision), one agent (its statistics, settings and versions) and the owner's change of its
settings (learning on or off, instructions, model: ``digest.agents``), and an agent's
struggled-with report.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from sqlalchemy import func, select

from digest.config import get_settings
from digest.db import read_scope
from digest.lessons.service import agent_stats
from digest.models import Agent, LearningVersion
from digest.report import build_report, render_html
from digest.service.review.access import owner_decision, owner_page
from digest.service.review.pages import REPORT_POLICY, agent_url, error_page, headers, page
from digest.service.sessions import Owner
from digest.versions.queries import list_versions

router = APIRouter(include_in_schema=False)


def _pending_counts(tenant_id: int) -> dict[str, int]:
    with read_scope() as session:
        rows = session.execute(
            select(Agent.name, func.count(LearningVersion.id))
            .join(LearningVersion, LearningVersion.agent_id == Agent.id)
            .where(Agent.tenant_id == tenant_id, LearningVersion.status == "pending")
            .group_by(Agent.name)
        ).all()
    return {name: int(count) for name, count in rows}


@router.get("")
async def agents_page(request: Request) -> Response:
    def render(owner: Owner) -> Response:
        stats = agent_stats(owner.tenant)
        pending = _pending_counts(owner.tenant_id)
        return page("agents.html", owner, agents=stats, pending=pending, agent_url=agent_url)

    return await owner_page(request, render)


@router.get("/agents/{agent}")
async def agent_page(request: Request, agent: str) -> Response:
    def render(owner: Owner) -> Response:
        from digest.agents import agent_settings

        versions = list_versions(owner.tenant, agent)
        stats = agent_stats(owner.tenant, agent)[0]
        settings = agent_settings(owner.tenant, agent)
        embedded = get_settings().embedded  # no broker: nothing composes by itself
        return page(
            "agent.html", owner, agent=agent, stats=stats, versions=versions,
            settings=settings, agent_url=agent_url, note=request.query_params.get("done"),
            embedded=embedded,
        )  # fmt: skip

    return await owner_page(request, render)


@router.post("/agents/{agent}/settings")
async def agent_settings_decision(request: Request, agent: str) -> Response:
    """The settings form: learning on or off, instructions (empty: none) and model (empty:
    the DIGEST_LLM_* models)."""

    def act(owner: Owner, form: dict[str, str]) -> str:
        from urllib.parse import quote

        from digest.agents import set_agent
        from digest.errors import InvalidArgument

        learning = form.get("learning", "")
        if learning not in ("on", "off"):
            raise InvalidArgument("learning: on or off")
        instructions = form.get("instructions", "").strip() or None
        model = form.get("model", "").strip() or None
        row = set_agent(
            owner.tenant, agent, enable_learning=learning == "on",
            learning_instructions=instructions, llm_model=model,
        )  # fmt: skip
        words = {"enable_learning": "learning", "learning_instructions": "instructions"}
        changed = ", ".join(words.get(name, "model") for name in row.changed) or "nothing"
        return agent_url(agent) + f"?done={quote('changed ' + changed)}"

    return await owner_decision(request, act)


@router.get("/agents/{agent}/report")
async def report_page(request: Request, agent: str) -> Response:
    weeks_asked = request.query_params.get("weeks", "4")
    if not weeks_asked.isdigit() or not 1 <= int(weeks_asked) <= 52:
        return error_page(None, 422, "weeks: a whole number from 1 to 52")

    def render(owner: Owner) -> Response:
        html = render_html(build_report(owner.tenant, agent, int(weeks_asked)))
        return HTMLResponse(html, headers=headers(REPORT_POLICY))

    return await owner_page(request, render)
