"""What the randomized holdout (issue 29) costs the agent's turn: ``pitfalls`` and
``record_run`` with the holdout on vs off, in the same run on PostgreSQL.

Two tenants with the same agent and the same released lessons: one with
``holdout_permille`` 100 (the default share, 0.1), one with 0 (off). Calls alternate between
them, prompt by prompt, so the machine's other load weighs on both alike. With the holdout on,
``pitfalls`` gets a fresh ``turn_id`` per call (each draws and queues its exposures, written by
a thread after the call returns) and ``record_run`` passes it back; off, neither has a turn id.
Each side goes first in every other pair (the exposure writer's work after an "on" call
competes with the next call, as it would in an agent). Reported: p50 and p99 of each "on"
figure with the matching "off" figure as its floor, the ratio being the holdout's cost
(target: no extra round trip, so p50 within 1.2x).

    .venv/bin/python bench/holdout.py [--scale 1.0]

Uses DIGEST_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres) to create and drop
a scratch database; no broker (captured events wait, as in the embedded mode).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import uuid
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from _report import Figure  # noqa: E402
from _scratch import percentile  # noqa: E402

BENCH = "holdout"
LESSONS = [
    "refunds: confirm the amount with the customer before issuing the refund",
    "shipping: check the parcel address against the order before shipping",
    "invoices: send the invoice only after the order is paid",
    "accounts: never change the account email without a verification code",
]
PROMPTS = [
    "the customer wants a refund for the order and a new shipping address",
    "please send the invoice for the order and check the account email",
    "refund the parcel, the shipping failed",
]


def measure(scale: float = 1.0) -> list[Figure]:
    from _scratch import environment, scratch_database, use_settings

    n = max(50, int(400 * scale))
    with environment("DIGEST_DATABASE_URL", "DIGEST_BROKER_URL"), scratch_database() as url:
        os.environ["DIGEST_DATABASE_URL"] = url
        os.environ.pop("DIGEST_BROKER_URL", None)
        use_settings()
        return _measure(n)


def _measure(n: int) -> list[Figure]:
    import digest
    from digest.lessons.holdout import flush_exposures
    from digest.pipeline import drain
    from digest.tenants import set_tenant

    on, off, agent = "bench-on", "bench-off", "bot"
    for tenant, permille in ((on, 100), (off, 0)):
        set_tenant(tenant, holdout_permille=permille)
        for text in LESSONS:
            digest.record_lesson(tenant, agent, text)
        drain(tenant=tenant, agent=agent)
    times: dict[str, list[float]] = {k: [] for k in ("p_on", "p_off", "r_on", "r_off")}
    surfaced = {"on": 0, "off": 0}
    for i in range(n + 20):  # the first 20 warm up
        prompt = PROMPTS[i % len(PROMPTS)]
        turn = uuid.uuid4().hex
        pair = [("on", on, turn), ("off", off, None)]
        for side, tenant, turn_id in pair if i % 2 else pair[::-1]:  # each goes first in turn
            start = time.perf_counter()
            block = digest.pitfalls(tenant, agent, prompt, turn_id=turn_id)
            middle = time.perf_counter()
            digest.record_run(tenant, agent, task=prompt, outcome="success", turn_id=turn_id)
            end = time.perf_counter()
            if i >= 20:
                times[f"p_{side}"].append((middle - start) * 1000)
                times[f"r_{side}"].append((end - middle) * 1000)
                surfaced[side] += block.count("(#")
    flush_exposures()
    note = (
        f"n={n} pairs, on and off alternating which goes first, 20 warm-up pairs excluded; "
        "lessons shown per call: "
        f"on {surfaced['on'] / n:.2f}, off {surfaced['off'] / n:.2f}; "
        f"load {os.getloadavg()[0]:.2f}"
    )
    figures = []
    for call, key in (("pitfalls", "p"), ("record_run", "r")):
        for q, label in ((0.5, "p50"), (0.99, "p99")):
            value = percentile(times[f"{key}_on"], q)
            floor = percentile(times[f"{key}_off"], q)
            figures.append(
                Figure(
                    BENCH, f"{call} {label}, holdout on", value, "ms",
                    floor_name=f"{call} {label}, holdout off (same run)", floor=floor,
                    target="p50 <= 1.2x off" if label == "p50" else "",
                    met=(value <= 1.2 * floor) if label == "p50" else None, note=note,
                )
            )  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    for figure in measure(args.scale):
        ratio = f"{figure.ratio:.2f}x" if figure.ratio is not None else "-"
        print(
            f"{figure.name:<32} {figure.value:8.3f} {figure.unit}  floor {figure.floor or 0:8.3f}"
            f" {figure.unit}  ratio {ratio:>6}  {figure.target}"
        )
    print(figure.note)


if __name__ == "__main__":
    main()
