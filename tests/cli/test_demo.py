"""``digest demo`` says when the drain it runs could not reflect an event: one line on stderr and
exit 1 (it used to print its counts and exit 0). Run in this process on the embedded default
(SQLite, no broker, offline/rules); tests/cli/test_events.py runs it as a real subprocess."""

from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy import update

from digest.capture.api import store_pending
from digest.db import session_scope
from digest.models import Event, utcnow
from tests.cli.conftest import run_cli
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
