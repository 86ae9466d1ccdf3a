"""Reading an agent's versions: the list, one version, the active one, a diff of two, and the
result of a manual compose (what ``digest improve-now --wait`` waits for). Nothing here writes.
"""

from __future__ import annotations

import difflib
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import undefer

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.models import DigestRun, LearningVersion
from digest.tenants import find_agent
from digest.versions.chain import current_version
from digest.versions.decisions import get_version
from digest.versions.replay.report import ReplayReport

if TYPE_CHECKING:
    from digest.versions.compose import ComposeResult


@dataclass(frozen=True)
class VersionSummary:
    """One learning version as ``digest version list`` and ``show`` report it."""

    number: int
    status: str
    trigger: str
    proposed_by: str
    created_at: datetime | None
    approved_by: str | None
    change_summary: str
    folded_lesson_ids: list[int]
    supporting_event_ids: list[int]
    llm_calls: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    body_markdown: str
    #: why it waited for a person instead of becoming active on its own ("; "-separated:
    #: the apply mode, lost coverage, a sharp shrink, trusted lessons changed); None: it did
    #: not wait (it was activated when composed, or is a rollback)
    hold_reason: str | None = None
    #: its replay against the version active when it was proposed, per event and in totals
    #: (``digest.versions.replay.report.ReplayReport``); None: composed before replays, or
    #: replay off
    replay: ReplayReport | None = None

    @classmethod
    def of(cls, version: LearningVersion) -> VersionSummary:
        return cls(
            number=version.number,
            status=version.status,
            trigger=version.trigger,
            proposed_by=version.proposed_by,
            created_at=version.created_at,
            approved_by=version.approved_by,
            change_summary=version.change_summary,
            folded_lesson_ids=list(version.folded_lesson_ids or []),
            supporting_event_ids=list(version.supporting_event_ids or []),
            llm_calls=version.llm_calls,
            prompt_tokens=version.prompt_tokens,
            completion_tokens=version.completion_tokens,
            cost_usd=version.cost_usd,
            body_markdown=version.body_markdown,
            hold_reason=version.hold_reason,
            replay=ReplayReport.from_json(version.replay) if version.replay else None,
        )

    def to_json(self, *, body: bool = False) -> dict[str, Any]:
        """Everything but the body and the replay's events (a listing stays small: its
        totals stay), unless ``body``."""
        data = asdict(self)
        data["created_at"] = self.created_at.isoformat() if self.created_at else None
        data["replay"] = self.replay.to_json(per_event=body) if self.replay else None
        if not body:
            del data["body_markdown"]
        return data


def _settings(settings: Settings | None) -> Settings:
    return settings or get_settings()


def list_versions(
    tenant: str, agent: str, settings: Settings | None = None
) -> list[VersionSummary]:
    """Every version of the agent, newest first. ``NotFound`` for an unknown tenant or agent."""
    with session_scope(_settings(settings).database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        versions = session.scalars(
            select(LearningVersion)
            .options(undefer(LearningVersion.replay))
            .where(LearningVersion.agent_id == agent_row.id)
            .order_by(LearningVersion.number.desc())
        )
        return [VersionSummary.of(v) for v in versions]


def read_version(
    tenant: str, agent: str, number: int, settings: Settings | None = None
) -> VersionSummary:
    """Version ``number`` of the agent, or ``NotFound``."""
    with session_scope(_settings(settings).database_url) as session:
        return VersionSummary.of(get_version(session, tenant, agent, number))


def diff_versions(
    tenant: str, agent: str, old: int, new: int, settings: Settings | None = None
) -> str:
    """Unified diff of two versions' bodies (labelled ``v<old>`` and ``v<new>``)."""
    with session_scope(_settings(settings).database_url) as session:
        a = get_version(session, tenant, agent, old).body_markdown
        b = get_version(session, tenant, agent, new).body_markdown
    lines = difflib.unified_diff(
        a.splitlines(keepends=True), b.splitlines(keepends=True), f"v{old}", f"v{new}"
    )
    return "".join(lines)


def active_version(
    tenant: str, agent: str, settings: Settings | None = None
) -> VersionSummary | None:
    """The agent's active version, or None before its first one."""
    with session_scope(_settings(settings).database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        if agent_row.current_version_id is None:
            return None
        version = session.get(LearningVersion, agent_row.current_version_id)
        return VersionSummary.of(version) if version is not None else None


def manual_compose_since(
    tenant: str, agent: str, since: datetime, settings: Settings | None = None
) -> ComposeResult | None:
    """What the agent's latest manual compose started at or after ``since`` did, or None while
    there is none (the worker has not composed yet)."""
    # here, not at the top: the read commands (``version list``, ``show``, ``diff``) import
    # this module, and compose loads the model seam, the offline judge and the replay
    from digest.versions.compose import ComposeResult
    from digest.versions.draft import agent_and_policy, read_draft, why_unchanged

    with session_scope(_settings(settings).database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        run = session.scalars(
            select(DigestRun)
            .where(
                DigestRun.agent_id == agent_row.id,
                DigestRun.kind == "compose",
                DigestRun.trigger == "manual",
                DigestRun.started_at >= since,
            )
            .order_by(DigestRun.id.desc())
            .limit(1)
        ).first()
        if run is None:
            return None
        version = session.get(LearningVersion, run.version_id) if run.version_id else None
        if version is None:
            # the worker's words are not stored: the same question asked of the bank now
            agent_row, policy = agent_and_policy(session, agent_row.id, _settings(settings))
            current = current_version(session, agent_row)
            draft = read_draft(session, agent_row, policy, current)
            reason = why_unchanged(session, agent_row, current, draft.body)
            return ComposeResult("no_change", reason=reason)
        return ComposeResult(
            "created", version.id, version.number, version.status, version.change_summary,
            hold_reason=version.hold_reason,
        )  # fmt: skip
