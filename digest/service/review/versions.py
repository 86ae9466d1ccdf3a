"""The review page's version pages: one of an agent's learning versions with a diff against
another (the one asked for, else the active one, else the one before it), and the owner's
decisions, made as the CLI makes them: approve a pending version (optionally with an edited
body), reject it, roll back to an older one.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from fastapi import APIRouter, Request
from fastapi.responses import Response

from digest.errors import NotFound
from digest.service.review.access import owner_decision, owner_page
from digest.service.review.pages import agent_url, page
from digest.service.sessions import Owner
from digest.versions.decisions import approve, reject, rollback
from digest.versions.queries import VersionSummary, active_version, list_versions, read_version

router = APIRouter(include_in_schema=False)


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
        return page(
            "version.html", owner, agent=agent, version=version, versions=versions,
            active=active, against=against, diff=diff, note=request.query_params.get("done"),
            agent_url=agent_url,
        )  # fmt: skip

    return await owner_page(request, render)


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
            return agent_url(agent, "versions", number) + "?done=approved"
        if action == "reject":
            reject(owner.tenant, agent, number, by=owner.who)
            return agent_url(agent, "versions", number) + "?done=rejected"
        if action == "rollback":
            made = rollback(owner.tenant, agent, number, by=owner.who)
            return agent_url(agent, "versions", made.number) + "?done=rolled-back"
        raise NotFound(f"no version action {action!r}")

    return await owner_decision(request, act)
