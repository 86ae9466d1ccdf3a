"""An agent's own settings, as its owner sees and sets them: whether it learns
(``enable_learning``), the instructions its reflection reads (``learning_instructions``) and the
model that serves every step for it (``llm_model``; unset: the ``DIGEST_LLM_*`` models).

Owner calls never create anything: an unknown tenant or agent is ``NotFound`` suggesting the
closest existing name (``digest.tenants.find_agent``); capture creates agents on first use.
``digest agent set|show|list``, ``/v1/agents`` (owner key) and the review page all call here.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import InvalidArgument
from digest.models import Agent, LearningVersion, Lesson, Tenant, as_utc
from digest.tenants import find_agent, missing_tenant, tenant_named

#: the longest learning instructions an agent keeps (a lesson body's cap)
INSTRUCTIONS_MAX = 4096
#: the longest model string (the column holds 200 characters)
MODEL_MAX = 200
#: the skip reason of an event captured while its agent's learning is off (stats counts them)
LEARNING_OFF_REASON = "learning is disabled for this agent (`digest agent set --learning on`)"


class _Keep:
    """``set_agent``'s default for a setting left as it is (``None`` clears one)."""

    def __repr__(self) -> str:
        return "KEEP"


KEEP: Any = _Keep()


@dataclass(frozen=True)
class AgentSettings:
    """One agent's settings, and what it holds, as ``agent show`` and ``agent list`` print."""

    tenant: str
    agent: str
    enable_learning: bool
    learning_instructions: str | None
    #: the agent's own model (``None``: the ``DIGEST_LLM_*`` models serve it)
    llm_model: str | None
    #: the model its reflection uses: its own, else ``DIGEST_LLM_REFLECT_MODEL`` or
    #: ``DIGEST_LLM_MODEL``
    model_in_use: str
    active_lessons: int
    current_version: int | None
    created_at: datetime | None
    #: the settings this call changed (``set_agent``; empty for a read)
    changed: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "tenant": self.tenant,
            "agent": self.agent,
            "enable_learning": self.enable_learning,
            "learning_instructions": self.learning_instructions,
            "llm_model": self.llm_model,
            "model_in_use": self.model_in_use,
            "active_lessons": self.active_lessons,
            "current_version": self.current_version,
            "created_at": self.created_at.isoformat() if self.created_at else None,
            "changed": list(self.changed),
        }


def _shown(
    session: Session, row: Agent, settings: Settings, changed: tuple[str, ...] = ()
) -> AgentSettings:
    tenant = session.scalar(select(Tenant.name).where(Tenant.id == row.tenant_id)) or ""
    active = session.scalar(
        select(func.count())
        .select_from(Lesson)
        .where(Lesson.agent_id == row.id, Lesson.status == "active")
    )
    version = None
    if row.current_version_id is not None:
        version = session.scalar(
            select(LearningVersion.number).where(LearningVersion.id == row.current_version_id)
        )
    return AgentSettings(
        tenant=tenant,
        agent=row.name,
        enable_learning=row.enable_learning,
        learning_instructions=row.learning_instructions,
        llm_model=row.llm_model,
        model_in_use=row.llm_model or settings.model_for("reflect"),
        active_lessons=int(active or 0),
        current_version=version,
        created_at=as_utc(row.created_at) if row.created_at else None,
        changed=changed,
    )


def instructions_value(value: str | None) -> str | None:
    """Instructions as stored: stripped; ``None`` clears them. ``InvalidArgument`` naming
    ``learning_instructions`` for empty text or more than ``INSTRUCTIONS_MAX`` characters."""
    if value is None:
        return None
    text = value.strip()
    if not text:
        raise InvalidArgument(
            "learning_instructions: empty; to remove them, clear them "
            "(`digest agent set --no-instructions`)"
        )
    if len(text) > INSTRUCTIONS_MAX:
        raise InvalidArgument(
            f"learning_instructions: {len(text)} characters; at most {INSTRUCTIONS_MAX}"
        )
    return text


def model_value(value: str | None) -> str | None:
    """A model string as stored; ``None`` goes back to the ``DIGEST_LLM_*`` models.
    ``InvalidArgument`` naming ``llm_model`` for an empty string, one with spaces or control
    characters, or one longer than ``MODEL_MAX``."""
    if value is None:
        return None
    model = value.strip()
    if not model:
        raise InvalidArgument(
            "llm_model: empty; to use the default models, `digest agent set --default-model`"
        )
    if len(model) > MODEL_MAX:
        raise InvalidArgument(f"llm_model: {len(model)} characters; at most {MODEL_MAX}")
    if any(char.isspace() or not char.isprintable() for char in model):
        raise InvalidArgument(
            f"llm_model: {model!r} is not a model string (no spaces or control characters; "
            "e.g. openai/gpt-4o-mini)"
        )
    return model


def agent_settings(tenant: str, agent: str, settings: Settings | None = None) -> AgentSettings:
    """One agent's settings (``NotFound`` suggesting the closest name when there is none)."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        return _shown(session, find_agent(session, tenant, agent), settings)


def list_agents(tenant: str, settings: Settings | None = None) -> list[AgentSettings]:
    """Every agent of the tenant by name (``NotFound`` for an unknown tenant)."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        row = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
        if row is None:
            raise missing_tenant(session, tenant)
        agents = session.scalars(
            select(Agent).where(Agent.tenant_id == row.id).order_by(Agent.name)
        ).all()
        return [_shown(session, agent, settings) for agent in agents]


def set_agent(
    tenant: str,
    agent: str,
    *,
    enable_learning: bool | None = None,
    learning_instructions: str | None = KEEP,
    llm_model: str | None = KEEP,
    settings: Settings | None = None,
) -> AgentSettings:
    """Change an existing agent's settings: each argument left out stays as it is;
    ``learning_instructions=None`` removes the instructions and ``llm_model=None`` goes back to
    the ``DIGEST_LLM_*`` models. Every value is checked before anything is written
    (``InvalidArgument`` naming the field); ``AgentSettings.changed`` names what moved."""
    settings = settings or get_settings()
    wanted: dict[str, Any] = {}
    if enable_learning is not None:
        if not isinstance(enable_learning, bool):
            raise InvalidArgument("enable_learning: must be true or false")
        wanted["enable_learning"] = enable_learning
    if learning_instructions is not KEEP:
        wanted["learning_instructions"] = instructions_value(learning_instructions)
    if llm_model is not KEEP:
        wanted["llm_model"] = model_value(llm_model)
    if not wanted:
        raise InvalidArgument(
            "nothing to set: give learning on or off, instructions (or clear them) or a model "
            "(or the default)"
        )
    with session_scope(settings.database_url) as session:
        row = find_agent(session, tenant, agent)
        changed = tuple(name for name, value in wanted.items() if getattr(row, name) != value)
        for name in changed:
            setattr(row, name, wanted[name])
        session.flush()
        return _shown(session, row, settings, changed)
