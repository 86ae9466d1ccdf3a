"""What an agent process pays to capture: ``import digest`` time, first-capture time, and RSS.

Every figure comes from fresh subprocesses (the median of at least five), against floors
measured the same way in the same run:

- ``import digest`` (timed inside the child) against the start-up of ``python -c pass``;
  target < 0.3 s. The package resolves its public names lazily, so this is the price of
  ``import digest`` alone, which is why the next figure exists:
- cold ``import digest`` + first ``record_run`` (connect to PostgreSQL and Redis, create the
  tenant and agent rows, INSERT, LPUSH), against a bare process that imports psycopg and redis,
  connects to both, INSERTs + COMMITs one row and LPUSHes it: the least a first capture costs.
- RSS after 1,000 captures, against the bare process after 1,000 INSERT+COMMIT+LPUSH.
- whether litellm or Celery were ever loaded by the capturing process (target: never).

    .venv/bin/python bench/import_time.py [--scale 1.0]

Uses DIGEST_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres) to create and drop
a scratch database, and Redis at DIGEST_BENCH_REDIS (default redis://127.0.0.1:6379/12), where
it writes only to keys of its own and deletes them afterwards.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

if __package__:  # imported by a runner as bench.import_time
    from bench._report import Figure
    from bench._scratch import scratch_database
else:  # run as a script: python bench/import_time.py
    from _report import Figure
    from _scratch import scratch_database

BENCH = "import and RSS"
TARGET_IMPORT_S = 0.3
ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("DIGEST_BENCH_REDIS", "redis://127.0.0.1:6379/12")

#: prints the process's resident set size in MB (Linux; ru_maxrss elsewhere)
_RSS = """
def rss_mb():
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
"""

IMPORT_ONLY = """
import time
started = time.perf_counter()
import digest
print(time.perf_counter() - started)
"""

CAPTURE = (
    _RSS
    + """
import json, sys, time
started = time.perf_counter()
import digest
digest.record_run("bench", "bot", task="refund order 1", outcome="failure", error="no amount")
first = time.perf_counter() - started
for i in range(int(sys.argv[1])):
    digest.record_run("bench", "bot", task=f"refund order {i}", outcome="failure",
                      error="amount is required")
heavy = sorted(m for m in ("litellm", "celery", "kombu") if m in sys.modules)
print(json.dumps({"first": first, "rss": rss_mb(), "heavy": heavy}))
"""
)

FLOOR = (
    _RSS
    + """
import json, os, sys, time
started = time.perf_counter()
import psycopg, redis
conn = psycopg.connect(os.environ["BENCH_LIBPQ_URL"])
client = redis.Redis.from_url(os.environ["DIGEST_BROKER_URL"])
key = os.environ["DIGEST_QUEUE"] + "-floor"
def once(i):
    payload = json.dumps({"task": f"refund order {i}", "outcome": "failure",
                          "error": "amount is required"})
    conn.execute(
        "INSERT INTO events (tenant_id, agent_id, kind, payload, trust, status, attempts,"
        " created_at, updated_at) VALUES (1, 1, 'run_outcome', %s, 'low', 'skipped', 0,"
        " now(), now())", (payload,))
    conn.commit()
    client.lpush(key, payload)
once(-1)
first = time.perf_counter() - started
for i in range(int(sys.argv[1])):
    once(i)
print(json.dumps({"first": first, "rss": rss_mb(), "heavy": []}))
"""
)


def _run(code: str, *args: str, env: dict[str, str] | None = None) -> tuple[float, str]:
    """Run ``python -c code`` in a fresh process; (wall seconds, last stdout line)."""
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"benchmark child failed:\n{done.stderr[-2000:]}")
    lines = done.stdout.strip().splitlines()
    return wall, lines[-1] if lines else ""


def measure(scale: float = 1.0) -> list[Figure]:
    import redis

    runs = max(5, round(7 * scale))
    captures = max(100, int(1000 * scale))
    base_env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}

    startup = [_run("pass", env=base_env)[0] for _ in range(runs)]
    imports: list[float] = []
    import_walls: list[float] = []
    for _ in range(runs):
        wall, out = _run(IMPORT_ONLY, env=base_env)
        import_walls.append(wall)
        imports.append(float(out))

    queue = f"bench-import-{uuid.uuid4().hex[:8]}"
    ours: list[dict[str, Any]] = []
    floor: list[dict[str, Any]] = []
    client = redis.Redis.from_url(REDIS_URL)
    try:
        with scratch_database() as url:
            env = {
                **base_env,
                "DIGEST_DATABASE_URL": url,
                "DIGEST_BROKER_URL": REDIS_URL,
                "DIGEST_QUEUE": queue,
                "BENCH_LIBPQ_URL": url,
            }
            _run(CAPTURE, "0", env=env)  # creates tenant 1 and agent 1 for the floor's rows
            for index in range(runs):
                # only the last run of each does the long tail of captures for the RSS figure
                count = str(captures if index == runs - 1 else 0)
                ours.append(json.loads(_run(CAPTURE, count, env=env)[1]))
                floor.append(json.loads(_run(FLOOR, count, env=env)[1]))
    finally:
        client.delete(queue, f"{queue}-floor")
        client.close()

    median = statistics.median
    heavy = sorted({name for result in ours for name in result["heavy"]})
    note = f"median of {runs} fresh processes"
    return [
        Figure(BENCH, "import digest", median(imports), "s", "python -c pass (process start-up)",
               median(startup), target=f"< {TARGET_IMPORT_S:g} s",
               met=median(imports) < TARGET_IMPORT_S,
               note=f"{note}; whole process `python -c 'import digest'` "
               f"{median(import_walls):.3f} s wall"),
        Figure(BENCH, "import digest + first record_run", median(r["first"] for r in ours), "s",
               "import psycopg+redis, connect, INSERT+COMMIT, LPUSH",
               median(r["first"] for r in floor),
               note=f"{note}; includes creating the tenant and agent rows"),
        Figure(BENCH, f"RSS after {captures:,} captures", ours[-1]["rss"], "MB",
               f"bare psycopg+redis process after {captures:,} INSERT+COMMIT+LPUSH",
               floor[-1]["rss"]),
        Figure(BENCH, "litellm or Celery loaded by a capturing process", float(len(heavy)),
               "modules", target="none", met="litellm" not in heavy,
               note=", ".join(heavy) or "none of litellm, celery, kombu"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    for figure in measure(args.scale):
        ratio = f"{figure.ratio:.2f}x" if figure.ratio is not None else "-"
        verdict = {None: "", True: "  MET", False: "  NOT MET"}[figure.met]
        floor = f"floor {figure.floor:.3f} {figure.unit}" if figure.floor is not None else ""
        print(f"{figure.name}: {figure.value:.3f} {figure.unit}  {floor}  ratio {ratio}"
              f"  {figure.target}{verdict}")  # fmt: skip
        print(f"    floor: {figure.floor_name or '-'}; {figure.note}")


if __name__ == "__main__":
    main()
