"""The owner's review page (``/review``): server-rendered HTML, no JavaScript.

An owner signs in with an owner key (``digest.service.sessions``) and sees only that key's
tenant: its agents; an agent's lessons, filtered by status (quarantined too), source and trust;
one lesson with its evidence and history; the agent's versions, each with a diff against
another; and the decisions the CLI makes, written the same way and signed with the owner key's
label and prefix: approve a pending version (optionally with an edited body), reject it, roll
back to an older one, release a lesson from quarantine, disable or enable a lesson. Another
tenant's agent, lesson or version is "not found", exactly like one that does not exist.

Every form carries the session's CSRF token and every POST checks it (and, when the browser
sends one, that ``Origin`` is this host). Pages are sent with a Content-Security-Policy that
allows no script at all, and are never cached.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import jinja2
from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from sqlalchemy import func, select
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from digest.apikeys import authenticate
from digest.db import read_scope
from digest.errors import DatabaseUnavailable, DigestError, NotFound, StateError
from digest.lessons.effect.measure import effect_report
from digest.lessons.service import (
    agent_stats,
    lesson_detail,
    list_lessons,
    release_lesson,
    set_lesson_status,
)
from digest.models import LESSON_STATUSES, LESSON_TRUST, Agent, LearningVersion
from digest.redact import redact
from digest.report import build_report, render_html
from digest.service.sessions import (
    LOGIN_COOKIE,
    SESSION_COOKIE,
    Owner,
    close_session,
    find_owner,
    new_login_token,
    open_session,
    same_token,
)
from digest.versions.decisions import approve, reject, rollback
from digest.versions.queries import VersionSummary, active_version, list_versions, read_version

#: the largest form body the review page reads (an edited version body fits many times over)
FORM_MAX_BYTES = 1_000_000
#: lessons shown on one page of the list (the filters narrow it)
LESSONS_SHOWN = 500

_PAGE_POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
#: the struggled-with report embeds its charts and styles in the page itself
_REPORT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; "
    "frame-ancestors 'none'; base-uri 'none'"
)

router = APIRouter(prefix="/review", include_in_schema=False)


class _Refused(Exception):
    """A request the review page answers with an error page (status and sentence)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@cache
def _templates() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("digest.service", "templates"),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _headers(policy: str = _PAGE_POLICY) -> dict[str, str]:
    return {
        "Content-Security-Policy": policy,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
    }


def _page(template: str, owner: Owner | None, status: int = 200, **context: Any) -> HTMLResponse:
    html = _templates().get_template(template).render(owner=owner, **context)
    return HTMLResponse(html, status_code=status, headers=_headers())


def _error_page(owner: Owner | None, status: int, message: str) -> HTMLResponse:
    return _page("error.html", owner, status, status_code=status, message=message)


def _see(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303, headers=_headers())


def _agent_url(agent: str, *rest: str | int) -> str:
    parts = ["/review/agents", quote(agent, safe="")] + [str(part) for part in rest]
    return "/".join(parts)


# --- requests ------------------------------------------------------------------------------


async def _form(request: Request) -> dict[str, str]:
    """The url-encoded form of a POST (one value per field), read up to FORM_MAX_BYTES."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise _Refused(415, "the review page takes url-encoded forms only")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_MAX_BYTES:
            raise _Refused(413, f"the form is larger than {FORM_MAX_BYTES} bytes")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=50)
    except (UnicodeDecodeError, ValueError):
        raise _Refused(400, "the form could not be read") from None
    return {name: values[0] for name, values in fields.items()}


def _same_origin(request: Request) -> bool:
    """False when the browser says the form came from another site (``Origin``)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


def _cookie_secure(request: Request) -> bool:
    return request.url.scheme == "https"


Action = Callable[[Owner, dict[str, str]], str]


async def _post(request: Request, action: Action) -> Response:
    """A decision: a signed-in owner, the right CSRF token, then ``action`` (run in the thread
    pool) returns where to go next. Refusals and domain errors become error pages."""
    try:
        owner = await run_in_threadpool(find_owner, request.cookies.get(SESSION_COOKIE))
        if owner is None:
            raise _Refused(401, "your session has ended; log in again with an owner key")
        form = await _form(request)
        if not _same_origin(request) or not same_token(owner.csrf, form.get("csrf")):
            raise _Refused(403, "this form's CSRF token is missing or wrong; nothing was done")
        target = await run_in_threadpool(action, owner, form)
    except _Refused as refused:
        return _error_page(None, refused.status, refused.message)
    except Exception as exc:  # a domain or database error: an error page, never a traceback
        return _domain_error(None, exc)
    return _see(target)


def _domain_error(owner: Owner | None, exc: Exception) -> HTMLResponse:
    if isinstance(exc, NotFound):
        return _error_page(owner, 404, str(exc))
    if isinstance(exc, StateError):
        return _error_page(owner, 409, str(exc))
    if isinstance(exc, DatabaseUnavailable | SQLAlchemyError):
        message = "the database is unavailable; nothing was changed. Try again shortly."
        return _error_page(owner, 503, message)
    if isinstance(exc, DigestError | ValueError):
        return _error_page(owner, 422, redact(str(exc)))
    raise exc


async def _get(request: Request, render: Callable[[Owner], Response]) -> Response:
    """A page for a signed-in owner (else to the login page), rendered in the thread pool."""
    try:
        owner = await run_in_threadpool(find_owner, request.cookies.get(SESSION_COOKIE))
    except DatabaseUnavailable as exc:
        return _domain_error(None, exc)
    if owner is None:
        return _see("/review/login?next=" + quote(request.url.path, safe="/"))
    try:
        return await run_in_threadpool(render, owner)
    except Exception as exc:
        return _domain_error(owner, exc)


# --- login ---------------------------------------------------------------------------------


def _login_page(request: Request, status: int = 200, error: str | None = None) -> HTMLResponse:
    token = new_login_token()
    next_path = request.query_params.get("next", "")
    page = _page("login.html", None, status, csrf=token, error=error, next=_local_path(next_path))
    page.set_cookie(
        LOGIN_COOKIE, token, httponly=True, samesite="strict", secure=_cookie_secure(request),
        path="/review",
    )  # fmt: skip
    return page


def _local_path(path: str) -> str:
    """``path`` when it is a page of the review site, else the agents page (no open redirect)."""
    if path.startswith("/review") and not path.startswith("//") and "\\" not in path:
        return path
    return "/review"


@router.get("/login")
async def login_form(request: Request) -> Response:
    return _login_page(request)


@router.post("/login")
async def login(request: Request) -> Response:
    try:
        form = await _form(request)
    except _Refused as refused:
        return _error_page(None, refused.status, refused.message)
    cookie = request.cookies.get(LOGIN_COOKIE)
    if cookie is None or not same_token(cookie, form.get("csrf")) or not _same_origin(request):
        return _login_page(request, 403, "the login form expired; log in again")
    try:
        holder = await run_in_threadpool(authenticate, form.get("key", "").strip())
        if holder is None:
            return _login_page(request, 401, "that key is unknown or revoked")
        if holder.kind != "owner":
            message = "that is an agent key; sign in with an owner key (--kind owner)"
            return _login_page(request, 401, message)
        token = await run_in_threadpool(open_session, holder)
    except DatabaseUnavailable as exc:
        return _domain_error(None, exc)
    response = _see(_local_path(form.get("next", "")))
    response.set_cookie(
        SESSION_COOKIE, token, httponly=True, samesite="strict", secure=_cookie_secure(request),
        path="/review", max_age=None,
    )  # fmt: skip
    response.delete_cookie(LOGIN_COOKIE, path="/review")
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    def action(owner: Owner, _form: dict[str, str]) -> str:
        close_session(owner)
        return "/review/login"

    response = await _post(request, action)
    if response.status_code == 303:
        response.delete_cookie(SESSION_COOKIE, path="/review")
    return response


@router.get("/static/review.css")
def stylesheet() -> Response:
    css = resources.files("digest.service").joinpath("templates/review.css").read_text()
    headers = {"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"}
    return Response(css, media_type="text/css", headers=headers)


# --- agents --------------------------------------------------------------------------------


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
        return _page("agents.html", owner, agents=stats, pending=pending, agent_url=_agent_url)

    return await _get(request, render)


@router.get("/agents/{agent}")
async def agent_page(request: Request, agent: str) -> Response:
    def render(owner: Owner) -> Response:
        versions = list_versions(owner.tenant, agent)
        stats = agent_stats(owner.tenant, agent)[0]
        return _page(
            "agent.html", owner, agent=agent, stats=stats, versions=versions,
            agent_url=_agent_url,
        )  # fmt: skip

    return await _get(request, render)


# --- lessons -------------------------------------------------------------------------------


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
            raise _Refused(422, f"status: one of {', '.join(LESSON_STATUSES)}, or empty for all")
        if trust and trust not in LESSON_TRUST:
            raise _Refused(422, f"trust: one of {', '.join(LESSON_TRUST)}, or empty for all")
        return cls(status, query.get("source", "")[:100], trust)


@router.get("/agents/{agent}/lessons")
async def lessons_page(request: Request, agent: str) -> Response:
    try:
        filters = LessonFilters.of(request)
    except _Refused as refused:
        return _error_page(None, refused.status, refused.message)

    def render(owner: Owner) -> Response:
        every = list_lessons(owner.tenant, agent, filters.status or None)
        sources = sorted({lesson.source for lesson in every})
        shown = [
            lesson
            for lesson in every
            if (not filters.source or lesson.source == filters.source)
            and (not filters.trust or lesson.trust == filters.trust)
        ]
        return _page(
            "lessons.html", owner, agent=agent, lessons=shown[:LESSONS_SHOWN], total=len(shown),
            filters=filters, statuses=LESSON_STATUSES, sources=sources, trusts=LESSON_TRUST,
            agent_url=_agent_url,
        )  # fmt: skip

    return await _get(request, render)


@router.get("/agents/{agent}/lessons/{lesson_id}")
async def lesson_page(request: Request, agent: str, lesson_id: int) -> Response:
    def render(owner: Owner) -> Response:
        detail = lesson_detail(owner.tenant, agent, lesson_id)
        measured = effect_report(owner.tenant, agent).lessons
        effect = next((e for e in measured if e.lesson_id == lesson_id), None)
        return _page(
            "lesson.html", owner, agent=agent, detail=detail, effect=effect,
            note=request.query_params.get("done"), agent_url=_agent_url,
        )  # fmt: skip

    return await _get(request, render)


@router.post("/agents/{agent}/lessons/{lesson_id}/{action}")
async def lesson_decision(request: Request, agent: str, lesson_id: int, action: str) -> Response:
    def act(owner: Owner, form: dict[str, str]) -> str:
        reason = form.get("reason", "").strip() or None
        if action == "release":
            release_lesson(owner.tenant, agent, lesson_id, by=owner.who, reason=reason)
        elif action in _LESSON_STATUS_ACTIONS:
            status = _LESSON_STATUS_ACTIONS[action]
            set_lesson_status(owner.tenant, agent, lesson_id, status, reason, by=owner.who)
        else:
            raise NotFound(f"no lesson action {action!r}")
        return _agent_url(agent, "lessons", lesson_id) + f"?done={quote(action)}"

    return await _post(request, act)


_LESSON_STATUS_ACTIONS = {"disable": "disabled", "enable": "active"}


# --- versions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DiffLine:
    kind: str  # add, del, hunk, head or same
    text: str


def diff_lines(old: str, new: str, old_label: str, new_label: str) -> list[DiffLine]:
    """A unified diff of two bodies, each line classified for the page."""
    lines = difflib.unified_diff(
        old.splitlines(), new.splitlines(), old_label, new_label, lineterm=""
    )
    out = []
    for line in lines:
        if line.startswith(("---", "+++")):
            kind = "head"
        elif line.startswith("@@"):
            kind = "hunk"
        elif line.startswith("+"):
            kind = "add"
        elif line.startswith("-"):
            kind = "del"
        else:
            kind = "same"
        out.append(DiffLine(kind, line))
    return out


def _against(
    version: VersionSummary, versions: list[VersionSummary], active: VersionSummary | None,
    asked: str | None,
) -> VersionSummary | None:  # fmt: skip
    """The version to diff ``version`` against: the one asked for, else the active one (or,
    for the active version itself, the one before it)."""
    by_number = {v.number: v for v in versions}
    if asked and asked.isdigit() and int(asked) in by_number:
        return by_number[int(asked)]
    if active is not None and active.number != version.number:
        return active
    older = [v for v in versions if v.number < version.number]
    return max(older, key=lambda v: v.number) if older else None


@router.get("/agents/{agent}/versions/{number}")
async def version_page(request: Request, agent: str, number: int) -> Response:
    def render(owner: Owner) -> Response:
        version = read_version(owner.tenant, agent, number)
        versions = list_versions(owner.tenant, agent)
        active = active_version(owner.tenant, agent)
        against = _against(version, versions, active, request.query_params.get("against"))
        diff = []
        if against is not None:
            diff = diff_lines(
                against.body_markdown, version.body_markdown, f"v{against.number}", f"v{number}"
            )
        return _page(
            "version.html", owner, agent=agent, version=version, versions=versions,
            active=active, against=against, diff=diff, note=request.query_params.get("done"),
            agent_url=_agent_url,
        )  # fmt: skip

    return await _get(request, render)


@router.post("/agents/{agent}/versions/{number}/{action}")
async def version_decision(request: Request, agent: str, number: int, action: str) -> Response:
    def act(owner: Owner, form: dict[str, str]) -> str:
        if action == "approve":
            body = form.get("body")
            if body is not None:
                stored = read_version(owner.tenant, agent, number).body_markdown
                body = body.replace("\r\n", "\n")
                body = None if body.rstrip("\n") == stored.rstrip("\n") else body
            approve(owner.tenant, agent, number, by=owner.who, body=body)
            return _agent_url(agent, "versions", number) + "?done=approved"
        if action == "reject":
            reject(owner.tenant, agent, number, by=owner.who)
            return _agent_url(agent, "versions", number) + "?done=rejected"
        if action == "rollback":
            made = rollback(owner.tenant, agent, number, by=owner.who)
            return _agent_url(agent, "versions", made.number) + "?done=rolled-back"
        raise NotFound(f"no version action {action!r}")

    return await _post(request, act)


# --- the struggled-with report ---------------------------------------------------------------


@router.get("/agents/{agent}/report")
async def report_page(request: Request, agent: str) -> Response:
    weeks_asked = request.query_params.get("weeks", "4")
    if not weeks_asked.isdigit() or not 1 <= int(weeks_asked) <= 52:
        return _error_page(None, 422, "weeks: a whole number from 1 to 52")

    def render(owner: Owner) -> Response:
        html = render_html(build_report(owner.tenant, agent, int(weeks_asked)))
        return HTMLResponse(html, headers=_headers(_REPORT_POLICY))

    return await _get(request, render)
