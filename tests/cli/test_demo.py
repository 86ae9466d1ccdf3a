"""``digest demo`` says when the drain it runs could not reflect an event: one line on stderr and
exit 1 (it used to print its counts and exit 0). Run in this process on the embedded default
(SQLite, no broker, offline/rules); tests/cli/test_events.py runs it as a real subprocess."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from sqlalchemy import update

from digest.capture.api import store_pending
from digest.db import session_scope
from digest.models import Event, utcnow
from tests.cli.conftest import run_cli, run_json
from tests.conftest import event_statuses


def stuck_event(tenant: str) -> int:
    """A manual lesson an older version stored without checking its signature (a 250-character
    title), left ``processing`` by the import that crashed on it: reflecting it raises, every
    time (as in tests/edges/test_drain.py)."""
    event_id, _ = store_pending(
        "manual_lesson", {"tenant": tenant, "agent": "bot", "text": "T" * 250 + "\nDo it."}
    )
    with session_scope() as session:
        session.execute(
            update(Event)
            .where(Event.id == event_id)
            .values(status="processing", attempts=1, processing_started_at=utcnow() - timedelta(1))
        )
    return event_id


def test_demo_exits_1_with_one_line_when_its_drain_reports_errors(
    sqlite_env: str, tenant: str
) -> None:
    stuck = stuck_event(tenant)
    result = run_cli("demo")
    assert result.returncode == 1, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    # (the CLI's log records, JSON lines, go to stderr too)
    lines = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith(f"error: 1 event(s) could not be reflected (event {stuck}: ")
    assert f"reflecting {tenant}/bot raised InvalidEvent" in lines[0]
    # The rest of the demo's output up to the failure is as usual: its events were reflected.
    assert "1. captured" in result.stdout and "1 error" in result.stdout
    assert "lessons learned" in result.stdout and "issue_refund" in result.stdout
    assert "learning document" not in result.stdout  # not composed over a failed drain
    assert event_statuses([stuck]) == {stuck: "processing"}


def test_demo_without_errors_exits_0(sqlite_env: str) -> None:
    result = run_cli("demo")
    assert result.returncode == 0, result.stderr
    assert not [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert "learning document composed version 1 (active)" in result.stdout
    # every lesson left out of the version is accounted for, with what changes that
    said = " ".join(result.stdout.split())
    held = re.search(r"(\d+) lesson\(s\) held: .*?DIGEST_FREQUENCY_GATE", said)
    contact = re.search(r"(\d+) lesson\(s\) for one contact each .*? contact_id=", said)
    added = re.search(r"\| Added \((\d+)\): ", said)
    learned = re.findall(r"^│ +(\d+) │", result.stdout, re.M)
    assert held and contact and added, said
    number = int(added.group(1))
    assert int(held.group(1)) + int(contact.group(1)) + number == len(set(learned))
    # the change summary names whole titles, then how many more: never a cut phrase
    summary = said.split("| Added", 1)[1].split(" ─")[0].strip()
    assert re.search(r"; and \d+ more$", summary) or number <= 5, summary


def test_the_demo_data_show_the_edit_rate_falling_over_four_weeks(
    sqlite_env: str, tmp_path: Path
) -> None:
    """Issue 28: the demo's four weeks of operators' review make the edit-rate trend, in the
    demo's own output, ``digest report`` (terminal, JSON and the HTML page's chart)."""
    result = run_cli("demo")
    assert result.returncode == 0, result.stderr
    said = re.search(
        r"5\. drafts operators reviewed: needed editing (\d+)% → (\d+)% over (\d+)", result.stdout
    )
    assert said, result.stdout[-2000:]
    first, last, weeks = (int(x) for x in said.groups())
    assert first > last and weeks == 4
    report = run_json("report", "--tenant", "demo-shop", "--agent", "support-bot")
    rates = [w["rate"] for w in report["edit_rate"]["weeks"]]
    assert len(rates) == 4 and all(r is not None for r in rates), rates
    assert rates == sorted(rates, reverse=True) and rates[0] > rates[-1]
    assert report["edit_rate"]["summary"] == f"needed editing {first}% → {last}% over 4 weeks"
    terminal = run_cli("report", "--tenant", "demo-shop", "--agent", "support-bot")
    assert f"needed editing {first}% → {last}% over 4 weeks" in terminal.stdout
    page = tmp_path / "report.html"
    run_cli("report", "--tenant", "demo-shop", "--agent", "support-bot", "--html", str(page))
    html = page.read_text(encoding="utf-8")
    assert 'id="chart-edit-rate"' in html and f"{first}% → {last}%" in html
    # a second demo adds nothing to the history (the same idempotency keys)
    assert run_cli("demo").returncode == 0
    again = run_json("report", "--tenant", "demo-shop", "--agent", "support-bot")
    assert again["edit_rate"]["drafts"] == report["edit_rate"]["drafts"]
