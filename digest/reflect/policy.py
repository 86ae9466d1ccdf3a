"""The trigger policy: which events are worth a model call at all."""

from __future__ import annotations

import re
from typing import Any

from digest.config import Settings
from digest.model.seam import answered_in_process


def policy_skip_reason(
    kind: str, payload: dict[str, Any], edit_ratio: float | None, settings: Settings
) -> str | None:
    """Why this event is not worth a model call under the trigger policy, or None."""
    if kind == "run_outcome":
        tool_errors = any(
            tc.get("error") or tc.get("ok") is False for tc in payload.get("tool_calls") or []
        )
        outcome = payload.get("outcome")
        if tool_errors and settings.reflect_tool_errors:
            return None
        if outcome in ("failure", "escalated") and settings.reflect_failures:
            return None
        if outcome == "success" and settings.reflect_success_runs:
            return None
        return (
            f"policy: {outcome} runs{' with tool errors' if tool_errors else ''} are not reflected"
        )
    if kind == "operator_edit":
        ratio = 1.0 if edit_ratio is None else edit_ratio
        if ratio < settings.edit_ratio_threshold and not changes_a_figure(payload):
            return (
                f"policy: edit ratio {ratio:.2f} is below the threshold "
                f"{settings.edit_ratio_threshold:.2f}"
            )
        return None
    if kind == "owner_answer":
        return None
    return f"policy: {kind} events are not reflected"


_FIGURE = re.compile(r"\d+(?:[.,:]\d+)*")


def changes_a_figure(payload: dict[str, Any]) -> bool:
    """Does an operator's edit change a figure of the reply (a price, an hour, a number of
    days: "4.99 EUR" → "6.99 EUR")? However few characters it changes, that is a fact
    corrected, not a typo fixed: it is reflected below the edit ratio threshold."""
    final = payload.get("final")
    if not isinstance(final, str):
        return False
    before = sorted(_FIGURE.findall(str(payload.get("original") or "")))
    return before != sorted(_FIGURE.findall(final))


def models_in_process(agent_model: str | None, settings: Settings) -> bool:
    """Are this agent's reflect and reconcile models answered in this process (``offline/*``,
    or a test's ``scripted/*``)?"""
    return all(
        answered_in_process(agent_model or settings.model_for(step))
        for step in ("reflect", "reconcile")
    )
