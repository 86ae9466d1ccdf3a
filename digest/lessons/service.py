"""The owner's operations on one agent's lessons, each in a transaction of its own: what the
command line calls. The logic lives in ``digest.lessons.owner`` and ``digest.lessons.stats``,
whose functions take a session so that callers with one open can compose them.

A typed error (``NotFound``, ``OwnerInputError``, ``LessonStateError``) rolls the transaction
back before it reaches the caller.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from datetime import datetime

from digest import heartbeats
from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.lessons import owner, owner_views, releasing, stats
from digest.lessons.owner import ExpiryChange
from digest.lessons.owner_views import LessonDetail, LessonSummary
from digest.lessons.release import Released
from digest.lessons.stats import AgentStats
from digest.lessons.transition import StatusChange


def _url(settings: Settings | None) -> str:
    return (settings or get_settings()).database_url


def list_lessons(
    tenant: str, agent: str, status: str | None = None, settings: Settings | None = None
) -> list[LessonSummary]:
    """The agent's lessons (optionally of one status), most recently consulted first."""
    with session_scope(_url(settings)) as session:
        return owner_views.list_lessons_for(session, tenant, agent, status)


def search_lessons(
    tenant: str, agent: str, query: str, settings: Settings | None = None
) -> list[LessonSummary]:
    """The agent's lessons whose texts contain ``query``, ignoring case."""
    with session_scope(_url(settings)) as session:
        return owner_views.search_lessons(session, tenant, agent, query)


def lesson_detail(
    tenant: str, agent: str, lesson_id: int, settings: Settings | None = None
) -> LessonDetail:
    """One lesson of the agent with its evidence and history."""
    with session_scope(_url(settings)) as session:
        return owner_views.lesson_detail(session, tenant, agent, lesson_id)


def set_lesson_status(
    tenant: str,
    agent: str,
    lesson_id: int,
    status: str,
    reason: str | None = None,
    by: str | None = None,
    settings: Settings | None = None,
) -> StatusChange:
    """Delete, disable or enable one lesson (see ``owner.set_lesson_status``)."""
    with session_scope(_url(settings)) as session:
        return owner.set_lesson_status(session, tenant, agent, lesson_id, status, reason, by)


def release_lessons(
    tenant: str,
    agent: str,
    lesson_ids: Sequence[int] = (),
    *,
    every_held: bool = False,
    by: str,
    reason: str | None = None,
    settings: Settings | None = None,
) -> list[Released]:
    """Release held or quarantined lessons on a person's word (see
    ``releasing.release_lessons``), all in one transaction."""
    with session_scope(_url(settings)) as session:
        return releasing.release_lessons(
            session, tenant, agent, lesson_ids, every_held=every_held, by=by, reason=reason
        )


def resettable_count(tenant: str, agent: str, settings: Settings | None = None) -> int:
    """How many lessons ``reset_lessons`` would delete now. A transaction of its own, so no
    lock is held while a person reads the confirmation prompt."""
    with session_scope(_url(settings)) as session:
        return owner.resettable_count(session, tenant, agent)


def reset_lessons(
    tenant: str,
    agent: str,
    reason: str | None = None,
    by: str | None = None,
    settings: Settings | None = None,
) -> int:
    """Soft-delete every lesson of the agent that is not deleted yet. Returns how many."""
    with session_scope(_url(settings)) as session:
        return owner.reset_lessons(session, tenant, agent, reason, by)


def agent_stats(
    tenant: str | None = None, agent: str | None = None, settings: Settings | None = None
) -> list[AgentStats]:
    """Per agent (one, a tenant's or everyone's): see ``stats.agent_stats``."""
    with session_scope(_url(settings)) as session:
        return stats.agent_stats(session, tenant, agent)


def relay_warning(settings: Settings | None = None) -> str | None:
    """A sentence when the relay has stopped (``digest.heartbeats.relay_warning``)."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        return heartbeats.relay_warning(session, settings)


def skip_reasons(tenant: str, agent: str, settings: Settings | None = None) -> Counter[str]:
    """How many of the agent's events were skipped, by reason."""
    with session_scope(_url(settings)) as session:
        return stats.skip_reasons(session, tenant, agent)


def set_lesson_expiry(
    tenant: str,
    agent: str,
    lesson_id: int,
    expires_at: datetime | None,
    reason: str | None = None,
    by: str | None = None,
    settings: Settings | None = None,
) -> ExpiryChange:
    """Set or remove one lesson's expiry (see ``owner.set_lesson_expiry``)."""
    with session_scope(_url(settings)) as session:
        return owner.set_lesson_expiry(session, tenant, agent, lesson_id, expires_at, reason, by)
