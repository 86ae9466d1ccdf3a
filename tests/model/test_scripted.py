"""digest.model.scripted: the in-process twin of a model for tests (as httpx's MockTransport
is of a network). A handler registered under a ``scripted/`` model string answers requests,
records them, and reads what a request carries (its step, its event)."""

from __future__ import annotations

import json

import pytest

from digest.errors import LLMError
from digest.model import scripted
from digest.model.prompts import load_prompt
from digest.model.scripted import (
    ScriptedModel,
    answer,
    event_of,
    is_scripted_model,
    rules,
    scripted_model,
    step_of,
)
from digest.reflect.verdict import event_json
from tests.conftest import make_claimed

EVENT = {"id": 41, "kind": "owner_answer", "trust": "high",
         "payload": {"question": "Gift wrap?", "answer": "Yes </event> 3 EUR."}}  # fmt: skip


def reflect_request() -> list[dict[str, str]]:
    claimed = make_claimed(event_id=41, kind="owner_answer", trust="high", payload=EVENT["payload"])
    return load_prompt("reflect").render(
        agent="bot", kind="owner_answer", trust="high", instructions="",
        event_json=event_json(claimed),  # the escaping reflection really applies
    )  # fmt: skip


def test_a_registered_handler_answers_and_every_request_is_kept() -> None:
    with scripted_model(lambda messages: f"seen {len(messages)}") as model:
        assert is_scripted_model(model.name) and model.name.startswith("scripted/")
        assert answer(model.name, [{"role": "user", "content": "a"}]) == "seen 1"
        assert answer(model.name, [{"role": "user", "content": "b"}]) == "seen 1"
    assert [m[0]["content"] for m in model.requests] == ["a", "b"]
    assert repr(model) == f"ScriptedModel(name={model.name!r}, requests=2)"


def test_after_the_block_the_name_answers_nothing() -> None:
    with scripted_model(lambda messages: "x") as model:
        pass
    with pytest.raises(LLMError, match="no handler is registered"):
        answer(model.name, [])


def test_names_are_unique_unless_given_and_never_taken_twice() -> None:
    first, second = ScriptedModel(rules), ScriptedModel(rules)
    assert first.name != second.name
    with ScriptedModel(rules, name="judge") as named:
        assert named.name == "scripted/judge"
        with pytest.raises(ValueError, match="already registered"):
            ScriptedModel(rules, name="judge").register()
        named.register()  # registering itself again is harmless


def test_the_handler_can_be_swapped_while_registered() -> None:
    with scripted_model(lambda messages: "first") as model:
        model.handler = lambda messages: "second"
        assert answer(model.name, []) == "second"


def test_a_handler_raises_what_a_provider_would() -> None:
    def broken(messages: list[dict[str, str]]) -> str:
        raise LLMError("400 bad request")

    with scripted_model(broken) as model, pytest.raises(LLMError, match="400"):
        answer(model.name, [])
    assert len(model.requests) == 1


def test_reset_forgets_every_handler() -> None:
    model = scripted_model(rules).register()
    scripted.reset()
    with pytest.raises(LLMError):
        answer(model.name, [])


def test_a_request_tells_its_step_and_its_event() -> None:
    request = reflect_request()
    assert step_of(request) == "reflect"
    assert event_of(request) == EVENT  # escaped block ends read back as they were
    summarize = load_prompt("summarize").render(
        agent="bot", number=1, previous="none", added_json="[]", changed_json="[]",
        retired_json="[]",
    )  # fmt: skip
    assert step_of(summarize) == "summarize" and event_of(summarize) is None
    reconcile = load_prompt("reconcile").render(
        agent="bot", kind="owner_answer", existing_json="[]", candidates_json="[]"
    )
    assert step_of(reconcile) == "reconcile"
    assert step_of([{"role": "user", "content": "hello"}]) == "unknown"
    # Only what the user message carries counts (as for offline/rules).
    assert step_of([{"role": "system", "content": "<event>{}</event>"}]) == "unknown"


def test_rules_answer_like_offline_rules() -> None:
    with scripted_model(rules) as model:
        text = answer(model.name, reflect_request())
    assert "<lesson>" in text and "3 EUR" in text
    assert json.loads(json.dumps(model.requests))  # requests are plain data
