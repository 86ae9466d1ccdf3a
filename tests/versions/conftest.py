"""Helpers the versions tests share: one agent ``bot`` per test tenant, its versions and
lessons."""

from __future__ import annotations

from sqlalchemy import select

from digest.db import session_scope
from digest.models import LearningVersion
from digest.tenants import configure_tenant, find_agent
from tests.conftest import manual_lesson

AGENT = "bot"


def agent_id(tenant: str) -> int:
    with session_scope() as session:
        return find_agent(session, tenant, AGENT).id


def versions(tenant: str) -> list[LearningVersion]:
    with session_scope() as session:
        return list(
            session.scalars(
                select(LearningVersion)
                .where(LearningVersion.agent_id == find_agent(session, tenant, AGENT).id)
                .order_by(LearningVersion.number)
            )
        )


def current_number(tenant: str) -> int | None:
    with session_scope() as session:
        agent = find_agent(session, tenant, AGENT)
        if agent.current_version_id is None:
            return None
        row = session.get(LearningVersion, agent.current_version_id)
        return row.number if row else None


def set_mode(tenant: str, mode: str, **overrides: int) -> None:
    with session_scope() as session:
        configure_tenant(session, tenant, learning_apply_mode=mode, **overrides)


def lesson(tenant: str, n: int) -> int:
    return manual_lesson(tenant, AGENT, f"rule-{n}: always do thing number {n} first")
