"""The in-turn loop guard (DESIGN §7): the same tool call failing twice in a row within one
turn yields a [LOOP DETECTED] block for the agent's next step. Pure, in memory, on the agent's
hot path: it stores nothing and never raises on odd arguments."""

from __future__ import annotations

import json
from typing import Any

from digest.errors import InvalidArgument

LOOP_SHOWN_MAX = 300


class LoopDetector:
    """Spots an agent repeating a failing tool call within one turn.

    A streak is counted over consecutive entries of the call sequence: the same tool with the
    same arguments (compared as canonical JSON) failing again extends it; anything else in
    between — a success of any call, or a different failing call — starts over. From the
    ``threshold``-th failure of the streak on, ``record`` returns the LOOP DETECTED block (on
    every further repeat too, as the agent is still looping); otherwise ``None``.

    Create one per turn, or call ``reset()`` when a new turn starts. Nothing is stored.
    """

    def __init__(self, threshold: int = 2) -> None:
        if threshold < 2:
            raise InvalidArgument(
                f"threshold must be at least 2 (one failure is no loop): {threshold}"
            )
        self.threshold = threshold
        self._last: tuple[str, str] | None = None
        self._streak = 0

    def reset(self) -> None:
        self._last = None
        self._streak = 0

    def record(self, tool: str, args: Any, ok: bool, error: str | None = None) -> str | None:
        """Note one tool call of this turn; the LOOP DETECTED block if it is a repeat too many."""
        if ok:
            self.reset()
            return None
        call = (tool, canonical_args(args))
        self._streak = self._streak + 1 if call == self._last else 1
        self._last = call
        if self._streak < self.threshold:
            return None
        shown = _shorten(f"{tool}({call[1]})")
        # str(): an agent may hand over the exception itself; the guard must not trip on it.
        reason = _shorten(" ".join(str(error).split())) if error is not None else ""
        return (
            "[LOOP DETECTED]\n"
            f"  The same call failed {self._streak} times in a row: {shown}\n"
            f"  Last error: {reason or '(none given)'}\n"
            "  Stop repeating it: change the arguments, use another tool, or escalate.\n"
            "[END LOOP DETECTED]\n"
        )


def canonical_args(args: Any) -> str:
    """Arguments as canonical JSON, so ``{"a": 1, "b": 2}`` and ``{"b": 2, "a": 1}`` are one call.
    Arguments JSON cannot sort (mixed key types, cycles) fall back to ``repr``: the guard sits on
    the agent's hot path and must not raise."""
    try:
        return json.dumps(args, sort_keys=True, default=str, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(args)


def _shorten(text_value: str) -> str:
    if len(text_value) <= LOOP_SHOWN_MAX:
        return text_value
    return text_value[: LOOP_SHOWN_MAX - 1] + "…"
