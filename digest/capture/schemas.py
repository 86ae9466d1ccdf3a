"""Validated shapes of what agents report. Every capture goes through one of these models.

Pydantic does the typing (strict: ``"3"`` is not an int), these validators add what pydantic
does not know: NUL bytes and lone surrogates never reach the database, required text is not
blank, and the text caps of DESIGN §3 hold.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    ValidationError,
    field_validator,
)

from digest.errors import InvalidEvent
from digest.models import BODY_MAX, TITLE_MAX

KEY_MAX = 200
MAX_TOOL_CALLS = 50
MAX_PAYLOAD_BYTES = 64 * 1024


def _clean(value: str) -> str:
    if "\x00" in value:
        raise ValueError("contains a NUL byte")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError("contains a lone surrogate (not valid UTF-8)") from exc
    return value


def _required(value: str) -> str:
    value = _clean(value)
    if not value.strip():
        raise ValueError("must not be empty or whitespace")
    return value


def _optional_required(value: str | None) -> str | None:
    # An empty idempotency key would make every later event "the same" one: reject it.
    return None if value is None else _required(value)


Key = Annotated[str, Field(max_length=KEY_MAX), AfterValidator(_required)]
OptionalKey = Annotated[
    str | None, Field(default=None, max_length=KEY_MAX), AfterValidator(_optional_required)
]
Body = Annotated[str, Field(max_length=BODY_MAX), AfterValidator(_required)]
OptionalBody = Annotated[str | None, Field(default=None, max_length=BODY_MAX)]


class _Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid", frozen=True)

    @field_validator("*", mode="after")
    @classmethod
    def _no_bad_text(cls, value: Any) -> Any:
        # Optional strings skip the Annotated validators; check them here too.
        if isinstance(value, str):
            _clean(value)
        return value


class EventCommon(_Strict):
    kind: str
    tenant: Key
    agent: Key
    idempotency_key: OptionalKey
    thread_id: OptionalKey
    contact_id: OptionalKey


class ToolCall(_Strict):
    tool: Key
    args: dict[str, Any] | None = None
    ok: bool = True
    error: OptionalBody
    output: OptionalBody

    @field_validator("args")
    @classmethod
    def _args_serialisable(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is not None:
            _check_json(value, "args")
        return value


class RunOutcome(EventCommon):
    kind: Literal["run_outcome"] = "run_outcome"
    task: Body
    outcome: Literal["success", "failure", "escalated"]
    error: OptionalBody
    tool_calls: list[ToolCall] = Field(default_factory=list, max_length=MAX_TOOL_CALLS)
    attempt_summary: OptionalBody
    applied_lesson_ids: list[Annotated[StrictInt, Field(gt=0)]] = Field(
        default_factory=list, max_length=50
    )


class OperatorEdit(EventCommon):
    kind: Literal["operator_edit"] = "operator_edit"
    original: Body
    #: None means the operator rejected the draft outright; required so that is never implied.
    final: Annotated[str | None, Field(max_length=BODY_MAX)]
    context: OptionalBody

    @field_validator("final")
    @classmethod
    def _final_not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must not be empty or whitespace (use None for a rejected draft)")
        return value


class OwnerAnswer(EventCommon):
    kind: Literal["owner_answer"] = "owner_answer"
    question: Body
    answer: Body
    context: OptionalBody


class ManualLesson(EventCommon):
    kind: Literal["manual_lesson"] = "manual_lesson"
    #: ``signature: lesson`` or a signature line followed by body lines
    text: Annotated[str, Field(max_length=TITLE_MAX + 1 + BODY_MAX), AfterValidator(_required)]
    #: structured parts, when the lesson comes from a LESSON.md file rather than a person
    situation: OptionalBody
    mistake: OptionalBody
    tags: list[Annotated[str, Field(max_length=40)]] = Field(default_factory=list, max_length=12)
    slug: Annotated[str | None, Field(default=None, max_length=80, pattern=r"^[a-z0-9][a-z0-9-]*$")]


EVENT_MODELS: dict[str, type[EventCommon]] = {
    "run_outcome": RunOutcome,
    "operator_edit": OperatorEdit,
    "owner_answer": OwnerAnswer,
    "manual_lesson": ManualLesson,
}

#: events whose text comes from people the agent answers to (DESIGN §8).


def _check_json(value: Any, field: str) -> None:
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{field} is not JSON-serialisable: {exc}") from exc
    _check_strings(value, field)


def _check_strings(value: Any, field: str) -> None:
    """Every string inside (keys too) is free of NUL bytes and lone surrogates."""
    if isinstance(value, str):
        _clean(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_strings(key, field)
            _check_strings(item, field)
    elif isinstance(value, list | tuple):
        for item in value:
            _check_strings(item, field)


def _field_name(loc: tuple[int | str, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int):
            parts.append(f"[{item}]")
        else:
            parts.append(("." if parts else "") + item)
    return "".join(parts) or "(event)"


def parse_event(kind: str, data: dict[str, Any]) -> EventCommon:
    """Validate ``data`` as an event of ``kind``; raise ``InvalidEvent`` naming the field."""
    model = EVENT_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise InvalidEvent("kind", f"unknown event kind {kind!r}; one of {sorted(EVENT_MODELS)}")
    try:
        parsed = model.model_validate({**data, "kind": kind})
    except ValidationError as exc:
        errors = [
            {"field": _field_name(tuple(err["loc"])), "message": err["msg"]}
            for err in exc.errors(include_url=False)
        ]
        raise InvalidEvent(errors[0]["field"], errors[0]["message"], errors) from None
    size = len(json.dumps(parsed.model_dump(mode="json"), ensure_ascii=False).encode("utf-8"))
    if size > MAX_PAYLOAD_BYTES:
        raise InvalidEvent("(event)", f"payload is {size} bytes; the cap is {MAX_PAYLOAD_BYTES}")
    return parsed
