"""The edit-rate metric (issue 28 point 4): the share of reviewed drafts operators edited or
rejected, week by week, in the report (terminal, JSON, HTML with its chart), ``stats`` and the
review page's agent page, as "needed editing 60% → 20% over 3 weeks"."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

import digest
from digest.db import session_scope
from digest.models import Event, utcnow
from digest.report import build_report, render_html
from tests.cli.conftest import ok, run_json

DRAFT = "Hi! Your refund for order {n} is on its way and will arrive tomorrow, guaranteed!"
EDITED = "Hello, the refund for order {n} has been issued; banks take 3-5 working days."


def _week(tenant: str, days_ago: int, edited: int, rejected: int, unchanged: int) -> None:
    ids = []
    for n in range(edited):
        ids.append(digest.record_edit(tenant, "bot", original=DRAFT.format(n=n),
                                      final=EDITED.format(n=n)))  # fmt: skip
    for n in range(rejected):
        ids.append(digest.record_edit(tenant, "bot", original=DRAFT.format(n=n), final=None))
    for n in range(unchanged):
        sent = f"Your order {n} ships today."
        ids.append(digest.record_edit(tenant, "bot", original=sent, final=sent))
    with session_scope() as session:
        session.execute(
            update(Event)
            .where(Event.id.in_(ids))
            .values(created_at=utcnow() - timedelta(days=days_ago))
        )


@pytest.mark.usefixtures("embedded_pg")
def test_the_edit_rate_falls_week_by_week_in_the_report_stats_and_page(tenant: str) -> None:
    _week(tenant, 20, edited=2, rejected=1, unchanged=2)  # 3 of 5 needed editing
    _week(tenant, 13, edited=1, rejected=1, unchanged=3)  # 2 of 5
    _week(tenant, 6, edited=1, rejected=0, unchanged=4)  # 1 of 5
    report = build_report(tenant, "bot", weeks=3)
    rate = report.edit_rate
    assert rate is not None
    assert [(w.drafts, w.edited, w.rejected) for w in rate.weeks] == [
        (5, 2, 1),
        (5, 1, 1),
        (5, 1, 0),
    ]
    assert [w.rate for w in rate.weeks] == [0.6, 0.4, 0.2]
    # a rejected draft changed all of it; an edit its normalised distance
    assert rate.weeks[2].changed is not None and 0 < rate.weeks[2].changed < 1
    assert rate.sentence() == "needed editing 60% → 20% over 3 weeks"
    assert report.to_json()["edit_rate"]["summary"] == rate.sentence()

    html = render_html(report)
    assert 'id="chart-edit-rate"' in html and "needed editing 60% → 20% over 3 weeks" in html
    terminal = ok("report", "--tenant", tenant, "--agent", "bot", "--weeks", "3")
    assert "drafts: needed editing 60% → 20% over 3 weeks" in terminal
    [row] = run_json("stats", "--tenant", tenant, "--agent", "bot")
    assert row["edit_rate"]["drafts"] == 15
    assert "needed editing" in ok("stats", "--tenant", tenant, "--agent", "bot")


@pytest.mark.usefixtures("embedded_pg")
def test_no_drafts_says_how_to_report_them(tenant: str) -> None:
    digest.record_run(tenant, "bot", task="hello", outcome="success")
    report = build_report(tenant, "bot", weeks=2)
    assert report.edit_rate is not None and report.edit_rate.drafts == 0
    assert "record_edit" in report.edit_rate.sentence()
