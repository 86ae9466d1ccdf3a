"""The HTTP API against a running ``digest serve``: capture (single, batch, validation,
idempotency), the reads, authentication, tenant isolation on every route, and a database
that is down."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.models import Agent, Event
from digest.models import Tenant as TenantRow
from tests.conftest import wait_until
from tests.service.conftest import Server, Tenant

RUN: dict[str, Any] = {
    "kind": "run_outcome",
    "agent": "bot",
    "task": "refund order 1182",
    "outcome": "failure",
    "tool_calls": [{"tool": "refund", "args": {"order": "1182"}, "ok": False,
                    "error": "amount is required"}],
}  # fmt: skip
LESSON: dict[str, Any] = {
    "kind": "manual_lesson",
    "agent": "bot",
    "text": "refunds: confirm the amount before issuing a refund",
}
READS = (
    "/v1/agents/bot/learning",
    "/v1/agents/bot/pitfalls?prompt=refund+amount",
    "/v1/agents/bot/examples?prompt=refund+amount",
)


def events_of(tenant: str) -> list[Event]:
    with session_scope() as session:
        return list(
            session.scalars(
                select(Event).join(TenantRow, TenantRow.id == Event.tenant_id)
                .where(TenantRow.name == tenant).order_by(Event.id)
            )
        )  # fmt: skip


# --- capture -------------------------------------------------------------------------------


def test_one_event_is_stored_under_the_keys_tenant(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    answer = client.post("/v1/events", json=RUN, headers=acme.auth())
    assert answer.status_code == 201, answer.text
    body = answer.json()
    assert body["created"] is True
    [event] = events_of(acme.name)
    assert event.id == body["id"] and event.kind == "run_outcome"
    assert event.payload["task"] == "refund order 1182"
    assert event.status in ("pending", "processing", "waiting", "reflected", "skipped")


def test_a_batch_is_stored_in_order_and_a_manual_lesson_is_read_back(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    edit = {"kind": "operator_edit", "agent": "bot", "original": "Hi", "final": "Hello"}
    answer = client.post("/v1/events", json={"events": [RUN, edit, LESSON]}, headers=acme.auth())
    assert answer.status_code == 201, answer.text
    ids = [e["id"] for e in answer.json()["events"]]
    assert [e.id for e in events_of(acme.name)] == ids
    assert digest.lesson_for_event(acme.name, "bot", ids[2]) is not None

    read = client.get(
        "/v1/agents/bot/pitfalls", params={"prompt": "refund amount", "k": 3},
        headers=acme.auth(),
    )  # fmt: skip
    assert read.status_code == 200, read.text
    assert "confirm the amount" in read.json()["pitfalls"]
    learning = client.get("/v1/agents/bot/learning", headers=acme.auth("owner"))
    assert learning.status_code == 200 and learning.json() == {"agent": "bot", "version": None}


def test_pitfalls_with_a_turn_id_takes_part_in_the_holdout(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    from digest.models import HoldoutExposure
    from digest.tenants import set_tenant

    acme = make_tenant()
    answer = client.post("/v1/events", json=LESSON, headers=acme.auth())
    assert answer.status_code == 201, answer.text
    set_tenant(acme.name, holdout_permille=500, create=False)
    blocks = {}
    for i in range(24):
        read = client.get(
            "/v1/agents/bot/pitfalls", params={"prompt": "refund amount", "turn_id": f"t{i}"},
            headers=acme.auth(),
        )  # fmt: skip
        assert read.status_code == 200, read.text
        blocks[f"t{i}"] = read.json()["pitfalls"]
    shown = {turn for turn, block in blocks.items() if "confirm the amount" in block}
    assert 0 < len(shown) < len(blocks)  # withheld on some turns, not all
    again = client.get(
        "/v1/agents/bot/pitfalls", params={"prompt": "refund amount", "turn_id": "t3"},
        headers=acme.auth(),
    )  # fmt: skip
    assert again.json()["pitfalls"] == blocks["t3"]  # a retry shows the same thing
    run = {**RUN, "turn_id": "t3"}
    assert client.post("/v1/events", json=run, headers=acme.auth()).status_code == 201
    assert any(e.payload.get("turn_id") == "t3" for e in events_of(acme.name))

    def written() -> dict[str, bool]:
        with session_scope() as session:
            rows = session.execute(
                select(HoldoutExposure.turn_id, HoldoutExposure.shown)
                .join(Agent, Agent.id == HoldoutExposure.agent_id)
                .join(TenantRow, TenantRow.id == Agent.tenant_id)
                .where(TenantRow.name == acme.name)
            ).all()
        return {turn: bool(was_shown) for turn, was_shown in rows}

    wait_until(lambda: len(written()) == len(blocks), what="the server's exposures written")
    assert {turn for turn, was_shown in written().items() if was_shown} == shown


def test_long_text_is_trimmed_as_the_python_api_trims_it(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    answer = client.post("/v1/events", json={**RUN, "error": "x" * 10_000}, headers=acme.auth())
    assert answer.status_code == 201, answer.text
    [event] = events_of(acme.name)
    assert event.payload["trimmed"] == ["error"] and len(event.payload["error"]) <= 4096


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({**RUN, "outcome": "maybe"}, "outcome"),
        ({k: v for k, v in RUN.items() if k != "task"}, "task"),
        ({**RUN, "kind": "gossip"}, "kind"),
        ({k: v for k, v in RUN.items() if k != "kind"}, "kind"),
        ({**RUN, "tenant": "someone-else"}, "tenant"),
        ({**RUN, "agent": "bot\u200b"}, "agent"),
        ({"events": [RUN, {**RUN, "tool_calls": [{"ok": False}]}]}, "events[1].tool_calls[0].tool"),
        ({"events": [RUN] * 101}, "events"),
        ({"events": []}, "events"),
        ([RUN], "(body)"),
    ],
)
def test_invalid_input_is_422_naming_the_field_and_nothing_is_stored(
    client: httpx.Client, make_tenant: Callable[[], Tenant], body: Any, field: str
) -> None:
    acme = make_tenant()
    answer = client.post("/v1/events", json=body, headers=acme.auth())
    assert answer.status_code == 422, answer.text
    assert answer.json()["detail"][0]["field"] == field, answer.text
    assert answer.json()["detail"][0]["message"]
    assert events_of(acme.name) == []


def test_a_body_that_is_not_json_is_422(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    answer = client.post(
        "/v1/events", content=b"{not json", headers={**make_tenant().auth(),
                                                     "Content-Type": "application/json"},
    )  # fmt: skip
    assert answer.status_code == 422 and answer.json()["detail"][0]["field"] == "(body)"


def test_idempotency_same_payload_same_id_other_payload_409(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    keyed = {**RUN, "idempotency_key": "run-1"}
    first = client.post("/v1/events", json=keyed, headers=acme.auth())
    again = client.post("/v1/events", json=keyed, headers=acme.auth())
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json() == {"id": first.json()["id"], "created": False}
    other = client.post("/v1/events", json={**keyed, "task": "another"}, headers=acme.auth())
    assert other.status_code == 409 and "run-1" in other.json()["detail"]
    assert len(events_of(acme.name)) == 1
    lesson = {**LESSON, "idempotency_key": "lesson-1"}
    ids = {client.post("/v1/events", json=lesson, headers=acme.auth()).json()["id"]
           for _ in range(2)}  # fmt: skip
    assert len(ids) == 1


def test_an_owner_key_may_read_but_not_capture(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    assert client.post("/v1/events", json=RUN, headers=acme.auth()).status_code == 201
    refused = client.post("/v1/events", json=RUN, headers=acme.auth("owner"))
    assert refused.status_code == 403 and "agent key" in refused.json()["detail"]
    for path in READS:
        assert client.get(path, headers=acme.auth("owner")).status_code == 200, path


# --- keys ----------------------------------------------------------------------------------


def test_no_bad_or_revoked_key_is_401(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    from digest.apikeys import list_keys, revoke_key

    acme = make_tenant()
    assert client.post("/v1/events", json=RUN, headers=acme.auth()).status_code == 201
    wrong = [
        {},
        {"Authorization": "Bearer dg_agent_" + "A" * 32},
        {"Authorization": f"Basic {acme.agent_key}"},
        {"Authorization": f"Bearer {acme.agent_key}x"},
    ]
    for headers in wrong:
        for method, path in [("POST", "/v1/events"), *(("GET", p) for p in READS)]:
            answer = client.request(method, path, json=RUN, headers=headers)
            assert answer.status_code == 401, (headers, path, answer.text)
            assert answer.headers["www-authenticate"] == "Bearer"
    agent_key = next(k for k in list_keys(acme.name) if k.kind == "agent")
    revoke_key(acme.name, agent_key.prefix)
    assert client.post("/v1/events", json=RUN, headers=acme.auth()).status_code == 401
    assert len(events_of(acme.name)) == 1


def test_keys_are_stored_hashed_and_never_logged(
    server: Server, client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    from digest.models import ApiKey

    acme = make_tenant()
    client.post("/v1/events", json=RUN, headers=acme.auth())
    with session_scope() as session:
        stored = [(k.prefix, k.key_hash) for k in session.scalars(select(ApiKey))]
    assert all(acme.agent_key not in row for row in stored)
    assert any(acme.agent_key.startswith(prefix) for prefix, _ in stored)
    assert acme.agent_key not in server.log() and "Bearer" not in server.log()


def test_the_access_log_has_paths_never_prompts(
    server: Server, client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    client.post("/v1/events", json=LESSON, headers=acme.auth())
    prompt = "private-prompt-7Q3 refund the order of jane.doe@example.com"
    answer = client.get("/v1/agents/bot/pitfalls", params={"prompt": prompt}, headers=acme.auth())
    assert answer.status_code == 200

    def logged() -> bool:
        return '"GET /v1/agents/bot/pitfalls?… HTTP/1.1" 200' in server.log()

    wait_until(logged, timeout=10, what="the pitfalls request in the access log")
    assert "private-prompt-7Q3" not in server.log() and "jane.doe" not in server.log()


def test_a_body_over_the_limit_is_413_and_nothing_is_stored(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    from digest.service.app import BODY_MAX_BYTES

    acme = make_tenant()
    big = {**RUN, "task": "x" * (BODY_MAX_BYTES + 10)}
    answer = client.post("/v1/events", json=big, headers=acme.auth())
    assert answer.status_code == 413 and str(BODY_MAX_BYTES) in answer.json()["detail"]
    # sent in chunks, with no length declared: refused once it passes the limit
    chunks = (b"x" * 1_048_576 for _ in range(BODY_MAX_BYTES // 1_048_576 + 2))
    streamed = client.post(
        "/v1/events", content=chunks, headers={**acme.auth(), "Content-Type": "application/json"}
    )
    assert streamed.status_code == 413
    assert events_of(acme.name) == []
    assert client.post("/v1/events", json=RUN, headers=acme.auth()).status_code == 201


# --- tenant isolation ----------------------------------------------------------------------


def test_another_tenants_key_never_reaches_this_tenants_agent(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    acme, other = make_tenant(), make_tenant()
    stored = client.post("/v1/events", json={"events": [RUN, LESSON]}, headers=acme.auth())
    assert stored.status_code == 201
    for path in READS:
        assert client.get(path, headers=acme.auth()).status_code == 200, path
        for kind in ("agent", "owner"):
            answer = client.get(path, headers=other.auth(kind))
            assert answer.status_code == 404, (path, answer.text)
            assert "confirm" not in answer.text and acme.name not in answer.text
    # Writing names an agent of the key's own tenant: "bot" of other is a new agent, not acme's.
    assert client.post("/v1/events", json=RUN, headers=other.auth()).status_code == 201
    assert len(events_of(acme.name)) == 2 and len(events_of(other.name)) == 1
    with session_scope() as session:
        owners = session.scalars(
            select(TenantRow.name).join(Agent, Agent.tenant_id == TenantRow.id)
            .where(Agent.name == "bot", TenantRow.name.in_([acme.name, other.name]))
        ).all()  # fmt: skip
    assert sorted(owners) == sorted([acme.name, other.name])
    pitfalls = client.get(READS[1], headers=other.auth())
    assert pitfalls.status_code == 200 and "confirm" not in pitfalls.json()["pitfalls"]


def test_examples_are_the_agents_accepted_edits(
    client: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    from digest.pipeline import drain

    acme, other = make_tenant(), make_tenant()
    edit = {
        "kind": "operator_edit",
        "agent": "bot",
        "context": "customer asks for a refund of order 1182",
        "original": "Your refund is on its way.",
        "final": "Your refund of 40 EUR for order 1182 is on its way; expect it within 5 days.",
    }
    assert client.post("/v1/events", json=edit, headers=acme.auth()).status_code == 201
    drain()
    asked = {"prompt": "a customer wants a refund for an order", "k": 2}
    for kind in ("agent", "owner"):
        answer = client.get("/v1/agents/bot/examples", params=asked, headers=acme.auth(kind))
        assert answer.status_code == 200, answer.text
        [example] = answer.json()["examples"]
        assert (example["draft"], example["final"]) == (edit["original"], edit["final"])
    # another tenant's agent of the same name has no examples, and no key reads acme's
    client.post("/v1/events", json=RUN, headers=other.auth())
    theirs = client.get("/v1/agents/bot/examples", params=asked, headers=other.auth())
    assert theirs.status_code == 200 and theirs.json()["examples"] == []
    bad = client.get("/v1/agents/bot/examples", params={**asked, "k": 11}, headers=acme.auth())
    assert bad.status_code == 422 and bad.json()["detail"][0]["field"] == "query.k"
    # a turn id takes the examples into the randomized holdout, as the sync call does
    for turn in ("t-1", "t-2", "t-3"):
        held = client.get("/v1/agents/bot/examples", params={**asked, "turn_id": turn},
                          headers=acme.auth())  # fmt: skip
        same = digest.examples(acme.name, "bot", asked["prompt"], 2, turn_id=turn)
        assert held.status_code == 200 and [e["event_id"] for e in held.json()["examples"]] == [
            e.event_id for e in same
        ]
    empty = client.get("/v1/agents/bot/examples", params={**asked, "turn_id": ""},
                       headers=acme.auth())  # fmt: skip
    assert empty.status_code == 422 and empty.json()["detail"][0]["field"] == "query.turn_id"


def test_an_unknown_agent_is_404(client: httpx.Client, make_tenant: Callable[[], Tenant]) -> None:
    acme = make_tenant()
    for path in ("/v1/agents/nobody/learning", "/v1/agents/nobody/pitfalls?prompt=x",
                 "/v1/agents/bad%00name/learning"):  # fmt: skip
        assert client.get(path, headers=acme.auth()).status_code == 404, path


# --- probes and a database that is down ------------------------------------------------------


def test_healthz_and_readyz(client: httpx.Client) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.json()["status"] == "ready"


def test_a_database_that_is_down_is_503(
    down_server: Server, make_tenant: Callable[[], Tenant]
) -> None:
    acme = make_tenant()
    with httpx.Client(base_url=down_server.url, timeout=10) as http:
        assert http.get("/healthz").status_code == 200
        ready = http.get("/readyz")
        assert ready.status_code == 503 and "database unreachable" in ready.json()["reason"]
        for method, path in [("POST", "/v1/events"), *(("GET", p) for p in READS)]:
            answer = http.request(method, path, json=RUN, headers=acme.auth())
            assert answer.status_code == 503, (path, answer.text)
            assert answer.headers["retry-after"]
    assert events_of(acme.name) == []


def test_the_openapi_document_declares_every_route_and_error(client: httpx.Client) -> None:
    doc = client.get("/openapi.json").json()
    capture = doc["paths"]["/v1/events"]["post"]
    assert {"200", "201", "401", "403", "409", "413", "422", "503"} <= set(capture["responses"])
    assert "requestBody" in capture
    for path in (
        "/v1/agents/{agent}/pitfalls",
        "/v1/agents/{agent}/examples",
        "/v1/agents/{agent}/learning",
    ):
        assert {"200", "401", "404", "422", "503"} <= set(doc["paths"][path]["get"]["responses"])
    assert "tenant" not in doc["components"]["schemas"]["RunOutcome"]["properties"]
    assert doc["components"]["securitySchemes"]["HTTPBearer"]["scheme"] == "bearer"
