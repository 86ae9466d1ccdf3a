"""Validated shapes of what agents report. Every capture goes through one of these models.

``parse_event`` is the one gate every capture passes (``record_*``, ``digest.aio``, the HTTP
service, ``digest capture --file``, LESSON.md import): it masks secrets first
(``digest.redact``: keys, tokens, passwords in URLs and connection strings, private keys, and
any value of a field named like a secret), so no later step — the INSERT, the judge, a log line,
a lesson — ever holds one. What routes an event (tenant, agent, idempotency key, thread and
contact ids) is kept as sent.

Pydantic does the typing (strict: ``"3"`` is not an int), these validators add what pydantic
does not know: NUL bytes and lone surrogates never reach the database, required text is not
blank, the text caps of DESIGN §3 hold, and tenant and agent keys are NFC-normalised and
refused when they hold control or invisible characters, surrounding whitespace or letters of
two look-alike scripts (``digest.tenants.key_problem``).
"""

from __future__ import annotations

import functools
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
from digest.redact import redact_value
from digest.tenants import key_problem, lookup_key

KEY_MAX = 200
MAX_TOOL_CALLS = 50
MAX_PAYLOAD_BYTES = 64 * 1024
#: tool arguments nested deeper than this are refused (a structure, not a text to trim)
MAX_DEPTH = 32

#: fields that route an event rather than tell what happened: never masked (an idempotency key
#: must stay the caller's, whatever it looks like)
ROUTING_FIELDS = frozenset({"tenant", "agent", "idempotency_key", "thread_id", "contact_id"})

#: free text an agent reports, by kind: trimmed to fit rather than refused (issue 14)
FREE_TEXT: dict[str, tuple[str, ...]] = {
    "run_outcome": ("task", "error", "attempt_summary"),
    "operator_edit": ("original", "final", "context"),
    "owner_answer": ("question", "answer", "context"),
    "manual_lesson": (),
}
#: free text of each tool call
TOOL_TEXT = ("error", "output")
#: a trimmed tool text may shrink to this, at the least, to fit the payload cap
TOOL_TEXT_MIN = 256
TRIM_MARK = "\n… [trimmed by capture: {removed} of {total} characters removed] …\n"


def text_problem(value: str) -> str | None:
    """What keeps ``value`` out of the database (a NUL byte, a lone surrogate), or None."""
    try:
        _clean(value)
    except ValueError as exc:
        return str(exc)
    return None


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


def _tenant_or_agent(value: str) -> str:
    # One rule for every tenant and agent key (digest.tenants): NFC, nothing invisible.
    problem, stored = _judged_key(_clean(value))
    if problem is not None:
        raise ValueError(problem)
    return stored


@functools.lru_cache(maxsize=4096)
def _judged_key(value: str) -> tuple[str | None, str]:
    """``key_problem`` and the stored form of a key, remembered: an agent sends the same two
    keys with every event, and judging one character by character is a tenth of the
    validation (bounded: at most 4,096 keys of at most ``KEY_MAX`` characters)."""
    return key_problem(value), lookup_key(value)


Key = Annotated[str, Field(max_length=KEY_MAX), AfterValidator(_required)]
#: a tenant or agent key: stored NFC; control, invisible and look-alike keys are refused
OwnerKey = Annotated[str, Field(max_length=KEY_MAX), AfterValidator(_tenant_or_agent)]
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
    tenant: OwnerKey
    agent: OwnerKey
    idempotency_key: OptionalKey
    thread_id: OptionalKey
    contact_id: OptionalKey
    #: the fields capture trimmed to fit (set by capture; what a caller sends is replaced)
    trimmed: list[str] = Field(default_factory=list)


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
    #: the turn id given to ``pitfalls``: the outcome is credited to that turn's holdout
    #: exposures (``digest.lessons.holdout``)
    turn_id: OptionalKey


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


def trim_text(value: str, limit: int) -> str:
    """``value`` cut to at most ``limit`` characters, keeping its head and its tail (where a
    traceback's cause is) around a marker that says how much was removed."""
    if len(value) <= limit:
        return value
    mark = TRIM_MARK.format(removed=len(value) - limit, total=len(value))
    room = max(0, limit - len(mark))
    head = room * 2 // 3
    return value[:head] + mark + value[len(value) - (room - head) :]


def _depth(value: Any) -> int:
    """How deeply ``value`` nests lists and dicts, counted without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list | tuple):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, level + 1) for child in children)
    return deepest


def _trimmed(kind: str, data: dict[str, Any], tool_limit: int) -> tuple[dict[str, Any], list[str]]:
    """``data`` with oversized free text trimmed (a copy), and the fields trimmed."""
    out = dict(data)
    done: list[str] = []
    for name in FREE_TEXT.get(kind, ()):
        value = out.get(name)
        if isinstance(value, str) and len(value) > BODY_MAX:
            out[name] = trim_text(value, BODY_MAX)
            done.append(name)
    calls = out.get("tool_calls")
    if kind == "run_outcome" and isinstance(calls, list):
        copied = []
        for i, call in enumerate(calls):
            if isinstance(call, dict):
                call = dict(call)
                for name in TOOL_TEXT:
                    value = call.get(name)
                    if isinstance(value, str) and len(value) > tool_limit:
                        call[name] = trim_text(value, tool_limit)
                        done.append(f"tool_calls[{i}].{name}")
            copied.append(call)
        out["tool_calls"] = copied
    return out, done


def _secrets_masked(data: dict[str, Any]) -> dict[str, Any]:
    """``data`` with every secret masked (``digest.redact.redact_value``), routing fields
    aside. Before trimming, so a cut never leaves half a secret the rules cannot see."""
    content = {name: value for name, value in data.items() if name not in ROUTING_FIELDS}
    try:
        masked = redact_value(content)
    except RecursionError:  # only arguments may nest, and they are checked first
        field = next((name for name, value in content.items() if _depth(value) > MAX_DEPTH), "")
        raise InvalidEvent(field or "(event)", "nested too deeply to read") from None
    return data if masked is content else {**data, **masked}


def _check_depth(data: dict[str, Any]) -> None:
    calls = data.get("tool_calls")
    for i, call in enumerate(calls if isinstance(calls, list) else []):
        if isinstance(call, dict) and _depth(call.get("args")) > MAX_DEPTH:
            raise InvalidEvent(
                f"tool_calls[{i}].args", f"nested deeper than {MAX_DEPTH} levels of lists and maps"
            )


def parse_event(kind: str, data: dict[str, Any]) -> EventCommon:
    """Validate ``data`` as an event of ``kind``; raise ``InvalidEvent`` naming the field.

    Secrets are masked first, in every field but the routing ones (``_secrets_masked``). Free
    text that is too long (a task, an error, a tool's output, an answer, an edit) is
    trimmed to fit, head and tail kept around a marker stating the original length, and the
    event's ``trimmed`` lists the fields; tool texts shrink further, down to
    ``TOOL_TEXT_MIN`` characters each, until the whole payload fits its cap. Structure is
    never trimmed: a wrong type, a missing field, an unknown kind, arguments nested deeper
    than ``MAX_DEPTH`` or a payload that still does not fit raise ``InvalidEvent``."""
    model = EVENT_MODELS.get(kind) if isinstance(kind, str) else None
    if model is None:
        raise InvalidEvent("kind", f"unknown event kind {kind!r}; one of {sorted(EVENT_MODELS)}")
    if not isinstance(data, dict):
        raise InvalidEvent("(event)", f"must be a mapping of fields, not {type(data).__name__}")
    _check_depth(data)
    data = _secrets_masked(data)
    tool_limit = BODY_MAX
    while True:
        given, trimmed = _trimmed(kind, data, tool_limit)
        parsed = _validated(model, kind, given, trimmed)
        if _surely_fits(parsed):
            return parsed
        size = len(json.dumps(parsed.model_dump(mode="json"), ensure_ascii=False).encode("utf-8"))
        if size <= MAX_PAYLOAD_BYTES:
            return parsed
        if tool_limit <= TOOL_TEXT_MIN:
            raise InvalidEvent(
                "(event)", f"payload is {size} bytes; the cap is {MAX_PAYLOAD_BYTES}"
            )
        tool_limit = max(TOOL_TEXT_MIN, tool_limit // 2)


#: bytes the payload as measured may have beyond twice its compact JSON (numbers written
#: another way)
_FIT_SLACK = 1024


def _surely_fits(parsed: EventCommon) -> bool:
    """Whether the payload is surely within ``MAX_PAYLOAD_BYTES`` as measured (``json.dumps``
    with its ``", "`` and ``": "`` separators, UTF-8), from its compact JSON, which pydantic
    writes in a fraction of the time: the measured form adds at most one byte per byte of the
    compact one (a separator's space, a number's sign), escaping strings alike. Only an event
    near the cap is measured exactly (a capture's hot path)."""
    compact = len(parsed.__pydantic_serializer__.to_json(parsed))
    return 2 * compact + _FIT_SLACK <= MAX_PAYLOAD_BYTES


def _validated(
    model: type[EventCommon], kind: str, data: dict[str, Any], trimmed: list[str]
) -> EventCommon:
    try:
        return model.model_validate({**data, "kind": kind, "trimmed": trimmed})
    except ValidationError as exc:
        errors = [
            {"field": _field_name(tuple(err["loc"])), "message": err["msg"]}
            for err in exc.errors(include_url=False)
        ]
        raise InvalidEvent(errors[0]["field"], errors[0]["message"], errors) from None
    except RecursionError:
        raise InvalidEvent("(event)", "nested too deeply to read") from None
