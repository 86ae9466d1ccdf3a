"""Run an event stream through a real worker and time it, end to end (shared by Benchmarks
3, 4, 5 and 6)."""

from __future__ import annotations

import os
import tempfile
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import _kept_bytes as kept_bytes
import _memory_trace as memory_trace
import _sql_count as sql_count
import psycopg
from _stream import StreamEvent, capture
from _worker import (
    Worker,
    backends_cpu_seconds,
    bank_counts,
    count_terminal,
    flush_broker,
    start_worker,
    worker_env,
)


@dataclass
class StreamRun:
    events: int
    seconds: float  # first capture → every event terminal
    capture_seconds: float  # first capture → last capture returned
    statuses: dict[str, int]
    #: (seconds since first capture, events terminal, RSS MB of each worker process)
    samples: list[tuple[float, int, list[float]]] = field(default_factory=list)
    pids: int = 0
    #: CPU seconds from the first capture until every event was terminal: the worker's
    #: processes, and the PostgreSQL backends of the database (capture's included)
    worker_cpu_s: float = 0.0
    database_cpu_s: float = 0.0
    #: the host's load average (1, 5, 15 min) when every event was terminal
    load: tuple[float, float, float] = (0.0, 0.0, 0.0)
    #: SQL statements and commits over the same span: the worker's processes (summed), and
    #: capture's (this process); empty when not counted
    worker_sql: dict[str, int] = field(default_factory=dict)
    capture_sql: dict[str, int] = field(default_factory=dict)
    #: (events terminal, active lessons) at each sample, when counted (``count_lessons``):
    #: the bank that every worker child's kept indexes hold at that moment
    lessons: list[tuple[int, int]] = field(default_factory=list)
    #: (events terminal, compose runs finished) at each sample, counted with the lessons
    composes: list[tuple[int, int]] = field(default_factory=list)
    #: each sampled process's kept indexes' MB at each sample, aligned with ``samples``' RSS
    #: (``bench/_kept_bytes.py``); empty when the worker's processes did not report them
    kept: list[list[float]] = field(default_factory=list)
    #: each sampled process's byte-bounded memories' MB at each sample, aligned the same way
    #: (``bench/_kept_bytes.py``: ``bounded_held``)
    held: list[list[float]] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.events / self.seconds


def point_capture_at(database_url: str, queue: str) -> None:
    """This process captures like an agent would: into ``database_url``, publishing to Redis."""
    from _worker import REDIS_URL

    os.environ["DIGEST_DATABASE_URL"] = database_url
    os.environ["DIGEST_BROKER_URL"] = REDIS_URL
    os.environ["DIGEST_QUEUE"] = queue
    from digest.capture.store import forget_agent_ids
    from digest.config import get_settings
    from digest.db import dispose_engines
    from digest.outbox.publish import reset_publisher

    get_settings.cache_clear()
    dispose_engines()
    reset_publisher()
    forget_agent_ids()


def statuses(database_url: str) -> dict[str, int]:
    import psycopg

    with psycopg.connect(database_url) as conn:
        rows = conn.execute("SELECT status, count(*) FROM events GROUP BY status").fetchall()
    return {str(s): int(n) for s, n in rows}


@contextmanager
def running_worker(
    database_url: str, *, pool: str = "prefork", concurrency: int = 2, **env: str
) -> Iterator[tuple[Worker, str]]:
    """A worker on a fresh queue, with this process capturing onto that queue."""
    queue = f"bench-{uuid.uuid4().hex[:6]}"
    counts = tempfile.TemporaryDirectory(prefix="digest-bench-sql-")
    kept = tempfile.TemporaryDirectory(prefix="digest-bench-kept-")
    env = {sql_count.ENV: counts.name, kept_bytes.ENV: kept.name, **env}
    worker = start_worker(worker_env(database_url, queue, **env), pool, concurrency)
    worker.sql_counts = Path(counts.name)
    worker.kept_bytes = Path(kept.name)
    try:
        point_capture_at(database_url, queue)
        sql_count.install()  # capture's statements, in this process
        yield worker, queue
    finally:
        worker.stop()
        flush_broker()
        counts.cleanup()
        kept.cleanup()


def send_and_wait(
    database_url: str,
    worker: Worker,
    stream: list[StreamEvent],
    *,
    tenant: str = "bench",
    key_prefix: str = "bench",
    timeout_s: float | None = None,
    sample_every_s: float = 1.0,
    capture_threads: int = 1,
    count_lessons: bool = False,
    compose_every: int = 0,
) -> StreamRun:
    """Capture ``stream`` through the agent API and wait until every event is terminal,
    sampling the worker's RSS meanwhile (and the active lessons, with ``count_lessons``).

    With ``compose_every`` N > 0, at the first sample past each N events terminal (N, 2N, ...,
    below the stream's length) every agent of ``tenant`` is asked for a compose (the worker's
    ``digest.compose_version`` task with trigger ``manual``, what improve-now composes with):
    compose rounds at fixed event marks, whatever the host's speed. The worker should then be
    started with a threshold no agent reaches (``NO_THRESHOLD_ENV``), so that no other compose
    runs.

    With ``capture_threads`` > 1 the stream is captured from that many threads of this
    process at once, the way a fleet of agent processes reports concurrently (each thread
    takes every n-th event, in stream order); one thread is a single agent process."""
    already = count_terminal(database_url)
    done_at: list[float] = []
    cpu_at_end: list[float] = []
    sql_at_end: list[dict[str, int]] = []
    lessons: list[tuple[int, int]] = []
    composes: list[tuple[int, int]] = []
    stop = threading.Event()
    worker_cpu, database_cpu = worker.cpu_seconds(), _backends_cpu(database_url)
    worker_sql, capture_sql = _worker_sql(worker), sql_count.counts()
    started = time.monotonic()
    target = already + len(stream)
    worker.samples.clear()
    worker.kept.clear()
    worker.held.clear()
    traced = os.environ.get(memory_trace.ENV)
    trace = Path(traced) if traced else None
    marks = compose_marks(len(stream), compose_every)

    def watch() -> None:
        while not stop.is_set():
            try:
                done = count_terminal(database_url)
                active, composed = bank_counts(database_url) if count_lessons else (0, 0)
            except psycopg.OperationalError:  # a server shared with other jobs, out of slots
                stop.wait(sample_every_s)
                continue
            worker.sample(done - already)
            if count_lessons:
                lessons.append((done - already, active))
                composes.append((done - already, composed))
            if trace is not None:
                memory_trace.note_done(trace, done - already)
            while marks and done - already >= marks[0]:
                marks.pop(0)
                ask_composes(database_url, tenant)
            if done >= target:
                done_at.append(time.monotonic())
                cpu_at_end.extend((worker.cpu_seconds(), _backends_cpu(database_url)))
                sql_at_end.extend((_worker_sql(worker), sql_count.counts()))
                return
            if worker.proc.poll() is not None:
                return
            stop.wait(sample_every_s)

    watcher = threading.Thread(target=watch, daemon=True)
    try:
        watcher.start()
        _capture_all(stream, tenant, key_prefix, capture_threads)
        captured = time.monotonic() - started
        # 30 minutes, or 25 events/s for a longer stream (scale 8 on a loaded host took longer)
        timeout_s = timeout_s if timeout_s is not None else max(1800.0, len(stream) / 25)
        watcher.join(timeout_s)
    finally:
        stop.set()
    if not done_at:
        raise RuntimeError(
            f"events not terminal after {timeout_s} s: {statuses(database_url)}\n"
            f"{worker.log()[-2000:]}"
        )
    return StreamRun(
        events=len(stream),
        seconds=done_at[0] - started,
        capture_seconds=captured,
        statuses=statuses(database_url),
        samples=[(t - started, d, rss) for t, d, rss in worker.samples],
        pids=len(worker.pids()),
        worker_cpu_s=cpu_at_end[0] - worker_cpu,
        database_cpu_s=cpu_at_end[1] - database_cpu,
        load=os.getloadavg(),
        worker_sql=_since(worker_sql, sql_at_end[0]),
        capture_sql=_since(capture_sql, sql_at_end[1]),
        lessons=lessons,
        composes=composes,
        kept=list(worker.kept),
        held=list(worker.held),
    )


#: the worker's environment for ``compose_every``: a threshold of undigested signals no agent
#: reaches (the largest a setting takes), so that only the bench's rounds compose
NO_THRESHOLD_ENV = {"DIGEST_THRESHOLD_SIGNALS": str(2**31 - 1)}


def compose_marks(events: int, every: int) -> list[int]:
    """The events terminal at which a compose round is asked: every ``every``-th, below
    ``events`` (a round at the stream's end would run after it)."""
    return list(range(every, events, every)) if every > 0 else []


def ask_composes(database_url: str, tenant: str) -> int:
    """Ask the worker for one compose of each of ``tenant``'s agents (trigger ``manual``);
    the number asked."""
    from digest.outbox.publish import TASK_COMPOSE_VERSION, publish_task

    with psycopg.connect(database_url) as conn:
        rows = conn.execute(
            "SELECT a.id FROM agents a JOIN tenants t ON t.id = a.tenant_id WHERE t.name = %s"
            " ORDER BY a.id",
            (tenant,),
        ).fetchall()
    return sum(publish_task(TASK_COMPOSE_VERSION, [int(r[0]), "manual"]) for r in rows)


def _worker_sql(worker: Worker) -> dict[str, int]:
    return sql_count.read_folder(worker.sql_counts) if worker.sql_counts else {}


def _since(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    return {name: after[name] - before.get(name, 0) for name in after}


def _backends_cpu(database_url: str, tries: int = 30) -> float:
    """``backends_cpu_seconds``, tried again while the server has no connection slot free."""
    for _ in range(tries - 1):
        try:
            return backends_cpu_seconds(database_url)
        except psycopg.OperationalError:
            time.sleep(1.0)
    return backends_cpu_seconds(database_url)


def _capture_all(stream: list[StreamEvent], tenant: str, key_prefix: str, threads: int) -> None:
    def share(offset: int) -> None:
        for index in range(offset, len(stream), threads):
            capture(stream[index], tenant, f"{key_prefix}-{index}")

    if threads <= 1:
        share(0)
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(threads) as pool:
        for done in [pool.submit(share, offset) for offset in range(threads)]:
            done.result()  # a capture error fails the benchmark


def run_stream(
    database_url: str,
    stream: list[StreamEvent],
    *,
    pool: str = "prefork",
    concurrency: int = 2,
    capture_threads: int = 1,
    count_lessons: bool = False,
    compose_every: int = 0,
    **env: str,
) -> StreamRun:
    """Start a worker, send ``stream`` through it, stop it (with ``compose_every``: compose
    rounds at fixed event marks only, see ``send_and_wait``)."""
    if compose_every > 0:
        env = {**NO_THRESHOLD_ENV, **env}
    with running_worker(database_url, pool=pool, concurrency=concurrency, **env) as (worker, _):
        return send_and_wait(
            database_url, worker, stream, capture_threads=capture_threads,
            count_lessons=count_lessons, compose_every=compose_every,
        )  # fmt: skip


def copy_floor(database_url: str, stream: list[StreamEvent]) -> float:
    """Seconds to write the stream's rows with one COPY into a copy of ``events`` (same
    columns, indexes and constraints except foreign keys): the bulk-SQL floor."""
    import json
    from datetime import UTC, datetime

    import psycopg

    now = datetime.now(UTC)
    with psycopg.connect(database_url) as conn:
        conn.execute("CREATE TABLE events_floor (LIKE events INCLUDING ALL)")
        conn.commit()
        rows: list[tuple[Any, ...]] = [
            (1, 1, e.kind, f"floor-{i}", json.dumps(e.fields), "low", "pending", 0, now, now)
            for i, e in enumerate(stream)
        ]
        started = time.perf_counter()
        with (
            conn.cursor() as cur,
            cur.copy(
                "COPY events_floor (tenant_id, agent_id, kind, idempotency_key, payload, trust,"
                " status, attempts, created_at, updated_at) FROM STDIN"
            ) as copy,
        ):
            for row in rows:
                copy.write_row(row)
        conn.commit()
        seconds = time.perf_counter() - started
        conn.execute("DROP TABLE events_floor")
        conn.commit()
    return seconds
