"""The routes of the HTTP service: capture, pitfalls, few-shot examples, learning, health and
readiness (and, from ``digest.service.review``, the owner's review page).

Every ``/v1`` route needs ``Authorization: Bearer <key>`` (``digest tenant key create``) and
sees only the key's tenant: an agent is looked up within that tenant, so another tenant's
agent is 404 like one that does not exist. Capture is ``digest.capture`` unchanged (durable
row, then a best-effort publish); reads are ``digest.pitfalls`` and ``digest.current_learning``.
The blocking library calls run in the server's thread pool. Nothing here logs a header.

Owner keys also read and change an agent's settings (``/v1/agents``, ``digest.agents``) and a
lesson's expiry; agent keys get 403 there.

Errors: 401 no, bad or revoked key; 403 an owner key on capture, an agent key on settings
(``digest.apikeys``); 404 unknown agent or lesson; 409 an idempotency key used before for
other content, or a lesson out of use for good; 422 invalid input, naming the field
(``{"detail": [{"field", "message"}]}``, nothing stored); 503 the database cannot answer
(with ``Retry-After``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import Depends, FastAPI, HTTPException, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from digest._log import stdlib_logger
from digest.apikeys import KeyHolder, authenticate
from digest.capture.api import capture_new_event
from digest.capture.schemas import parse_event
from digest.db import read_scope
from digest.errors import (
    DatabaseUnavailable,
    InvalidArgument,
    InvalidEvent,
    NotFound,
    StateError,
)
from digest.models import Agent
from digest.retrieve import current_learning, pitfalls
from digest.service.forget import routes as forget_routes
from digest.service.models import (
    BATCH_MAX,
    AgentSettings,
    AgentSettingsChange,
    Captured,
    CapturedBatch,
    Examples,
    FewShotExample,
    InvalidInput,
    Learning,
    LearningVersion,
    LessonExpiry,
    LessonExpiryChange,
    Pitfalls,
    Problem,
    Readiness,
    event_schemas,
)
from digest.service.questions import routes as question_routes
from digest.service.responses import (
    BODY_MAX_BYTES,
    bad_argument,
    conflict,
    healthz,
    invalid,
    not_found,
    readyz,
    request_invalid,
    too_large,
    unavailable,
)
from digest.service.review import router as review_router
from digest.tenants import agent_named, key_problem

log = stdlib_logger("digest.service")

_bearer = HTTPBearer(
    auto_error=False,
    description="An API key of the tenant (`digest tenant key create --tenant T`).",
)

_AUTH_ERRORS: dict[int | str, dict[str, Any]] = {
    401: {"model": Problem, "description": "No key, or an unknown or revoked one."},
    422: {"model": InvalidInput, "description": "Invalid input, naming the field."},
    503: {"model": Problem, "description": "The database cannot answer; retry later."},
}
_AGENT_ERRORS: dict[int | str, dict[str, Any]] = {
    **_AUTH_ERRORS,
    404: {"model": Problem, "description": "No such agent in the key's tenant."},
}

AgentName = Annotated[str, Path(min_length=1, max_length=200, description="The agent's key.")]


Credentials = Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)]


def key_holder(credentials: Credentials) -> KeyHolder:
    """The tenant and kind of the request's key; 401 without a valid, unrevoked one."""
    holder = None if credentials is None else authenticate(credentials.credentials)
    if holder is None:
        raise HTTPException(
            401, "a valid API key is required: Authorization: Bearer <key>",
            headers={"WWW-Authenticate": "Bearer"},
        )  # fmt: skip
    return holder


Holder = Annotated[KeyHolder, Depends(key_holder)]


def _require_agent(holder: KeyHolder, agent: str) -> None:
    """404 unless the key's tenant has ``agent``: another tenant's agent is not there."""
    if key_problem(agent) is not None:
        raise NotFound(f"unknown agent {agent!r}")
    try:
        with read_scope() as session:
            found = session.scalar(
                select(Agent.id).where(Agent.tenant_id == holder.tenant_id, agent_named(agent))
            )
    except SQLAlchemyError as exc:
        raise DatabaseUnavailable(f"the agent could not be read: {type(exc).__name__}") from exc
    if found is None:
        raise NotFound(f"unknown agent {agent!r}")


# --- capture -------------------------------------------------------------------------------


def _event_data(item: Any, holder: KeyHolder, where: str) -> tuple[str, dict[str, Any]]:
    """(kind, fields) of one event of the body, the tenant set from the key."""
    if not isinstance(item, dict):
        raise InvalidEvent(where or "(body)", "must be a JSON object")
    data = dict(item)
    kind = data.pop("kind", None)
    if kind is None:
        raise InvalidEvent(f"{where}kind", "missing; one of the event kinds")
    if "tenant" in data:
        raise InvalidEvent(f"{where}tenant", "comes from the API key; leave it out of the body")
    data["tenant"] = holder.tenant
    return kind, data


def _prefixed(exc: InvalidEvent, where: str) -> InvalidEvent:
    errors = [{**e, "field": where + str(e["field"])} for e in exc.errors]
    return InvalidEvent(errors[0]["field"], errors[0]["message"], errors)


def _capture_batch(events: list[tuple[str, dict[str, Any]]]) -> list[Captured]:
    """Validate every event first (one bad event stores none), then store each in turn."""
    for i, (kind, data) in enumerate(events):
        try:
            parse_event(kind, data)
        except InvalidEvent as exc:
            raise _prefixed(exc, f"events[{i}].") from None
    return [Captured(id=i, created=c) for i, c in (capture_new_event(k, d) for k, d in events)]


class BodyTooLarge(Exception):
    """413: the request body is larger than ``BODY_MAX_BYTES``; nothing was read or stored."""


async def _body_of(request: Request) -> bytes:
    """The request body, refused (``BodyTooLarge``) as soon as it passes ``BODY_MAX_BYTES``."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > BODY_MAX_BYTES:
        raise BodyTooLarge
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > BODY_MAX_BYTES:
            raise BodyTooLarge
    return bytes(body)


def _read_body(raw: bytes) -> Any:
    try:
        return json.loads(raw)
    except UnicodeDecodeError as exc:
        raise InvalidEvent("(body)", f"not valid UTF-8 (byte {exc.start})") from None
    except json.JSONDecodeError as exc:
        raise InvalidEvent("(body)", f"not valid JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise InvalidEvent("(body)", "nested too deeply to read") from None


async def post_events(request: Request, credentials: Credentials) -> JSONResponse:
    """Capture one event (a JSON object with its `kind`), or `{"events": [...]}`, up to 100.

    The same kinds, validation, trimming and idempotency as the Python API; the tenant is the
    key's (a body naming one is refused). 201 when an event was stored, 200 when every event
    was one stored before under the same idempotency key. A batch is validated whole before
    anything is stored; a database fault or an idempotency conflict part way keeps the events
    stored before it (resend with the same idempotency keys: they answer with the same ids).
    """
    raw = await _body_of(request)
    # One trip to the thread pool for the key, the body and the capture: this is the hot path.
    return await run_in_threadpool(_capture_request, credentials, raw)


def _capture_request(credentials: HTTPAuthorizationCredentials | None, raw: bytes) -> JSONResponse:
    holder = key_holder(credentials)
    if holder.kind != "agent":
        raise HTTPException(403, "owner keys review; capture with an agent key")
    body = _read_body(raw)
    if isinstance(body, dict) and "events" in body and "kind" not in body:
        items = body["events"]
        if set(body) != {"events"}:
            raise InvalidEvent(sorted(set(body) - {"events"})[0], "not expected beside events")
        if not isinstance(items, list) or not 1 <= len(items) <= BATCH_MAX:
            raise InvalidEvent("events", f"must be a list of 1 to {BATCH_MAX} events")
        events = [_event_data(item, holder, f"events[{i}].") for i, item in enumerate(items)]
        batch = CapturedBatch(events=_capture_batch(events))
        created = any(e.created for e in batch.events)
        return JSONResponse(batch.model_dump(), status_code=201 if created else 200)
    kind, data = _event_data(body, holder, "")
    event_id, was_created = capture_new_event(kind, data)
    one = Captured(id=event_id, created=was_created)
    return JSONResponse(one.model_dump(), status_code=201 if was_created else 200)


# --- reads ---------------------------------------------------------------------------------


def get_pitfalls(
    agent: AgentName,
    holder: Holder,
    prompt: Annotated[str, Query(min_length=1, max_length=20_000)],
    k: Annotated[int, Query(ge=1, le=20)] = 3,
    style: Annotated[Literal["block", "aip11"], Query()] = "block",
    turn_id: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
) -> Pitfalls:
    """The agent's `k` lessons most relevant to `prompt`, rendered (`digest.pitfalls`). With
    `turn_id` (sent again with the run's outcome), lessons take part in the randomized
    holdout."""
    _require_agent(holder, agent)
    shown = pitfalls(holder.tenant, agent, prompt, k, style=style, turn_id=turn_id)
    return Pitfalls(agent=agent, pitfalls=shown)


def get_examples(
    agent: AgentName,
    holder: Holder,
    prompt: Annotated[str, Query(min_length=1, max_length=20_000)],
    k: Annotated[int, Query(ge=1, le=10)] = 2,
    contact_id: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
    turn_id: Annotated[str | None, Query(min_length=1, max_length=200)] = None,
) -> Examples:
    """The agent's accepted operator edits most relevant to `prompt`, as (draft, final) pairs
    for few-shot prompting (`digest.examples`). With `turn_id` (sent again with the run's
    outcome), they take part in the randomized holdout as `pitfalls` does."""
    from digest.fewshot import examples

    _require_agent(holder, agent)
    found = examples(holder.tenant, agent, prompt, k, contact_id=contact_id, turn_id=turn_id)
    return Examples(
        agent=agent,
        examples=[
            FewShotExample(
                draft=e.draft, final=e.final, event_id=e.event_id, created_at=e.created_at
            )
            for e in found
        ],
    )


def get_learning(agent: AgentName, holder: Holder) -> Learning:
    """The agent's active learning version (`digest.current_learning`); null while none."""
    _require_agent(holder, agent)
    found = current_learning(holder.tenant, agent)
    version = None
    if found is not None:
        version = LearningVersion(
            number=found.number, body=found.body, change_summary=found.change_summary,
            summary=found.summary, created_at=found.created_at,
        )  # fmt: skip
    return Learning(agent=agent, version=version)


# --- the owner's settings ------------------------------------------------------------------


def _owner(holder: KeyHolder) -> None:
    if holder.kind != "owner":
        raise HTTPException(403, "settings take an owner key; agent keys capture and read")


def get_agents(holder: Holder) -> list[AgentSettings]:
    """The key's tenant's agents and their settings (owner key)."""
    from digest.agents import list_agents

    _owner(holder)
    return [AgentSettings(**row.to_json()) for row in list_agents(holder.tenant)]


def get_agent(agent: AgentName, holder: Holder) -> AgentSettings:
    """One agent's settings: learning on or off, instructions, model (owner key)."""
    from digest.agents import agent_settings

    _owner(holder)
    return AgentSettings(**agent_settings(holder.tenant, agent).to_json())


def patch_agent(agent: AgentName, holder: Holder, change: AgentSettingsChange) -> AgentSettings:
    """Change an existing agent's settings (owner key): the fields sent change, the others
    stay; `learning_instructions: null` removes them, `llm_model: null` goes back to the
    DIGEST_LLM_* models. Never creates an agent (404 suggests the closest name)."""
    from digest.agents import KEEP, set_agent

    _owner(holder)
    sent = change.model_fields_set
    if "enable_learning" in sent and change.enable_learning is None:
        raise InvalidArgument("enable_learning: must be true or false")
    row = set_agent(
        holder.tenant, agent, enable_learning=change.enable_learning,
        learning_instructions=change.learning_instructions
        if "learning_instructions" in sent else KEEP,
        llm_model=change.llm_model if "llm_model" in sent else KEEP,
    )  # fmt: skip
    return AgentSettings(**row.to_json())


LessonId = Annotated[int, Path(ge=1, le=2**63 - 1, description="The lesson's id.")]


def put_lesson_expiry(
    agent: AgentName, lesson_id: LessonId, holder: Holder, expiry: LessonExpiry
) -> LessonExpiryChange:
    """Set when one lesson leaves the bank, or `null` for never (owner key). A moment already
    past is 422 (disable the lesson instead); a deleted or superseded lesson is 409."""
    from digest.lessons.service import set_lesson_expiry

    _owner(holder)
    done = set_lesson_expiry(
        holder.tenant, agent, lesson_id, expiry.expires_at, by=f"owner key {holder.key_id}"
    )
    return LessonExpiryChange(**done.to_json())


def create_app() -> FastAPI:
    """The ASGI app (``uvicorn --factory digest.service:create_app``)."""
    app = FastAPI(
        title="lesson digest",
        version="1",
        summary="Capture what happened to your agents; read back what they learned.",
    )
    app.add_exception_handler(InvalidEvent, invalid)
    app.add_exception_handler(RequestValidationError, request_invalid)
    app.add_exception_handler(NotFound, not_found)
    app.add_exception_handler(InvalidArgument, bad_argument)
    app.add_exception_handler(StateError, conflict)  # LessonStateError, a closed question
    app.add_exception_handler(BodyTooLarge, too_large)
    app.add_exception_handler(DatabaseUnavailable, unavailable)

    components, body_schema = event_schemas()
    app.post(
        "/v1/events",
        status_code=201,
        responses={
            200: {"model": Captured | CapturedBatch, "description": "Stored before."},
            201: {"model": Captured | CapturedBatch, "description": "Stored."},
            403: {"model": Problem, "description": "An owner key: capture takes agent keys."},
            409: {"model": Problem, "description": "Idempotency key used for other content."},
            413: {"model": Problem, "description": "The body is larger than 16 MiB."},
            **_AUTH_ERRORS,
        },
        openapi_extra={
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": body_schema}},
            }
        },
    )(post_events)
    app.get("/v1/agents/{agent}/pitfalls", responses=_AGENT_ERRORS)(get_pitfalls)
    app.get("/v1/agents/{agent}/examples", responses=_AGENT_ERRORS)(get_examples)
    app.get("/v1/agents/{agent}/learning", responses=_AGENT_ERRORS)(get_learning)
    question_errors = {
        **_AUTH_ERRORS,
        403: {"model": Problem, "description": "The other kind of key."},
        404: {"model": Problem, "description": "No such question in the key's tenant."},
        409: {"model": Problem, "description": "Answered or dismissed already."},
    }
    for method, path, endpoint in question_routes(Depends(key_holder)):
        app.add_api_route(path, endpoint, methods=[method], responses=question_errors)
    owner_errors = {
        **_AGENT_ERRORS,
        403: {"model": Problem, "description": "An agent key: settings take an owner key."},
    }
    app.get("/v1/agents", responses={**_AUTH_ERRORS, 403: owner_errors[403]})(get_agents)
    app.get("/v1/agents/{agent}", responses=owner_errors)(get_agent)
    app.patch("/v1/agents/{agent}", responses=owner_errors)(patch_agent)
    app.put(
        "/v1/agents/{agent}/lessons/{lesson_id}/expiry",
        responses={
            **owner_errors,
            404: {"model": Problem, "description": "No such agent, or lesson of it."},
            409: {"model": Problem, "description": "The lesson is deleted or superseded."},
        },
    )(put_lesson_expiry)
    forget_errors = {**_AUTH_ERRORS, 403: {"model": Problem, "description": "An agent key."}}
    for method, path, endpoint in forget_routes(Depends(key_holder)):
        app.add_api_route(path, endpoint, methods=[method], responses=forget_errors)
    app.get("/healthz")(healthz)
    app.get(
        "/readyz",
        response_model=Readiness,
        responses={503: {"model": Readiness, "description": "Not ready, with the reason."}},
    )(readyz)

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(
                title=app.title, version=app.version, summary=app.summary, routes=app.routes
            )
            schema.setdefault("components", {}).setdefault("schemas", {}).update(components)
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]
    app.include_router(review_router)
    return app
