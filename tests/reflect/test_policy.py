"""digest.reflect.policy: which events are worth a model call (the trigger policy), and which
agents' models answer in this process (their events are reflected in batches)."""

from __future__ import annotations

import pytest

from digest.config import Settings
from digest.model.scripted import scripted_model
from digest.reflect.policy import models_in_process, policy_skip_reason

# --- policy_skip_reason ----------------------------------------------------------------------


def test_policy_skips_successful_run_without_errors() -> None:
    reason = policy_skip_reason("run_outcome", {"outcome": "success"}, None, Settings())
    assert isinstance(reason, str)
    assert "success" in reason


def test_policy_reflects_failure() -> None:
    assert policy_skip_reason("run_outcome", {"outcome": "failure"}, None, Settings()) is None


def test_policy_reflects_successful_run_with_a_tool_error() -> None:
    payload = {"outcome": "success", "tool_calls": [{"tool": "x", "ok": False}]}
    assert policy_skip_reason("run_outcome", payload, None, Settings()) is None


def test_policy_skips_tiny_operator_edit() -> None:
    reason = policy_skip_reason("operator_edit", {}, 0.01, Settings())
    assert isinstance(reason, str)
    assert "0.01" in reason


def test_policy_reflects_rejected_draft() -> None:
    assert policy_skip_reason("operator_edit", {"final": None}, None, Settings()) is None


def test_policy_reflects_owner_answer() -> None:
    assert policy_skip_reason("owner_answer", {}, None, Settings()) is None


def test_policy_reflects_success_runs_when_configured() -> None:
    settings = Settings(reflect_success_runs=True)
    assert policy_skip_reason("run_outcome", {"outcome": "success"}, None, settings) is None


def test_policy_skips_failures_when_disabled() -> None:
    settings = Settings(reflect_failures=False)
    assert policy_skip_reason("run_outcome", {"outcome": "failure"}, None, settings) is not None


def test_policy_skips_tiny_edit_at_the_configured_threshold() -> None:
    settings = Settings(edit_ratio_threshold=0.5)
    assert policy_skip_reason("operator_edit", {}, 0.49, settings) is not None
    assert policy_skip_reason("operator_edit", {}, 0.5, settings) is None


def test_policy_skips_tool_errors_when_disabled() -> None:
    payload = {"outcome": "success", "tool_calls": [{"tool": "x", "error": "boom"}]}
    reason = policy_skip_reason("run_outcome", payload, None, Settings(reflect_tool_errors=False))
    assert reason is not None and "with tool errors" in reason


def test_policy_never_reflects_manual_lessons_or_unknown_kinds() -> None:
    for kind in ("manual_lesson", "something_else"):
        reason = policy_skip_reason(kind, {}, None, Settings())
        assert reason is not None and kind in reason


# --- models_in_process -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("llm_model", "reconcile_model", "agent_model", "expected"),
    [
        ("offline/rules", None, None, True),
        ("openai/gpt-4o-mini", None, None, False),
        ("offline/rules", "openai/gpt-4o-mini", None, False),  # one remote step is enough
        ("openai/gpt-4o-mini", None, "offline/rules", True),  # the agent's override wins
        ("offline/rules", None, "anthropic/claude", False),
    ],
)
def test_models_in_process(
    llm_model: str, reconcile_model: str | None, agent_model: str | None, expected: bool
) -> None:
    settings = Settings(llm_model=llm_model, llm_reconcile_model=reconcile_model)
    assert models_in_process(agent_model, settings) is expected


def test_a_scripted_model_answers_in_process_like_offline() -> None:
    with scripted_model(lambda messages: "<skip>x</skip>") as model:
        assert models_in_process(None, Settings(llm_model=model.name))
        assert models_in_process(model.name, Settings(llm_model="openai/gpt-4o-mini"))
        mixed = Settings(llm_model=model.name, llm_reflect_model="openai/gpt-4o-mini")
        assert not models_in_process(None, mixed)
