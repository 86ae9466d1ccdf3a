"""How the review page answers: server-rendered templates (Jinja, autoescaped), the headers
every answer carries (a Content-Security-Policy that allows no script, never cached, never
framed), error pages, and the redirect after a decision.

``Refused`` is a request the page answers with an error page; ``domain_error_page`` turns what
the domain raised into one (not found, a state conflict, the database unavailable, a bad
value), never a traceback.
"""

from __future__ import annotations

from functools import cache
from typing import Any
from urllib.parse import quote

import jinja2
from fastapi.responses import HTMLResponse, RedirectResponse
from sqlalchemy.exc import SQLAlchemyError

from digest.errors import DatabaseUnavailable, DigestError, NotFound, StateError
from digest.redact import redact
from digest.service.sessions import Owner

PAGE_POLICY = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
#: the struggled-with report embeds its charts and styles in the page itself
REPORT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; "
    "frame-ancestors 'none'; base-uri 'none'"
)


class Refused(Exception):
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


def headers(policy: str = PAGE_POLICY) -> dict[str, str]:
    return {
        "Content-Security-Policy": policy,
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "same-origin",
        "Cache-Control": "no-store",
    }


def page(template: str, owner: Owner | None, status: int = 200, **context: Any) -> HTMLResponse:
    html = _templates().get_template(template).render(owner=owner, **context)
    return HTMLResponse(html, status_code=status, headers=headers())


def error_page(owner: Owner | None, status: int, message: str) -> HTMLResponse:
    return page("error.html", owner, status, status_code=status, message=message)


def domain_error_page(owner: Owner | None, exc: Exception) -> HTMLResponse:
    if isinstance(exc, NotFound):
        return error_page(owner, 404, str(exc))
    if isinstance(exc, StateError):
        return error_page(owner, 409, str(exc))
    if isinstance(exc, DatabaseUnavailable | SQLAlchemyError):
        message = "the database is unavailable; nothing was changed. Try again shortly."
        return error_page(owner, 503, message)
    if isinstance(exc, DigestError | ValueError):
        return error_page(owner, 422, redact(str(exc)))
    raise exc


def see(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303, headers=headers())


def agent_url(agent: str, *rest: str | int) -> str:
    parts = ["/review/agents", quote(agent, safe="")] + [str(part) for part in rest]
    return "/".join(parts)
