"""``digest tenant set --daily-tokens/--daily-cost/--no-budget`` (issue 29, part 3): stored on
the tenant, shown by ``tenant list``; a bad value is one line naming the option, and nothing of
the command is written. The embedded default, the typer app in this process."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from digest.db import session_scope
from digest.models import Tenant
from tests.cli.conftest import ok, one_error_line, run_cli, run_json


def _stored(name: str) -> tuple[int | None, float | None, dict[str, int]]:
    with session_scope() as session:
        row = session.scalars(select(Tenant).where(Tenant.name == name)).one()
        return row.daily_tokens, row.daily_cost_usd, dict(row.settings or {})


def test_a_budget_is_set_shown_and_removed(sqlite_env: str) -> None:
    ok("tenant", "create", "--tenant", "acme")
    out = ok("tenant", "set", "--tenant", "acme", "--daily-tokens", "50000")
    assert out.strip() == (
        "tenant 'acme': apply mode auto; no overrides (DIGEST_* apply); budget 50,000 tokens a day"
    )
    out = ok("tenant", "set", "--tenant", "acme", "--daily-cost", "2.5")
    assert "budget 50,000 tokens and $2.5 a day" in out
    assert _stored("acme")[:2] == (50_000, 2.5)
    [row] = run_json("tenant", "list")
    assert (row["daily_tokens"], row["daily_cost_usd"]) == (50_000, 2.5)
    assert "budget 50,000 tokens and $2.5 a day" in " ".join(ok("tenant", "list").split())
    out = ok("tenant", "set", "--tenant", "acme", "--no-budget")
    assert out.strip() == "tenant 'acme': apply mode auto; no overrides (DIGEST_* apply)"
    assert _stored("acme")[:2] == (None, None)


@pytest.mark.parametrize(
    ("option", "value", "needle"),
    [
        ("--daily-tokens", "-5", "above 0"),
        ("--daily-tokens", "0", "above 0"),
        ("--daily-tokens", "lots", "a whole number of tokens"),
        ("--daily-tokens", "1.5", "a whole number of tokens"),
        ("--daily-cost", "-0.01", "above 0"),
        ("--daily-cost", "ten", "an amount in USD"),
        ("--daily-cost", "nan", "an amount in USD"),
        ("--daily-cost", "inf", "at most"),
    ],
)
def test_a_bad_budget_names_its_option_and_writes_nothing(
    sqlite_env: str, option: str, value: str, needle: str
) -> None:
    ok("tenant", "create", "--tenant", "acme")
    ok("tenant", "set", "--tenant", "acme", "--daily-tokens", "100")
    # with another change in the same command: none of it is written
    ran = run_cli("tenant", "set", "--tenant", "acme", "--threshold", "9", option, value)
    one_error_line(ran, option, needle)
    assert "Traceback" not in ran.stderr
    assert _stored("acme") == (100, None, {})


def test_no_budget_with_a_budget_is_refused(sqlite_env: str) -> None:
    ok("tenant", "create", "--tenant", "acme")
    ran = run_cli("tenant", "set", "--tenant", "acme", "--no-budget", "--daily-tokens", "10")
    one_error_line(ran, "--daily-tokens", "no_budget")
    assert _stored("acme")[:2] == (None, None)
