"""``digest version …`` (digest/cli/versions.py) with ``tenant set`` and ``improve-now``, run in
this process: the embedded default (SQLite), and improve-now through a broker."""

from __future__ import annotations

import json

from tests.cli.conftest import ok, one_error_line, run_cli
from tests.conftest import CLOSED_PORT_BROKER, queued_tasks

T, A = "acme", "bot"
WHO = ("--tenant", T, "--agent", A)


def test_version_lifecycle_through_the_cli(sqlite_env: str) -> None:
    ok("tenant", "create", "--tenant", T)
    ok("tenant", "set", "--tenant", T, "--apply-mode", "approval", "--threshold", "3")
    ok("lesson", "add", *WHO, "--new-agent", "refunds: ask a manager above 200 EUR")
    first = json.loads(ok("improve-now", *WHO, "--json"))
    assert (first["status"], first["number"], first["version_status"]) == ("created", 1, "pending")
    listed = json.loads(ok("version", "list", *WHO, "--json"))
    assert [(v["number"], v["status"]) for v in listed] == [(1, "pending")]
    assert "body_markdown" not in listed[0]
    shown = json.loads(ok("version", "show", *WHO, "1", "--json"))
    assert "ask a manager above 200 EUR" in shown["body_markdown"]
    assert ok("version", "approve", *WHO, "1", "--by", "owner").strip() == (
        "version 1 is active: approved by owner"
    )
    assert ok("version", "diff", *WHO, "1", "1").strip() == (
        "version 1 compared with itself: no difference"
    )

    ok("lesson", "add", *WHO, "shipping: Norway ships from Oslo")
    assert json.loads(ok("improve-now", *WHO, "--json"))["number"] == 2
    diff = ok("version", "diff", *WHO, "1", "2")
    assert diff.startswith("--- v1") and "+- **shipping**: Norway ships from Oslo" in diff
    assert ok("version", "reject", *WHO, "2", "--by", "owner").strip() == "version 2 is rejected"
    assert ok("version", "rollback", *WHO, "1", "--by", "owner").strip() == (
        "version 3 is active (body of version 1)"
    )
    statuses = {v["number"]: v["status"] for v in json.loads(ok("version", "list", *WHO, "--json"))}
    assert statuses == {1: "superseded", 2: "rejected", 3: "active"}
    table = ok("version", "list", *WHO)
    for part in ("status", "change summary", "Rolled back to version 1 by owner."):
        assert part in table
    for by in ("owner (rejected)", "owner (rolled back)", "owner (approved)"):
        assert by in table  # who decided, not the composer that proposed it
    shown_text = ok("version", "show", *WHO, "3")
    assert shown_text.startswith("version 3 (active, rollback)")
    assert "ask a manager above 200 EUR" in shown_text
    # the rejected version's lesson comes back in the next compose
    assert ok("improve-now", *WHO).splitlines() == [
        "version 4 (pending)",
        "  Added (1): shipping",
        "it waits for a person: the tenant's apply mode is approval",
    ]

    one_line = one_error_line
    one_line(run_cli("version", "show", *WHO, "99"), "no version 99")
    one_line(run_cli("version", "diff", *WHO, "1", "99"), "no version 99")
    one_line(run_cli("version", "approve", *WHO, "3", "--by", "x"), "not pending")
    one_line(run_cli("version", "list", "--tenant", T, "--agent", "nobody"), "unknown agent")
    one_line(run_cli("tenant", "set", "--tenant", T, "--apply-mode", "sometimes"), "apply_mode")
    sweep = json.loads(ok("sweep", "--json"))
    assert set(sweep) >= {"composed", "unchanged", "expired", "pruned", "relayed"}


def test_approve_with_a_missing_body_file_is_one_line(sqlite_env: str) -> None:
    ok("tenant", "create", "--tenant", T)
    ok("tenant", "set", "--tenant", T, "--apply-mode", "approval")
    ok("lesson", "add", *WHO, "--new-agent", "refunds: ask a manager above 200 EUR")
    ok("improve-now", *WHO)
    result = run_cli("version", "approve", *WHO, "1", "--by", "x", "--body-file", "/no/body.md")
    one_error_line(result, "--body-file: no such file: /no/body.md")
    assert json.loads(ok("version", "list", *WHO, "--json"))[0]["status"] == "pending"


def test_improve_now_when_the_broker_does_not_take_it(sqlite_env: str) -> None:
    ok("tenant", "create", "--tenant", T)
    ok("lesson", "add", *WHO, "--new-agent", "refunds: ask a manager above 200 EUR")
    down = {"DIGEST_BROKER_URL": CLOSED_PORT_BROKER}
    result = run_cli("improve-now", *WHO, env=down)
    assert result.returncode == 2, result.stderr
    # the publisher's warning is a log line; the failure itself is the last line
    assert result.stderr.splitlines()[-1] == (
        "error: the broker did not take the task; is Redis up? (nothing was changed)"
    )
    assert "Traceback" not in result.stderr
    unknown = run_cli("improve-now", "--tenant", T, "--agent", "nobody", env=down)
    one_error_line(unknown, "unknown agent 'nobody'")


def test_improve_now_wait_gives_up_after_the_timeout(
    services_env: dict[str, str], own_queue: str, tenant: str
) -> None:
    """No worker on the queue: the task waits there, and --wait stops with one sentence."""
    import digest

    digest.record_lesson(tenant, A, "refunds: ask a manager above 200 EUR")
    who = ("--tenant", tenant, "--agent", A)
    queued = run_cli("improve-now", *who, env={"DIGEST_QUEUE": own_queue})
    # not a terminal: the queued line (a person at a terminal waits by default)
    expected = f"queued improve-now for {tenant}/{A} (--wait to see what it does)"
    assert queued.stdout.strip() == expected, queued.stderr
    waited = run_cli(
        "improve-now", *who, "--wait", "--timeout", "1", env={"DIGEST_QUEUE": own_queue}
    )
    one_error_line(waited, "no result after 1 s", f"is a worker running on queue '{own_queue}'?")
    tasks = queued_tasks(services_env["DIGEST_BROKER_URL"], own_queue)
    assert tasks == [("digest.improve_now", [tenant, A])] * 2
