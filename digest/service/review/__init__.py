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

``router`` holds every route: signing in and out (``login``), the agents and an agent's report
(``agents``), lessons (``lessons``) and versions (``versions``), and the stylesheet. What every
route shares is in ``access`` (the signed-in owner, the form, CSRF) and ``pages`` (templates,
headers, error pages).
"""

from __future__ import annotations

from importlib import resources

from fastapi import APIRouter
from fastapi.responses import Response

from digest.service.review import agents, lessons, login, questions, versions

__all__ = ["router"]

router = APIRouter(include_in_schema=False)
for _part in (login, agents, lessons, questions, versions):
    router.include_router(_part.router, prefix="/review")


@router.get("/review/static/review.css")
def stylesheet() -> Response:
    css = resources.files("digest.service").joinpath("templates/review.css").read_text()
    headers = {"Cache-Control": "max-age=3600", "X-Content-Type-Options": "nosniff"}
    return Response(css, media_type="text/css", headers=headers)
