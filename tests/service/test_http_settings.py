"""The owner's settings over HTTP (digest/service/app.py): an agent's learning switch,
instructions and model (``/v1/agents``), and a lesson's expiry, with an owner key only."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import httpx
from sqlalchemy import func, select

from digest.db import session_scope
from digest.models import Agent, Lesson
from tests.conftest import manual_lesson
from tests.service.conftest import Tenant


def _agents() -> int:
    with session_scope() as session:
        return session.scalar(select(func.count()).select_from(Agent)) or 0


def test_an_owner_key_reads_and_changes_an_agents_settings(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    manual_lesson(acme.name, "bot", "refunds: ask a manager above 200 EUR")
    owner = acme.auth("owner")
    shown = client.get("/v1/agents/bot", headers=owner)
    assert shown.status_code == 200, shown.text
    assert shown.json()["enable_learning"] is True and shown.json()["llm_model"] is None

    changed = client.patch(
        "/v1/agents/bot", headers=owner,
        json={"enable_learning": False, "learning_instructions": "Only refunds."},
    )  # fmt: skip
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert body["changed"] == ["enable_learning", "learning_instructions"]
    assert (body["enable_learning"], body["learning_instructions"], body["llm_model"]) == (
        False, "Only refunds.", None,
    )  # fmt: skip
    cleared = client.patch("/v1/agents/bot", headers=owner, json={"learning_instructions": None})
    assert cleared.json()["learning_instructions"] is None
    assert cleared.json()["enable_learning"] is False  # not sent: unchanged
    listed = client.get("/v1/agents", headers=owner).json()
    assert [(a["agent"], a["enable_learning"]) for a in listed] == [("bot", False)]

    before = _agents()
    for method, path, body in (
        ("PATCH", "/v1/agents/bott", {"enable_learning": True}),
        ("GET", "/v1/agents/bott", None),
    ):
        missing = client.request(method, path, headers=owner, json=body)
        assert missing.status_code == 404 and "did you mean 'bot'?" in missing.json()["detail"]
    bad = client.patch("/v1/agents/bot", headers=owner, json={"llm_model": "gpt 4"})
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "llm_model"
    unknown_field = client.patch("/v1/agents/bot", headers=owner, json={"model": "x"})
    assert unknown_field.status_code == 422
    null_switch = client.patch("/v1/agents/bot", headers=owner, json={"enable_learning": None})
    assert null_switch.status_code == 422
    assert client.patch("/v1/agents/bot", headers=owner, json={}).status_code == 422
    for method, path in (("GET", "/v1/agents"), ("GET", "/v1/agents/bot")):
        assert client.request(method, path, headers=acme.auth()).status_code == 403
    refused = client.patch("/v1/agents/bot", headers=acme.auth(), json={"enable_learning": True})
    assert refused.status_code == 403
    assert _agents() == before
    assert client.get("/v1/agents/bot", headers=owner).json()["enable_learning"] is False


def test_an_owner_key_sets_a_lessons_expiry(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme, other = make_tenant(), make_tenant()
    lesson_id = manual_lesson(acme.name, "bot", "refunds: ask a manager above 200 EUR")
    path = f"/v1/agents/bot/lessons/{lesson_id}/expiry"
    owner = acme.auth("owner")
    moment = (datetime.now(UTC) + timedelta(days=30)).replace(microsecond=0)
    done = client.put(path, headers=owner, json={"expires_at": moment.isoformat()})
    assert done.status_code == 200, done.text
    assert done.json()["changed"] is True
    assert datetime.fromisoformat(done.json()["expires_at"]) == moment
    with session_scope() as session:
        stored = session.scalar(select(Lesson.expires_at).where(Lesson.id == lesson_id))
    assert stored is not None and stored.replace(tzinfo=stored.tzinfo or UTC) == moment

    past = client.put(path, headers=owner, json={"expires_at": "2001-01-01T00:00:00+00:00"})
    assert past.status_code == 422 and past.json()["detail"][0]["field"] == "expires_at"
    naive = client.put(path, headers=owner, json={"expires_at": "2031-01-01T00:00:00"})
    assert naive.status_code == 422
    assert client.put(path, headers=acme.auth(), json={"expires_at": None}).status_code == 403
    elsewhere = client.put(path, headers=other.auth("owner"), json={"expires_at": None})
    assert elsewhere.status_code == 404
    never = client.put(path, headers=owner, json={"expires_at": None})
    assert never.status_code == 200 and never.json()["expires_at"] is None
