"""What every review route does before its own work: find the signed-in owner (else the login
page), and for a decision read the url-encoded form (at most ``FORM_MAX_BYTES``) and check its
CSRF token and, when the browser sends one, that ``Origin`` is this host. The work itself runs
in the thread pool; refusals and domain errors become error pages.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs, quote, urlsplit

from fastapi import Request
from fastapi.responses import Response
from starlette.concurrency import run_in_threadpool

from digest.errors import DatabaseUnavailable
from digest.service.review.pages import Refused, domain_error_page, error_page, see
from digest.service.sessions import SESSION_COOKIE, Owner, find_owner, same_token

#: the largest form body the review page reads (an edited version body fits many times over)
FORM_MAX_BYTES = 1_000_000

#: a decision: ``action(owner, form)`` does it and returns where to go next
Action = Callable[[Owner, dict[str, str]], str]


async def read_form(request: Request) -> dict[str, str]:
    """The url-encoded form of a POST (one value per field), read up to FORM_MAX_BYTES."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/x-www-form-urlencoded":
        raise Refused(415, "the review page takes url-encoded forms only")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > FORM_MAX_BYTES:
            raise Refused(413, f"the form is larger than {FORM_MAX_BYTES} bytes")
    try:
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=50)
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, "the form could not be read") from None
    return {name: values[0] for name, values in fields.items()}


def same_origin(request: Request) -> bool:
    """False when the browser says the form came from another site (``Origin``)."""
    origin = request.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == request.headers.get("host", "")


def cookie_secure(request: Request) -> bool:
    return request.url.scheme == "https"


async def owner_decision(request: Request, action: Action) -> Response:
    """A decision: a signed-in owner, the right CSRF token, then ``action`` (run in the thread
    pool) returns where to go next. Refusals and domain errors become error pages."""
    try:
        owner = await run_in_threadpool(find_owner, request.cookies.get(SESSION_COOKIE))
        if owner is None:
            raise Refused(401, "your session has ended; log in again with an owner key")
        form = await read_form(request)
        if not same_origin(request) or not same_token(owner.csrf, form.get("csrf")):
            raise Refused(403, "this form's CSRF token is missing or wrong; nothing was done")
        target = await run_in_threadpool(action, owner, form)
    except Refused as refused:
        return error_page(None, refused.status, refused.message)
    except Exception as exc:  # a domain or database error: an error page, never a traceback
        return domain_error_page(None, exc)
    return see(target)


async def owner_page(request: Request, render: Callable[[Owner], Response]) -> Response:
    """A page for a signed-in owner (else to the login page), rendered in the thread pool."""
    try:
        owner = await run_in_threadpool(find_owner, request.cookies.get(SESSION_COOKIE))
    except DatabaseUnavailable as exc:
        return domain_error_page(None, exc)
    if owner is None:
        # back to the page asked for after signing in, with its filters (the query string)
        asked = request.url.path + (f"?{request.url.query}" if request.url.query else "")
        return see("/review/login?next=" + quote(asked, safe="/"))
    try:
        return await run_in_threadpool(render, owner)
    except Exception as exc:
        return domain_error_page(owner, exc)
