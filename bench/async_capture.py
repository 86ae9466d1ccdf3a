"""Async capture (``digest.aio.record_run``) against sync capture (``digest.record_run``).

Two comparisons, both measured in the same run against the same scratch database and Redis:

- latency: one awaited capture at a time, alternating one for one with a sync capture so both
  see the same noise (p50 and p99, the sync call as the floor);
- throughput: ``--concurrency`` captures in flight on one event loop (``asyncio.gather``)
  against sync captures one after another on one thread, in events/s. The sync figure is the
  floor; a ratio above 1 is what an asyncio agent gains by not serialising its captures.

Warm-up calls (first connections, tenant/agent rows, first publish) are excluded.

    .venv/bin/python bench/async_capture.py [--scale 1.0] [--concurrency 50]

Uses the same scratch services as bench/capture_latency.py (DIGEST_BENCH_PG, DIGEST_BENCH_REDIS).
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid

if __package__:  # imported by a runner as bench.async_capture
    from bench._report import Figure
    from bench._scratch import percentile, scratch_database
    from bench.capture_latency import ERROR, REDIS_URL, TASK, TOOL_CALLS, _digest_env
else:  # run as a script: python bench/async_capture.py
    from _report import Figure
    from _scratch import percentile, scratch_database
    from capture_latency import ERROR, REDIS_URL, TASK, TOOL_CALLS, _digest_env

BENCH = "async capture"
CONCURRENCY = 50


def measure(scale: float = 1.0, concurrency: int = CONCURRENCY) -> list[Figure]:
    import redis

    n = max(50, int(1000 * scale))
    warmup = max(10, int(50 * scale))
    queue = f"bench-async-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(REDIS_URL)
    with scratch_database() as url:
        env = {"DIGEST_DATABASE_URL": url, "DIGEST_BROKER_URL": REDIS_URL, "DIGEST_QUEUE": queue}
        try:
            with _digest_env(env):
                figures = asyncio.run(_measure(n, warmup, concurrency))
        finally:
            client.delete(queue)
            client.close()
    return figures


async def _measure(n: int, warmup: int, concurrency: int) -> list[Figure]:
    import digest
    import digest.aio

    def sync_capture() -> None:
        digest.record_run("bench", "bot", task=TASK, outcome="failure", error=ERROR,
                          tool_calls=TOOL_CALLS)  # fmt: skip

    async def async_capture() -> None:
        await digest.aio.record_run("bench", "bot", task=TASK, outcome="failure", error=ERROR,
                                    tool_calls=TOOL_CALLS)  # fmt: skip

    clock = time.perf_counter
    try:
        for _ in range(warmup):
            sync_capture()
            await async_capture()
        # Latency: the sync call blocks this loop, which is idle meanwhile; that is the point
        # of comparing one call at a time.
        sync_times: list[float] = []
        async_times: list[float] = []
        for _ in range(n):
            started = clock()
            sync_capture()
            sync_times.append(clock() - started)
            started = clock()
            await async_capture()
            async_times.append(clock() - started)

        started = clock()
        for _ in range(n):
            sync_capture()
        sync_rate = n / (clock() - started)

        slots = asyncio.Semaphore(concurrency)

        async def bounded() -> None:
            async with slots:
                await async_capture()

        await asyncio.gather(*(bounded() for _ in range(concurrency)))  # fill the pool
        started = clock()
        await asyncio.gather(*(bounded() for _ in range(n)))
        async_rate = n / (clock() - started)
    finally:
        await digest.aio.aclose()

    def ms(samples: list[float], q: float) -> float:
        return percentile(samples, q) * 1000

    note = f"n={n} alternating with the sync call, {warmup} warm-up calls excluded"
    return [
        Figure(BENCH, "aio.record_run p50", ms(async_times, 0.5), "ms", "record_run p50",
               ms(sync_times, 0.5), note=note),
        Figure(BENCH, "aio.record_run p99", ms(async_times, 0.99), "ms", "record_run p99",
               ms(sync_times, 0.99), note=note),
        Figure(BENCH, f"aio.record_run, {concurrency} in flight", async_rate, "events/s",
               "record_run one after another", sync_rate,
               note=f"n={n} each; one event loop against one thread"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    args = parser.parse_args()
    for figure in measure(args.scale, args.concurrency):
        ratio = f"{figure.ratio:.2f}x" if figure.ratio is not None else "-"
        print(
            f"{figure.name:<34} {figure.value:9.3f} {figure.unit}  floor {figure.floor or 0:9.3f}"
            f" {figure.unit}  ratio {ratio:>6}"
        )
        print(f"{'':<34} floor: {figure.floor_name}; {figure.note}")


if __name__ == "__main__":
    main()
