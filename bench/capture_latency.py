"""Hot-path capture latency, as a ratio against a floor measured in the same run.

The floor is the cheapest durable thing capture could do: one INSERT + COMMIT of a similar row
through a bare psycopg connection. The measured path is ``digest.record_run`` (validation,
INSERT + COMMIT through SQLAlchemy, publish to Redis).

    .venv/bin/python bench/capture_latency.py [--n 500]

Uses DIGEST_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres) to create and drop
a scratch database, and Redis at DIGEST_BENCH_REDIS (default redis://127.0.0.1:6379/12).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
import uuid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=500)
    args = parser.parse_args()

    import psycopg
    from _scratch import percentile, scratch_database

    with scratch_database() as url:
        os.environ["DIGEST_DATABASE_URL"] = url
        os.environ["DIGEST_BROKER_URL"] = os.environ.get(
            "DIGEST_BENCH_REDIS", "redis://127.0.0.1:6379/12"
        )
        os.environ["DIGEST_QUEUE"] = f"bench-{uuid.uuid4().hex[:6]}"
        try:
            import digest

            payload = {
                "task": "refund order 1182",
                "outcome": "failure",
                "error": "amount required",
            }
            # Warm up: first capture creates the tenant/agent and imports Celery for the publish.
            digest.record_run("bench", "bot", task="warm", outcome="failure", error="x")

            floor: list[float] = []
            with psycopg.connect(url) as conn:
                for _ in range(args.n):
                    started = time.perf_counter()
                    conn.execute(
                        "INSERT INTO events (tenant_id, agent_id, kind, payload, trust, status,"
                        " attempts, created_at, updated_at) VALUES (1, 1, 'run_outcome', %s, 'low',"
                        " 'skipped', 0, now(), now())",
                        (json.dumps(payload),),
                    )
                    conn.commit()
                    floor.append(time.perf_counter() - started)

            measured: list[float] = []
            for _ in range(args.n):
                started = time.perf_counter()
                digest.record_run("bench", "bot", **payload)  # type: ignore[arg-type]
                measured.append(time.perf_counter() - started)

            def ms(x: float) -> str:
                return f"{x * 1000:.3f} ms"

            for label, q in (("p50", 0.5), ("p99", 0.99)):
                f, m = percentile(floor, q), percentile(measured, q)
                print(f"capture {label}: {ms(m)}  floor {ms(f)}  ratio {m / f:.1f}x")
            print(f"capture mean: {ms(statistics.fmean(measured))} over {args.n} calls")
        finally:
            import redis

            redis.Redis.from_url(os.environ["DIGEST_BROKER_URL"]).flushdb()


if __name__ == "__main__":
    main()
