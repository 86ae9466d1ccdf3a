"""A realistic event stream for the pipeline benchmarks: many agents, half of it repeats.

Unique events are tool errors (most), failed runs without tool detail, transient faults the
judge skips, operator edits and owner answers, with words from a vocabulary of a few
thousand, so lessons differ the way a real bank's do. A repeat is an exact copy of an earlier
event's content for the same agent, under a new idempotency key: the same incident reported
again (another run hit the same error).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

TOOLS = ["refund", "lookup_order", "send_email", "create_ticket", "update_address", "charge"]
ERRORS = [
    "{field} is required",
    "invalid {field}: expected a number",
    "order {n} not found",
    "permission denied for {field}",
    "{field} must be in ISO format",
    "unknown customer {n}",
]
TRANSIENT = ["upstream timed out after 30s", "429 Too Many Requests", "503 service unavailable"]


@dataclass(frozen=True)
class StreamEvent:
    kind: str  # run_outcome | operator_edit | owner_answer
    agent: str
    fields: dict[str, Any]
    repeat_of: int | None  # index of the event it repeats


def _words(rng: random.Random, vocabulary: list[str], n: int) -> str:
    return " ".join(rng.choice(vocabulary) for _ in range(n))


def _unique(rng: random.Random, vocabulary: list[str]) -> tuple[str, dict[str, Any]]:
    roll = rng.random()
    field = rng.choice(vocabulary)
    n = rng.randint(1000, 99999)
    if roll < 0.65:
        tool = rng.choice(TOOLS)
        error = rng.choice(ERRORS).format(field=field, n=n)
        return "run_outcome", {
            "task": f"{_words(rng, vocabulary, 4)} for order {n}",
            "outcome": "failure",
            "tool_calls": [
                {"tool": tool, "args": {field: n}, "ok": False, "error": error},
            ],
        }
    if roll < 0.75:
        return "run_outcome", {
            "task": f"{_words(rng, vocabulary, 5)}",
            "outcome": rng.choice(["failure", "escalated"]),
            "error": f"{field} {_words(rng, vocabulary, 3)} was rejected by the customer",
        }
    if roll < 0.8:
        return "run_outcome", {
            "task": f"{_words(rng, vocabulary, 4)}",
            "outcome": "failure",
            "error": rng.choice(TRANSIENT),
        }
    if roll < 0.9:
        original = f"Hello, {_words(rng, vocabulary, 8)}."
        return "operator_edit", {
            "original": original,
            "final": f"Hi there, {_words(rng, vocabulary, 9)}. Best regards.",
            "context": f"customer asks about {field}",
        }
    return "owner_answer", {
        "question": f"Do we {_words(rng, vocabulary, 4)}?",
        "answer": f"Yes: {_words(rng, vocabulary, 10)}.",
    }


def make_stream(
    n: int, agents: int, *, repeat_share: float = 0.5, seed: int = 3
) -> list[StreamEvent]:
    """``n`` events over ``agents`` agents; ``repeat_share`` of them repeat an earlier one."""
    from neighbour_search import vocabulary  # bench/ is on sys.path for every benchmark

    rng = random.Random(seed)
    words = vocabulary(rng)
    stream: list[StreamEvent] = []
    by_agent: dict[str, list[int]] = {}
    n_repeats = int(n * repeat_share)
    # Repeats are spread through the stream, never before the event they repeat.
    repeat_slots = set(rng.sample(range(1, n), n_repeats)) if n > 1 else set()
    for i in range(n):
        agent = f"agent-{rng.randrange(agents)}"
        earlier = by_agent.get(agent)
        if i in repeat_slots and earlier:
            picked = rng.choice(earlier)
            original = stream[picked]
            first = picked if original.repeat_of is None else original.repeat_of
            stream.append(StreamEvent(original.kind, agent, original.fields, first))
        else:
            kind, fields = _unique(rng, words)
            stream.append(StreamEvent(kind, agent, fields, None))
        by_agent.setdefault(agent, []).append(i)
    return stream


def capture(event: StreamEvent, tenant: str, key: str) -> int:
    """Send one stream event through the agent's capture API."""
    import digest

    if event.kind == "run_outcome":
        return digest.record_run(tenant, event.agent, idempotency_key=key, **event.fields)
    if event.kind == "operator_edit":
        return digest.record_edit(tenant, event.agent, idempotency_key=key, **event.fields)
    return digest.record_answer(tenant, event.agent, idempotency_key=key, **event.fields)
