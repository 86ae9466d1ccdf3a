"""Secrets are masked at capture on the HTTP path too: an event posted to ``digest serve``
(alone or in a batch) is stored with its secrets masked, and the service's log holds none."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tests.capture.test_secrets import Leaky, event_columns, stored_anywhere
from tests.service.conftest import Server, Tenant


def test_a_posted_event_is_stored_masked_and_logged_without_its_secrets(
    server: Server, client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    leaky = Leaky()
    run = {"kind": "run_outcome", "agent": "bot", **leaky.run()}
    answer = {"kind": "owner_answer", "agent": "bot", **leaky.answer()}
    one = client.post("/v1/events", json=run, headers=acme.auth())
    assert one.status_code == 201, one.text
    batch = client.post("/v1/events", json={"events": [answer]}, headers=acme.auth())
    assert batch.status_code == 201, batch.text
    stored = event_columns(one.json()["id"])
    assert "Authorization: Bearer ***" in stored["payload"]["tool_calls"][0]["error"]
    assert stored["payload"]["tool_calls"][0]["args"]["api_key"] == "***"
    assert stored_anywhere(leaky) == {}
    assert leaky.found_in(server.log()) == []
