"""digest.versions.decisions: a person's decisions on an agent's versions (PostgreSQL). In
approval mode a new version waits; approve (optionally with an edited body), reject, and
roll back (in both modes) are written with who decided, as new links of the chain."""

from __future__ import annotations

import pytest

from digest.errors import NotFound, VersionStateError
from digest.versions.compose import compose_version
from digest.versions.decisions import approve, get_version, reject, rollback
from tests.versions.conftest import (
    AGENT,
    agent_id,
    current_number,
    lesson,
    set_mode,
    versions,
)


def test_approval_mode_pending_approve_reject_edit_and_rollback(
    services_env: dict[str, str], tenant: str
) -> None:
    lesson(tenant, 1)
    set_mode(tenant, "approval")
    aid = agent_id(tenant)

    v1 = compose_version(aid, "manual")
    assert (v1.number, v1.version_status) == (1, "pending")
    assert current_number(tenant) is None  # nothing active until a person approves
    assert compose_version(aid, "manual").status == "no_change"  # same as the pending one
    approve(tenant, AGENT, 1, by="owner@shop")
    assert current_number(tenant) == 1

    lesson(tenant, 2)
    assert compose_version(aid, "manual").version_status == "pending"
    assert current_number(tenant) == 1  # the active one is unchanged while v2 waits
    reject(tenant, AGENT, 2, by="owner@shop")
    with pytest.raises(VersionStateError):
        approve(tenant, AGENT, 2, by="owner@shop")
    # Rejected lessons stay available: the next compose proposes them again.
    v3 = compose_version(aid, "manual")
    assert (v3.number, v3.version_status) == (3, "pending")
    edited = "# Edited by the owner\n\n- Only this rule.\n"
    approve(tenant, AGENT, 3, by="owner@shop", body=edited)
    rows = {v.number: v for v in versions(tenant)}
    assert rows[3].status == "active" and rows[3].proposed_by == "operator"
    assert rows[3].body_markdown == edited and rows[3].approved_by == "owner@shop"
    assert [rows[n].status for n in (1, 2, 3)] == ["superseded", "rejected", "active"]

    back = rollback(tenant, AGENT, 1, by="owner@shop")  # approval mode: still active at once
    rows = {v.number: v for v in versions(tenant)}
    assert back.number == 4 and rows[4].status == "active" and rows[4].trigger == "rollback"
    assert rows[4].body_markdown == rows[1].body_markdown
    assert rows[4].previous_version_id == rows[3].id
    assert current_number(tenant) == 4
    with pytest.raises(NotFound):
        rollback(tenant, AGENT, 99, by="owner@shop")


def test_rollback_in_auto_mode(services_env: dict[str, str], tenant: str) -> None:
    lesson(tenant, 1)
    compose_version(agent_id(tenant), "manual")
    lesson(tenant, 2)
    compose_version(agent_id(tenant), "manual")
    assert current_number(tenant) == 2
    rollback(tenant, AGENT, 1, by="ops")
    rows = {v.number: v for v in versions(tenant)}
    assert rows[3].status == "active" and rows[2].status == "superseded"
    assert rows[3].body_markdown == rows[1].body_markdown


def test_only_a_pending_version_can_be_decided_and_unknown_numbers_are_not_found(
    services_env: dict[str, str], tenant: str
) -> None:
    from digest.db import session_scope

    lesson(tenant, 1)
    compose_version(agent_id(tenant), "manual")  # auto mode: active at once
    with pytest.raises(VersionStateError, match="version 1 is active, not pending"):
        approve(tenant, AGENT, 1, by="owner@shop")
    with pytest.raises(VersionStateError):
        reject(tenant, AGENT, 1, by="owner@shop")
    with pytest.raises(NotFound, match="has no version 7"):
        approve(tenant, AGENT, 7, by="owner@shop")
    with session_scope() as session:
        assert get_version(session, tenant, AGENT, 1).status == "active"
        with pytest.raises(NotFound, match="unknown agent"):
            get_version(session, tenant, "nobody", 1)
