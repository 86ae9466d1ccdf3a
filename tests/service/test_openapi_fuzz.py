"""Property-based: schemathesis generates requests from the running server's /openapi.json
(with a valid agent key) and checks that no answer is a 5xx and every answer matches the
document: its status code is declared, its body fits the declared schema, its content type
and headers are the declared ones."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import checks

from tests.service.conftest import Server, Tenant

#: examples per operation: the whole run stays well under 30 s
EXAMPLES = 40
CHECKS = [
    checks.not_a_server_error,
    checks.status_code_conformance,
    checks.content_type_conformance,
    checks.response_schema_conformance,
    checks.response_headers_conformance,
]


@pytest.fixture()
def agent_auth(make_tenant: Callable[[], Tenant]) -> dict[str, str]:
    return make_tenant().auth()


def test_no_server_error_and_no_schema_violation(
    server: Server, agent_auth: dict[str, str]
) -> None:
    # One hypothesis run per operation (schemathesis's pytest plugin cannot load a schema from
    # a fixture under this pytest), each on the document the running server serves.
    schema = schemathesis.openapi.from_url(f"{server.url}/openapi.json")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) == 16
    seen: set[tuple[str, int]] = set()
    for operation in operations:
        # the owner's routes (questions, forget) answer an agent key with 403 before reading
        owners = operation.path.startswith("/v1/questions") or operation.path == "/v1/forget"
        examples = EXAMPLES // 4 if owners else EXAMPLES

        @given(case=operation.as_strategy())
        @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
        def call(case: Any) -> None:
            response = case.call_and_validate(headers=agent_auth, checks=CHECKS)
            seen.add((case.operation.label, response.status_code))

        call()
    # the generated requests reached the routes, not only their validation
    assert {("POST /v1/events", 422), ("GET /healthz", 200), ("GET /readyz", 200)} <= seen, seen
    assert {("POST /v1/events", 201), ("GET /v1/agents/{agent}/pitfalls", 404)} & seen, seen
