"""The fault suite (issue 6): a stream of events under crashes, outages and a misbehaving model.

Real processes throughout: Celery worker subprocesses, a PostgreSQL server, a Redis server.
The Redis-outage and Postgres-restart tests start PRIVATE servers (a redis-server and an
initdb'd cluster on free ports in temp dirs) so stopping them never disturbs anyone else.

1. ``test_sigkill_worker_during_stream``: 1,000 events; the worker (prefork, 2 children) is
   SIGKILLed 10 times at random moments and restarted. Every event ends terminal, none is
   lost, and the lessons equal the expected set: the same stream reflected by the embedded
   in-process path (``digest capture`` + ``digest drain`` on SQLite, no kills).
2. ``test_redis_down_mid_stream``: the broker stops for 30 s mid-stream. Capture never raises
   and returns within 2 s each time; after Redis restarts (empty: its queue is lost) the
   relay re-publishes and every event ends terminal.
3. ``test_postgres_restart_mid_stream``: the database stops mid-stream and starts again.
   Capture raises only ``CaptureUnavailable`` while it is down and works after; tasks retry;
   every stored event ends terminal, and the refused ones store fine once it is back.
4. ``test_llm_fault_mix``: 500 events through litellm to the scripted loopback server, each
   event drawing a fault mix (429, 503, slow beyond the client timeout, garbage, reconcile
   answers with hallucinated / out-of-range ids and ops on wrong ids). All end terminal,
   every failure carries its reason, and no wrong operation reaches the lesson bank.

Scale: ``DIGEST_FAULT_SCALE`` (float, default 1) multiplies every stream length (``=10`` for a
long soak: 10,000 events under 10 kills …). ``DIGEST_FAULT_KILLS`` (default 10) sets the
number of SIGKILLs, ``DIGEST_FAULT_REDIS_OUTAGE_S`` (default 30) the broker outage, and
``DIGEST_FAULT_SEED`` the random seed (the default is fixed, so a failure reproduces).
Run with ``DIGEST_TEST_REDIS_DB=<n>`` like the rest of the suite.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from digest.db import session_scope
from digest.models import Agent, Event, Lesson, LessonEvidence, LessonHistory, Tenant
from tests.conftest import ROOT, WorkerProcess, _reset_process_state, base_env, spawn_worker

pytestmark = pytest.mark.services

SCALE = float(os.environ.get("DIGEST_FAULT_SCALE", "1"))
KILLS = int(os.environ.get("DIGEST_FAULT_KILLS", "10"))
REDIS_OUTAGE_S = float(os.environ.get("DIGEST_FAULT_REDIS_OUTAGE_S", "30"))
SEED = int(os.environ.get("DIGEST_FAULT_SEED", "20261122"))

TERMINAL = {"reflected", "skipped", "failed", "dead"}
AGENT = "bot"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"

#: quick recovery: a claim is stale 3 s after it started, a pending event is re-published
#: after 2 s; compose is kept out of the way (these tests are about events).
FAST_RECOVERY = {
    "DIGEST_TASK_SOFT_TIME_LIMIT_S": "2",
    "DIGEST_TASK_TIME_LIMIT_S": "3",
    "DIGEST_PROCESSING_GRACE_S": "0",
    "DIGEST_RELAY_PENDING_AGE_S": "2",
    "DIGEST_VISIBILITY_TIMEOUT_S": "3600",
    "DIGEST_THRESHOLD_SIGNALS": "1000000",
}


def scaled(n: int) -> int:
    return max(1, round(n * SCALE))


# --- the stream --------------------------------------------------------------------------------


def _word(rng: random.Random) -> str:
    syllables = ("ka", "lo", "mi", "tre", "vu", "zen", "pa", "dor", "qui", "sal", "bex", "fi")
    return "".join(rng.choice(syllables) for _ in range(3))


def _phrase(rng: random.Random, words: int) -> str:
    return " ".join(_word(rng) for _ in range(words))


@dataclass
class Stream:
    """A deterministic event stream: owner answers and tool failures on a few dozen topics
    (so most events repeat an earlier one), plus runs the policy or the judge skips."""

    events: list[tuple[str, dict[str, Any]]]

    def jsonl(self, tenant: str, agent: str) -> str:
        return "".join(
            json.dumps({"kind": kind, "tenant": tenant, "agent": agent, **data}) + "\n"
            for kind, data in self.events
        )


def make_stream(n: int, seed: int, topics: int = 40) -> Stream:
    rng = random.Random(seed)
    facts = [(f"{_phrase(rng, 4)}?", _phrase(rng, 8)) for _ in range(topics)]
    # Long distinct wording: the rules' correction template is shared, the topic words are not.
    tools = [
        (_word(rng) + "_" + _word(rng), _phrase(rng, 6), _phrase(rng, 6))
        for _ in range(topics // 2)
    ]
    run_id = uuid.uuid4().hex[:8]
    events: list[tuple[str, dict[str, Any]]] = []
    for i in range(n):
        key = {"idempotency_key": f"{run_id}-{i}"}
        roll = rng.random()
        if roll < 0.55:
            question, answer = rng.choice(facts)
            events.append(("owner_answer", {"question": question, "answer": answer, **key}))
        elif roll < 0.8:
            tool, task, words = rng.choice(tools)
            call = {"tool": tool, "ok": False, "error": f"{words} is required"}
            events.append(
                ("run_outcome", {"task": task, "outcome": "failure", "tool_calls": [call], **key})
            )
        elif roll < 0.9:
            events.append(
                ("run_outcome", {"task": f"{_word(rng)} job", "outcome": "success", **key})
            )
        else:
            events.append(
                ("run_outcome", {"task": "sync job", "outcome": "failure",
                                 "error": "upstream timeout, try again later", **key})
            )  # fmt: skip
    return Stream(events)


def capture(tenant: str, kind: str, data: dict[str, Any]) -> int:
    from digest.capture import capture_event

    return capture_event(kind, {"tenant": tenant, "agent": AGENT, **data})


# --- what a run left in a database ---------------------------------------------------------------


@dataclass
class Outcome:
    statuses: list[str]
    last_errors: list[str | None]
    #: active lessons: (situation, correction) → support_count
    lessons: dict[tuple[str, str], int]
    lesson_rows: int
    duplicates: list[tuple[str, str]] = field(default_factory=list)

    @property
    def support_total(self) -> int:
        return sum(self.lessons.values())


def outcome_of(url: str, tenant: str, event_ids: list[int]) -> Outcome:
    with session_scope(url) as session:
        agent_id = session.scalars(
            select(Agent.id)
            .join(Tenant, Tenant.id == Agent.tenant_id)
            .where(Tenant.name == tenant, Agent.name == AGENT)
        ).one()
        rows = {
            e.id: (e.status, e.last_error)
            for e in session.scalars(select(Event).where(Event.agent_id == agent_id))
        }
        lessons = list(session.scalars(select(Lesson).where(Lesson.agent_id == agent_id)))
    texts = Counter((lesson.situation, lesson.correction) for lesson in lessons)
    return Outcome(
        statuses=[rows[i][0] if i in rows else "LOST" for i in event_ids],
        last_errors=[rows[i][1] if i in rows else None for i in event_ids],
        lessons={
            (lesson.situation, lesson.correction): lesson.support_count
            for lesson in lessons
            if lesson.status == "active"
        },
        lesson_rows=len(lessons),
        duplicates=[text for text, n in texts.items() if n > 1],
    )


def expected_outcome(stream: Stream, tenant: str, workdir: Path) -> Outcome:
    """The stream through the embedded in-process path (SQLite, no broker, no faults), by the
    CLI an operator would use: ``digest capture --file`` then ``digest drain``."""
    url = f"sqlite:///{workdir / 'expected.db'}"
    path = workdir / "stream.jsonl"
    path.write_text(stream.jsonl(tenant, AGENT))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(DIGEST_DATABASE_URL=url, DIGEST_LLM_MODEL="offline/rules", DIGEST_LOG_LEVEL="ERROR")
    digest_cli = [sys.executable, "-m", "digest.cli"]
    for args in (
        ["db", "upgrade"],
        ["capture", "--json", "--file", str(path)],
        ["drain", "--json"],
    ):
        done = subprocess.run(
            [*digest_cli, *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
        if args[0] == "capture":
            event_ids = json.loads(done.stdout)["event_ids"]
    assert len(event_ids) == len(stream.events)
    return outcome_of(url, tenant, event_ids)


def assert_matches_expected(got: Outcome, expected: Outcome) -> None:
    assert "LOST" not in got.statuses
    assert got.duplicates == [], f"duplicate lessons: {got.duplicates[:3]}"
    assert Counter(got.statuses) == Counter(expected.statuses)
    mismatched = [
        i for i, (a, b) in enumerate(zip(got.statuses, expected.statuses, strict=True)) if a != b
    ]
    assert mismatched == [], f"events whose status differs from the expected run: {mismatched[:10]}"
    assert len(got.lessons) == len(expected.lessons)
    assert got.lesson_rows == expected.lesson_rows
    assert got.support_total == expected.support_total
    assert got.lessons == expected.lessons


def terminal_count(url: str, event_ids: list[int]) -> int:
    with session_scope(url) as session:
        return len(
            session.scalars(
                select(Event.id).where(Event.id.in_(list(event_ids)), Event.status.in_(TERMINAL))
            ).all()
        )


def wait_all_terminal(
    url: str, tenant: str, event_ids: list[int], timeout: float, relay: Callable[[], Any]
) -> Outcome:
    """Run the relay (as beat would) until every event is terminal, or fail with a census."""
    deadline = time.monotonic() + timeout
    while True:
        relay()
        got = outcome_of(url, tenant, event_ids)
        if all(s in TERMINAL for s in got.statuses):
            return got
        if time.monotonic() > deadline:
            raise AssertionError(
                f"not terminal after {timeout} s: {Counter(got.statuses)}; first stuck: "
                f"{[i for i, s in zip(event_ids, got.statuses, strict=True) if s not in TERMINAL][:10]}"
            )
        time.sleep(1.0)


# --- private servers and workers -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not after {timeout} s")
        time.sleep(0.1)


class PrivateRedis:
    """A redis-server of our own (no persistence: a restart loses every queued message)."""

    def __init__(self, workdir: Path) -> None:
        self.workdir, self.port = workdir, free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _pings(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(port=self.port, socket_timeout=0.5).ping())
        except redis.RedisError:
            return False

    def start(self) -> None:
        log = (self.workdir / "redis.log").open("ab")
        self.proc = subprocess.Popen(
            [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.workdir)],
            stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        wait_until(self._pings, 10, "private redis-server ready")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=10)
        self.proc = None


class PrivatePostgres:
    """An initdb'd cluster in a temp dir, run as the postgres OS user on a free port."""

    def __init__(self, workdir: Path) -> None:
        self.workdir, self.port = workdir, free_port()
        self.data = workdir / "data"
        shutil.chown(workdir, "postgres", "postgres")

    def _as_postgres(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["runuser", "-u", "postgres", "--", *args],
            capture_output=True, text=True, timeout=120, check=check,
        )  # fmt: skip

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/digest"

    def init(self) -> None:
        self._as_postgres(
            str(PG_BIN / "initdb"), "-D", str(self.data), "-A", "trust", "-U", "postgres",
            "--no-sync", "-E", "UTF8",
        )  # fmt: skip
        self.start()
        import psycopg

        admin = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        with psycopg.connect(admin, autocommit=True) as conn:
            conn.execute("CREATE DATABASE digest")
        from digest.migrate import upgrade

        upgrade(self.url)

    def start(self) -> None:
        options = f"-p {self.port} -k {self.workdir} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l", str(self.workdir / "pg.log"),
            "-o", options, "-w", "-t", "60", "start",
        )  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        self._as_postgres(str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def running(self) -> bool:
        done = self._as_postgres(
            str(PG_BIN / "pg_ctl"), "-D", str(self.data), "status", check=False
        )
        return done.returncode == 0


@pytest.fixture()
def private_redis() -> Iterator[PrivateRedis]:
    workdir = Path(tempfile.mkdtemp(prefix="digest-fault-redis-"))
    server = PrivateRedis(workdir)
    try:
        server.start()
        yield server
    finally:
        server.stop()
        shutil.rmtree(workdir)


@pytest.fixture()
def private_pg() -> Iterator[PrivatePostgres]:
    workdir = Path(tempfile.mkdtemp(prefix="digest-fault-pg-"))
    server = PrivatePostgres(workdir)
    try:
        server.init()
        yield server
    finally:
        _reset_process_state()  # drop our pooled connections before the server goes
        if server.running():
            server.stop("immediate")
        shutil.rmtree(workdir)


@pytest.fixture(scope="module")
def queue() -> str:
    return f"digest-faults-{uuid.uuid4().hex[:8]}"


@pytest.fixture()
def workers(tmp_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    """Start worker subprocesses with an explicit environment; every one is stopped after."""
    started: list[WorkerProcess] = []

    def start(env: dict[str, str], concurrency: int = 2, pool: str = "prefork") -> WorkerProcess:
        log_path = tmp_path / f"worker-{len(started)}.log"
        worker = spawn_worker(env, log_path, concurrency, pool)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


def point_here(env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> None:
    """This process (the agent capturing, and the relay as beat would run it) uses ``env``."""
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("DIGEST_LLM_API_BASE", raising=False)
    _reset_process_state()


class RelayLoop:
    """What beat does in production: run the relay every ``interval`` seconds (here in a
    thread of the test process, so a killed worker does not take the relay with it)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.published = 0
        self.errors: list[str] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        from digest.relay import relay_pending

        while not self._stop.wait(self.interval):
            try:
                self.published += len(relay_pending())
            except Exception as exc:  # a database outage: beat's next run tries again
                self.errors.append(type(exc).__name__)

    def __enter__(self) -> RelayLoop:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=30)


# --- 1. SIGKILL the worker during a stream ---------------------------------------------------------


def test_sigkill_worker_during_stream(
    pg_url: str,
    redis_url: str,
    queue: str,
    tenant: str,
    workers: Callable[..., WorkerProcess],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    rng = random.Random(SEED)
    stream = make_stream(scaled(1000), SEED)
    # The expected set, computed meanwhile by the embedded path in its own process.
    expected: dict[str, Outcome] = {}
    expected_thread = threading.Thread(
        target=lambda: expected.update(out=expected_outcome(stream, tenant, tmp_path)),
        daemon=True,
    )
    expected_thread.start()

    env = {**base_env(pg_url, redis_url, queue), **FAST_RECOVERY,
           "DIGEST_RELAY_PENDING_AGE_S": "10"}  # fmt: skip
    point_here(env, monkeypatch)
    worker = workers(env)
    event_ids: list[int] = []

    def produce() -> None:
        for kind, data in stream.events:
            event_ids.append(capture(tenant, kind, data))
            time.sleep(0.02)

    producer = threading.Thread(target=produce, daemon=True)
    started = time.monotonic()
    with RelayLoop(2.0):
        producer.start()
        for _ in range(KILLS):
            # Kill at a random moment once this worker is doing work (its children are up).
            done_before = terminal_count(pg_url, event_ids)
            wait_until(
                lambda n=done_before: terminal_count(pg_url, event_ids) > n, 120, "worker progress"
            )
            time.sleep(rng.uniform(0.0, 1.5))
            worker.kill()
            worker = workers(env)
        producer.join(timeout=300)
        assert not producer.is_alive() and len(event_ids) == len(stream.events)
        got = wait_all_terminal(pg_url, tenant, event_ids, timeout=300, relay=lambda: None)
    elapsed = time.monotonic() - started
    expected_thread.join(timeout=600)
    assert "out" in expected, "the embedded run did not finish"
    assert_matches_expected(got, expected["out"])
    with session_scope(pg_url) as session:
        retried = session.scalars(
            select(Event.attempts).where(Event.id.in_(event_ids), Event.attempts > 1)
        ).all()
    # The kills hit work in flight: some claims were taken over after a worker died.
    assert retried, "no event needed a second attempt: the kills interrupted nothing"
    print(
        f"\n{len(event_ids)} events, {KILLS} kills, {elapsed:.1f} s; "
        f"{len(retried)} events retried; {Counter(got.statuses)}; {len(got.lessons)} lessons"
    )
