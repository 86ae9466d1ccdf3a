"""Capture keeps every real run (issue 14, point 1): oversized free text is trimmed, head and
tail kept around a marker stating the original length, and the event says what was trimmed;
structure (types, fields, kinds, nesting) is still refused with the field named."""

from __future__ import annotations

import json
from typing import Any

import pytest

import digest
from digest.capture.schemas import (
    MAX_DEPTH,
    MAX_PAYLOAD_BYTES,
    TOOL_TEXT_MIN,
    parse_event,
    trim_text,
)
from digest.db import session_scope
from digest.errors import InvalidEvent
from digest.models import BODY_MAX, Event


def run(**fields: Any) -> dict[str, Any]:
    return {"tenant": "t", "agent": "a", "task": "do it", "outcome": "failure", **fields}


def test_trim_keeps_head_and_tail_and_states_the_length() -> None:
    text = "HEAD" + "x" * 10_000 + "TAIL"
    cut = trim_text(text, 1000)
    assert len(cut) <= 1000
    assert cut.startswith("HEAD") and cut.endswith("TAIL")
    assert f"of {len(text)} characters" in cut
    assert trim_text("short", 1000) == "short"


def test_a_large_tool_output_is_trimmed_not_refused() -> None:
    output = "line\n" * 1600  # 8,000 characters, as real tool outputs are
    parsed = parse_event(
        "run_outcome", run(tool_calls=[{"tool": "search", "ok": False, "error": "boom",
                                        "output": output}])
    )  # fmt: skip
    [call] = parsed.tool_calls  # type: ignore[attr-defined]
    assert len(call.output) <= BODY_MAX and "trimmed by capture" in call.output
    assert parsed.trimmed == ["tool_calls[0].output"]


@pytest.mark.parametrize(
    ("kind", "field", "fields"),
    [
        ("run_outcome", "task", run()),
        ("run_outcome", "error", run()),
        ("run_outcome", "attempt_summary", run()),
        ("operator_edit", "original", {"tenant": "t", "agent": "a", "final": "ok"}),
        ("operator_edit", "final", {"tenant": "t", "agent": "a", "original": "draft"}),
        ("owner_answer", "answer", {"tenant": "t", "agent": "a", "question": "q?"}),
        ("owner_answer", "question", {"tenant": "t", "agent": "a", "answer": "yes"}),
    ],
)
def test_every_free_text_field_is_trimmed(kind: str, field: str, fields: dict[str, Any]) -> None:
    parsed = parse_event(kind, {**fields, field: "word " * 3000})
    assert len(getattr(parsed, field)) <= BODY_MAX
    assert parsed.trimmed == [field]


def test_many_large_outputs_shrink_until_the_payload_fits() -> None:
    calls = [{"tool": f"t{i}", "ok": True, "output": "y" * 6000} for i in range(40)]
    parsed = parse_event("run_outcome", run(tool_calls=calls))
    size = len(json.dumps(parsed.model_dump(mode="json"), ensure_ascii=False).encode())
    assert size <= MAX_PAYLOAD_BYTES
    assert len(parsed.trimmed) == 40
    assert all(len(c.output) >= TOOL_TEXT_MIN - 1 for c in parsed.tool_calls)  # type: ignore[attr-defined]


def test_structure_is_still_refused_with_the_field_named() -> None:
    with pytest.raises(InvalidEvent) as wrong_type:
        parse_event("run_outcome", run(task=42))
    assert wrong_type.value.field == "task"
    with pytest.raises(InvalidEvent) as missing:
        parse_event("run_outcome", {"tenant": "t", "agent": "a", "outcome": "failure"})
    assert missing.value.field == "task"
    with pytest.raises(InvalidEvent) as kind:
        parse_event("nonsense", run())
    assert kind.value.field == "kind"


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 300, 1000, 5000])
def test_deep_nesting_is_an_invalid_event_never_a_recursion_error(depth: int) -> None:
    args: Any = "leaf"
    for _ in range(depth):
        args = {"a": args} if depth % 2 else [args]
    args = {"x": args}
    with pytest.raises(InvalidEvent) as raised:
        parse_event("run_outcome", run(tool_calls=[{"tool": "t", "args": args}]))
    assert raised.value.field == "tool_calls[0].args"
    assert "nested deeper" in str(raised.value)


def test_nesting_within_the_limit_is_kept() -> None:
    args: Any = 1
    for _ in range(MAX_DEPTH - 2):
        args = {"a": args}
    parsed = parse_event("run_outcome", run(tool_calls=[{"tool": "t", "args": {"x": args}}]))
    assert parsed.trimmed == []


def test_a_stored_event_records_what_was_trimmed(sqlite_env: str, tenant: str) -> None:
    event_id = digest.record_run(
        tenant, "bot", task="t", outcome="failure",
        tool_calls=[{"tool": "search", "ok": False, "error": "e" * 9000}],
    )  # fmt: skip
    plain = digest.record_run(tenant, "bot", task="t", outcome="failure", error="short")
    with session_scope() as session:
        trimmed, untouched = session.get(Event, event_id), session.get(Event, plain)
        assert trimmed is not None and untouched is not None
        assert trimmed.payload["trimmed"] == ["tool_calls[0].error"]
        assert len(trimmed.payload["tool_calls"][0]["error"]) <= BODY_MAX
        assert "trimmed" not in untouched.payload  # nothing trimmed: nothing recorded
