"""Benchmark 3 (pipeline throughput) and Benchmark 6 (worker RSS), from one run.

10,000 events at scale 1.0 (half of them exact repeats of earlier events' content under new
idempotency keys) from 20 agents go through the agent's capture API while one real Celery
worker (``offline/rules``) reflects them. Throughput is events per second from the first
capture until every event is terminal, against the floor of writing the same rows with one
COPY. The worker's RSS per process is sampled every second during the run (its slope over the whole
run, the second half and the last third; RSS at each 1,000 events in the notes).

What "no growth trend" is read from (the verdict row, "RSS slope after warm-up, net of the kept
indexes"): a child's RSS holds three things that must grow besides anything that should not. (1)
The kept indexes, which hold every active lesson of every agent in every child (bounded by
``DIGEST_KEPT_INDEX_MB``): the bank's data, measured: each worker child reports its kept
indexes' bytes after its tasks (``bench/_kept_bytes.py``: ``kept_sizes()``, near words and
overlays included), read with each RSS sample, and each process's RSS is read less its own kept
MB (``KEPT_KB_PER_LESSON`` x the active lessons counted with the sample is the fallback when no
process reported). (2) The bounded memories filling to their bounds: ``--trace-memory``'s census
shows most of them full by a child's ~5,000th event (``WARMUP_EVENTS_PER_CHILD``), the
replay's facts and ``digest.edits._taught`` only by ~21,000 run events at prefork 2. (3) The
first compose round: its replay fills the replay's memories (an agent's window of events, the
words near its keywords) once, a step of about 3 MB. The bench composes at fixed event marks:
every agent is asked for a compose (trigger ``manual``, improve-now's) at each ``COMPOSE_EVERY``
events terminal, and the worker's threshold is set beyond reach so that no other compose runs
(``--compose-every 0``: the product's threshold path, whose agents compose once quiet,
``DIGEST_QUIET_SECONDS`` after capture has finished ahead of the worker: on a loaded host inside
the run and on a fast one after it, so that where the rounds fall depends on the host's speed).
Warm-up is all three: it ends at a child's ``WARMUP_EVENTS_PER_CHILD``-th event, or later at the
sample at which ``AGENTS`` compose runs have finished (compose runs are counted with the
lessons), or later still where the bounded memories stopped filling, measured: each child
reports what its byte-bounded memories hold with its kept bytes, and warm-up lasts until no
process's gains more than ``FILL_LEFT_MB`` to the run's end (``memories_filled``: the replay's
facts fill until each child has composed every agent, three or four rounds). A run whose first
round was under way at its end has no window free of that step (``warm_up_end``). The verdict's
note also gives the slope from the first two rules alone (what the bench read before it measured
the memories). The verdict reads the least-squares slope, net of the kept indexes, of the
samples after warm-up, target "flat" (``FLAT_MB_PER_1K``; its arithmetic is in
``bench/_rss_verdict.py``), and gives one only when that window holds at least
``WINDOW_MIN_EVENTS`` events: allocator slack comes and goes by the MB, so a shorter window's
slope carries an error the size of the target. At scale 1.0 (10,000 events, prefork 2) warm-up
ends at the run's end: the row says so and gives no verdict; at 3.0 it usually has none either
(the memories fill until ~21,000 events): ``--scale 5.0`` or more gives one. The raw slopes (the
whole run, its second half, its last third) are reports: they hold the bank and the warm-up, and
say nothing by themselves about a trend. CPU seconds of the worker's processes and of the
database's PostgreSQL backends are read from /proc (the server runs on this host) at the start
and the end: per event, and the rate two idle cores would give, a figure the host's other load
does not change the way it changes events/s. SQL statements and commits per event are counted in
the worker's processes and in capture's (``bench/_sql_count.py``).

What is measured: capture and processing overlap, on the same host. The events are captured
from ``--capture-threads`` threads of the benchmark process at once (default 8: a fleet of
agents reports concurrently; one agent process capturing in a loop cannot offer 200 events/s
on a loaded 2-core host, and would then be what is timed). The capture rate is reported as
its own figure, so a slow end-to-end figure can be told apart from a slow capture.

    .venv/bin/python bench/throughput.py [--scale 1.0] [--pool prefork] [--concurrency 2]
        [--capture-threads 8] [--compose-every 5000] [--trace-memory DIR]

``--trace-memory DIR``: each worker child records where its memory goes (``bench/
_memory_trace.py``: tracemalloc snapshots from 4,000 events, the size of every memory it
keeps at each 1,000) and the growth is printed at the end; a diagnosis, not the benchmark
(tracing costs CPU and memory: that run's figures are not comparable).

Uses DIGEST_BENCH_PG for a scratch database and Redis at DIGEST_BENCH_REDIS (default
redis://127.0.0.1:6379/7), which it flushes.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from _report import Figure  # noqa: E402
from _rss_verdict import AGENTS, net_slope_figures, slope_mb_per_1k  # noqa: E402

BENCH = "pipeline throughput"
TARGET_RATE = 200.0
RSS_TARGET_MB = 300.0
#: the pool that measured fastest for offline/rules on a 2-core host (see docs/benchmarks.md)
DEFAULT_POOL, DEFAULT_CONCURRENCY = "prefork", 2
#: agents reporting at once (threads of the benchmark process)
DEFAULT_CAPTURE_THREADS = 8
#: events terminal between the bench's compose rounds (each asks every agent for one compose):
#: 100 compose runs at --scale 3.0, as many as a loaded host's threshold path ran in tput10
COMPOSE_EVERY = 5_000


def by_thousand(samples: list[tuple[float, int, list[float]]]) -> list[tuple[int, float]]:
    """The largest process's RSS at the first sample past each 1,000 events finished."""
    found: list[tuple[int, float]] = []
    for _, done, rss in samples:
        mark = done // 1000 * 1000
        if rss and mark and (not found or mark > found[-1][0]):
            found.append((mark, max(rss)))
    return found


def measure(
    scale: float = 1.0,
    pool: str = DEFAULT_POOL,
    concurrency: int = DEFAULT_CONCURRENCY,
    capture_threads: int = DEFAULT_CAPTURE_THREADS,
    compose_every: int = COMPOSE_EVERY,
) -> list[Figure]:
    from _pipeline import copy_floor, run_stream
    from _scratch import scratch_database
    from _stream import make_stream

    n = max(100, int(10_000 * scale))
    stream = make_stream(n, AGENTS)
    with scratch_database() as url:
        floor_s = copy_floor(url, stream)
        run = run_stream(
            url, stream, pool=pool, concurrency=concurrency, capture_threads=capture_threads,
            count_lessons=True, compose_every=compose_every,
        )  # fmt: skip
    floor_rate = n / floor_s
    terminal = sum(run.statuses.get(s, 0) for s in ("reflected", "skipped"))
    note = (
        f"{n} events, {AGENTS} agents, half repeats; worker --pool {pool} --concurrency "
        f"{concurrency}; captured from {capture_threads} threads in {run.capture_seconds:.1f} s; "
        f"statuses {run.statuses}; "
        + (
            f"compose rounds asked at every {compose_every:,} events (threshold off)"
            if compose_every > 0
            else "composes by the threshold and quiet period"
        )
    )
    figures = [
        Figure(
            BENCH, "events/s end to end", run.rate, "events/s",
            floor_name=f"COPY of {n} event rows", floor=floor_rate,
            target=f">= {TARGET_RATE:.0f} events/s", met=run.rate >= TARGET_RATE, note=note,
        ),
        Figure(
            BENCH, f"capture rate ({capture_threads} threads, while the worker runs)",
            n / run.capture_seconds, "events/s",
        ),
        Figure(
            BENCH, "events reflected or skipped", terminal, "events", target=f"= {n}",
            met=terminal == n,
        ),
    ]  # fmt: skip
    figures.extend(cpu_figures(run, n))
    figures.extend(sql_figures(run, n))
    figures.extend(rss_figures(run.samples, run.pids, "worker RSS"))
    children = concurrency if pool == "prefork" else 1
    figures.extend(
        net_slope_figures(
            run.samples, run.lessons, run.composes, children, run.kept or None, run.held or None
        )
    )
    return figures


def cpu_figures(run: Any, n: int) -> list[Figure]:
    """CPU per event of the worker and of PostgreSQL, and the rate two idle cores would give:
    on a host shared with other jobs events/s measures the share of the CPU the run got."""
    worker_ms = 1000 * run.worker_cpu_s / n
    database_ms = 1000 * run.database_cpu_s / n
    capacity = 2000 / (worker_ms + database_ms) if worker_ms + database_ms > 0 else 0.0
    load = " / ".join(f"{x:.1f}" for x in run.load)
    return [
        Figure(
            BENCH, "worker CPU per event", worker_ms, "ms",
            note="user + system, all worker processes",
        ),
        Figure(
            BENCH, "PostgreSQL CPU per event", database_ms, "ms",
            note="the scratch database's backends, capture's included",
        ),
        Figure(
            BENCH, "events/s on 2 idle cores (from CPU per event)", capacity, "events/s",
            target=f">= {TARGET_RATE:.0f} events/s", met=capacity >= TARGET_RATE,
            note=f"2 cores / (worker + PostgreSQL CPU per event); load average {load} at the end",
        ),
    ]  # fmt: skip


def sql_figures(run: Any, n: int) -> list[Figure]:
    """SQL statements (and commits) per event: the worker's processes' and capture's, counted
    by a SQLAlchemy listener in each (``bench/_sql_count.py``)."""
    figures = []
    for side, counted in (("worker", run.worker_sql), ("capture", run.capture_sql)):
        if counted:
            figures.append(Figure(
                BENCH, f"SQL statements per event ({side})", counted["statements"] / n, "",
                note=f"{counted['statements']} statements, {counted['commits']} commits"
                f" ({counted['commits'] / n:.2f} per event)",
            ))  # fmt: skip
    return figures


def rss_figures(
    samples: list[tuple[float, int, list[float]]], processes: int, bench: str
) -> list[Figure]:
    """Benchmark 6: first, last and max RSS of the largest worker process, and its raw slopes
    (reports: the verdict on a trend is ``net_slope_figures``')."""
    with_rss = [s for s in samples if s[2]]
    if not with_rss:
        return [Figure(bench, "RSS samples", 0, "samples", note="no samples taken")]
    first, last = max(with_rss[0][2]), max(with_rss[-1][2])
    peak = max(max(rss) for _, _, rss in with_rss)
    slope = slope_mb_per_1k(with_rss)
    finished = max(done for _, done, _ in with_rss)
    second = slope_mb_per_1k([s for s in with_rss if s[1] >= finished / 2])
    third = slope_mb_per_1k([s for s in with_rss if s[1] >= finished * 2 / 3])
    note = f"{len(with_rss)} samples over {processes} worker processes (largest process shown)"
    marks = ", ".join(f"{mark // 1000}k {mb:.0f}" for mark, mb in by_thousand(with_rss))
    return [
        Figure(bench, "RSS first sample", first, "MB", note=note),
        Figure(bench, "RSS last sample", last, "MB", note=f"MB at each 1,000 events: {marks}"),
        Figure(
            bench, "RSS max per process", peak, "MB", target=f"<= {RSS_TARGET_MB:.0f} MB",
            met=peak <= RSS_TARGET_MB,
        ),
        Figure(
            bench, "RSS slope", slope, "MB per 1,000 events",
            note="the bank's kept indexes and the warm-up included: a report, the verdict is"
            " 'RSS slope after warm-up, net of the kept indexes'",
        ),
        Figure(
            bench, "RSS slope, second half", second, "MB per 1,000 events",
            note="least squares over the samples after half the events had finished",
        ),
        Figure(
            bench, "RSS slope, last third", third, "MB per 1,000 events",
            note="least squares over the samples after two thirds of the events had finished",
        ),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--pool", default=DEFAULT_POOL)
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    parser.add_argument("--capture-threads", type=int, default=DEFAULT_CAPTURE_THREADS)
    parser.add_argument("--compose-every", type=int, default=COMPOSE_EVERY)
    parser.add_argument("--trace-memory", type=Path, default=None)
    args = parser.parse_args()
    if args.trace_memory is not None:
        import _memory_trace

        args.trace_memory.mkdir(parents=True, exist_ok=True)
        os.environ[_memory_trace.ENV] = str(args.trace_memory.resolve())
    figures = measure(
        args.scale, args.pool, args.concurrency, args.capture_threads, args.compose_every
    )
    for figure in figures:
        ratio = f"  ratio {figure.ratio:.3f}" if figure.ratio is not None else ""
        print(f"{figure.bench}: {figure.name} = {figure.value:.2f} {figure.unit}{ratio}"
              f"  met={figure.met}  {figure.note}")  # fmt: skip
    if args.trace_memory is not None:
        print("\n".join(_memory_trace.report(args.trace_memory)))


if __name__ == "__main__":
    main()
