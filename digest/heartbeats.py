"""When a periodic duty last ran (``heartbeats`` table): the relay writes one at every run,
and ``digest doctor`` and ``digest stats`` warn when it has been silent for two intervals,
so a deployment whose beat died is noticed before its stranded events are."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from digest.config import Settings
from digest.models import Heartbeat, as_utc, utcnow

RELAY = "relay"


def beat(session: Session, name: str, **detail: Any) -> None:
    """Record that ``name`` ran now (in the caller's transaction). One upsert: two processes
    running the same duty at once (a worker's relay as it connects, and beat's) both insert
    the first row of a new database, and a read-then-insert let one fail on the other's key."""
    dialect = session.get_bind().dialect.name
    if dialect not in ("postgresql", "sqlite"):
        row = session.get(Heartbeat, name)
        if row is None:
            session.add(Heartbeat(name=name, at=utcnow(), detail=detail))
        else:
            row.at, row.detail = utcnow(), detail
        return
    from sqlalchemy.dialects import postgresql, sqlite

    insert = postgresql.insert if dialect == "postgresql" else sqlite.insert
    statement = insert(Heartbeat).values(name=name, at=utcnow(), detail=detail)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[Heartbeat.name],
            set_={"at": statement.excluded.at, "detail": statement.excluded.detail},
        )
    )
    stale = session.identity_map.get(session.identity_key(Heartbeat, name))
    if stale is not None:
        session.expire(stale)


def last_beat(session: Session, name: str) -> tuple[datetime, dict[str, Any]] | None:
    row = session.get(Heartbeat, name)
    return None if row is None else (as_utc(row.at), dict(row.detail or {}))


def relay_warning(session: Session, settings: Settings) -> str | None:
    """A sentence if the relay (beat's ``relay-pending``, or a worker connecting to the broker)
    has not run for two ``DIGEST_RELAY_INTERVAL_S``; None when it has, or in the embedded
    mode (no broker, no relay: ``digest drain`` does its work)."""
    if settings.embedded:
        return None
    seen = last_beat(session, RELAY)
    if seen is None:
        return (
            "the relay has never run: start `celery -A worker beat` (events whose broker "
            "message was lost stay pending until it runs)"
        )
    silent = (utcnow() - seen[0]).total_seconds()
    if silent <= 2 * settings.relay_interval_s:
        return None
    return (
        f"the relay last ran {silent:.0f} s ago (DIGEST_RELAY_INTERVAL_S is "
        f"{settings.relay_interval_s:g}): is `celery -A worker beat` running? Events whose "
        "broker message was lost stay pending until it runs"
    )
