"""Shared fixtures: a fresh PostgreSQL database, a Redis queue of our own, real worker processes.

Services come from the machine (DIGEST_TEST_PG / DIGEST_TEST_REDIS override the defaults).
Every test uses its own tenant name, so tests share one database without seeing each other.

The ``services`` marker is not written by hand: a test whose fixtures reach the machine's
PostgreSQL (``pg_admin``) or Redis (``redis_url``), directly or through ``services_env``,
``start_worker`` and the like, is marked at collection (``SERVICE_FIXTURES``). So
``pytest -m "not services"`` runs exactly the tests that need neither. The process's state
(``digest.runtime``: settings, engines, clients, remembered answers, prompts, scripted models,
…) is reset around every test (``fresh_process_caches``), as in a forked worker child.
"""

from __future__ import annotations

import atexit
import base64
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import psycopg
import pytest
import redis

ROOT = Path(__file__).resolve().parent.parent
PG_ADMIN = os.environ.get("DIGEST_TEST_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
REDIS_BASE = os.environ.get("DIGEST_TEST_REDIS", "redis://127.0.0.1:6379")
# Parallel checkouts on one machine pick different databases, since the session flushes its own.
# pytest-xdist processes (gw0, gw1, …) each take the next database.
REDIS_DB = int(os.environ.get("DIGEST_TEST_REDIS_DB", "11")) + int(
    os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0
)


# ``tmp_path`` and its kin on a RAM file system where the machine has one: SQLite commits (the
# embedded default, every ``sqlite_env`` test, the CLI and document runs) each wait for an
# fsync of the file on a disk, 3-20 ms on a busy host, nothing on tmpfs. What is asserted is
# the same; only where the files live changes (PYTEST_DEBUG_TEMPROOT is pytest's own setting,
# and pytest still keeps the last three runs' folders there; set it to choose another place).
_RAM_TEMP = Path("/dev/shm")
if _RAM_TEMP.is_dir() and os.access(_RAM_TEMP, os.W_OK | os.X_OK):
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", str(_RAM_TEMP))


# The processes the suite starts (every ``digest`` line of the documents, ``run_digest``, the
# worker zygote, fresh workers) read compiled bytecode, as a reader's processes do. Where the
# environment says not to write bytecode (PYTHONDONTWRITEBYTECODE, usually so that no
# ``__pycache__`` lands in a checkout), each of them would compile every ``digest`` module it
# imports from source: ~0.2-0.3 s of CPU a process, ~100 processes a suite. So they write it
# outside the checkout instead, in one folder for the machine's test runs (PYTHONPYCACHEPREFIX;
# a .pyc records its source's mtime and size and is written atomically, so runs of other
# checkouts and concurrent processes share it safely). The test processes do the same: each
# pytest-xdist process starts with this environment, and this one reads the modules it imports
# from here on (the test modules, which pytest's assertion rewriting compiles: ~11 s of CPU a
# process uncached) the same way. Set PYTHONPYCACHEPREFIX yourself to choose the folder.
if sys.flags.dont_write_bytecode and "PYTHONPYCACHEPREFIX" not in os.environ:
    _PYCACHE = (_RAM_TEMP if _RAM_TEMP.is_dir() else Path(tempfile.gettempdir())) / (
        f"digest-test-pycache-{os.getuid()}"
    )
    os.environ["PYTHONPYCACHEPREFIX"] = str(_PYCACHE)
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = str(_PYCACHE)
    sys.dont_write_bytecode = False


# Neighbours are lexical in most tests (the same code path, no model to load in every worker
# subprocess); tests of the embedding seam and of semantic neighbours ask for "local" itself
# (tests/identity, tests/test_identity_pipeline.py).
os.environ.setdefault("DIGEST_EMBEDDING_MODEL", "none")


#: fixtures that reach a service of this machine; every fixture that needs one depends on these
SERVICE_FIXTURES = frozenset({"pg_admin", "redis_url"})


#: the suite's longest tests (node id prefix → seconds on an idle 2-core host, roughly), which
#: ``long_tests_first`` starts first in each pytest-xdist process; a test that takes more
#: than about 8 s belongs here (``--durations=30`` shows them)
LONG_TESTS: dict[str, float] = {
    "tests/test_docs_run.py::test_document_runs_as_written[cli.md]": 86,
    "tests/test_fault_suite.py::test_sigkill_worker_during_stream": 64,
    "tests/test_docs_run.py::test_document_runs_as_written[README.md]": 57,
    "tests/test_adversarial.py::test_no_attack_reaches_the_agent_on_the_embedded_default": 52,
    "tests/test_fault_suite.py::test_redis_down_mid_stream": 42,
    "tests/test_fault_suite.py::test_llm_fault_mix": 37,
    "tests/test_docs_run.py::test_document_runs_as_written[production.md]": 35,
    "tests/test_fault_heal.py::test_the_fault_mix_heals_within_the_fleet_limits[double-mix]": 27,
    "tests/test_adversarial.py::test_an_obedient_remote_model_is_held_through_a_worker": 25,
    "tests/test_adversarial.py::test_no_attack_reaches_the_agent_through_a_worker": 24,
    "tests/service/test_openapi_fuzz.py::test_no_server_error_and_no_schema_violation": 18,
    "tests/model/test_spend.py::test_two_processes_never_overspend_together": 18,
    "tests/test_fault_heal.py::test_the_fault_mix_heals_within_the_fleet_limits[issue-mix]": 18,
    "tests/versions/test_triggers.py::test_below_threshold_waits_for_the_sweep": 17,
    "tests/versions/test_triggers.py::test_improve_now_cli_waits_for_the_worker": 17,
    "tests/test_fault_suite.py::test_postgres_restart_mid_stream": 15,
    "tests/lessons/test_holdout.py::test_randomized_holdout_finds_the_helpful_and_the_harmful": 12,
    "tests/report/test_browser.py::test_the_report_page_draws_its_charts": 10,
    "tests/test_docs_run.py::test_document_runs_as_written[report.md]": 10,
}


def long_tests_first(items: list[pytest.Item], processes: int) -> list[pytest.Item]:
    """``items`` reordered so that each of ``processes`` pytest-xdist processes starts with its
    share of ``LONG_TESTS`` (longest first, each to the process with the least so far), and
    the rest keep their order. ``--dist worksteal`` hands process k the k-th contiguous block
    of the collection and steals from the back of a queue, so the long tests run first and
    short ones fill the end: the processes finish together instead of one running a long
    test alone at the end."""

    def cost(item: pytest.Item) -> float:
        return next((s for p, s in LONG_TESTS.items() if item.nodeid.startswith(p)), 0.0)

    long = sorted((i for i in items if cost(i)), key=cost, reverse=True)
    if processes < 2 or not long:
        return items
    rest = [i for i in items if not cost(i)]
    shares: list[list[pytest.Item]] = [[] for _ in range(processes)]
    for item in long:
        min(shares, key=lambda share: sum(map(cost, share))).append(item)
    # the block sizes worksteal's first distribution gives (each process a share of what is
    # left), each block its long tests first, then the next stretch of the others
    ordered: list[pytest.Item] = []
    left = len(items)
    for k, share in enumerate(shares):
        size = left // (processes - k)
        left -= size
        take = max(0, size - len(share))
        ordered += share + rest[:take]
        rest = rest[take:]
    return ordered + rest


class _LongTestsFirst:
    @pytest.hookimpl(trylast=True)  # after ``-k`` and ``-m`` deselected what they do
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        processes = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
        items[:] = long_tests_first(items, processes)


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_LongTestsFirst(), "digest-long-tests-first")


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark ``services`` every test whose fixture closure uses a service fixture."""
    for item in items:
        if SERVICE_FIXTURES.intersection(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.services)


def _reset_process_state() -> None:
    """Forget everything this process keeps between calls, as a forked worker child does
    (``digest.runtime``): settings, engines, broker and limiter clients, model answers,
    prompts, scripted models, embedders and indexes. Free when nothing was made."""
    from digest.runtime import runtime

    runtime().reset()


#: the same reset, under the name tests/reflect imports
_clear_process_caches = _reset_process_state


@pytest.fixture(autouse=True)
def fresh_process_caches() -> Iterator[None]:
    """Every test starts, and leaves, with the process caches empty, and leaves logging as it
    found it (a command run in process configures structlog and the root logger; at a
    quieter level, later tests' ``capture_logs`` would see nothing)."""
    import logging

    root = logging.getLogger()
    handlers, level = root.handlers[:], root.level
    _reset_process_state()
    yield
    _reset_process_state()
    root.handlers[:] = handlers
    root.setLevel(level)
    if "structlog" in sys.modules:
        sys.modules["structlog"].reset_defaults()


@pytest.fixture(scope="session")
def pg_admin() -> str:
    """The machine's PostgreSQL (its admin database URL): every database test starts here."""
    return PG_ADMIN


@pytest.fixture(scope="session")
def pg_url(pg_admin: str) -> Iterator[str]:
    name = f"digest_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    _create_database(pg_admin, name)
    base = pg_admin.rsplit("/", 1)[0]
    url = f"{base}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    from digest.migrate import upgrade

    upgrade(url)
    yield url
    _reset_process_state()
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = f"{REDIS_BASE}/{REDIS_DB}"
    client = redis.Redis.from_url(url, socket_timeout=2)
    client.flushdb()
    yield url
    client.flushdb()


@pytest.fixture(scope="session")
def queue() -> str:
    return f"digest-test-{uuid.uuid4().hex[:8]}"


@pytest.fixture()
def services_env(
    pg_url: str, redis_url: str, queue: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """Point this process at the test Postgres, Redis and queue (the way an agent would be)."""
    env = base_env(pg_url, redis_url, queue)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("DIGEST_LLM_API_BASE", raising=False)
    _reset_process_state()
    yield env
    _reset_process_state()


def _create_database(pg_admin: str, name: str, template: str | None = None) -> None:
    """Create a test database whose commits do not wait for the server's WAL fsync
    (``synchronous_commit = off`` for every session on it, workers' too): what a commit makes
    visible, and when, is unchanged; only a crash of the server itself could lose the last
    commits, and no test crashes the machine's server (the fault suite restarts a private
    one). A database setting is not copied from a template, so each database gets its own."""
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        clone = f' TEMPLATE "{template}"' if template else ""
        conn.execute(f'CREATE DATABASE "{name}"{clone}')
        conn.execute(f'ALTER DATABASE "{name}" SET synchronous_commit = off')


def _terminate_and_drop(pg_admin: str, name: str) -> None:
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


@pytest.fixture(scope="session")
def _migrated_template(pg_admin: str) -> Iterator[str]:
    """A PostgreSQL database at the head revision, migrated once per test process when a test
    first asks for ``own_database``, which clones it (``CREATE DATABASE ... TEMPLATE``: a
    third of a second, where migrating takes 2-3 s). Nothing stays connected to it."""
    name = f"digest_tmpl_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    _create_database(pg_admin, name)
    from digest.migrate import upgrade

    upgrade(
        f"{pg_admin.rsplit('/', 1)[0]}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    )
    _reset_process_state()
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s", (name,)
        )
    yield name
    _terminate_and_drop(pg_admin, name)


@pytest.fixture()
def own_database(
    pg_admin: str,
    services_env: dict[str, str],
    _migrated_template: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[str]:
    """A migrated PostgreSQL database of this test's own: for code that reads the whole
    database (the relay), which other tests' leftover events would otherwise disturb. A clone
    of this process's migrated template (``_migrated_template``).

    The test gets a queue of its own with it: agent and event ids start again at 1 in a new
    database, so a message another test left on the process's queue (its worker killed before
    taking it) would name this test's agent, and a worker started here would reflect events
    the test means to leave pending."""
    name = f"digest_own_{uuid.uuid4().hex[:8]}"
    _create_database(pg_admin, name, template=_migrated_template)
    url = f"{pg_admin.rsplit('/', 1)[0]}/{name}".replace(
        "postgresql://", "postgresql+psycopg://", 1
    )
    monkeypatch.setenv("DIGEST_DATABASE_URL", url)
    services_env["DIGEST_QUEUE"] = f"digest-test-own-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("DIGEST_QUEUE", services_env["DIGEST_QUEUE"])
    _reset_process_state()
    yield url
    _reset_process_state()
    redis.Redis.from_url(services_env["DIGEST_BROKER_URL"]).delete(services_env["DIGEST_QUEUE"])
    _terminate_and_drop(pg_admin, name)


@pytest.fixture(scope="session")
def migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite file at the head revision, migrated once per test process: ``sqlite_env``
    copies it (migrating takes most of a second, a copy a millisecond)."""
    from digest.migrate import upgrade

    path = tmp_path_factory.mktemp("sqlite-head") / "digest.db"
    upgrade(f"sqlite:///{path}")
    _reset_process_state()  # nothing of this process keeps the file open
    return path


@pytest.fixture()
def sqlite_env(
    tmp_path: Path, migrated_sqlite: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[str]:
    """The embedded default: a fresh SQLite file at the head revision, no broker,
    offline/rules."""
    path = tmp_path / "digest.db"
    source, copy = sqlite3.connect(migrated_sqlite), sqlite3.connect(path)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()
    url = f"sqlite:///{path}"
    monkeypatch.setenv("DIGEST_DATABASE_URL", url)
    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    monkeypatch.delenv("DIGEST_LLM_API_BASE", raising=False)
    monkeypatch.setenv("DIGEST_LLM_MODEL", "offline/rules")
    _reset_process_state()
    yield url
    _reset_process_state()


@pytest.fixture()
def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


#: Celery's log line about a task: "Task digest.reflect_batch[<id>] received", "… succeeded in …"
_TASK_OUTCOME = re.compile(r"Task (?P<name>[\w.]+)\[(?P<id>[\w-]+)\] (?P<how>\w+)")


@dataclass
class WorkerProcess:
    """A real ``celery -A worker worker`` subprocess with its own process group."""

    proc: subprocess.Popen[bytes] | ForkedProcess
    log_path: Path
    #: the byte of the log file this view of the worker reads from (``from_here``)
    log_start: int = 0
    #: ``--pool``: prefork runs the tasks in child processes, threads in the main one
    pool: str = "prefork"

    def log(self) -> str:
        with self.log_path.open("rb") as handle:
            handle.seek(self.log_start)
            return handle.read().decode(errors="replace")

    def from_here(self) -> WorkerProcess:
        """This worker, its log read from its present end on: a test's view of a worker that
        earlier tests used (``shared_worker``)."""
        return replace(self, log_start=self.log_path.stat().st_size)

    def records(
        self, event: str | None = None, since: int = 0, **fields: Any
    ) -> list[dict[str, Any]]:
        """The worker's JSON log records (all, or those of one ``event`` such as
        ``event_reflected`` with these ``fields``) from character ``since`` of its log on
        (``len(worker.log())`` taken earlier). A task's records carry its ``task_id``, a
        reflect task's its ``event_id``."""
        wanted = fields if event is None else {**fields, "event": event}
        found = []
        for line in self.log()[since:].splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if isinstance(record, dict) and all(record.get(k) == v for k, v in wanted.items()):
                found.append(record)
        return found

    def ended_tasks(self, since: int = 0) -> dict[str, dict[str, Any]]:
        """Task id → Celery's record of how the task ended in this worker ("Task <name>[<id>]
        succeeded in …", "… raised unexpected: …"), which a reflect task's ``event_id`` is
        bound to. A task that is only received, or retried, has not ended."""
        ended = {}
        for record in self.records(since=since):
            found = _TASK_OUTCOME.match(str(record.get("event", "")))
            if found and found["how"] not in ("received", "retry"):
                ended[found["id"]] = record
        return ended

    def tasks_in_flight(self, name: str | None = None) -> set[str]:
        """Ids of the tasks (named ``name``) this worker has received and not yet ended: held
        for their countdown, waiting for a pool process, or running."""
        received = set()
        for record in self.records():
            found = _TASK_OUTCOME.match(str(record.get("event", "")))
            if found and found["how"] == "received" and name in (None, found["name"]):
                received.add(found["id"])
        return received - self.ended_tasks().keys()

    def done_with(self, event_ids: list[int]) -> bool:
        """Has every task that logged about ``event_ids`` run to its end (and did each event
        get a record)? A reflect task goes on after its events are finished: the threshold
        trigger, passing the agent's other events on. This says all of that is over."""
        about = [r for r in self.records() if r.get("event_id") in event_ids and r.get("task_id")]
        seen = {r["event_id"] for r in about}
        return seen >= set(event_ids) and {r["task_id"] for r in about} <= self.ended_tasks().keys()

    def kill(self) -> None:
        """SIGKILL the whole group (main process and pool children), as a crash would."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        """A warm shutdown, as an operator asks for one (SIGTERM to the main process): it stops
        taking messages, gives back those it holds, lets the running tasks end, and ends its
        pool processes. All a prefork worker does after that is its interpreter's clean-up of
        a large heap (2-4 s of CPU), so it is killed once its pool processes are gone. A
        threads worker runs its tasks in the main process: that one is waited for."""
        if self.proc.poll() is not None:
            return
        os.kill(self.proc.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        while self.pool == "prefork" and self._children() and time.monotonic() < deadline:
            time.sleep(0.05)
        try:
            if self.pool == "prefork" and not self._children():
                self.kill()
            self.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.kill()

    def _children(self) -> list[str]:
        """The process ids of the main process's children (its pool, with prefork)."""
        try:
            path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
            return path.read_text().split()
        except OSError:  # the main process has ended
            return []


def base_env(pg_url: str, redis_url: str, queue: str) -> dict[str, str]:
    return {
        "DIGEST_DATABASE_URL": pg_url,
        "DIGEST_BROKER_URL": redis_url,
        "DIGEST_QUEUE": queue,
        "DIGEST_LLM_MODEL": "offline/rules",
    }


class ForkedProcess:
    """A worker forked by the zygote (``tests/worker_zygote.py``): the ``subprocess.Popen``
    calls a ``WorkerProcess`` makes (``pid``, ``poll``, ``wait``, ``returncode``). It is the
    zygote's child, so its end is learnt from the zygote."""

    def __init__(self, zygote: _Zygote, pid: int) -> None:
        self.zygote, self.pid = zygote, pid

    @property
    def returncode(self) -> int | None:
        return self.zygote.returncode(self.pid)

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        code = self.zygote.wait(self.pid, timeout)
        if code is None:
            raise subprocess.TimeoutExpired(f"worker {self.pid}", timeout or 0.0)
        return code


class _Zygote:
    """This test process's zygote: one process that imported what a worker imports, which
    forks each worker (``spawn_worker``). Started at the first worker, ended at exit."""

    def __init__(self, inherited: dict[str, str]) -> None:
        source = (ROOT / "tests" / "worker_zygote.py").read_text()
        self.proc = subprocess.Popen(
            [sys.executable, "-c", source], cwd=ROOT, env=inherited, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, start_new_session=True,
        )  # fmt: skip
        self._lock = threading.Lock()  # one fork request at a time
        self._changed = threading.Condition()
        self._lines: list[str] = []
        self._exits: dict[int, int] = {}
        threading.Thread(target=self._read, daemon=True).start()
        first = self._next_line(120)
        if first != "ready":
            self.proc.kill()
            raise RuntimeError(f"worker zygote did not start: {first!r}")

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            line = raw.decode().strip()
            with self._changed:
                if line.startswith("exit "):
                    _, pid, code = line.split()
                    self._exits[int(pid)] = int(code)
                else:
                    self._lines.append(line)
                self._changed.notify_all()
        with self._changed:
            self._lines.append("")  # the zygote ended
            self._changed.notify_all()

    def _next_line(self, timeout: float) -> str:
        with self._changed:
            if not self._changed.wait_for(lambda: self._lines, timeout):
                return "timeout"
            return self._lines.pop(0)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def spawn(self, env: dict[str, str], argv: list[str], log_path: Path) -> ForkedProcess:
        log_path.write_bytes(b"")  # there before the child writes to it
        request = {"env": env, "argv": argv, "log": str(log_path), "cwd": str(ROOT)}
        assert self.proc.stdin is not None
        with self._lock:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
            line = self._next_line(30)
        if not line.startswith("pid "):
            raise RuntimeError(f"worker zygote did not fork: {line!r}")
        return ForkedProcess(self, int(line.split()[1]))

    def returncode(self, pid: int) -> int | None:
        with self._changed:
            return self._exits.get(pid)

    def wait(self, pid: int, timeout: float | None) -> int | None:
        with self._changed:
            self._changed.wait_for(lambda: pid in self._exits or not self.alive(), timeout)
            return self._exits.get(pid)

    def close(self) -> None:
        if self.proc.stdin is not None and self.alive():
            self.proc.stdin.close()  # the zygote ends the workers left, then itself
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()


_zygotes: list[_Zygote] = []


def _zygote(inherited: dict[str, str]) -> _Zygote | None:
    """This process's zygote, started now if there is none alive; ``None`` where workers are
    to be fresh interpreters (``DIGEST_TEST_FORK_WORKERS=0``)."""
    if os.environ.get("DIGEST_TEST_FORK_WORKERS", "1") == "0":
        return None
    if not _zygotes or not _zygotes[-1].alive():
        _zygotes.append(_Zygote(inherited))
        if len(_zygotes) == 1:
            atexit.register(lambda: [zygote.close() for zygote in _zygotes])
    return _zygotes[-1]


def spawn_worker(
    env: dict[str, str], log_path: Path, concurrency: int = 1, pool: str = "prefork"
) -> WorkerProcess:
    """Start ``celery -A worker worker`` on ``env["DIGEST_QUEUE"]`` and wait until it is ready.

    The worker is forked from this test process's zygote (``tests/worker_zygote.py``), which
    has imported what a worker imports: the same command line and environment as a fresh
    ``python -m celery`` process, without paying its imports each time (3-5 s of CPU).
    ``DIGEST_TEST_FORK_WORKERS=0`` starts fresh interpreters instead."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    # A worker relays stranded events when it connects: in a database shared by many tests
    # that would take other tests' leftovers onto this queue, so only tests that ask get it.
    full_env = {**inherited, "DIGEST_RELAY_ON_CONNECT": "false", **env, "DIGEST_LOG_JSON": "true"}
    name = f"w-{uuid.uuid4().hex[:8]}@%h"
    args = [
        "-A", "worker", "worker",
        "--loglevel=INFO", f"--concurrency={concurrency}", f"--pool={pool}",
        "-Q", env["DIGEST_QUEUE"], "-n", name,
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip
    zygote = _zygote(inherited)
    proc: subprocess.Popen[bytes] | ForkedProcess
    if zygote is not None:
        proc = zygote.spawn(full_env, ["celery", *args], log_path)
    else:
        handle = log_path.open("wb")
        proc = subprocess.Popen(
            [sys.executable, "-m", "celery", *args], cwd=ROOT, env=full_env, stdout=handle,
            stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
    worker = WorkerProcess(proc, log_path, pool=pool)
    deadline = time.monotonic() + 60
    while " ready." not in worker.log():
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited early:\n{worker.log()[-3000:]}")
        if time.monotonic() > deadline:
            worker.kill()
            raise RuntimeError(f"worker not ready after 60 s:\n{worker.log()[-3000:]}")
        time.sleep(0.05)
    return worker


@pytest.fixture()
def start_worker(
    services_env: dict[str, str], tmp_path: Path
) -> Iterator[Callable[..., WorkerProcess]]:
    """Start real worker processes on this test's queue; all are ended after the test: killed,
    as nothing is asserted after it (a warm stop, ``worker.stop()``, costs 2 s of a pool's
    interpreter clean-up; a test that is about the stop calls it itself)."""
    started: list[WorkerProcess] = []

    def start(concurrency: int = 1, pool: str = "prefork", **extra_env: str) -> WorkerProcess:
        log_path = tmp_path / f"worker-{len(started)}.log"
        worker = spawn_worker({**services_env, **extra_env}, log_path, concurrency, pool)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.kill()


@pytest.fixture(scope="session")
def shared_queue() -> str:
    return f"digest-test-shared-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="session")
def _shared_worker_process(
    pg_url: str, redis_url: str, shared_queue: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[], WorkerProcess]]:
    """How ``shared_worker`` finds the one shared worker of this test process: started when a
    test first asks for it, and again if the last one died."""
    env = base_env(pg_url, redis_url, shared_queue)
    folder = tmp_path_factory.mktemp("shared-worker")
    started: list[WorkerProcess] = []

    def running() -> WorkerProcess:
        if not started or started[-1].proc.poll() is not None:
            log_path = folder / f"worker-{len(started)}.log"
            started.append(spawn_worker(env, log_path, concurrency=2))
        return started[-1]

    yield running
    if started:
        started[-1].stop()


@pytest.fixture()
def shared_worker(
    services_env: dict[str, str],
    shared_queue: str,
    _shared_worker_process: Callable[[], WorkerProcess],
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[WorkerProcess]:
    """A worker with the default environment (``base_env``: offline/rules; two pool
    processes), started once per test process on a queue of its own, so a test that needs *a*
    worker to reflect its events does not pay a worker's start (2-4 s). This test's captures
    and tasks go to that queue (``DIGEST_QUEUE`` here and in ``services_env``); the worker
    returned reads its log from the test's start, and the test's own tenant keeps its events
    apart from those of earlier tests, which may still be finishing.

    A test that stops, kills, configures or counts its worker, or must start one only after it
    has set things up, uses ``start_worker``. A worker that died during the test fails it."""
    monkeypatch.setenv("DIGEST_QUEUE", shared_queue)
    services_env["DIGEST_QUEUE"] = shared_queue
    _reset_process_state()
    worker = _shared_worker_process()
    yield worker.from_here()
    assert worker.proc.poll() is None, f"the shared worker died:\n{worker.log()[-3000:]}"


LLM_ATTEMPTS = 3


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[Any]:
    """A scripted OpenAI-compatible server on 127.0.0.1 for this module."""
    from tests.fake_llm import FakeLLM

    server = FakeLLM().start()
    yield server
    server.stop()


def llm_env(pg_url: str, redis_url: str, queue: str, api_base: str) -> dict[str, str]:
    """A worker environment on the real-provider path (litellm → ``api_base``)."""
    return {
        **base_env(pg_url, redis_url, queue),
        "DIGEST_LLM_MODEL": "openai/fake-model",
        "DIGEST_LLM_API_BASE": api_base,
        # Under the scripted sleeps of 3 s (tests/test_llm_faults.py), above what a first call
        # of a fresh pool child takes on a loaded 2-core host (1.5 s timed out there once).
        "DIGEST_LLM_TIMEOUT_S": "2.5",
        "DIGEST_LLM_MAX_ATTEMPTS": str(LLM_ATTEMPTS),
        "DIGEST_LLM_RETRY_WAIT_MAX_S": "0.2",
    }


@pytest.fixture(scope="module")
def llm_worker(
    pg_url: str, redis_url: str, queue: str, fake_llm: Any, tmp_path_factory: Any
) -> Iterator[WorkerProcess]:
    """One worker process (two pool children) on the module's queue, talking to ``fake_llm``.
    Modules that use it override ``queue`` so no other worker takes their events."""
    log_path = Path(tmp_path_factory.mktemp("llm")) / "worker.log"
    worker = spawn_worker(llm_env(pg_url, redis_url, queue, fake_llm.api_base), log_path, 2)
    yield worker
    worker.stop()


def wait_until(check: Callable[[], Any], timeout: float = 30.0, what: str = "condition") -> Any:
    """Poll ``check`` until it returns something true, and return that; after ``timeout``
    seconds fail with an AssertionError naming ``what``.

    The one way tests wait (tests/README.md): for a positive signal, never sleep and then
    assert that nothing happened. To show an absence, first wait for proof that the system
    had its chance to act (the task ended, a later event was reflected, the slot was freed)."""
    deadline = time.monotonic() + timeout
    while True:
        found = check()
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout} s")
        time.sleep(0.1)


def wait_for_event(event_id: int, statuses: set[str], timeout: float = 30.0) -> dict[str, Any]:
    """Poll the events row until its status is one of ``statuses``; return the row."""
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import Event

    deadline = time.monotonic() + timeout
    row: Any = None
    while time.monotonic() < deadline:
        with session_scope() as session:
            row = session.scalars(select(Event).where(Event.id == event_id)).one()
            if row.status in statuses:
                return {c.name: getattr(row, c.name) for c in Event.__table__.columns}
        time.sleep(0.1)
    raise AssertionError(
        f"event {event_id} still {getattr(row, 'status', None)!r} after {timeout} s "
        f"(wanted {sorted(statuses)}; last_error={getattr(row, 'last_error', None)!r})"
    )


def manual_lesson(tenant: str, agent: str, text: str, **options: Any) -> int:
    """``digest.record_lesson`` (which returns its event id), then the id of the lesson that
    event added, or supported when the agent already had it word for word."""
    import digest

    event_id = digest.record_lesson(tenant, agent, text, **options)
    lesson_id = digest.lesson_for_event(tenant, agent, event_id)
    assert lesson_id is not None, f"manual lesson event {event_id} cites no lesson"
    return lesson_id


def lessons_for_event(event_id: int) -> list[Any]:
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import Lesson, LessonEvidence

    with session_scope() as session:
        return list(
            session.scalars(
                select(Lesson)
                .join(LessonEvidence, LessonEvidence.lesson_id == Lesson.id)
                .where(LessonEvidence.event_id == event_id)
                .order_by(Lesson.id)
            )
        )


@pytest.fixture()
def own_queue(services_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """A queue of this test's own, with no worker on it: what is published stays there."""
    name = f"digest-test-own-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("DIGEST_QUEUE", name)
    _reset_process_state()
    yield name
    redis.Redis.from_url(services_env["DIGEST_BROKER_URL"]).delete(name)


def queued_tasks(broker: str, queue: str) -> list[tuple[str, list[Any]]]:
    """(task name, args) of every message waiting in ``queue``, oldest first (kombu pushes
    on the left and pops on the right)."""
    client = redis.Redis.from_url(broker)
    found = []
    for raw in reversed(client.lrange(queue, 0, -1)):
        message = json.loads(raw)
        body = json.loads(base64.b64decode(message["body"]))
        found.append((message["headers"]["task"], body[0]))
    return found


def use_model(monkeypatch: pytest.MonkeyPatch, model: str, step: str | None = None) -> None:
    """Answer every model step (or one: ``reflect``, ``reconcile``, ``summarize``) in this
    process with ``model``, e.g. a ``digest.model.scripted`` model's name."""
    variable = f"DIGEST_LLM_{step.upper()}_MODEL" if step else "DIGEST_LLM_MODEL"
    monkeypatch.setenv(variable, model)
    _settings_changed()


def _settings_changed() -> None:
    """Read the settings again, and keep the rest: a reset would also forget the scripted
    models the test has registered."""
    from digest.config import forget_settings

    forget_settings()


CLOSED_PORT_BROKER = "redis://127.0.0.1:1/0"


def answer_while_broker_down(
    tenant: str, monkeypatch: pytest.MonkeyPatch, broker_url: str, question: str
) -> int:
    """Capture one owner answer with the broker unreachable, then point back at ``broker_url``.
    The event is stored but never published: only the relay (or improve-now) can deliver it."""
    import digest

    monkeypatch.setenv("DIGEST_BROKER_URL", CLOSED_PORT_BROKER)
    _reset_process_state()
    event_id = digest.record_answer(tenant, "bot", question=question, answer="See the FAQ.")
    monkeypatch.setenv("DIGEST_BROKER_URL", broker_url)
    _reset_process_state()
    return event_id


# --- an agent's backlog, as the reflect tests read it ------------------------------------------

DONE = frozenset({"reflected", "skipped", "failed", "dead"})
FINISHED = frozenset({"reflected", "skipped"})


def owner_answers(tenant: str, agent: str, n: int, topic: str = "Question") -> list[int]:
    """``n`` owner answers on distinct facts, captured (and published) in order."""
    import digest

    return [
        digest.record_answer(
            tenant, agent, question=f"{topic} {i}: what is rule {i}?", answer=f"Rule {i} is {i}."
        )
        for i in range(n)
    ]


def agent_id_of(tenant: str, agent: str) -> int:
    from digest.db import session_scope
    from digest.tenants import find_agent

    with session_scope() as session:
        return find_agent(session, tenant, agent).id


def end_server_connections(pg_admin: str, database_url: str) -> int:
    """End every server process connected to ``database_url``'s database, as a restart of the
    server would, and wait until they are gone: the pooled connections this process holds are
    dead from then on, though it does not know yet. Returns how many there were."""
    database = database_url.rsplit("/", 1)[1].split("?")[0]
    with psycopg.connect(pg_admin, autocommit=True) as admin:
        pids = [
            pid
            for (pid,) in admin.execute(
                "SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (database,),
            )
        ]
        for pid in pids:
            admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
        deadline = time.monotonic() + 10
        while admin.execute(
            "SELECT 1 FROM pg_stat_activity WHERE pid = ANY(%s)", (pids,)
        ).fetchone():
            assert time.monotonic() < deadline, "the server processes did not end"
            time.sleep(0.02)
    return len(pids)


def event_rows(ids: list[int]) -> dict[int, tuple[str, int]]:
    """Event id → (status, attempts)."""
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import Event

    with session_scope() as session:
        found = session.execute(
            select(Event.id, Event.status, Event.attempts).where(Event.id.in_(ids))
        )
        return {row.id: (row.status, row.attempts) for row in found}


def event_statuses(ids: list[int]) -> dict[int, str]:
    return {event_id: status for event_id, (status, _) in event_rows(ids).items()}


def reflect_runs(ids: list[int]) -> dict[int, int]:
    """Event id → how many ``digest_runs`` rows of kind reflect it has (absent: none)."""
    from sqlalchemy import func, select

    from digest.db import session_scope
    from digest.models import DigestRun

    with session_scope() as session:
        found = session.execute(
            select(DigestRun.event_id, func.count())
            .where(DigestRun.kind == "reflect", DigestRun.event_id.in_(ids))
            .group_by(DigestRun.event_id)
        )
        return {event_id: n for event_id, n in found if event_id is not None}


def reflect_messages(broker: str, queue: str) -> list[list[Any]]:
    """Args of every reflect message waiting in ``queue``, oldest first (compose messages the
    threshold trigger may add are left out)."""
    from digest.outbox.publish import TASK_REFLECT

    return [args for task, args in queued_tasks(broker, queue) if task == TASK_REFLECT]


def with_batch_size(monkeypatch: pytest.MonkeyPatch, size: int) -> None:
    monkeypatch.setenv("DIGEST_REFLECT_BATCH_SIZE", str(size))
    _settings_changed()


def judge_raising(
    monkeypatch: pytest.MonkeyPatch, bad_id: int, error: Callable[[], BaseException]
) -> Any:
    """Every model step answered by offline/rules through a scripted model, except that the
    reflect call for event ``bad_id`` raises ``error()``. Returns the ``ScriptedModel``
    (registered until the test ends; set its ``handler`` to ``rules`` to end the fault)."""
    from digest.model.scripted import event_of, rules, scripted_model

    def handler(messages: list[dict[str, Any]]) -> str:
        event = event_of(messages)
        if event is not None and event["id"] == bad_id:
            raise error()
        return rules(messages)

    model = scripted_model(handler).register()
    use_model(monkeypatch, model.name)
    return model


def make_claimed(**overrides: Any) -> Any:
    """A ``digest.reflect.claims.Claimed`` as a claim would hand it over (plain values, no
    database): a low-trust run outcome of agent ``bot`` unless ``overrides`` say otherwise."""
    from digest.reflect.claims import Claimed

    values: dict[str, Any] = {
        "event_id": 1, "attempt": 1, "tenant_id": 1, "agent_id": 1, "kind": "run_outcome",
        "trust": "low", "edit_ratio": None, "edit_distance": None, "thread_id": None,
        "contact_id": None, "tenant": "acme", "agent": "bot", "agent_model": None,
        "enable_learning": True, "instructions": None, "promote_at": 3,
        "payload": {
            "task": "Refund order 41655", "outcome": "failure",
            "tool_calls": [
                {"tool": "refund", "args": {}, "ok": False, "error": "amount is required"}
            ],
        },
    }  # fmt: skip
    return Claimed(**{**values, **overrides})
