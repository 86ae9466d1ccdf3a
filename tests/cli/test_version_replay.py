"""``digest version replay`` and what ``version show`` and ``improve-now`` say of a version's
replay and of why it waits (issue 16); ``tenant set --apply-mode staged``. The embedded default
(SQLite, offline/rules), the typer app run in this process."""

from __future__ import annotations

import json

import digest
from tests.cli.conftest import invoke, one_error
from tests.conftest import lessons_for_event

T, A = "acme", "bot"
WHO = ("--tenant", T, "--agent", A)


def ok(*args: str) -> str:
    result = invoke(*args)
    assert result.exit_code == 0, (args, result.output)
    return result.stdout


def flat(text: str) -> str:
    """The output with its lines joined (rich wraps long sentences at the terminal's width)."""
    return " ".join(text.split())


def fail(task: str, tool: str, error: str) -> int:
    return digest.record_run(
        T, A, task=task, outcome="failure", tool_calls=[{"tool": tool, "ok": False, "error": error}]
    )


def test_replay_show_and_a_held_version_through_the_cli(sqlite_env: str) -> None:
    ok("tenant", "create", "--tenant", T)
    assert ok("tenant", "set", "--tenant", T, "--apply-mode", "staged", "--gate", "1",
              "--spread", "0").strip() == (
        "tenant 'acme': apply mode staged; --gate 1, --spread 0"
    )  # fmt: skip
    for n in range(3):
        ok("lesson", "add", *WHO, "--new-agent", f"rule-{n}: always do thing {n} first")
    courier = fail("Book a courier for order 7", "book_courier", "field 'carrier_code' is required")
    refund = fail("Refund the customer for order 12", "refund", "amount is required")
    assert ok("improve-now", *WHO).splitlines()[0] == "version 1 (active)"

    shown = ok("version", "show", *WHO, "1")
    assert "replay of 2 recent failed or edited event(s), 2 since the active version" in shown
    assert "covered (surfaced)" in shown and "2 (100%)" in shown
    assert "waits for a person" not in shown

    [refund_lesson] = lessons_for_event(refund)
    ok("lesson", "disable", *WHO, str(refund_lesson.id))
    preview = ok("version", "replay", *WHO)
    assert "v1 (active)" in preview and "proposed now" in preview
    assert "gained 0, lost 1" in preview
    assert f"surfaced #{refund_lesson.id}" in preview and "Refund the customer" in preview
    assert "1 event(s) covered alike are not listed" in preview
    assert "a compose now would keep the new version pending for a person (staged mode)" in (
        preview
    )
    as_json = json.loads(ok("version", "replay", *WHO, "--json"))
    assert (as_json["mode"], as_json["outcome"]) == ("staged", "hold")
    [reason] = as_json["reasons"]
    assert reason.startswith("replay: it covers 1 of the 2 recent failed or edited events")
    report = as_json["replay"]
    assert (report["current_covered"], report["proposed_covered"], report["lost"]) == (2, 1, 1)
    assert {e["event_id"] for e in report["per_event"]} == {courier, refund}
    assert len(json.loads(ok("version", "replay", *WHO, "1", "--json"))["replay"]["per_event"]) == 1

    held = ok("improve-now", *WHO)
    assert held.startswith("version 2 (pending)\n")
    assert flat(held).endswith(f"it waits for a person: {reason}")
    shown = ok("version", "show", *WHO, "2")
    assert flat(shown).startswith(f"version 2 (pending, manual) it waits for a person: {reason}")
    data = json.loads(ok("version", "show", *WHO, "2", "--json"))
    assert data["hold_reason"] == reason and data["status"] == "pending"
    assert data["replay"]["proposed_coverage"] == 0.5 and len(data["replay"]["per_event"]) == 2
    listed = json.loads(ok("version", "list", *WHO, "--json"))
    assert [v["hold_reason"] for v in listed] == [reason, None]
    assert listed[0]["replay"]["per_event"] is None  # a listing keeps the totals only

    ok("version", "approve", *WHO, "2", "--by", "owner")
    assert "it waited for a person" in ok("version", "show", *WHO, "2")
    # nothing changed since: a compose now would write nothing
    assert "write no new version" in ok("version", "replay", *WHO)


def test_replay_errors_are_one_sentence(sqlite_env: str) -> None:
    ok("tenant", "create", "--tenant", T)
    ok("lesson", "add", *WHO, "--new-agent", "rule: always do the thing")
    one_error(invoke("version", "replay", "--tenant", T, "--agent", "nobody"), "unknown agent")
    one_error(invoke("version", "replay", *WHO, "0"), "events", "version replay --help")
    one_error(invoke("tenant", "set", "--tenant", T, "--apply-mode", "sometimes"), "staged")
