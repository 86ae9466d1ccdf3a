"""An agent's chain of learning versions: the lock version writes take, the active and the
latest pending version, appending the next one, activating one, and pruning old ones.

The chain per agent is append-only and numbered 1, 2, 3 … without gaps: numbers are taken
under a transaction-level advisory lock (released by the server if a worker dies), so two
concurrent composes produce one version. At most ``DIGEST_KEEP_VERSIONS`` (20) versions are
kept per agent; the active one is never pruned.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from digest.models import Agent, DigestRun, LearningVersion, utcnow

#: advisory lock class for version writes (ASCII "lv"); lesson writes use another class.
_LOCK_CLASS = 0x6C76


def lock_versions(session: Session, agent_id: int) -> None:
    """Serialise version writes per agent until the transaction ends (Postgres)."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(_LOCK_CLASS, agent_id % 2_147_483_647)))


def current_version(session: Session, agent: Agent) -> LearningVersion | None:
    if agent.current_version_id is None:
        return None
    return session.get(LearningVersion, agent.current_version_id)


def latest_pending(session: Session, agent_id: int) -> LearningVersion | None:
    """The agent's newest version awaiting a person's decision, if any."""
    return session.scalars(
        select(LearningVersion)
        .where(LearningVersion.agent_id == agent_id, LearningVersion.status == "pending")
        .order_by(LearningVersion.number.desc())
        .limit(1)
    ).first()


def next_number(session: Session, agent_id: int) -> int:
    """The number the agent's next version takes (exact only under ``lock_versions``)."""
    highest = session.scalar(
        select(func.max(LearningVersion.number)).where(LearningVersion.agent_id == agent_id)
    )
    return int(highest or 0) + 1


def append_version(
    session: Session, agent: Agent, current: LearningVersion | None, **fields: Any
) -> LearningVersion:
    """Append a ``pending`` version to the agent's chain (the caller holds the version lock):
    the next number, linked to the current version. ``fields`` are the version's columns."""
    version = LearningVersion(
        tenant_id=agent.tenant_id,
        agent_id=agent.id,
        number=next_number(session, agent.id),
        previous_version_id=current.id if current else None,
        status="pending",
        created_at=utcnow(),
        **fields,
    )
    session.add(version)
    session.flush()
    return version


def activate_version(session: Session, agent: Agent, version: LearningVersion) -> None:
    current = current_version(session, agent)
    if current is not None and current.id != version.id:
        current.status = "superseded"
    version.status = "active"
    agent.current_version_id = version.id


def prune_versions(session: Session, agent: Agent, keep: int) -> int:
    """Keep at most ``keep`` versions: drop the oldest inactive ones, never the active one.
    Decided (superseded, rejected) versions go first, then the oldest still pending."""
    versions = list(
        session.scalars(
            select(LearningVersion)
            .where(LearningVersion.agent_id == agent.id)
            .order_by(LearningVersion.number)
        )
    )
    excess = len(versions) - keep
    if excess <= 0:
        return 0
    order = {"superseded": 0, "rejected": 0, "pending": 1}
    candidates = sorted(
        (v for v in versions if v.id != agent.current_version_id and v.status != "active"),
        key=lambda v: (order.get(v.status, 2), v.number),
    )
    doomed = [v.id for v in candidates[:excess]]
    if doomed:
        # Later versions point at pruned ones; the chain keeps the numbers.
        session.execute(
            update(LearningVersion)
            .where(LearningVersion.previous_version_id.in_(doomed))
            .values(previous_version_id=None)
        )
        session.execute(
            update(DigestRun).where(DigestRun.version_id.in_(doomed)).values(version_id=None)
        )
        session.execute(delete(LearningVersion).where(LearningVersion.id.in_(doomed)))
    return len(doomed)
