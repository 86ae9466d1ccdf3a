"""The demo's four weeks of operator review (issue 28 point 4): ``examples/edit_history.jsonl``
holds drafts operators reviewed over the last four weeks, each with how many days ago
(``days_ago``), fewer of them edited week by week, so ``digest demo``, ``digest report`` and the
review page show the edit-rate trend ("needed editing 33% → 21% over 4 weeks") on the demo's
own data.

They are captured as any ``record_edit`` (the same idempotency keys on every run: a second demo
adds nothing) and then dated back: a demo's history, not a capture feature. Drafts sent as
drafted teach nothing; the edited ones repeat the demo's own edits.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from sqlalchemy import update

from digest.capture.api import record_edit
from digest.config import Settings, resource_dir
from digest.db import session_scope
from digest.lessons.edit_rate import edit_rate
from digest.lessons.stats import EDIT_RATE_WEEKS
from digest.models import Event, utcnow
from digest.tenants import find_agent


def history_file() -> Path:
    return resource_dir("examples") / "edit_history.jsonl"


def load_edit_history(
    settings: Settings, path: Path | None = None, *, tenant: str | None = None
) -> int:
    """Capture the history's reviewed drafts (into ``tenant`` instead of the demo's, if
    given) and date each back; how many there are."""
    now = utcnow()
    dated: dict[int, float] = {}
    for line in (path or history_file()).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        event_id = record_edit(
            tenant or row["tenant"], row["agent"], original=row["original"], final=row["final"],
            idempotency_key=row["idempotency_key"], thread_id=row.get("thread_id"),
        )  # fmt: skip
        dated[event_id] = float(row["days_ago"])
    with session_scope(settings.database_url) as session:
        for event_id, days in dated.items():
            session.execute(
                update(Event)
                .where(Event.id == event_id)
                .values(created_at=now - timedelta(days=days))
            )
    return len(dated)


def edit_trend(tenant: str, agent: str, settings: Settings) -> str:
    """The agent's edit-rate sentence over the weeks ``stats`` measures."""
    now = utcnow()
    with session_scope(settings.database_url) as session:
        agent_id = find_agent(session, tenant, agent).id
        start = now - timedelta(days=7 * EDIT_RATE_WEEKS)
        rate = edit_rate(session, agent_id, start, EDIT_RATE_WEEKS, settings.edit_ratio_threshold)
    return rate.sentence()
