"""``POST /v1/forget`` (issue 29 point 2): an owner key erases a contact's events on its own
tenant and gets the counts; an agent key is 403; neither or both subjects is 422; a second
request finds nothing; no review page of the agent (its page, lessons, versions, questions)
shows their words any more.
(What is erased everywhere: tests/test_forget.py.)"""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx
from sqlalchemy import func, select

from digest.db import session_scope
from digest.forget import subject_hash
from digest.models import Event, Forgotten
from digest.pipeline import drain
from tests.service.conftest import Tenant, review_login

_LINK = re.compile(r'href="(/review/agents/bot[^"#?]*)"')


def review_pages(client: httpx.Client, start: str = "/review/agents/bot") -> dict[str, str]:
    """Every review page of the agent reachable by links from its page: path -> HTML."""
    seen: dict[str, str] = {}
    todo = [start, f"{start}/questions", f"{start}/lessons", f"{start}/report"]
    while todo and len(seen) < 80:
        path = todo.pop()
        if path in seen:
            continue
        page = client.get(path)
        assert page.status_code == 200, (path, page.status_code)
        seen[path] = page.text
        todo += [link for link in _LINK.findall(page.text) if link not in seen]
    return seen


def test_an_owner_key_forgets_a_contact_over_http(
    client: httpx.Client, make_tenant: Callable[[], Tenant], services_env: dict[str, str]
) -> None:
    acme = make_tenant()
    run = {"kind": "run_outcome", "agent": "bot", "task": "refund order 7", "outcome": "failure"}
    for contact in ("ann", "bob", "ann"):
        made = client.post("/v1/events", json={**run, "contact_id": contact}, headers=acme.auth())
        assert made.status_code == 201, made.text

    marker = "Can the zqforgetme parcel wait at the depot?"
    asked = client.post(
        "/v1/agents/bot/ask", json={"question": marker, "contact_id": "ann"}, headers=acme.auth()
    )
    assert asked.status_code == 200, asked.text
    failed = {
        **run, "contact_id": "ann", "task": "ship the zqforgetme parcel to depot 4",
        "tool_calls": [{"tool": "ship_parcel", "ok": False, "error": "depot zqforgetme unknown"}],
    }  # fmt: skip
    assert client.post("/v1/events", json=failed, headers=acme.auth()).status_code == 201
    drain()
    assert review_login(client, acme.owner_key).status_code in (200, 303)
    assert "zqforgetme" in client.get("/review/agents/bot/questions").text
    before = review_pages(client)
    assert any("zqforgetme" in text for text in before.values()), sorted(before)
    assert any(re.search(r"/lessons/\d+$", path) for path in before), sorted(before)

    denied = client.post("/v1/forget", json={"contact_id": "ann"}, headers=acme.auth())
    assert denied.status_code == 403
    for body in ({}, {"contact_id": "ann", "event_id": 1}):
        bad = client.post("/v1/forget", json=body, headers=acme.auth("owner"))
        assert bad.status_code == 422, bad.text

    done = client.post(
        "/v1/forget", json={"contact_id": "ann", "by": "dpo"}, headers=acme.auth("owner")
    )
    assert done.status_code == 200, done.text
    found = done.json()
    assert found["nothing"] is False and found["counts"]["events"] == 3
    assert found["subject_hash"] == subject_hash("contact", "ann")
    with session_scope() as session:
        left = session.scalars(
            select(Event.contact_id).where(Event.contact_id.in_(("ann", "bob")))
            .join(Forgotten, Forgotten.tenant_id == Event.tenant_id)
            .where(Forgotten.id == found["audit_id"])
        ).all()  # fmt: skip
        assert left == ["bob"]
        audit = session.get(Forgotten, found["audit_id"])
        assert audit is not None and audit.by == "dpo" and audit.counts["events"] == 3
        assert session.scalar(select(func.count()).select_from(Forgotten).where(
            Forgotten.subject_hash == found["subject_hash"])) >= 1  # fmt: skip

    page = client.get("/review/agents/bot/questions")
    assert page.status_code == 200 and "zqforgetme" not in page.text
    after = review_pages(client)
    assert set(before) <= set(after) | {p for p in before if "/lessons/" in p}
    assert [path for path, text in after.items() if "zqforgetme" in text] == []
    again = client.post("/v1/forget", json={"contact_id": "ann"}, headers=acme.auth("owner"))
    assert again.status_code == 200 and again.json()["nothing"] is True
