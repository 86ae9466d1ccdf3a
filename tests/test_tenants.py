"""digest.tenants: finding an agent by its keys, and per-tenant settings (apply mode and the
trigger knobs) that fall back to the process settings (embedded SQLite)."""

from __future__ import annotations

import pytest

import digest
from digest.config import Settings
from digest.db import session_scope
from digest.errors import InvalidEvent, NotFound
from digest.models import Tenant
from digest.tenants import configure_tenant, find_agent, policy_for


def test_a_tenants_overrides_win_and_the_rest_falls_back() -> None:
    tenant = Tenant(name="acme", learning_apply_mode="approval", settings={"quiet_seconds": 5})
    policy = policy_for(tenant, Settings(threshold_signals=7, frequency_gate=2))
    assert (policy.name, policy.learning_apply_mode) == ("acme", "approval")
    assert (policy.threshold_signals, policy.quiet_seconds, policy.frequency_gate) == (7, 5, 2)


def test_values_that_are_not_integers_are_ignored() -> None:
    stored = {"threshold_signals": "9", "quiet_seconds": True, "frequency_gate": None}
    policy = policy_for(Tenant(name="t", learning_apply_mode="auto", settings=stored), Settings())
    assert (policy.threshold_signals, policy.quiet_seconds, policy.frequency_gate) == (
        Settings().threshold_signals, Settings().quiet_seconds, Settings().frequency_gate,
    )  # fmt: skip


def test_configure_creates_and_merges(sqlite_env: str) -> None:
    with session_scope() as session:
        configure_tenant(session, "acme", threshold_signals=3)
        tenant = configure_tenant(session, "acme", learning_apply_mode="approval", quiet_seconds=0)
        assert tenant.learning_apply_mode == "approval"
        assert tenant.settings == {"threshold_signals": 3, "quiet_seconds": 0}
        configure_tenant(session, "acme", threshold_signals=None)  # None changes nothing
        assert tenant.settings["threshold_signals"] == 3


@pytest.mark.parametrize(
    ("mode", "overrides", "field"),
    [
        ("staged-ish", {}, "learning_apply_mode"),
        (None, {"colour": 1}, "colour"),
        (None, {"threshold_signals": 0}, "threshold_signals"),
        (None, {"promotion_contacts": 1}, "promotion_contacts"),
        (None, {"quiet_seconds": True}, "quiet_seconds"),
    ],
    ids=["mode", "unknown-key", "below-bound", "promotion-below-2", "bool"],
)
def test_bad_settings_name_their_field(
    sqlite_env: str, mode: str | None, overrides: dict[str, int], field: str
) -> None:
    with pytest.raises(InvalidEvent) as caught, session_scope() as session:
        configure_tenant(session, "acme", learning_apply_mode=mode, **overrides)
    assert caught.value.field == field


def test_find_agent_says_which_name_is_unknown(sqlite_env: str, tenant: str) -> None:
    digest.record_lesson(tenant, "bot", "refunds: confirm the amount first")
    with session_scope() as session:
        assert find_agent(session, tenant, "bot").name == "bot"
        with pytest.raises(NotFound, match=f"unknown agent 'nobody' in tenant '{tenant}'"):
            find_agent(session, tenant, "nobody")
        with pytest.raises(NotFound, match="unknown tenant 'nowhere'"):
            find_agent(session, "nowhere", "bot")
