"""The agent's active learning version, as the agent reads it (DESIGN §7): ``current_learning``
(also named in ``digest.retrieve``).

The body is the stored document with its observed section read again through
``digest.agent_text`` (a version stored before that rule loses what an agent may no longer
read), and a summary of at most 10 bullets; both are byte-stable while the version does not
change.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from digest.agent_text import agent_body
from digest.db import read_scope
from digest.errors import DatabaseUnavailable
from digest.models import Agent, LearningVersion, Tenant
from digest.redact import driver_line
from digest.tenants import agent_named, key_problem, tenant_named, unknown_key

SUMMARY_BULLETS = 10
SUMMARY_LINE_MAX = 200


@dataclass(frozen=True)
class CurrentLearning:
    """The agent's active learning version. ``summary`` is at most 10 ``- …`` bullets taken
    from the body in order, for the user-turn layer where the whole document is too long."""

    number: int
    body: str
    change_summary: str
    summary: str
    created_at: datetime


def current_learning(tenant: str, agent: str) -> CurrentLearning | None:
    """The active version of ``agent`` (``None`` if it has none, or tenant or agent is unknown).

    Equal, byte for byte, on every call until another version becomes active. Unlike
    ``pitfalls`` it is not best effort, so that a caller can tell "no version" from "no
    answer": when the database cannot answer (unreachable, schema missing, a bad
    ``DIGEST_DATABASE_URL``) it raises ``DatabaseUnavailable``, and an invalid setting raises
    ``ConfigError``; both are ``DigestError``s, never a driver's exception. An unknown tenant
    or agent whose name is not a valid key at all (``digest.tenants.key_problem``) raises
    ``InvalidArgument`` rather than returning ``None``: it is a bug in the caller.
    """
    try:
        found = _active_version(tenant, agent)
    except SQLAlchemyError as exc:
        error = f"{type(exc).__name__}: {driver_line(exc)}"
        missing = "no such table" in error or "does not exist" in error
        hint = " (schema missing: run `digest db upgrade`)" if missing else ""
        raise DatabaseUnavailable(f"the learning version could not be read: {error}{hint}") from exc
    if found is None:
        for field, name in (("tenant", tenant), ("agent", agent)):
            if key_problem(name) is not None:
                raise unknown_key(field, name)
    return found


def _active_version(tenant: str, agent: str) -> CurrentLearning | None:
    with read_scope() as session:
        row = session.execute(
            select(
                LearningVersion.number,
                LearningVersion.body_markdown,
                LearningVersion.change_summary,
                LearningVersion.created_at,
            )
            .join(Agent, Agent.current_version_id == LearningVersion.id)
            .join(Tenant, Tenant.id == Agent.tenant_id)
            .where(tenant_named(tenant), agent_named(agent), LearningVersion.status == "active")
        ).first()
    if row is None:
        return None
    created = row.created_at
    # SQLite returns naive datetimes; they are stored in UTC.
    created = created if created.tzinfo else created.replace(tzinfo=UTC)
    # a body stored before today's rule loses the run text an agent may no longer read
    body = agent_body(row.body_markdown)
    return CurrentLearning(
        number=row.number,
        body=body,
        change_summary=row.change_summary or "",
        summary=summarize_body(body),
        created_at=created,
    )


def summarize_body(body: str) -> str:
    """The first 10 bullet lines of a version body, bold markers removed, one line each and at
    most 200 characters (a «…» quotation is never cut open). A pure function of the body,
    so it is as stable as the body."""
    bullets: list[str] = []
    for line in body.splitlines():
        if not line.startswith("- "):
            continue  # headings, blank lines, and the indented "When:" lines
        bullet = _one_line(line.replace("**", ""))
        if len(bullet) > SUMMARY_LINE_MAX:
            bullet = bullet[: SUMMARY_LINE_MAX - 1]
            if bullet.count("«") > bullet.count("»"):
                # a quotation cut open would read on as the line's own words: cut before it
                bullet = bullet[: bullet.rfind("«")]
            bullet = bullet.rstrip() + "…"
        bullets.append(bullet)
        if len(bullets) == SUMMARY_BULLETS:
            break
    return "".join(f"{bullet}\n" for bullet in bullets)


def _one_line(text_value: str) -> str:
    return " ".join(text_value.split())
