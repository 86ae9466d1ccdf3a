"""What a daily budget costs a model call (issue 29, part 3), and what lesson digest's movable
clock costs each reading of "now".

One process calls the model seam (``digest.model.seam.complete``) against the loopback
OpenAI-compatible server (no latency) through litellm, alternately outside any tenant's scope
(the floor: no ledger) and inside one with a budget (a reservation and a settlement on the
fleet's Redis ledger around the call, ``DIGEST_BENCH_REDIS``), so load on the host hits both
alike. Then ``digest.models.utcnow`` (the clock with ``DIGEST_CLOCK_OFFSET_S``) against
``datetime.now(UTC)``.

    .venv/bin/python bench/budget_overhead.py [--scale 1.0]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
import uuid
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from _loopback import Loopback  # noqa: E402  (sets LITELLM_LOCAL_MODEL_COST_MAP)
from _report import Figure  # noqa: E402
from _worker import REDIS_URL  # noqa: E402

BENCH = "budget overhead"
_EVENT = {
    "id": 7, "kind": "run_outcome", "trust": "low",
    "payload": {"task": "Refund order 41655", "outcome": "failure", "tool_calls": [
        {"tool": "refund", "args": {}, "ok": False, "error": "amount is required"}]},
}  # fmt: skip


def _p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(scale: float = 1.0) -> list[Figure]:
    from digest.config import Settings
    from digest.model import seam as llm
    from digest.model import spend
    from digest.model.budget import Limits
    from digest.model.prompts import load_prompt
    from digest.models import utcnow

    n = max(40, int(300 * scale))
    messages = load_prompt("reflect").render(
        agent="support", kind="run_outcome", trust="low", instructions="",
        event_json=json.dumps(_EVENT),
    )  # fmt: skip
    plain, charged = [], []
    with Loopback() as loop:
        settings = Settings(
            broker_url=REDIS_URL, llm_api_base=loop.api_base, llm_max_concurrency=0,
            llm_timeout_s=30,
        )  # fmt: skip
        tenant = f"bench-{uuid.uuid4().hex[:8]}"
        limits = Limits(daily_tokens=10**12)

        def call() -> None:
            llm.complete(messages, model="openai/loopback", settings=settings, usage=llm.Usage())

        for _ in range(5):  # warm: litellm's import, the HTTP pool, the Lua scripts
            call()
            with spend.for_tenant(tenant, limits):
                call()
        ledger_only = []
        for i in range(n):
            # which goes first flips each round: a call right after another runs slower on
            # this loopback (measured: 64 ms first, 73 ms second), whatever it is
            for charge in (False, True) if i % 2 else (True, False):
                with spend.for_tenant(tenant, limits) if charge else nullcontext():
                    started = time.perf_counter()
                    call()
                (charged if charge else plain).append(time.perf_counter() - started)
            with spend.for_tenant(tenant, limits):
                started = time.perf_counter()
                bill = spend.charge("openai/loopback", messages, settings)
                assert bill is not None
                bill.settle(18, 0.0)
                ledger_only.append(time.perf_counter() - started)
    reads = max(20_000, int(200_000 * scale))
    started = time.perf_counter()
    for _ in range(reads):
        datetime.now(UTC)
    system = (time.perf_counter() - started) / reads * 1e6
    started = time.perf_counter()
    for _ in range(reads):
        utcnow()
    clock = (time.perf_counter() - started) / reads * 1e6
    floor = _p50_ms(plain)
    return [
        Figure(
            BENCH, "remote call p50, budget charged", _p50_ms(charged), "ms",
            "the same call, no budget, p50", floor, "", None,
            f"n={n} each, alternating, order flipped each round; loopback, no latency",
        ),
        Figure(
            BENCH, "reserve + settle alone p50", _p50_ms(ledger_only), "ms",
            "the same call, no budget, p50", floor, "", None,
            "the estimate and two Lua calls on the Redis ledger",
        ),
        Figure(
            BENCH, "utcnow() (movable clock)", clock, "µs", "datetime.now(UTC)", system, "",
            None, f"{reads} reads each",
        ),
    ]  # fmt: skip


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0)
    for figure in measure(parser.parse_args().scale):
        ratio = f"{figure.ratio:.2f}x" if figure.ratio is not None else "-"
        print(f"{figure.name}: {figure.value:.3f} {figure.unit} (floor {figure.floor_name} "
              f"{figure.floor:.3f}; {ratio}; {figure.note})")  # fmt: skip
