"""Randomized holdouts (issue 29): on a share of turns, each eligible lesson is withheld, so its
causal effect can be measured (``digest.lessons.effect.randomized``).

A turn is one ``pitfalls`` call given a ``turn_id`` (the agent's id for the turn, passed again
as ``record_run(..., turn_id=...)``); ``examples`` given the same id withholds an example with
the lessons citing it (``digest.fewshot.Holdout``). Without a turn id nothing is withheld: an
outcome that cannot be matched to the draw would measure nothing. The lessons ``pitfalls``
would show on that turn are the eligible ones (trusted and reviewed ones too, unless
``DIGEST_HOLDOUT_EXCLUDE_TRUSTED``); each is withheld when its draw falls below the share
(``DIGEST_HOLDOUT_SHARE``, or the tenant's ``holdout_permille`` / 1000). The draw is a keyed
hash of (agent, turn, lesson): independent of the prompt, the lesson's rank and everything the
agent knows, and the same on a retry of the same turn.

Each exposure (turn, lesson, shown or withheld) is queued in the process and written by one
thread per process after the agent has its answer, like hit counts (``digest.lessons.hits``):
no round trip on the turn. ``flush_exposures`` waits for what was queued. A retry of a turn
writes nothing new (the row is unique per agent, turn and lesson).
"""

from __future__ import annotations

import atexit
import hashlib
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

from digest.lessons.offturn import FLUSH_WAIT_S, OffTurnWriter
from digest.models import utcnow
from digest.runtime import runtime

#: the tenant setting that overrides ``DIGEST_HOLDOUT_SHARE``, in thousandths
TENANT_KEY = "holdout_permille"
_KEY = b"digest-holdout-v1"


class _Row(Protocol):
    @property
    def id(self) -> int: ...
    @property
    def trust(self) -> str: ...


R = TypeVar("R", bound=_Row)


def draw(agent_id: int, turn_id: str, lesson_id: int) -> float:
    """A number in [0, 1), uniform and reproducible from (agent, turn, lesson)."""
    message = f"{agent_id}\x00{turn_id}\x00{lesson_id}".encode()
    digest = hashlib.blake2b(message, key=_KEY, digest_size=8).digest()
    return int.from_bytes(digest, "big") / 2**64


def share_for(tenant_settings: dict[str, Any] | None, default: float) -> float:
    """The tenant's holdout share: its ``holdout_permille`` override, else ``default``."""
    own = (tenant_settings or {}).get(TENANT_KEY)
    if isinstance(own, int) and not isinstance(own, bool) and 0 <= own <= 500:
        return own / 1000
    return default


def withhold(
    url: str,
    agent_id: int,
    turn_id: str | None,
    rows: Sequence[R],
    *,
    share: float,
    exclude_trusted: bool,
) -> list[R]:
    """The rows to show on this turn; queues an exposure for each eligible one."""
    if not turn_id or share <= 0 or not rows:
        return list(rows)
    from digest.models import PROTECTED_TRUST

    shown: list[R] = []
    exposures: list[tuple[int, bool]] = []
    for row in rows:
        if exclude_trusted and row.trust in PROTECTED_TRUST:
            shown.append(row)
            continue
        keep = draw(agent_id, turn_id, row.id) >= share
        exposures.append((row.id, keep))
        if keep:
            shown.append(row)
    if exposures:
        runtime().piece(_Exposures).add(url, agent_id, turn_id, exposures)
    return shown


class _Exposures(OffTurnWriter):
    """Queued exposures by database URL (rows to insert), and the thread that writes them."""

    thread_name = "digest-holdout"
    failure = "holdout_write_failed"

    def empty(self) -> dict[str, list[dict[str, Any]]]:
        return {}

    def write(self, batch: dict[str, list[dict[str, Any]]]) -> None:
        _write(batch)

    def add(self, url: str, agent_id: int, turn_id: str, exposures: list[tuple[int, bool]]) -> None:
        now = utcnow()
        rows = [
            {"agent_id": agent_id, "lesson_id": lid, "turn_id": turn_id, "shown": shown, "at": now}
            for lid, shown in exposures
        ]
        self.queue(lambda queued: queued.setdefault(url, []).extend(rows))


def _write(batch: dict[str, list[dict[str, Any]]]) -> None:
    from sqlalchemy import text
    from sqlalchemy.dialects.postgresql import insert as pg_insert
    from sqlalchemy.dialects.sqlite import insert as sqlite_insert
    from sqlalchemy.orm import Session

    from digest.db import get_engine
    from digest.models import HoldoutExposure

    for url, rows in batch.items():
        engine = get_engine(url)
        insert = pg_insert if engine.dialect.name == "postgresql" else sqlite_insert
        with Session(engine) as session, session.begin():
            if engine.dialect.name == "postgresql":
                session.execute(text("SET LOCAL synchronous_commit TO OFF"))
            for start in range(0, len(rows), 500):
                session.execute(
                    insert(HoldoutExposure)
                    .values(rows[start : start + 500])
                    .on_conflict_do_nothing(index_elements=["agent_id", "turn_id", "lesson_id"])
                )


def flush_exposures(timeout: float = FLUSH_WAIT_S) -> bool:
    """Wait until the exposures queued so far are written (False if ``timeout`` passed)."""
    found = runtime().peek(_Exposures)
    return True if found is None else found.flush(timeout)


@atexit.register
def _flush_at_exit() -> None:
    found = runtime().peek(_Exposures)
    if found is not None:
        found.close()
