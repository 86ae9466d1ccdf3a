"""Shared by the pipeline benchmarks: a real Celery worker subprocess, its memory, and waiting
for a stream of events to finish."""

from __future__ import annotations

import atexit
import ctypes
import os
import signal
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("DIGEST_BENCH_REDIS", "redis://127.0.0.1:6379/7")
PAGE_KB = os.sysconf("SC_PAGE_SIZE") // 1024
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: Linux's prctl(PR_SET_PDEATHSIG): the worker gets SIGTERM when the benchmark dies, even by
#: SIGKILL (it runs in a session of its own, so a Ctrl-C of the benchmark does not reach it)
_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True) if sys.platform == "linux" else None
#: workers started and not yet stopped: stopped at the benchmark's exit, however it ends
_RUNNING: set[Worker] = set()


@dataclass(eq=False)
class Worker:
    """``celery -A worker worker`` in its own process group."""

    proc: subprocess.Popen[bytes]
    log_path: Path
    samples: list[tuple[float, int, list[float]]] = field(default_factory=list)
    #: where its processes write their SQL counts (``bench/_sql_count.py``), if they do
    sql_counts: Path | None = None
    #: where its children write their kept indexes' bytes (``bench/_kept_bytes.py``), if they
    #: do; then ``kept`` holds, for each sample, each sampled process's kept MB, aligned with
    #: its RSS, and ``held`` the MB each one's byte-bounded memories held
    kept_bytes: Path | None = None
    kept: list[list[float]] = field(default_factory=list)
    held: list[list[float]] = field(default_factory=list)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def pids(self) -> list[int]:
        """The main process and its pool children (prefork), from /proc."""
        return [self.proc.pid, *_children(self.proc.pid)]

    def rss_mb(self) -> list[float]:
        return [r for _, r in self._rss_by_pid()]

    def _rss_by_pid(self) -> list[tuple[int, float]]:
        return [(pid, r) for pid in self.pids() if (r := _rss_mb(pid)) is not None]

    def cpu_seconds(self) -> float:
        """User + system CPU seconds the main process and its live pool children have used."""
        return sum(cpu_seconds(pid) for pid in self.pids())

    def sample(self, done: int) -> None:
        """Record (seconds since start, events finished, RSS MB per process)."""
        measured = self._rss_by_pid()
        self.samples.append((time.monotonic(), done, [r for _, r in measured]))
        if self.kept_bytes is not None:
            import _kept_bytes

            read = [_kept_bytes.read(self.kept_bytes, pid) for pid, _ in measured]
            self.kept.append([kept for kept, _ in read])
            self.held.append([held for _, held in read])

    def stop(self) -> None:
        _RUNNING.discard(self)
        if self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(timeout=10)


@atexit.register
def _stop_running() -> None:
    for worker in list(_RUNNING):
        worker.stop()


def _die_with_parent() -> None:
    """In the worker's process before it runs celery: be sent SIGTERM when the benchmark
    process ends (only a C call here: nothing that could wait on a lock of another thread)."""
    if _LIBC is not None:
        _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def _rss_mb(pid: int) -> float | None:
    try:
        resident = int(Path(f"/proc/{pid}/statm").read_text().split()[1])
    except (OSError, IndexError, ValueError):
        return None
    return resident * PAGE_KB / 1024


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a live process (0 once it has gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def backends_cpu_seconds(database_url: str) -> float:
    """CPU seconds of the PostgreSQL backends now connected to ``database_url``'s database
    (the server runs on this host), this query's own left out."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        pids = [
            int(row[0])
            for row in conn.execute(
                "SELECT pid FROM pg_stat_activity"
                " WHERE datname = current_database() AND pid <> pg_backend_pid()"
            ).fetchall()
        ]
    return sum(cpu_seconds(pid) for pid in pids)


def worker_env(database_url: str, queue: str, **extra: str) -> dict[str, str]:
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    return {
        **inherited,
        "DIGEST_DATABASE_URL": database_url,
        "DIGEST_BROKER_URL": REDIS_URL,
        "DIGEST_QUEUE": queue,
        "DIGEST_LLM_MODEL": "offline/rules",
        **extra,
    }


def start_worker(
    env: dict[str, str], pool: str, concurrency: int, log_dir: Path | None = None
) -> Worker:
    """Start a worker on ``env["DIGEST_QUEUE"]`` and wait until it is ready."""
    log_dir = log_dir or Path(os.environ.get("TMPDIR", "/tmp"))
    log_path = log_dir / f"digest-bench-worker-{uuid.uuid4().hex[:6]}.log"
    # with BENCH_SQL_COUNTS, each worker process counts its SQL statements (bench/_sql_count.py)
    counted = "BENCH_SQL_COUNTS" in env
    launch = [str(ROOT / "bench" / "_sql_count.py")] if counted else ["-m", "celery"]
    cmd = [
        sys.executable, *launch, "-A", "worker", "worker", "--loglevel=INFO",
        f"--pool={pool}", f"--concurrency={concurrency}", "-Q", env["DIGEST_QUEUE"],
        "-n", f"bench-{uuid.uuid4().hex[:6]}@%h",
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip
    handle = log_path.open("wb")
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True,
        preexec_fn=_die_with_parent,
    )  # fmt: skip
    worker = Worker(proc, log_path)
    _RUNNING.add(worker)
    deadline = time.monotonic() + 90
    while " ready." not in worker.log():
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited early:\n{worker.log()[-3000:]}")
        if time.monotonic() > deadline:
            worker.stop()
            raise RuntimeError(f"worker not ready after 90 s:\n{worker.log()[-3000:]}")
        time.sleep(0.2)
    return worker


def count_terminal(database_url: str) -> int:
    import psycopg

    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT count(*) FROM events WHERE status IN ('reflected','skipped','failed','dead')"
        ).fetchone()
    return int(row[0]) if row else 0


def bank_counts(database_url: str) -> tuple[int, int]:
    """Lessons with status ``active`` (what every worker child's kept indexes hold) and compose
    runs finished (a child's first compose fills the replay's memories once), in one
    connection."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        row = conn.execute(
            "SELECT (SELECT count(*) FROM lessons WHERE status = 'active'),"
            " (SELECT count(*) FROM digest_runs WHERE kind = 'compose')"
        ).fetchone()
    return (int(row[0]), int(row[1])) if row else (0, 0)


def flush_broker() -> None:
    """Empty the benchmark's Redis database (queues, unacked messages, scheduled composes).
    DIGEST_BENCH_REDIS must name a database the benchmarks own."""
    import redis

    redis.Redis.from_url(REDIS_URL).flushdb()
