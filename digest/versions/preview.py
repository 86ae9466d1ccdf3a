"""``digest version replay``: what a compose would propose for an agent now, replayed against
its active version, and what that compose would do with it (``preview_compose``). No model is
called and nothing is written.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import DigestError
from digest.tenants import find_agent
from digest.versions.chain import current_version
from digest.versions.draft import agent_and_policy, read_draft, why_unchanged
from digest.versions.holds import hold_reasons
from digest.versions.replay.plan import prepare
from digest.versions.replay.report import ReplayReport
from digest.versions.replay.verdict import replay_reasons


@dataclass(frozen=True)
class ComposePreview:
    """What a compose would propose for an agent now, replayed against its active version;
    nothing is written (``digest version replay``)."""

    #: the tenant's apply mode
    mode: str
    #: what a compose now would do: ``no_change`` (the document would be the active version's
    #: or a pending one's), ``activate``, or ``hold`` (it would wait, for ``reasons``)
    outcome: str
    reasons: list[str]
    report: ReplayReport
    #: ``no_change``: why, in words (``draft.why_unchanged``)
    unchanged: str | None = None

    def to_json(self, *, per_event: bool = True) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "outcome": self.outcome,
            "reasons": list(self.reasons),
            "unchanged": self.unchanged,
            "replay": self.report.to_json(per_event=per_event),
        }


def preview_compose(
    tenant: str, agent: str, events: int | None = None, settings: Settings | None = None
) -> ComposePreview:
    """Replay what a compose would propose now against the agent's active version, over its
    ``events`` (default ``DIGEST_REPLAY_EVENTS``) most recent failed or edited events, and say
    what that compose would do with it. No model is called and nothing is written."""
    settings = settings or get_settings()
    n = settings.replay_events if events is None else events
    if n < 1:
        raise DigestError(
            "the replay is off (DIGEST_REPLAY_EVENTS=0): give the number of events to replay"
        )
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        agent_row, policy = agent_and_policy(session, agent_row.id, settings)
        current = current_version(session, agent_row)
        draft = read_draft(session, agent_row, policy, current)
        unchanged = why_unchanged(session, agent_row, current, draft.body)
        plan = prepare(session, agent_row.id, current, draft.lesson_ids, settings, n)
        # everything but the replay's own verdict, which needs the replay
        reasons = hold_reasons(
            session, policy.learning_apply_mode, "manual", current, draft.lesson_ids, None,
            settings,
        )  # fmt: skip
    assert plan is not None
    report = plan.run()  # with no transaction open: new probes may be embedded by a provider
    reasons += replay_reasons(report, settings)
    outcome = "no_change" if unchanged else "hold" if reasons else "activate"
    return ComposePreview(
        policy.learning_apply_mode, outcome, [] if unchanged else reasons, report, unchanged
    )
