"""What the HTTP service answers with, and the OpenAPI shapes of what it takes.

The request body of ``POST /v1/events`` is read by capture itself (``digest.capture.schemas``,
the same validation as the Python API), so its OpenAPI schema is derived from those models
rather than written twice: each event kind's schema without ``tenant`` (it comes from the
API key) and ``trimmed`` (capture sets it), with ``kind`` required.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field
from pydantic.json_schema import models_json_schema

from digest.capture.schemas import EVENT_MODELS

#: the most events one ``POST /v1/events`` may carry
BATCH_MAX = 100
#: fields of a capture model an HTTP body never sends
_NOT_SENT = ("tenant", "trimmed")


class Captured(BaseModel):
    id: int = Field(description="The event's id.")
    created: bool = Field(
        description="False when the idempotency key named an event stored before."
    )


class CapturedBatch(BaseModel):
    events: list[Captured] = Field(description="One result per event, in the order sent.")


class FieldProblem(BaseModel):
    field: str = Field(description="The offending field, e.g. `task` or `events[2].outcome`.")
    message: str


class InvalidInput(BaseModel):
    """422: nothing was stored."""

    detail: list[FieldProblem]


class Problem(BaseModel):
    detail: str


class Pitfalls(BaseModel):
    agent: str
    pitfalls: str = Field(description="The rendered block; empty when no lesson matches.")


class LearningVersion(BaseModel):
    number: int
    body: str
    change_summary: str
    summary: str
    created_at: datetime


class Learning(BaseModel):
    agent: str
    version: LearningVersion | None = Field(description="None while the agent has none.")


class FewShotExample(BaseModel):
    draft: str = Field(description="What the agent drafted.")
    final: str = Field(description="What the operator sent instead.")
    event_id: int
    created_at: datetime


class Examples(BaseModel):
    agent: str
    examples: list[FewShotExample] = Field(description="Most relevant first; empty when none.")


class Health(BaseModel):
    status: Literal["ok"]


class Readiness(BaseModel):
    status: Literal["ready", "not ready"]
    reason: str | None = None


def event_schemas() -> tuple[dict[str, Any], dict[str, Any]]:
    """(components to add to the OpenAPI document, the request body schema of
    ``POST /v1/events``): one event object, or ``{"events": [...]}``."""
    _, top = models_json_schema(
        [(model, "validation") for model in EVENT_MODELS.values()],
        ref_template="#/components/schemas/{model}",
    )
    components: dict[str, Any] = top.get("$defs", {})
    refs = []
    for model in EVENT_MODELS.values():
        schema = components[model.__name__]
        for name in _NOT_SENT:
            schema["properties"].pop(name, None)
        required = [n for n in schema.get("required", []) if n not in _NOT_SENT]
        schema["required"] = ["kind", *required]
        refs.append({"$ref": f"#/components/schemas/{model.__name__}"})
    one_event = {"anyOf": refs}
    components["EventBatch"] = {
        "type": "object",
        "properties": {
            "events": {"type": "array", "items": one_event, "minItems": 1, "maxItems": BATCH_MAX}
        },
        "required": ["events"],
        "additionalProperties": False,
    }
    body = {"anyOf": [*refs, {"$ref": "#/components/schemas/EventBatch"}]}
    return components, body


class AgentSettings(BaseModel):
    """An agent's settings (``digest agent show --json``)."""

    tenant: str
    agent: str
    enable_learning: bool = Field(
        description="False: events are captured but skipped, not reflected, and no version is "
        "composed by itself."
    )
    learning_instructions: str | None = Field(description="Text the reflection reads.")
    llm_model: str | None = Field(description="The agent's own model; null: DIGEST_LLM_*.")
    model_in_use: str = Field(description="The model its reflection uses now.")
    active_lessons: int
    current_version: int | None
    created_at: datetime | None
    changed: list[str] = Field(description="The settings this request changed.")


class AgentSettingsChange(BaseModel):
    """What to change; a field left out stays as it is."""

    model_config = ConfigDict(extra="forbid")

    enable_learning: bool | None = Field(default=None, description="Learning on or off.")
    learning_instructions: str | None = Field(
        default=None, max_length=4096, description="null removes them."
    )
    llm_model: str | None = Field(
        default=None, max_length=200, description="null goes back to the DIGEST_LLM_* models."
    )


class LessonExpiry(BaseModel):
    """When the lesson leaves the bank; null: never."""

    model_config = ConfigDict(extra="forbid")

    expires_at: AwareDatetime | None = Field(description="A future moment with its zone.")


class LessonExpiryChange(BaseModel):
    lesson_id: int
    title: str
    status: str
    before: datetime | None
    expires_at: datetime | None
    changed: bool = Field(description="False when it already had this expiry.")
