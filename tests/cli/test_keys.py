"""``digest tenant key create|list|revoke`` (digest/cli/keys.py), run in this process: a key
is printed once, listed without its secret, and revoked by prefix or id."""

from __future__ import annotations

import re

from digest.apikeys import authenticate
from tests.cli.conftest import ok, one_error_line, run_cli, run_json

KEY = re.compile(r"^dg_(agent|owner)_[A-Za-z0-9_-]{32}$")


def test_create_list_revoke(services_env: dict[str, str], tenant: str) -> None:
    ok("tenant", "create", "--tenant", tenant)
    created = run_cli("tenant", "key", "create", "--tenant", tenant, "--label", "bot one")
    assert created.returncode == 0, created.stderr
    secret = created.stdout.strip()
    assert KEY.match(secret) and secret.startswith("dg_agent_")
    assert "not shown again" in created.stderr and secret not in created.stderr
    owner = run_json("tenant", "key", "create", "--tenant", tenant, "--kind", "owner")
    assert KEY.match(owner["key"]) and owner["kind"] == "owner"

    holder = authenticate(secret)
    assert holder is not None and (holder.tenant, holder.kind) == (tenant, "agent")

    listed = run_json("tenant", "key", "list", "--tenant", tenant)
    assert [(k["kind"], k["label"], k["revoked_at"]) for k in listed] == [
        ("agent", "bot one", None), ("owner", None, None),
    ]  # fmt: skip
    assert all(secret not in str(k) and "key" not in k for k in listed)
    assert secret.startswith(listed[0]["prefix"])
    table = ok("tenant", "key", "list", "--tenant", tenant)
    assert listed[0]["prefix"] in table and secret not in table

    revoked = ok("tenant", "key", "revoke", "--tenant", tenant, listed[0]["prefix"])
    assert "revoked" in revoked
    assert authenticate(secret) is None
    ok("tenant", "key", "revoke", "--tenant", tenant, str(listed[1]["id"]))
    assert authenticate(owner["key"]) is None
    after = run_json("tenant", "key", "list", "--tenant", tenant)
    assert all(k["revoked_at"] for k in after)


def test_refusals_are_one_line(services_env: dict[str, str], tenant: str) -> None:
    ok("tenant", "create", "--tenant", tenant)
    ok("tenant", "key", "create", "--tenant", tenant)
    bad_kind = run_cli("tenant", "key", "create", "--tenant", tenant, "--kind", "root")
    one_error_line(bad_kind, "root")
    unknown = run_cli("tenant", "key", "revoke", "--tenant", tenant, "dg_agent_nothere")
    one_error_line(unknown, "dg_agent_nothere")
    other = run_cli("tenant", "key", "list", "--tenant", tenant + "-nobody")
    one_error_line(other, "unknown tenant")
