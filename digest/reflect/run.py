"""The run view: one reflect run of one claimed event while it is in progress.

A ``RunInfo`` carries what the core's steps share: the claimed event, the settings, the model
usage so far, which model answered and under which prompt versions, whether a stored
judgement stood for the model's, and what the parser refused. It becomes the event's
``digest_runs`` row when the run ends, whichever way it ends.
"""

from __future__ import annotations

import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import structlog
from sqlalchemy.orm import Session

from digest.config import Settings
from digest.lessons.plain_rows import add_row
from digest.model import seam as llm
from digest.model.prompts import load_prompt
from digest.models import DigestRun, Event
from digest.reflect import judgements
from digest.reflect.claims import Claimed


@dataclass
class RunInfo:
    """One reflect run in progress: what it claimed, what it spent, how it is configured."""

    claimed: Claimed
    usage: Any
    started: float
    settings: Settings
    prompt_hash: str
    model: str | None = None
    reconcile_hash: str | None = None
    #: structure of the model's answers the parser refused (recorded in digest_runs.error)
    refused: list[str] = field(default_factory=list)
    #: a stored judgement stood for the model's (digest.reflect.judgements)
    reused: judgements.Reused | None = None
    #: the verdict came from the model (or this process's memory of its answer): it may be
    #: stored for the fleet
    judged: bool = False

    def add_digest_run(self, session: Session, event: Event, **counts: Any) -> None:
        """Append this run's ``digest_runs`` row to the session's transaction (a plain row:
        ``digest.lessons.plain_rows``): ``counts`` are its counts and ``error``, the rest
        ``DigestRun``'s defaults, as an object's would be."""
        add_row(
            session,
            DigestRun,
            {
                "tenant_id": event.tenant_id,
                "agent_id": event.agent_id,
                "event_id": event.id,
                "kind": "reflect",
                "trigger": "event",
                **counts,
                "llm_calls": self.usage.calls,
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "cost_usd": self.usage.cost_usd,
                "model": self.model or self.usage.model,
                "duration_ms": int((time.monotonic() - self.started) * 1000),
            },
        )

    @property
    def history_hash(self) -> str:
        return "+".join(h for h in (self.prompt_hash, self.reconcile_hash) if h)


def new_run(claimed: Claimed, settings: Settings, started: float | None = None) -> RunInfo:
    """A run of ``claimed`` that started at ``started`` (``time.monotonic()``; now if None)."""
    begun = time.monotonic() if started is None else started
    return RunInfo(claimed, llm.Usage(), begun, settings, load_prompt("reflect").hash)


def about(claimed: Claimed) -> AbstractContextManager[None]:
    """Log lines written inside name the event, its tenant and its agent."""
    return structlog.contextvars.bound_contextvars(
        event_id=claimed.event_id, tenant=claimed.tenant, agent=claimed.agent
    )
