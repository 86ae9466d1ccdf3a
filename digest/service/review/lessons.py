"""The review page's lesson pages: an agent's lessons, filtered by status (quarantined too),
source and trust; one lesson with its evidence, history and measured effect; and the owner's
decisions on it: release (a held lesson, before independent sources corroborate it, or a
quarantined one after review), disable, enable, set or remove its expiry; and releasing every
held lesson at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from urllib.parse import quote

from fastapi import APIRouter, Request
from fastapi.responses import Response

from digest.errors import NotFound
from digest.lessons.effect.measure import effect_report
from digest.lessons.service import (
    lesson_detail,
    list_lessons,
    release_lessons,
    set_lesson_expiry,
    set_lesson_status,
)
from digest.models import LESSON_STATUSES, LESSON_TRUST
from digest.service.review.access import owner_decision, owner_page
from digest.service.review.pages import Refused, agent_url, error_page, page
from digest.service.sessions import Owner

#: lessons shown on one page of the list (the filters narrow it)
LESSONS_SHOWN = 500

router = APIRouter(include_in_schema=False)


@dataclass(frozen=True)
class LessonFilters:
    status: str
    source: str
    trust: str

    @classmethod
    def of(cls, request: Request) -> LessonFilters:
        query = request.query_params
        status = query.get("status", "")
        trust = query.get("trust", "")
        if status and status not in LESSON_STATUSES:
            raise Refused(422, f"status: one of {', '.join(LESSON_STATUSES)}, or empty for all")
        if trust and trust not in LESSON_TRUST:
            raise Refused(422, f"trust: one of {', '.join(LESSON_TRUST)}, or empty for all")
        return cls(status, query.get("source", "")[:100], trust)


@router.get("/agents/{agent}/lessons")
async def lessons_page(request: Request, agent: str) -> Response:
    try:
        filters = LessonFilters.of(request)
    except Refused as refused:
        return error_page(None, refused.status, refused.message)

    def render(owner: Owner) -> Response:
        every = list_lessons(owner.tenant, agent, filters.status or None)
        sources = sorted({lesson.source for lesson in every})
        shown = [
            lesson
            for lesson in every
            if (not filters.source or lesson.source == filters.source)
            and (not filters.trust or lesson.trust == filters.trust)
        ]
        held = sum(1 for x in every if x.status == "active" and x.held)
        return page(
            "lessons.html", owner, agent=agent, lessons=shown[:LESSONS_SHOWN], total=len(shown),
            filters=filters, statuses=LESSON_STATUSES, sources=sources, trusts=LESSON_TRUST,
            agent_url=agent_url, held=held, note=request.query_params.get("done"),
        )  # fmt: skip

    return await owner_page(request, render)


@router.get("/agents/{agent}/lessons/{lesson_id}")
async def lesson_page(request: Request, agent: str, lesson_id: int) -> Response:
    def render(owner: Owner) -> Response:
        from digest.config import get_settings
        from digest.retrieve import ranking_weight

        detail = lesson_detail(owner.tenant, agent, lesson_id)
        measured = effect_report(owner.tenant, agent).lessons
        effect = next((e for e in measured if e.lesson_id == lesson_id), None)
        fading = (ranking_weight(detail.lesson.last_seen_at), get_settings().lesson_half_life_days)
        return page(
            "lesson.html", owner, agent=agent, detail=detail, effect=effect,
            note=request.query_params.get("done"), agent_url=agent_url, fading=fading,
        )  # fmt: skip

    return await owner_page(request, render)


@router.post("/agents/{agent}/lessons/release-held")
async def release_every_held(request: Request, agent: str) -> Response:
    def act(owner: Owner, form: dict[str, str]) -> str:
        reason = form.get("reason", "").strip() or None
        done = release_lessons(owner.tenant, agent, every_held=True, by=owner.who, reason=reason)
        released = sum(row.changed for row in done)
        return agent_url(agent, "lessons") + f"?done={quote(f'released {released} held')}"

    return await owner_decision(request, act)


@router.post("/agents/{agent}/lessons/{lesson_id}/{action}")
async def lesson_decision(request: Request, agent: str, lesson_id: int, action: str) -> Response:
    def act(owner: Owner, form: dict[str, str]) -> str:
        reason = form.get("reason", "").strip() or None
        if action == "release":
            release_lessons(owner.tenant, agent, [lesson_id], by=owner.who, reason=reason)
        elif action == "expire":
            expires_at = _expiry(form)
            set_lesson_expiry(owner.tenant, agent, lesson_id, expires_at, reason, by=owner.who)
        elif action in _LESSON_STATUS_ACTIONS:
            status = _LESSON_STATUS_ACTIONS[action]
            set_lesson_status(owner.tenant, agent, lesson_id, status, reason, by=owner.who)
        else:
            raise NotFound(f"no lesson action {action!r}")
        return agent_url(agent, "lessons", lesson_id) + f"?done={quote(action)}"

    return await owner_decision(request, act)


_LESSON_STATUS_ACTIONS = {"disable": "disabled", "enable": "active"}


def _expiry(form: dict[str, str]) -> datetime | None:
    """The expiry form: ``never`` set, or a date ``expires_on`` (its midnight, UTC)."""
    if form.get("never"):
        return None
    day = form.get("expires_on", "").strip()
    try:
        return datetime.combine(date.fromisoformat(day), time(), tzinfo=UTC)
    except ValueError:
        raise Refused(422, "expires_on: a date (2027-01-31), or choose never") from None
