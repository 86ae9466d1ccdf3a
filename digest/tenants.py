"""Tenants and agents: finding an agent by its keys, and per-tenant settings (apply mode and the
knobs of the version triggers).

``tenants.settings`` holds overrides; anything not set there falls back to the process
settings (``DIGEST_THRESHOLD_SIGNALS``, ``DIGEST_QUIET_SECONDS``, ``DIGEST_FREQUENCY_GATE``,
``DIGEST_PROMOTION_CONTACTS``, ``DIGEST_INDEPENDENT_SPREAD_S``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import InvalidEvent, NotFound
from digest.models import APPLY_MODES, Agent, Tenant, utcnow

#: the keys a tenant may override, with their lower bounds
TENANT_KEYS = {
    "threshold_signals": 1,
    "quiet_seconds": 0,
    "frequency_gate": 1,
    "promotion_contacts": 2,
    "independent_spread_s": 0,
}


@dataclass(frozen=True)
class TenantPolicy:
    name: str
    learning_apply_mode: str
    threshold_signals: int
    quiet_seconds: int
    frequency_gate: int
    promotion_contacts: int
    independent_spread_s: int


def policy_for(tenant: Tenant, settings: Settings) -> TenantPolicy:
    own: dict[str, Any] = dict(tenant.settings or {})

    def value(key: str) -> int:
        raw = own.get(key)
        return (
            int(raw)
            if isinstance(raw, int) and not isinstance(raw, bool)
            else getattr(settings, key)
        )

    return TenantPolicy(
        name=tenant.name,
        learning_apply_mode=tenant.learning_apply_mode,
        threshold_signals=value("threshold_signals"),
        quiet_seconds=value("quiet_seconds"),
        frequency_gate=value("frequency_gate"),
        promotion_contacts=value("promotion_contacts"),
        independent_spread_s=value("independent_spread_s"),
    )


def configure_tenant(
    session: Session,
    name: str,
    *,
    learning_apply_mode: str | None = None,
    **overrides: int | None,
) -> Tenant:
    """Create the tenant if needed and set its apply mode and trigger overrides.

    Raises ``InvalidEvent`` naming the field for an unknown mode, key or out-of-range value.
    """
    if learning_apply_mode is not None and learning_apply_mode not in APPLY_MODES:
        raise InvalidEvent("learning_apply_mode", f"one of {list(APPLY_MODES)}")
    for key, value in overrides.items():
        if key not in TENANT_KEYS:
            raise InvalidEvent(key, f"unknown tenant setting; one of {sorted(TENANT_KEYS)}")
        if value is not None and (
            not isinstance(value, int) or isinstance(value, bool) or value < TENANT_KEYS[key]
        ):
            raise InvalidEvent(key, f"must be an integer ≥ {TENANT_KEYS[key]}")
    tenant = session.scalars(select(Tenant).where(Tenant.name == name)).first()
    if tenant is None:
        tenant = Tenant(name=name, learning_apply_mode="auto", settings={}, created_at=utcnow())
        session.add(tenant)
    if learning_apply_mode is not None:
        tenant.learning_apply_mode = learning_apply_mode
    merged = dict(tenant.settings or {})
    merged.update({k: v for k, v in overrides.items() if v is not None})
    tenant.settings = merged
    session.flush()
    return tenant


def find_agent(session: Session, tenant: str, agent: str) -> Agent:
    """The agent ``agent`` of tenant ``tenant``, or ``NotFound`` naming which one is unknown."""
    tenant_row = session.scalars(select(Tenant).where(Tenant.name == tenant)).first()
    if tenant_row is None:
        raise NotFound(f"unknown tenant {tenant!r}")
    agent_row = session.scalars(
        select(Agent).where(Agent.tenant_id == tenant_row.id, Agent.name == agent)
    ).first()
    if agent_row is None:
        raise NotFound(f"unknown agent {agent!r} in tenant {tenant!r}")
    return agent_row


@dataclass(frozen=True)
class TenantSettings:
    """A tenant's apply mode and the trigger settings it overrides (the rest follow
    DIGEST_*)."""

    name: str
    learning_apply_mode: str
    overrides: dict[str, int]


def set_tenant(
    tenant: str,
    *,
    learning_apply_mode: str | None = None,
    settings: Settings | None = None,
    **overrides: int | None,
) -> TenantSettings:
    """Set a tenant's apply mode (``auto`` or ``approval``) and trigger overrides, creating the
    tenant if needed. ``InvalidEvent`` naming the field for a value it cannot use."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        row = configure_tenant(
            session, tenant, learning_apply_mode=learning_apply_mode, **overrides
        )
        return TenantSettings(row.name, row.learning_apply_mode, dict(row.settings or {}))
