"""Hot-path capture latency, as a ratio against a floor measured in the same run.

The floor is the cheapest durable, published thing capture could do: one single-row INSERT +
COMMIT of the same payload through a bare psycopg connection, plus one LPUSH of the same
payload through a bare redis client. The measured path is ``digest.record_run``: validation,
INSERT + COMMIT, and the publish of a Celery message onto the worker's Redis queue.

record_run's INSERT is a single autocommitted statement (one round trip; BEGIN, INSERT, COMMIT
is three), so it can come in under that floor. Issue 27's target is against the strict floor:
the same INSERT autocommitted through a bare psycopg connection (which, as psycopg does by
default, prepares it on the server from its sixth run), plus the LPUSH on a bare redis client,
one connection each: record_run p50 at most 2x its p50 in the same run. The calling thread's
CPU time per call is reported beside it: on a loaded host both sides wait for the CPU, which
compresses the wall-clock ratio, while the CPU each side spends does not depend on the wait.

Floor and measured calls alternate one for one, so both see the same noise from whatever else
the machine is doing; warm-up calls (first connection, tenant/agent rows, first publish) are
excluded from both.

    .venv/bin/python bench/capture_latency.py [--scale 1.0]

Uses DIGEST_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres) to create and drop
a scratch database, and Redis at DIGEST_BENCH_REDIS (default redis://127.0.0.1:6379/12), where
it writes only to keys of its own and deletes them afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

if __package__:  # imported by a runner as bench.capture_latency
    from bench._report import Figure
    from bench._scratch import percentile, scratch_database
else:  # run as a script: python bench/capture_latency.py
    from _report import Figure
    from _scratch import percentile, scratch_database

BENCH = "capture latency"
TARGET_RATIO = 2.0
REDIS_URL = os.environ.get("DIGEST_BENCH_REDIS", "redis://127.0.0.1:6379/12")

TASK = "refund order 1182 for the customer who wrote in twice"
ERROR = "ValidationError: field 'amount' is required"
TOOL_CALLS = [
    {"tool": "issue_refund", "args": {"order": "1182"}, "ok": False, "error": ERROR},
]


@contextmanager
def _digest_env(values: dict[str, str]) -> Iterator[None]:
    """Point this process's digest at the scratch services; restore everything afterwards."""
    from digest.capture.store import forget_agent_ids
    from digest.config import get_settings
    from digest.db import dispose_engines
    from digest.outbox.publish import reset_publisher

    def reset() -> None:
        get_settings.cache_clear()
        dispose_engines()
        reset_publisher()
        forget_agent_ids()

    saved = {key: os.environ.get(key) for key in values}
    os.environ.update(values)
    reset()
    try:
        yield
    finally:
        for key, old in saved.items():
            if old is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = old
        reset()


def measure(scale: float = 1.0) -> list[Figure]:
    import psycopg
    import redis

    n = max(50, int(2000 * scale))
    warmup = max(10, int(100 * scale))
    queue = f"bench-capture-{uuid.uuid4().hex[:8]}"
    floor_key = f"{queue}-floor"
    client = redis.Redis.from_url(REDIS_URL)
    floor_payload = json.dumps(
        {"task": TASK, "outcome": "failure", "error": ERROR, "tool_calls": TOOL_CALLS}
    )
    floor: list[float] = []
    strict: list[float] = []
    measured: list[float] = []
    #: the calling thread's CPU seconds, strict floor and record_run
    cpu = {"strict": 0.0, "measured": 0.0}
    with scratch_database() as url:
        env = {"DIGEST_DATABASE_URL": url, "DIGEST_BROKER_URL": REDIS_URL, "DIGEST_QUEUE": queue}
        try:
            with (
                _digest_env(env),
                psycopg.connect(url) as conn,
                psycopg.connect(url, autocommit=True) as auto,
            ):
                import digest

                def capture() -> None:
                    digest.record_run(
                        "bench", "bot", task=TASK, outcome="failure", error=ERROR,
                        tool_calls=TOOL_CALLS,
                    )  # fmt: skip

                capture()  # creates the tenant and agent rows
                tenant_id, agent_id = conn.execute(
                    "SELECT tenant_id, agent_id FROM events ORDER BY id LIMIT 1"
                ).fetchone()  # type: ignore[misc]
                conn.commit()

                # status 'skipped': the relay never looks at these rows
                insert = (
                    "INSERT INTO events (tenant_id, agent_id, kind, payload, trust, status,"
                    " attempts, created_at, updated_at) VALUES (%s, %s, 'run_outcome', %s,"
                    " 'low', 'skipped', 0, now(), now())"
                )

                def floor_once() -> None:
                    conn.execute(insert, (tenant_id, agent_id, floor_payload))
                    conn.commit()
                    client.lpush(floor_key, floor_payload)

                def strict_once() -> None:
                    auto.execute(insert, (tenant_id, agent_id, floor_payload))
                    client.lpush(floor_key, floor_payload)

                for _ in range(warmup):
                    floor_once()
                    strict_once()
                    capture()
                clock, thread_clock = time.perf_counter, time.thread_time
                for _ in range(n):
                    started = clock()
                    floor_once()
                    floor.append(clock() - started)
                    spent, started = thread_clock(), clock()
                    strict_once()
                    strict.append(clock() - started)
                    cpu["strict"] += thread_clock() - spent
                    spent, started = thread_clock(), clock()
                    capture()
                    measured.append(clock() - started)
                    cpu["measured"] += thread_clock() - spent
                published = client.llen(queue)
        finally:
            client.delete(queue, floor_key, f"_kombu.binding.{queue}")
            client.close()

    def ms(samples: list[float], q: float) -> float:
        return percentile(samples, q) * 1000

    floor_name = "INSERT+COMMIT (bare psycopg) + LPUSH (bare redis)"
    strict_name = "autocommitted INSERT (bare psycopg) + LPUSH (bare redis)"
    p50, p99, floor_p99 = ms(measured, 0.5), ms(measured, 0.99), ms(floor, 0.99)
    strict_p50 = ms(strict, 0.5)
    note = f"n={n} alternating with the floor, {warmup} warm-up calls excluded"
    return [
        Figure(BENCH, "record_run p50", p50, "ms", f"{floor_name} p50",
               ms(floor, 0.5), note=note),
        Figure(BENCH, "record_run p99", p99, "ms", f"{floor_name} p99", floor_p99,
               target=f"p99 <= {TARGET_RATIO:g}x floor", met=p99 <= TARGET_RATIO * floor_p99,
               note=note),
        Figure(BENCH, "record_run p50 (strict floor)", p50, "ms", f"{strict_name} p50",
               strict_p50, target=f"p50 <= {TARGET_RATIO:g}x strict floor",
               met=p50 <= TARGET_RATIO * strict_p50,
               note="the same single round trip to each server record_run makes (issue 27)"),
        Figure(BENCH, "record_run p99 (strict floor)", p99, "ms", f"{strict_name} p99",
               ms(strict, 0.99), note="report only"),
        Figure(BENCH, "record_run CPU per call", cpu["measured"] / n * 1000, "ms",
               f"{strict_name} CPU per call", cpu["strict"] / n * 1000,
               note="the calling thread's CPU time (time.thread_time); report only"),
        Figure(BENCH, "record_run mean", statistics.fmean(measured) * 1000, "ms",
               f"{floor_name} mean", statistics.fmean(floor) * 1000,
               note=f"{published} messages on the queue for {n + warmup + 1} captures"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    for figure in measure(args.scale):
        ratio = f"{figure.ratio:.2f}x" if figure.ratio is not None else "-"
        verdict = {None: "", True: "  MET", False: "  NOT MET"}[figure.met]
        print(
            f"{figure.name:<30} {figure.value:8.3f} {figure.unit}  floor {figure.floor or 0:8.3f}"
            f" {figure.unit}  ratio {ratio:>6}  {figure.target}{verdict}"
        )
        if figure.note:
            print(f"{'':<30} floor: {figure.floor_name}; {figure.note}")


if __name__ == "__main__":
    main()
