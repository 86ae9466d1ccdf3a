"""Capture measures a payload exactly only near its cap (issue 27 point 5): the quick bound
from pydantic's compact JSON never lets through a payload the exact measure refuses, whatever
its strings hold (quotes, control characters, other scripts) or its numbers."""

from __future__ import annotations

import json
import random

from digest.capture.schemas import MAX_PAYLOAD_BYTES, RunOutcome, _surely_fits

ALPHABET = 'ab "\\\n\t\x01é漢😀,:{}'


def _exact(parsed: object) -> int:
    dumped = parsed.model_dump(mode="json")  # type: ignore[attr-defined]
    return len(json.dumps(dumped, ensure_ascii=False).encode("utf-8"))


def test_the_quick_bound_never_passes_a_payload_over_the_cap() -> None:
    rng = random.Random(7)
    seen_fit = seen_over = 0
    for _ in range(150):
        size = rng.choice([10, 500, 3000, 9000, 16000])
        args = {
            f"k{i}": rng.choice(
                [rng.random() * 10 ** rng.randint(-20, 20), rng.randint(-(10**18), 10**18), None,
                 "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, size // 8)))]
            )
            for i in range(rng.randint(1, 40))
        }  # fmt: skip
        calls = [
            {"tool": f"t{i}", "args": args, "ok": False, "error": "x" * rng.randint(0, size // 4)}
            for i in range(rng.randint(1, 4))
        ]
        # validated as capture validates it, before any trimming to fit
        parsed = RunOutcome.model_validate(
            {"tenant": "t", "agent": "a", "task": "task", "outcome": "failure", "tool_calls": calls}
        )
        exact = _exact(parsed)
        if _surely_fits(parsed):
            seen_fit += 1
            assert exact <= MAX_PAYLOAD_BYTES
        elif exact > MAX_PAYLOAD_BYTES:
            seen_over += 1
    assert seen_fit and seen_over  # both roads taken
