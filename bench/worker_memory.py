"""What a worker process keeps as events go through it, by allocation site (issue 27 point 4).

The throughput stream (``bench/throughput.py``: 20 agents, half repeats) is captured 1,000
events at a time and reflected in this process (the embedded mode's ``drain``, the same
pipeline a worker runs), with ``offline/rules`` and the configured embedding model. After each
1,000 the process's RSS and what tracemalloc holds are taken: the growth over the second half
by file and line (the allocations that stay are what the process keeps: kept indexes, caches)
and the kept indexes' own count of entries and bytes (``digest.lessons.bank.kept_sizes``).

The kept indexes grow with the bank, as they must (a worker searches every lesson of an agent
it serves): the end prints their bytes per kept lesson and their slope per 1,000 events, the
expected part of the RSS slope, and what RSS grew beyond them (the part that should be flat).

    .venv/bin/python bench/worker_memory.py [--events 10000] [--top 15] [--no-trace]

``--no-trace`` leaves tracemalloc off (it adds its own memory to RSS). Uses DIGEST_BENCH_PG
for a scratch database; no broker (the embedded mode).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

AGENTS = 20


def rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * resource.getpagesize() / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--no-trace", action="store_true")
    args = parser.parse_args()

    from _scratch import environment, scratch_database, use_settings
    from _stream import capture, make_stream

    stream = make_stream(args.events, AGENTS)
    names = ("DIGEST_DATABASE_URL", "DIGEST_BROKER_URL", "DIGEST_LLM_MODEL")
    with scratch_database() as url, environment(*names):
        os.environ["DIGEST_DATABASE_URL"] = url
        os.environ.pop("DIGEST_BROKER_URL", None)
        os.environ["DIGEST_LLM_MODEL"] = "offline/rules"
        use_settings()
        from digest.lessons import bank
        from digest.pipeline import drain

        if not args.no_trace:
            tracemalloc.start(1)
        half: tracemalloc.Snapshot | None = None
        marks: list[tuple[int, float]] = []
        kept: list[tuple[int, int, int]] = []  # (events, entries, bytes)
        started = time.monotonic()
        for start in range(0, len(stream), 1000):
            for index in range(start, min(start + 1000, len(stream))):
                capture(stream[index], "bench", f"mem-{index}")
            drain()
            done = min(start + 1000, len(stream))
            marks.append((done, rss_mb()))
            sizes = getattr(bank, "kept_sizes", None)  # (absent before issue 27's rss branch)
            entries, held = sizes() if sizes is not None else (-1, 0)
            kept.append((done, entries, held))
            traced = tracemalloc.get_traced_memory()[0] / 2**20 if not args.no_trace else 0.0
            print(
                f"{done:>6} events  RSS {marks[-1][1]:6.1f} MB  traced {traced:6.1f} MB"
                f"  kept indexes {entries} entries {held / 2**20:.2f} MB"
                f"  ({time.monotonic() - started:.0f} s)",
                flush=True,
            )
            if not args.no_trace and done == len(stream) // 2 // 1000 * 1000:
                half = tracemalloc.take_snapshot()
        second = [(x, y) for x, y in marks if x > len(stream) // 2]
        if len(second) >= 2:
            slope = _slope(second)
            print(f"RSS slope over the second half: {slope:.2f} MB per 1,000 events")
            held = [(x, b / 2**20) for x, _, b in kept if x > len(stream) // 2]
            first, last = next(k for k in kept if k[0] > len(stream) // 2), kept[-1]
            if last[1] > first[1] >= 0:
                per_lesson = (last[2] - first[2]) / (last[1] - first[1])
                print(
                    f"kept indexes: {per_lesson / 1024:.2f} KB per kept lesson,"
                    f" {_slope(held):.2f} MB per 1,000 events (expected: the bank grows);"
                    f" RSS slope beyond them {slope - _slope(held):.2f} MB per 1,000 events"
                )
        if half is not None:
            end = tracemalloc.take_snapshot()
            span = len(stream) - len(stream) // 2 // 1000 * 1000
            print(f"tracemalloc growth over the last {span} events, by line:")
            for stat in end.compare_to(half, "lineno")[: args.top]:
                frame = stat.traceback[0]
                where = f"{Path(frame.filename).name}:{frame.lineno}"
                print(f"  {stat.size_diff / 2**20:+7.2f} MB  {stat.count_diff:+8d} blocks  {where}")


def _slope(points: list[tuple[int, float]]) -> float:
    """Least-squares slope of the points, per 1,000 events."""
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    return 1000 * sum((x - mx) * (y - my) for x, y in points) / var if var else 0.0


if __name__ == "__main__":
    main()
