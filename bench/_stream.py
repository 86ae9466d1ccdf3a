"""A realistic event stream for the pipeline benchmarks: many agents, half of it repeats.

Unique events are tool errors (most), failed runs without tool detail, transient faults the
judge skips, operator edits and owner answers, with words from a vocabulary of a few
thousand, so lessons differ the way a real bank's do. A repeat reports an earlier event of the
same agent again under a new idempotency key, in one of two ways (``repeats``):

- ``"exact"`` (the default): a copy of its content, the same incident reported again;
- ``"other_ids"``: the same signature (``digest.fingerprint.event_signature``) from another
  run: a tool failure keeps its tool and error template while the order number changes in the
  error, the args and the task, and the task is worded anew; a run's own error stays, its
  other words change; an operator edit is the same edit of a reply about another order (the
  order number changes in the draft and the final: what the operator changed, its tone and
  its content, is the same rule, and since issue 24 an edit's content is a rule of its own, so
  other words would be another rule); an owner's answer stays as it was (its signature is its
  exact question and answer).
"""

from __future__ import annotations

import random
import re
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
#: the ways a repeat reports its original again (see the module docstring)
REPEATS = ("exact", "other_ids")
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
        original = f"Hello, {_words(rng, vocabulary, 8)} (order {n})."
        return "operator_edit", {
            "original": original,
            "final": f"Hi there, {_words(rng, vocabulary, 9)} (order {n}). Best regards.",
            "context": f"customer asks about {field}",
        }
    return "owner_answer", {
        "question": f"Do we {_words(rng, vocabulary, 4)}?",
        "answer": f"Yes: {_words(rng, vocabulary, 10)}.",
    }


_NUMBER = re.compile(r"\d+")


def _other_ids(
    rng: random.Random, vocabulary: list[str], kind: str, fields: dict[str, Any]
) -> dict[str, Any]:
    """``fields`` as another run would report the same thing: same signature, other ids and
    words."""
    if kind == "run_outcome":
        n = rng.randint(1000, 99999)
        varied = {**fields, "task": f"{_words(rng, vocabulary, 4)} for order {n}"}
        if "tool_calls" in fields:
            varied["tool_calls"] = [
                {
                    **call,
                    "args": {k: n if isinstance(v, int) else v for k, v in call["args"].items()},
                    "error": _NUMBER.sub(str(n), call["error"]),
                }
                for call in fields["tool_calls"]
            ]
        return varied
    if kind == "operator_edit":  # the same edit of a reply about another order: same rules
        n = str(rng.randint(1000, 99999))
        return {
            **fields,
            "original": _NUMBER.sub(n, fields["original"]),
            "final": _NUMBER.sub(n, fields["final"]),
        }
    return fields


def make_stream(
    n: int,
    agents: int,
    *,
    repeat_share: float = 0.5,
    seed: int = 3,
    repeats: str = "exact",
    vocabulary_seed: int | None = None,
) -> list[StreamEvent]:
    """``n`` events over ``agents`` agents; ``repeat_share`` of them repeat an earlier one,
    as ``repeats`` says (see the module docstring). The words come from the vocabulary
    ``seed`` draws, or ``vocabulary_seed``'s: two streams of one vocabulary_seed speak of the
    same fields and things in other events."""
    from neighbour_search import vocabulary  # bench/ is on sys.path for every benchmark

    if repeats not in REPEATS:
        raise ValueError(f"repeats must be one of {', '.join(REPEATS)}")
    rng = random.Random(seed)
    words = vocabulary(rng if vocabulary_seed is None else random.Random(vocabulary_seed))
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
            fields = original.fields
            if repeats == "other_ids":
                fields = _other_ids(rng, words, original.kind, original.fields)
            stream.append(StreamEvent(original.kind, agent, fields, first))
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
