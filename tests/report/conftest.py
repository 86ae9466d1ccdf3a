"""A scripted four-week stream for the report tests, on PostgreSQL with no broker: run
outcomes and operator edits written through the capture API, then dated into their weeks.

What the stream holds, week by week (oldest first), is spelled out in ``EXPECTED`` so the
tests compare the report with numbers a person can check by hand.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update

import digest
from digest.db import session_scope
from digest.models import Event, Lesson, utcnow
from digest.pipeline import drain
from tests.cli.conftest import forget_process_state
from tests.conftest import lessons_for_event

AGENT = "support-bot"
#: days before now each week's events happen (a week is seven days ending now: week 3 is the
#: latest), far from the weeks' edges
DAYS_AGO = (24, 17, 10, 3)
#: text an attacker could have put in a run's error: the page must show it, never run it
#: (lower case, no digits or quotes: the error's template keeps it as it is)
HOSTILE = "<script>window.pwned=true</script><img src=x onerror=window.pwned=true>"

REFUND_ERROR = "ValidationError: field 'amount' is required for order {n}"
ADDRESS_ERROR = "postcode {n} does not match the city"
TIMEOUT_ERROR = "carrier api timed out " + HOSTILE
PROMISE = ("We guarantee it arrives by tomorrow!", "It usually arrives in 2-3 days.")
GREETING = ("Hi there, your order has shipped.", "Your order has shipped.")

#: per week: failures of each topic, runs by outcome, edits of each kind
EXPECTED: dict[str, Any] = {
    "refund": [1, 2, 3, 5],
    "address": [2, 1, 1, 0],
    "timeout": [0, 0, 1, 2],
    "other": [0, 1, 0, 0],
    "success": [12, 12, 12, 12],
    "failure": [3, 4, 5, 7],
    "escalated": [0, 0, 1, 0],
    "promise_edits": [0, 1, 2, 3],
    "greeting_edits": [1, 1, 0, 0],
}


@dataclass
class Stream:
    tenant: str
    now: datetime
    refund: int
    address: int
    promise: int


@pytest.fixture()
def embedded_pg(services_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The test PostgreSQL with no broker: captured events wait for ``drain`` and nothing is
    queued for the workers other tests start."""
    from digest.outbox.publish import reset_publisher

    monkeypatch.delenv("DIGEST_BROKER_URL")
    forget_process_state()
    reset_publisher()
    yield services_env["DIGEST_DATABASE_URL"]
    forget_process_state()


def _date(event_ids: list[int], moment: datetime) -> None:
    with session_scope() as session:
        session.execute(update(Event).where(Event.id.in_(event_ids)).values(created_at=moment))


def _lesson_of(event_id: int, tag: str | None = None) -> int:
    """The one lesson the event taught (with ``tag``: the one of its lessons tagged so)."""
    found = [lesson for lesson in lessons_for_event(event_id) if not tag or tag in lesson.tags]
    assert len(found) == 1, found
    return int(found[0].id)


def scripted_stream(tenant: str) -> Stream:
    """Three lessons learned a month ago (a refund tool's error, an address check's error, an
    operator's edit removing a promise), then four weeks of runs and edits (``EXPECTED``)."""
    now = utcnow()
    taught = [
        digest.record_run(
            tenant, AGENT, task="Refund order 1", outcome="failure",
            tool_calls=[{"tool": "issue_refund", "ok": False, "error": REFUND_ERROR.format(n=1)}],
        ),
        digest.record_run(
            tenant, AGENT, task="Ship order 2", outcome="failure",
            tool_calls=[
                {"tool": "validate_address", "ok": False, "error": ADDRESS_ERROR.format(n=2)}
            ],
        ),
        digest.record_edit(tenant, AGENT, original=PROMISE[0], final=PROMISE[1]),
    ]  # fmt: skip
    drain(tenant=tenant, agent=AGENT)
    # the edit teaches its content, the promise it removed and its tone: the promise is the
    # rule of its shape that the report names first
    refund, address = (_lesson_of(event_id) for event_id in taught[:2])
    promise = _lesson_of(taught[2], tag="promise")
    _date(taught, now - timedelta(days=31))
    with session_scope() as session:
        session.execute(
            update(Lesson)
            .where(Lesson.id.in_([lesson.id for e in taught for lesson in lessons_for_event(e)]))
            .values(created_at=now - timedelta(days=30))
        )

    def run(outcome: str, *applied: int, **fields: Any) -> int:
        return digest.record_run(
            tenant, AGENT, task=fields.pop("task", "Help a customer"), outcome=outcome,
            applied_lesson_ids=applied, **fields,
        )  # fmt: skip

    n = 100
    for week, days in enumerate(DAYS_AGO):
        ids: list[int] = []
        ids += [run("success") for _ in range(8)]
        ids.append(run("success", refund, task="Refund an order"))
        for _ in range(EXPECTED["refund"][week]):
            n += 1
            call = {"tool": "issue_refund", "ok": False, "error": REFUND_ERROR.format(n=n)}
            ids.append(run("failure", refund, task=f"Refund order {n}", tool_calls=[call]))
        ids += [run("success", address, task="Ship an order") for _ in range(3)]
        for _ in range(EXPECTED["address"][week]):
            n += 1
            call = {"tool": "validate_address", "ok": False, "error": ADDRESS_ERROR.format(n=n)}
            ids.append(run("failure", address, task=f"Ship order {n}", tool_calls=[call]))
        ids += [run("failure", error=TIMEOUT_ERROR) for _ in range(EXPECTED["timeout"][week])]
        ids += [run("failure") for _ in range(EXPECTED["other"][week])]
        ids += [run("escalated") for _ in range(EXPECTED["escalated"][week])]
        for _ in range(EXPECTED["promise_edits"][week]):
            ids.append(digest.record_edit(tenant, AGENT, original=PROMISE[0], final=PROMISE[1]))
        for _ in range(EXPECTED["greeting_edits"][week]):
            ids.append(digest.record_edit(tenant, AGENT, original=GREETING[0], final=GREETING[1]))
        _date(ids, now - timedelta(days=days, hours=week))
    # outside the report: a failure five weeks ago, and another agent's failure this week
    _date([run("failure", error=TIMEOUT_ERROR)], now - timedelta(days=40))
    digest.record_run(tenant, "sales-bot", task="Sell", outcome="failure", error=TIMEOUT_ERROR)
    return Stream(tenant, now, refund, address, promise)
