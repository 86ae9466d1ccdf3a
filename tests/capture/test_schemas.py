"""digest.capture.schemas: what agents report, validated. Bad input raises ``InvalidEvent``
naming its field (text hygiene, blank text, strict types, caps, the manual lesson's shape)
and, through the capture calls on the test PostgreSQL, writes nothing. ``parse_event`` on its
own needs no database."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from sqlalchemy import func, select

import digest
from digest.capture.schemas import (
    MAX_PAYLOAD_BYTES,
    ManualLesson,
    OperatorEdit,
    RunOutcome,
    parse_event,
)
from digest.db import session_scope
from digest.errors import InvalidEvent
from digest.models import Agent, Event, Lesson, Tenant

AGENT = "support-bot"

FUNCTIONS: dict[str, Callable[..., int]] = {
    "run": digest.record_run,
    "edit": digest.record_edit,
    "answer": digest.record_answer,
    "lesson": digest.record_lesson,
}

#: a valid call of each capture function; each case overrides one thing to make it invalid.
DEFAULTS: dict[str, dict[str, Any]] = {
    "run": {"task": "Refund order 1182", "outcome": "failure"},
    "edit": {"original": "Your order ships tomorrow.", "final": "Your order ships on Monday."},
    "answer": {"question": "Do we ship to Norway?", "answer": "Yes, 3-5 days."},
    "lesson": {"text": "refunds: always confirm the amount first"},
}


def _call(fn: str, default_tenant: str, /, **overrides: Any) -> int:
    kwargs = {**DEFAULTS[fn], **overrides}
    tenant = kwargs.pop("tenant", default_tenant)
    agent = kwargs.pop("agent", AGENT)
    return FUNCTIONS[fn](tenant, agent, **kwargs)


def _row_counts() -> dict[str, int]:
    with session_scope() as session:
        return {
            model.__tablename__: session.scalar(select(func.count()).select_from(model)) or 0
            for model in (Event, Lesson, Tenant, Agent)
        }


def _tool(**fields: Any) -> dict[str, Any]:
    return {"tool": "lookup_order", "args": {"order_id": "1182"}, "ok": False, **fields}


BAD_PAYLOADS = [
    # --- text hygiene: NUL bytes and lone surrogates never reach the database -----------------
    pytest.param("run", {"task": "refund\x00order"}, "task", id="run-task-nul"),
    pytest.param("answer", {"answer": "yes \ud800"}, "answer", id="answer-lone-surrogate"),
    pytest.param("answer", {"tenant": "acme-\ud800"}, "tenant", id="answer-tenant-lone-surrogate"),
    pytest.param("edit", {"context": "ctx \udfff"}, "context", id="edit-context-lone-surrogate"),
    pytest.param("run", {"error": "boom\x00"}, "error", id="run-error-nul"),
    pytest.param("lesson", {"text": "sig: bo\x00dy"}, "text", id="lesson-text-nul"),
    pytest.param(
        "answer", {"idempotency_key": "k\x00"}, "idempotency_key", id="answer-idempotency-key-nul"
    ),
    # --- required text is not blank -----------------------------------------------------------
    pytest.param("run", {"task": ""}, "task", id="run-task-empty"),
    pytest.param("answer", {"question": " \t\n "}, "question", id="answer-question-whitespace"),
    pytest.param("edit", {"final": "   "}, "final", id="edit-final-whitespace"),
    pytest.param("edit", {"original": ""}, "original", id="edit-original-empty"),
    pytest.param("run", {"agent": ""}, "agent", id="run-agent-empty"),
    # --- types (strict: no coercion) ----------------------------------------------------------
    pytest.param("run", {"outcome": "crashed"}, "outcome", id="run-outcome-unknown"),
    pytest.param("run", {"outcome": 1}, "outcome", id="run-outcome-int"),
    pytest.param("run", {"task": 42}, "task", id="run-task-int"),
    pytest.param("run", {"contact_id": 7}, "contact_id", id="run-contact-id-int"),
    pytest.param("run", {"tool_calls": {"tool": "lookup"}}, "tool_calls", id="run-tool-calls-dict"),
    pytest.param("run", {"tool_calls": ["lookup_order"]}, "tool_calls[0]", id="run-tool-call-str"),
    pytest.param(
        "run", {"tool_calls": [{"args": {}}]}, "tool_calls[0].tool", id="run-tool-call-no-tool"
    ),
    pytest.param(
        "run",
        {"tool_calls": [_tool(retries=2)]},
        "tool_calls[0].retries",
        id="run-tool-call-extra-key",
    ),
    pytest.param(
        "run", {"tool_calls": [_tool(ok="yes")]}, "tool_calls[0].ok", id="run-tool-call-ok-str"
    ),
    pytest.param(
        "run",
        {"tool_calls": [_tool(args={"x": object()})]},
        "tool_calls[0].args",
        id="run-tool-call-args-not-json",
    ),
    pytest.param(
        "run",
        {"tool_calls": [_tool(args={"amount": float("nan")})]},
        "tool_calls[0].args",
        id="run-tool-call-args-nan",
    ),
    pytest.param(
        "run",
        {"tool_calls": [_tool(args={"note": "a\x00b"})]},
        "tool_calls[0].args",
        id="run-tool-call-args-nul",
    ),
    pytest.param(
        "run",
        {"tool_calls": [_tool(args={"nested": ["\ud800"]})]},
        "tool_calls[0].args",
        id="run-tool-call-args-lone-surrogate",
    ),
    pytest.param(
        "run",
        {"tool_calls": [_tool(), _tool(error="bad\x00")]},
        "tool_calls[1].error",
        id="run-second-tool-call-error-nul",
    ),
    pytest.param(
        "run", {"applied_lesson_ids": ["3"]}, "applied_lesson_ids[0]", id="run-lesson-id-str"
    ),
    pytest.param(
        "run", {"applied_lesson_ids": [0]}, "applied_lesson_ids[0]", id="run-lesson-id-zero"
    ),
    pytest.param(
        "run", {"applied_lesson_ids": [5, True]}, "applied_lesson_ids[1]", id="run-lesson-id-bool"
    ),
    # --- caps ---------------------------------------------------------------------------------
    pytest.param("run", {"tool_calls": [_tool()] * 51}, "tool_calls", id="run-over-50-tool-calls"),
    pytest.param("answer", {"tenant": "t" * 201}, "tenant", id="answer-tenant-over-200"),
    pytest.param("answer", {"thread_id": "t" * 201}, "thread_id", id="answer-thread-id-over-200"),
    pytest.param(
        "answer",
        {"idempotency_key": "k" * 201},
        "idempotency_key",
        id="answer-idempotency-key-over-200",
    ),
    # --- manual lesson text shape -------------------------------------------------------------
    pytest.param("lesson", {"text": "x" * 201 + ": body"}, "text", id="lesson-signature-over-200"),
    pytest.param("lesson", {"text": "always confirm the amount"}, "text", id="lesson-no-colon"),
    pytest.param("lesson", {"text": "sig:   "}, "text", id="lesson-empty-body"),
    pytest.param("lesson", {"text": ":  the body"}, "text", id="lesson-empty-signature"),
    pytest.param("lesson", {"text": "  \n  "}, "text", id="lesson-whitespace"),
]


@pytest.mark.parametrize(("fn", "overrides", "field"), BAD_PAYLOADS)
def test_bad_payload_is_rejected_and_nothing_written(
    services_env: dict[str, str], tenant: str, fn: str, overrides: dict[str, Any], field: str
) -> None:
    before = _row_counts()
    with pytest.raises(InvalidEvent) as caught:
        _call(fn, tenant, **overrides)
    assert caught.value.field == field, caught.value.errors
    assert caught.value.message
    assert _row_counts() == before


def test_invalid_event_str_names_the_field(services_env: dict[str, str], tenant: str) -> None:
    with pytest.raises(InvalidEvent) as caught:
        _call("run", tenant, outcome="crashed")
    assert "outcome" in str(caught.value)
    assert "crashed" not in caught.value.field

    with pytest.raises(InvalidEvent) as nested:
        _call("run", tenant, tool_calls=[{"args": {}}])
    assert "tool_calls[0].tool" in str(nested.value)


def test_payload_over_64_kib_is_rejected_as_a_whole(
    services_env: dict[str, str], tenant: str
) -> None:
    # Tool outputs are trimmed to fit (tests/capture/test_trim.py); arguments are structure and
    # are not: 50 calls with 1,500 characters of arguments each (~80 KB) cannot fit.
    calls = [_tool(ok=True, args={"query": "q" * 1500}) for _ in range(50)]
    before = _row_counts()
    with pytest.raises(InvalidEvent) as caught:
        _call("run", tenant, tool_calls=calls)
    assert caught.value.field == "(event)"
    assert "65536" in caught.value.message
    assert _row_counts() == before


def test_a_payload_over_64_kib_of_tool_output_is_trimmed_to_fit_and_stored(
    services_env: dict[str, str], tenant: str
) -> None:
    calls = [_tool(ok=True, output="o" * 2000) for _ in range(50)]
    event_id = _call("run", tenant, tool_calls=calls)
    with session_scope() as session:
        event = session.get(Event, event_id)
        assert event is not None and len(event.payload["trimmed"]) == 50


def test_payload_just_under_the_cap_is_stored(services_env: dict[str, str], tenant: str) -> None:
    calls = [_tool(ok=True, output="o" * 1000) for _ in range(50)]
    event_id = _call("run", tenant, tool_calls=calls)
    with session_scope() as session:
        event = session.get(Event, event_id)
        assert event is not None
        assert len(event.payload["tool_calls"]) == 50


def _event(event_id: int) -> Event:
    with session_scope() as session:
        event = session.get(Event, event_id)
        assert event is not None
        return event


# --- library bugs (these fail until the library is fixed) ------------------------------------


@pytest.mark.parametrize(
    ("overrides", "field"),
    [
        pytest.param({"tool_calls": {}}, "tool_calls", id="tool-calls-empty-dict"),
        pytest.param({"applied_lesson_ids": ""}, "applied_lesson_ids", id="lesson-ids-empty-str"),
    ],
)
def test_record_run_does_not_coerce_non_lists(
    services_env: dict[str, str], tenant: str, overrides: dict[str, Any], field: str
) -> None:
    """Strict mode promises no coercion, but record_run calls list() on these arguments first."""
    before = _row_counts()
    with pytest.raises(InvalidEvent) as caught:
        _call("run", tenant, **overrides)
    assert caught.value.field == field
    assert _row_counts() == before


def test_args_with_a_literal_backslash_u0000_are_not_a_nul_byte(
    services_env: dict[str, str], tenant: str
) -> None:
    """Six characters ``\\u0000`` (backslash, u, zeros) contain no NUL; they must be stored."""
    text = "match the escape \\u0000 literally"
    assert "\x00" not in text
    event_id = _call("run", tenant, tool_calls=[_tool(args={"pattern": text})])
    assert _event(event_id).payload["tool_calls"][0]["args"] == {"pattern": text}


def test_empty_idempotency_key_does_not_swallow_a_different_event(
    services_env: dict[str, str], tenant: str
) -> None:
    """An empty key is either rejected or not a key at all; it must not merge unrelated events."""
    ids: list[int | None] = []
    for question in ("Ship to Norway?", "Do you sell gift cards?"):
        try:
            ids.append(
                digest.record_answer(
                    tenant, AGENT, question=question, answer="Yes.", idempotency_key=""
                )
            )
        except InvalidEvent as exc:
            assert exc.field == "idempotency_key"
            ids.append(None)
    assert ids[0] is None or ids[0] != ids[1], (
        f"the second answer was dropped: both calls returned event {ids[0]}"
    )


# --- parse_event on its own (no database) ----------------------------------------------------


def test_parse_event_gives_the_model_of_its_kind() -> None:
    run = parse_event(
        "run_outcome",
        {"tenant": "t", "agent": "a", "task": "refund", "outcome": "failure",
         "tool_calls": [{"tool": "refund", "args": {"order": 1}, "ok": False}]},
    )  # fmt: skip
    assert isinstance(run, RunOutcome) and run.tool_calls[0].tool == "refund"
    assert (run.error, run.applied_lesson_ids, run.idempotency_key) == (None, [], None)
    edit = parse_event(
        "operator_edit", {"tenant": "t", "agent": "a", "original": "x", "final": None}
    )
    assert isinstance(edit, OperatorEdit) and edit.final is None
    lesson = parse_event("manual_lesson", {"tenant": "t", "agent": "a", "text": "s: body"})
    assert isinstance(lesson, ManualLesson)


@pytest.mark.parametrize(
    ("kind", "data", "field"),
    [
        ("nonsense", {}, "kind"),
        ("owner_answer", {"tenant": "t", "agent": "a", "question": "q?"}, "answer"),
        ("operator_edit", {"tenant": "t", "agent": "a", "original": "x"}, "final"),
        (
            "manual_lesson",
            {"tenant": "t", "agent": "a", "text": "s: b", "slug": "Bad Slug"},
            "slug",
        ),
        (
            "owner_answer",
            {"tenant": "t", "agent": "a", "question": "q", "answer": "a", "x": 1},
            "x",
        ),
    ],
    ids=["unknown-kind", "missing-field", "final-must-be-given", "bad-slug", "extra-field"],
)
def test_parse_event_names_the_field(kind: str, data: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidEvent) as caught:
        parse_event(kind, data)
    assert caught.value.field == field


def test_every_error_is_reported_the_first_names_the_field() -> None:
    with pytest.raises(InvalidEvent) as caught:
        parse_event("run_outcome", {"tenant": "", "agent": "", "task": "", "outcome": "?"})
    assert caught.value.field == "tenant"
    assert {e["field"] for e in caught.value.errors} == {"tenant", "agent", "task", "outcome"}


def test_the_payload_cap_counts_the_whole_event() -> None:
    text = "x" * 4000
    data = {"tenant": "t", "agent": "a", "task": text, "outcome": "failure",
            "tool_calls": [{"tool": "t", "args": {"q": text}} for _ in range(17)]}  # fmt: skip
    with pytest.raises(InvalidEvent, match=str(MAX_PAYLOAD_BYTES)):
        parse_event("run_outcome", data)
