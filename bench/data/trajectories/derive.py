"""Derive ``tau-airline-gpt4o.jsonl`` from tau-bench's published trajectories.

    python bench/data/trajectories/derive.py PATH/gpt-4o-airline.json > \
        bench/data/trajectories/tau-airline-gpt4o.jsonl

``PATH`` is the ``historical_trajectories`` folder of https://github.com/sierra-research/tau-bench
(MIT licence, see README.md here). One line per run, in the file's order: the task's id and the
trial's number, the run's reward, the user's id (the contact), the user's first message (what
an agent's ``pitfalls`` is asked with), and every tool call the agent made with its arguments,
``ok`` false and the tool's ``error`` when the tool answered with one (tau-bench's tools answer
``Error: …``). Nothing else of a trajectory (the policy, the user's instruction, the tools'
results) is kept.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def derive(run: dict[str, Any]) -> dict[str, Any]:
    messages = run["traj"]
    first = next(m["content"] for m in messages if m["role"] == "user")
    calls: list[dict[str, Any]] = []
    # A tool's answer goes to the earliest call still waiting with its id and name: the
    # trajectories reuse call ids within a run, so an id alone does not say which call it is.
    waiting: list[tuple[str, str, dict[str, Any]]] = []
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call["function"]
            try:
                args = json.loads(function.get("arguments") or "{}")
            except ValueError:
                args = {"raw": function.get("arguments")}
            entry: dict[str, Any] = {"tool": function["name"], "args": args, "ok": True}
            calls.append(entry)
            waiting.append((str(call.get("id")), function["name"], entry))
        if message["role"] == "tool":
            key = (str(message.get("tool_call_id")), message.get("name"))
            found = next(
                (i for i, (cid, name, _) in enumerate(waiting) if (cid, name) == key), None
            )
            if found is None:
                continue
            entry = waiting.pop(found)[2]
            answer = str(message.get("content", ""))
            if answer.startswith("Error"):
                entry.update(ok=False, error=answer)
    return {
        "task_id": run["task_id"], "trial": run["trial"], "reward": run["reward"],
        "contact": run["info"]["task"]["user_id"], "task": first, "tool_calls": calls,
    }  # fmt: skip


def main(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        runs = json.load(handle)
    for run in runs:
        sys.stdout.write(json.dumps(derive(run), ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main(sys.argv[1])
