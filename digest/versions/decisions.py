"""A person's decisions on an agent's versions: approve (optionally with an edited body), reject
and roll back, each written with who made it, under the agent's version lock; asking the
workers for a version now; and a tenant's apply mode and trigger overrides.

A rollback is replayed like a composed version (``digest.versions.replay``), so its page shows
what it covers; it is never held for it: a person asked for it.
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import NotFound, VersionStateError
from digest.models import (
    Agent,
    LearningVersion,
    utcnow,
)
from digest.tenants import find_agent
from digest.versions.chain import (
    activate_version,
    append_version,
    current_version,
    lock_versions,
    prune_versions,
)
from digest.versions.replay.plan import prepare
from digest.versions.replay.probes import store_probes


def get_version(session: Session, tenant: str, agent: str, number: int) -> LearningVersion:
    """Version ``number`` of that tenant's agent, or ``NotFound``."""
    return _version_for_update(session, find_agent(session, tenant, agent), number)


def _decide(
    session: Session, tenant: str, agent: str, number: int
) -> tuple[Agent, LearningVersion]:
    """The agent (its version lock held) and its pending version ``number``."""
    agent_row = find_agent(session, tenant, agent)
    lock_versions(session, agent_row.id)
    version = _version_for_update(session, agent_row, number)
    if version.status != "pending":
        raise VersionStateError(f"version {number} is {version.status}, not pending")
    return agent_row, version


def _version_for_update(session: Session, agent: Agent, number: int) -> LearningVersion:
    version = session.scalars(
        select(LearningVersion).where(
            LearningVersion.agent_id == agent.id, LearningVersion.number == number
        )
    ).first()
    if version is None:
        raise NotFound(f"agent {agent.name!r} has no version {number}")
    return version


def approve(
    tenant: str,
    agent: str,
    number: int,
    *,
    by: str,
    body: str | None = None,
    settings: Settings | None = None,
) -> LearningVersion:
    """Activate a pending version, optionally with a body edited by the approver."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        agent_row, version = _decide(session, tenant, agent, number)
        if body is not None:
            if not body.strip():
                raise VersionStateError("an edited body must not be empty")
            version.body_markdown = body if body.endswith("\n") else body + "\n"
            version.proposed_by = "operator"
        version.approved_by = by
        version.approved_at = utcnow()
        activate_version(session, agent_row, version)
        session.flush()
        return version


def reject(
    tenant: str, agent: str, number: int, *, by: str, settings: Settings | None = None
) -> LearningVersion:
    """Reject a pending version. Its lessons stay available to the next compose."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        _, version = _decide(session, tenant, agent, number)
        version.status = "rejected"
        version.approved_by = by
        version.approved_at = utcnow()
        session.flush()
        return version


def rollback(
    tenant: str, agent: str, number: int, *, by: str, settings: Settings | None = None
) -> LearningVersion:
    """Append a new version carrying the body of version ``number``; active in both modes."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        target = _version_for_update(session, agent_row, number)
        plan = prepare(
            session, agent_row.id, current_version(session, agent_row),
            list(target.folded_lesson_ids or []), settings,
        )  # fmt: skip
    # no transaction open while new probes are embedded (a provider may be called)
    report = plan.run() if plan is not None else None
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        lock_versions(session, agent_row.id)
        target = _version_for_update(session, agent_row, number)
        current = current_version(session, agent_row)
        if plan is not None:
            store_probes(session, plan.stored_vectors())
        version = append_version(
            session,
            agent_row,
            current,
            body_markdown=target.body_markdown,
            change_summary=f"Rolled back to version {number} by {by}.",
            folded_lesson_ids=list(target.folded_lesson_ids or []),
            supporting_event_ids=list(target.supporting_event_ids or []),
            proposed_by="operator",
            trigger="rollback",
            approved_by=by,
            approved_at=utcnow(),
            # against the version active when it was asked for (named in the report)
            replay=report.to_json() if report is not None else None,
        )
        activate_version(session, agent_row, version)
        prune_versions(session, agent_row, settings.keep_versions)
        session.flush()
        return version
