"""``digest forget`` (issue 29 point 2) on the command line: what it prints, ``--json``,
``--event``, nothing to forget (exit 0), and its one-line errors. (What is erased everywhere:
tests/test_forget.py.)"""

from __future__ import annotations

import digest
from digest.forget import subject_hash
from tests.cli.conftest import ok, one_error_line, run_cli, run_json


def test_forget_a_contact_and_an_event(sqlite_env: str, tenant: str) -> None:
    kept = digest.record_run(tenant, "bot", task="refund order 3", outcome="failure",
                             contact_id="bob")  # fmt: skip
    for _ in range(2):
        digest.record_run(tenant, "bot", task="refund order 9", outcome="failure",
                          contact_id="ann")  # fmt: skip

    said = ok("forget", "--tenant", tenant, "--contact", "ann", "--by", "dpo")
    assert f"forgot the contact in tenant {tenant!r}: " in said and "events 2" in said
    assert "ann" not in said  # the audit keeps a hash, and so does the output
    assert "digest export" in said

    again = ok("forget", "--tenant", tenant, "--contact", "ann")
    assert again.startswith("nothing to forget")

    found = run_json("forget", "--tenant", tenant, "--event", str(kept))
    assert found["kind"] == "event" and found["counts"]["events"] == 1
    assert found["subject_hash"] == subject_hash("event", str(kept))
    assert found["nothing"] is False and found["audit_id"]
    assert run_json("forget", "--tenant", tenant, "--event", str(kept))["nothing"] is True


def test_forget_errors_are_one_line(sqlite_env: str, tenant: str) -> None:
    digest.record_run(tenant, "bot", task="refund order 3", outcome="failure")
    typo = tenant[:-1] + ("x" if tenant[-1] != "x" else "y")
    one_error_line(
        run_cli("forget", "--tenant", typo, "--contact", "ann"), "unknown tenant", repr(tenant)
    )
    one_error_line(run_cli("forget", "--tenant", tenant), "exactly one of --contact and --event")
    one_error_line(
        run_cli("forget", "--tenant", tenant, "--contact", "ann", "--event", "1"),
        "exactly one of",
    )
