"""Two runs' failures as the offline rules judge and reconcile them: the lessons of one failed
call as a reconcile block, and the one operation the rules answer for a new lesson beside an
old one (shared by the offline figure tests)."""

from __future__ import annotations

import html
import json
import re
from typing import Any

from digest.fingerprint import tool_key
from digest.model.offline_reconcile import reconcile
from digest.model.offline_reflect import judge_event


def run_lesson(lesson_id: int, tool: str, args: dict[str, Any], error: str) -> dict[str, Any]:
    """The offline rules' lesson of one failed call of ``tool``, as reconcile shows it."""
    call = {"tool": tool, "args": args, "ok": False, "error": error}
    payload = {"task": "a task", "outcome": "failure", "tool_calls": [call]}
    out = judge_event({"kind": "run_outcome", "payload": payload})
    fields = {
        k: html.unescape(re.search(f"<{k}>(.*?)</{k}>", out, re.S).group(1))  # type: ignore[union-attr]
        for k in ("situation", "mistake", "correction", "tags")
    }
    tags = [t.strip() for t in fields.pop("tags").split(",")]
    return {**fields, "tags": tags, "fingerprint": tool_key(tool, error), "id": lesson_id,
            "candidate": 0}  # fmt: skip


def reconciled(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """The one operation the offline rules answer for ``new`` beside ``old``."""
    [operation] = json.loads(reconcile([old], [new]))["operations"]
    return operation
