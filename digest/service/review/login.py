"""Signing in and out of the review page: the login form (its CSRF token in a cookie of its
own), a login with an owner key (agent keys are refused) that opens a database session, and a
logout that closes it. After a login the owner goes back to the review page asked for, never
to another site.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response
from starlette.concurrency import run_in_threadpool

from digest.apikeys import authenticate
from digest.errors import DatabaseUnavailable
from digest.service.review.access import cookie_secure, owner_decision, read_form, same_origin
from digest.service.review.pages import Refused, domain_error_page, error_page, page, see
from digest.service.sessions import (
    LOGIN_COOKIE,
    SESSION_COOKIE,
    Owner,
    close_session,
    new_login_token,
    open_session,
    same_token,
)

router = APIRouter(include_in_schema=False)


def _login_page(request: Request, status: int = 200, error: str | None = None) -> HTMLResponse:
    token = new_login_token()
    next_path = _local_path(request.query_params.get("next", ""))
    response = page("login.html", None, status, csrf=token, error=error, next=next_path)
    response.set_cookie(
        LOGIN_COOKIE, token, httponly=True, samesite="strict", secure=cookie_secure(request),
        path="/review",
    )  # fmt: skip
    return response


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
        form = await read_form(request)
    except Refused as refused:
        return error_page(None, refused.status, refused.message)
    cookie = request.cookies.get(LOGIN_COOKIE)
    if cookie is None or not same_token(cookie, form.get("csrf")) or not same_origin(request):
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
        return domain_error_page(None, exc)
    response = see(_local_path(form.get("next", "")))
    response.set_cookie(
        SESSION_COOKIE, token, httponly=True, samesite="strict", secure=cookie_secure(request),
        path="/review", max_age=None,
    )  # fmt: skip
    response.delete_cookie(LOGIN_COOKIE, path="/review")
    return response


@router.post("/logout")
async def logout(request: Request) -> Response:
    def action(owner: Owner, _form: dict[str, str]) -> str:
        close_session(owner)
        return "/review/login"

    response = await owner_decision(request, action)
    if response.status_code == 303:
        response.delete_cookie(SESSION_COOKIE, path="/review")
    return response
