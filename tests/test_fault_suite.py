"""The fault suite (issue 6): a stream of events under crashes, outages and a misbehaving model.

Real processes throughout: Celery worker subprocesses, a PostgreSQL server, a Redis server.
The Redis-outage and Postgres-restart tests start PRIVATE servers (a redis-server and an
initdb'd cluster on free ports in temp dirs) so stopping them never disturbs anyone else.

1. ``test_sigkill_worker_during_stream``: 1,000 events; the worker (prefork, 2 children) is
   SIGKILLed 10 times at random moments and restarted. Every event ends terminal, none is
   lost, and the lessons equal the expected set: the same stream reflected by the embedded
   in-process path (``digest capture`` + ``digest drain`` on SQLite, no kills).
2. ``test_redis_down_mid_stream``: 120 events; the broker stops for 30 s mid-stream (the middle
   third of the stream). Capture never raises nor waits on the dead broker; after Redis restarts
   (empty: its queue is lost) the relay re-publishes and every event ends terminal.
3. ``test_postgres_restart_mid_stream``: 120 events; the database stops mid-stream and starts
   again.
   Capture raises only ``CaptureUnavailable`` while it is down and works after; tasks retry;
   every stored event ends terminal, and the refused ones store fine once it is back.
4. ``test_llm_fault_mix``: 200 events through litellm to the scripted loopback server, each
   event drawing a fault mix (429, 503, slow beyond the client timeout, garbage, reconcile
   answers with hallucinated / out-of-range ids and ops on wrong ids; the first events take
   each behaviour once, so every one is there at any scale). The fake model keeps one script
   per step kind, so a retry after a lost reply gets an answer of its own kind. All end terminal,
   every failure carries its reason, and no wrong operation reaches the lesson bank.

Scale (environment):

- ``DIGEST_FAULT_SCALE`` (float, default 1) multiplies every stream length: 1,000 / 120 / 120
  / 200 events by default, sized to exercise and assert every fault kind within the suite's
  budget (the SIGKILL test keeps issue 6's 1,000: its time goes to the kills and the claim
  takeover, not the stream); ``=2.5`` gives issue 6's 300 / 300 and the 500-event mix, ``=10``
  is a long soak (10,000 events under the kills, …);
- ``DIGEST_FAULT_KILLS`` (default 10) the number of SIGKILLs;
- ``DIGEST_FAULT_REDIS_OUTAGE_S`` (default 30) the broker outage; lower it only to iterate;
- ``DIGEST_FAULT_PG_DOWN_S`` (default 8) how long Postgres stays down;
- ``DIGEST_FAULT_SEED`` the random seed (fixed by default, so a failure reproduces).

Recovery is made quick through the product's own settings (``FAST_RECOVERY``): the relay runs
every 2 s (a thread of the test process, standing in for beat), re-publishes ``pending``
events after 10 s and takes over ``processing`` claims after the 20 s hard time limit. Run
with ``DIGEST_TEST_REDIS_DB=<n>`` like the rest of the suite::

    DIGEST_TEST_REDIS_DB=4 pytest tests/test_fault_suite.py -s   # -s prints one line per test
"""

from __future__ import annotations

import itertools
import json
import os
import random
import shutil
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
from sqlalchemy import func, select

from digest.db import session_scope
from digest.models import (
    Agent,
    DigestRun,
    Event,
    Lesson,
    LessonEvidence,
    LessonHistory,
    Tenant,
)
from tests.conftest import (
    ROOT,
    WorkerProcess,
    _reset_process_state,
    base_env,
    spawn_worker,
    wait_until,
)

SCALE = float(os.environ.get("DIGEST_FAULT_SCALE", "1"))
#: stream lengths at scale 1 (issue 6's sizes for the last three are 2.5 times these)
SIGKILL_EVENTS, REDIS_EVENTS, PG_EVENTS, MIX_EVENTS = 1000, 120, 120, 200
KILLS = int(os.environ.get("DIGEST_FAULT_KILLS", "10"))
REDIS_OUTAGE_S = float(os.environ.get("DIGEST_FAULT_REDIS_OUTAGE_S", "30"))
SEED = int(os.environ.get("DIGEST_FAULT_SEED", "20261122"))

TERMINAL = {"reflected", "skipped", "failed", "dead"}
AGENT = "bot"
PG_BIN = Path("/usr/lib/postgresql/15/bin")
REDIS_SERVER = shutil.which("redis-server") or "/usr/bin/redis-server"

#: quick recovery: a dead worker's claim is taken over 20 s after it started (the hard time
#: limit; a fresh pool child's first task can take 10 s on a busy 2-core host), a pending
#: event is re-published after 10 s; compose is kept out of the way (these tests are about
#: events).
FAST_RECOVERY = {
    "DIGEST_TASK_SOFT_TIME_LIMIT_S": "15",
    "DIGEST_TASK_TIME_LIMIT_S": "20",
    "DIGEST_PROCESSING_GRACE_S": "0",
    "DIGEST_RELAY_PENDING_AGE_S": "10",
    "DIGEST_VISIBILITY_TIMEOUT_S": "3600",
    "DIGEST_THRESHOLD_SIGNALS": "1000000",
}


def scaled(n: int) -> int:
    return max(1, round(n * SCALE))


# --- the stream -----------------------------------------------------------------------------------


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
    from digest.capture.api import capture_event

    return capture_event(kind, {"tenant": tenant, "agent": AGENT, **data})


# --- what a run left in a database ----------------------------------------------------------------


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


def wait_all_terminal(url: str, tenant: str, event_ids: list[int], timeout: float) -> Outcome:
    """Wait until every event is terminal (the test's ``RelayLoop`` runs the relay meanwhile),
    or fail with a census."""
    deadline = time.monotonic() + timeout
    while True:
        got = outcome_of(url, tenant, event_ids)
        if all(s in TERMINAL for s in got.statuses):
            return got
        if time.monotonic() > deadline:
            stuck = [i for i, s in zip(event_ids, got.statuses, strict=True) if s not in TERMINAL]
            raise AssertionError(
                f"not terminal after {timeout} s: {Counter(got.statuses)}; stuck: {stuck[:10]}"
            )
        time.sleep(0.25)


# --- private servers and workers ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


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


def did_work(worker: WorkerProcess) -> bool:
    log = worker.log()
    return '"event_reflected"' in log or '"event_skipped"' in log


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
        from digest.outbox.relay import relay_pending

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


# --- 1. SIGKILL the worker during a stream --------------------------------------------------------


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
    stream = make_stream(scaled(SIGKILL_EVENTS), SEED)
    # The expected set, computed meanwhile by the embedded path in its own process.
    expected: dict[str, Outcome] = {}
    expected_thread = threading.Thread(
        target=lambda: expected.update(out=expected_outcome(stream, tenant, tmp_path)),
        daemon=True,
    )
    expected_thread.start()

    env = {**base_env(pg_url, redis_url, queue), **FAST_RECOVERY}
    point_here(env, monkeypatch)
    worker = workers(env)
    event_ids: list[int] = []
    events = iter(stream.events)
    chunk = -(-len(stream.events) // KILLS)  # the stream arrives in one burst per kill

    started = time.monotonic()
    with RelayLoop(2.0):
        for _ in range(KILLS):
            # A replacement is up before the victim dies (as the fleet's other hosts would
            # be); then a burst of the stream arrives, and the victim dies at a random moment
            # while it and the replacement work through it. Bursts, not a trickle: workers
            # that keep up with a trickle would be idle when killed.
            standby = workers(env)
            for kind, data in itertools.islice(events, chunk):
                event_ids.append(capture(tenant, kind, data))
            wait_until(lambda w=worker: did_work(w), 120, "the victim's first event")
            time.sleep(rng.uniform(0.0, 1.0))
            worker.kill()
            worker = standby
        for kind, data in events:  # whatever the bursts left
            event_ids.append(capture(tenant, kind, data))
        assert len(event_ids) == len(stream.events)
        got = wait_all_terminal(pg_url, tenant, event_ids, timeout=300)
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


# --- 2. Redis down for 30 s mid-stream ------------------------------------------------------------


def test_redis_down_mid_stream(
    pg_url: str,
    queue: str,
    tenant: str,
    private_redis: PrivateRedis,
    workers: Callable[..., WorkerProcess],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stream = make_stream(scaled(REDIS_EVENTS), SEED + 1)
    env = {**base_env(pg_url, private_redis.url, queue), **FAST_RECOVERY}
    point_here(env, monkeypatch)
    worker = workers(env)
    # Three thirds by count, not by the clock: Redis up, down, up again. The middle third is
    # paced over the outage, and Redis stays down until its last event is captured and the
    # outage has lasted REDIS_OUTAGE_S, so a slow host captures fewer events per second but
    # never fewer of them during the outage.
    third = len(stream.events) // 3
    interval = REDIS_OUTAGE_S / third
    event_ids: list[int] = []
    durations: dict[str, list[float]] = {"up": [], "down": []}
    raised: list[str] = []
    during_outage: list[int] = []
    with RelayLoop(2.0):
        down_at = 0.0
        for i, (kind, data) in enumerate(stream.events):
            if i == third:
                private_redis.stop()
                down_at = time.monotonic()
            elif i == 2 * third:
                time.sleep(max(0.0, down_at + REDIS_OUTAGE_S - time.monotonic()))
                private_redis.start()
            down = third <= i < 2 * third
            t0 = time.monotonic()
            try:
                event_ids.append(capture(tenant, kind, data))
            except Exception as exc:  # recorded, and asserted to never happen
                raised.append(f"{i}: {type(exc).__name__}: {exc}")
            durations["down" if down else "up"].append(time.monotonic() - t0)
            if down and event_ids:
                during_outage.append(event_ids[-1])
                time.sleep(max(0.0, down_at + (i + 1 - third) * interval - time.monotonic()))
        # What is waited for after the stream is the worker: it tries to reconnect 1, 3, 6,
        # 10, 15, 20, ... s after it lost the broker (worker.consumer: a second more each
        # time, at most 5 s apart), so after a 30 s outage it is back at most 5 s later; then
        # its backlog, which the relay and the first captures after the outage hand it.
        got = wait_all_terminal(pg_url, tenant, event_ids, timeout=240)
    assert raised == [], raised[:5]
    # A dead broker costs a capture at most its publish timeout (1 s), never a retry loop:
    # measured against the slowest capture with Redis up, in the same run.
    slowest = {k: max(v) for k, v in durations.items()}
    assert slowest["down"] < slowest["up"] + 2.0, slowest
    assert len(during_outage) == third
    assert set(got.statuses) <= {"reflected", "skipped"}, Counter(got.statuses)
    assert got.duplicates == []
    # What was captured while Redis was down reached a worker through the relay, or with a
    # later message of the same agent (a reflect task takes every pending event of its agent).
    with session_scope(pg_url) as session:
        outage_done = session.scalars(
            select(func.count()).where(
                Event.id.in_(during_outage), Event.status.in_(("reflected", "skipped"))
            )
        ).one()
    assert outage_done == len(during_outage)
    assert worker.proc.poll() is None, worker.log()[-2000:]
    print(
        f"\n{len(event_ids)} events, Redis down {REDIS_OUTAGE_S:.0f} s ({len(during_outage)} "
        f"captured meanwhile); slowest capture {slowest['down'] * 1000:.0f} ms; "
        f"{Counter(got.statuses)}"
    )


# --- 3. Postgres restarted mid-stream -------------------------------------------------------------


def test_postgres_restart_mid_stream(
    redis_url: str,
    queue: str,
    tenant: str,
    private_pg: PrivatePostgres,
    workers: Callable[..., WorkerProcess],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from digest.errors import CaptureUnavailable

    stream = make_stream(scaled(PG_EVENTS), SEED + 2)
    down_s = float(os.environ.get("DIGEST_FAULT_PG_DOWN_S", "8"))
    env = {**base_env(private_pg.url, redis_url, queue), **FAST_RECOVERY}
    point_here(env, monkeypatch)
    worker = workers(env)
    ids: dict[int, int] = {}
    refused: list[int] = []
    wrong: list[str] = []
    down_durations: list[float] = []
    head = len(stream.events) // 3
    down_since: float | None = None
    restarted = False
    with RelayLoop(2.0):
        for i, (kind, data) in enumerate(stream.events):
            if i == head:
                # Stop it while the worker is busy with a backlog, so its tasks meet the outage.
                wait_until(
                    lambda: terminal_count(private_pg.url, list(ids.values())) >= 5,
                    120,
                    "worker progress",
                )
                private_pg.stop("fast")
                down_since = time.monotonic()
            elif (
                down_since is not None and not restarted and time.monotonic() - down_since >= down_s
            ):
                private_pg.start()
                restarted = True
            t0 = time.monotonic()
            try:
                ids[i] = capture(tenant, kind, data)
            except CaptureUnavailable:
                refused.append(i)
            except Exception as exc:  # recorded, and asserted to never happen
                wrong.append(f"{i}: {type(exc).__name__}: {exc}")
            if down_since is not None and not restarted:
                down_durations.append(time.monotonic() - t0)
                assert i not in ids, f"event {i} was stored while Postgres was down"
            time.sleep(0.2 if down_since is not None and not restarted else 0.03)
        assert restarted, "the stream ended before Postgres came back: raise the scale"
        assert wrong == [], wrong[:5]
        assert refused, "no capture saw Postgres down"
        assert max(down_durations) < 5.0, f"slowest refused capture {max(down_durations):.2f} s"
        # Back up: the agent retries what was refused (same idempotency key); it all stores.
        for i in refused:
            kind, data = stream.events[i]
            ids[i] = capture(tenant, kind, data)
        event_ids = [ids[i] for i in range(len(stream.events))]
        assert len(set(event_ids)) == len(event_ids)
        got = wait_all_terminal(private_pg.url, tenant, event_ids, timeout=240)
    assert set(got.statuses) <= {"reflected", "skipped"}, Counter(got.statuses)
    assert got.duplicates == []
    log = worker.log()
    assert worker.proc.poll() is None, log[-2000:]
    # The worker's tasks met the dead database and were retried, not dropped.
    assert "OperationalError" in log and "Retry in" in log, log[-3000:]
    print(
        f"\n{len(event_ids)} events, Postgres down {down_s:.0f} s: {len(refused)} captures "
        f"refused with CaptureUnavailable and stored on retry; {Counter(got.statuses)}"
    )


# --- 4. LLM fault mix -----------------------------------------------------------------------------

#: the agent's seeded lessons; every reflected candidate is a variant of one of them, so each
#: one reaches the reconcile model (related, not identical) and its scripted answer.
LLM_TOPICS = (
    ("A customer asks to change the delivery address after dispatch",
     "Explain that the parcel can only be redirected through the carrier portal"),
    ("A guest wants to book a table for more than eight people",
     "Collect a phone number and hand the booking to the events team"),
    ("Someone reports a card charge they do not recognise",
     "Confirm the payment date and amount before looking up the transaction"),
    ("A user cannot log in after resetting the password",
     "Point them to the newest reset link and expire the older ones"),
    ("A partner requests an invoice in another currency",
     "Issue the invoice in euros and attach the conversion rate of that day"),
)  # fmt: skip
GARBAGE = "Well, it depends on the situation, I suppose."
#: the client timeout. Every step but the slow one answers at once, and the slow one never
#: answers in time ("hang": the server holds its reply until the client gives up), so no reply
#: is late by a fixed margin: with 1 s and a 2 s sleep, a loaded host delayed a plain reply past
#: the timeout, its retry took the script's next step, and the event ended other than planned.
LLM_TIMEOUT_S = 4.0

#: reflect behaviour → (steps before the lesson reply, final status if it never gets there,
#: the reason that status must carry)
REFLECT_FAULTS: dict[str, tuple[list[tuple[Any, ...]], str | None, str | None]] = {
    "ok": ([], None, None),
    "429-then-ok": ([("status", 429)], None, None),
    "503-then-ok": ([("status", 503), ("status", 503)], None, None),
    "slow-then-ok": ([("hang", GARBAGE)], None, None),
    "garbage-then-ok": ([("reply", GARBAGE)], None, None),
    "skip": ([("reply", "<skip>one-off, nothing general</skip>")], "skipped", None),
    "always-garbage": ([("reply", GARBAGE)], "failed", "no <skip> or <lesson>"),
    "always-503": ([("status", 503)], "failed", "ServiceUnavailable"),
    "always-429": ([("status", 429)], "failed", "RateLimitError"),
}
REFLECT_WEIGHTS = {"ok": 30, "429-then-ok": 10, "503-then-ok": 8, "slow-then-ok": 5,
                   "garbage-then-ok": 8, "skip": 8, "always-garbage": 5, "always-503": 4,
                   "always-429": 3}  # fmt: skip

#: reconcile answer → the history ops it may leave for the event (an op whose target was
#: superseded meanwhile, or an id beyond what was shown, falls back to ADD; an UPDATE whose
#: lesson another event rewrote meanwhile becomes a NOOP in the last reconcile round, with
#: the reason checked below)
RECONCILE_OPS: dict[str, set[tuple[str, ...]]] = {
    "update-0": {("UPDATE",), ("ADD",), ("NOOP",)},
    "noop-0": {("NOOP",), ("ADD",)},
    "delete-1": {("ADD", "DELETE"), ("ADD",)},
    "add": {("ADD",)},
    "hallucinated": {("ADD",)},
    "wrong-candidate": {("ADD",)},
    "garbage-then-noop": {("NOOP",), ("ADD",)},
    "429-then-update": {("UPDATE",), ("ADD",), ("NOOP",)},
    "always-garbage": set(),
}
RECONCILE_WEIGHTS = {"update-0": 14, "noop-0": 14, "delete-1": 10, "add": 8, "hallucinated": 20,
                     "wrong-candidate": 8, "garbage-then-noop": 8, "429-then-update": 8,
                     "always-garbage": 6}  # fmt: skip


@dataclass
class Planned:
    name: str
    topic: int
    reflect: str
    reconcile: str
    #: the answers to the event's reflect requests, then to its reconcile requests: one
    #: script per step kind (``FakeLLM.script_by_kind``), so a retry after a lost reply gets
    #: an answer of its own kind
    reflect_steps: list[tuple[Any, ...]]
    reconcile_steps: list[tuple[Any, ...]]
    status: str
    reason: str | None


def ops_json(*operations: dict[str, Any]) -> str:
    return json.dumps({"operations": list(operations)})


def plan_event(
    rng: random.Random, name: str, reflect: str | None = None, reconcile: str | None = None
) -> Planned:
    """The event's script, its reflect and reconcile behaviours drawn by weight unless given
    (the first events of the mix take each behaviour once, so a short mix has them all)."""
    topic = rng.randrange(len(LLM_TOPICS))
    situation, correction = LLM_TOPICS[topic]
    extra = _phrase(rng, 3)
    lesson = (
        f"<lesson><situation>{situation}, case {extra} [script:{name}]</situation>"
        f"<mistake>It was handled the slow way.</mistake><correction>{correction}, "
        f"as in case {extra}</correction><tags>fault-mix</tags></lesson>"
    )
    merged = {"situation": f"{situation} (case {extra})", "mistake": "Slow handling.",
              "correction": f"{correction}; confirmed again", "tags": ["merged"]}  # fmt: skip
    drawn_reflect = rng.choices(list(REFLECT_WEIGHTS), weights=list(REFLECT_WEIGHTS.values()))[0]
    drawn_reconcile = rng.choices(
        list(RECONCILE_WEIGHTS), weights=list(RECONCILE_WEIGHTS.values())
    )[0]
    reflect, reconcile = reflect or drawn_reflect, reconcile or drawn_reconcile
    before, status, reason = REFLECT_FAULTS[reflect]
    if status is not None:
        return Planned(name, topic, reflect, "-", before, [], status, reason)
    answers: dict[str, list[tuple[Any, ...]]] = {
        "update-0": [("reply", ops_json({"op": "UPDATE", "candidate": 0, "id": 0,
                                         "lesson": merged}))],
        "noop-0": [("reply", ops_json({"op": "NOOP", "candidate": 0, "id": 0}))],
        "delete-1": [("reply", ops_json({"op": "DELETE", "candidate": 0, "id": 1,
                                         "reason": "contradicted"}))],
        "add": [("reply", "Sure:\n```json\n" + ops_json({"op": "ADD", "candidate": 0}) + "\n```")],
        "hallucinated": [("reply", ops_json(
            {"op": "UPDATE", "candidate": 0, "id": 99, "lesson": merged},
            {"op": "DELETE", "candidate": 0, "id": -1},
            {"op": "NOOP", "candidate": 0, "id": "the first"},
            {"op": "MERGE", "candidate": 0, "id": 0},
            {"op": "DELETE", "candidate": 0, "id": 17, "reason": "made up"},
        ))],
        "wrong-candidate": [("reply", ops_json(
            {"op": "DELETE", "candidate": 4, "id": 0},
            {"op": "UPDATE", "candidate": "zero", "id": 0, "lesson": merged},
        ))],
        "garbage-then-noop": [("reply", GARBAGE),
                              ("reply", ops_json({"op": "NOOP", "candidate": 0, "id": 0}))],
        "429-then-update": [("status", 429), ("reply", ops_json(
            {"op": "UPDATE", "candidate": 0, "id": 0, "lesson": merged}))],
        "always-garbage": [("reply", GARBAGE)],
    }  # fmt: skip
    failed = reconcile == "always-garbage"
    return Planned(
        name, topic, reflect, reconcile, [*before, ("reply", lesson)], answers[reconcile],
        "failed" if failed else "reflected", "no JSON object" if failed else None,
    )  # fmt: skip


@pytest.fixture()
def mix_llm() -> Iterator[Any]:
    from tests.fake_llm import FakeLLM

    server = FakeLLM(route_by_last=True).start()
    yield server
    server.stop()


def _seed(tenant: str, agent: str) -> list[int]:
    """The bank the mix reconciles against, as lessons learned from earlier runs: untrusted,
    so the model's UPDATE and DELETE answers apply (run events never change an owner's
    lessons; tests/reflect/test_operations.py covers that refusal)."""
    from sqlalchemy import update

    from digest.db import session_scope
    from tests.conftest import manual_lesson

    ids = [manual_lesson(tenant, agent, f"{s}: {c}") for s, c in LLM_TOPICS]
    with session_scope() as session:
        session.execute(
            update(Lesson).where(Lesson.id.in_(ids)).values(source="run_outcome", trust="untrusted")
        )
    return ids


def _shown_existing(bodies: list[dict[str, Any]]) -> list[tuple[str, str]]:
    """The (situation, correction) of every existing lesson shown in these reconcile requests."""
    import re

    shown: list[tuple[str, str]] = []
    for body in bodies:
        user = body["messages"][-1]["content"]
        found = re.search(r"<existing>\s*(.*?)\s*</existing>", user, re.DOTALL)
        if found:
            items = json.loads(found.group(1).replace("<\\/", "</"))
            shown += [(item["situation"], item["correction"]) for item in items]
    return shown


def _frozen(url: str, lesson_ids: list[int]) -> list[tuple[Any, ...]]:
    with session_scope(url) as session:
        lessons = session.scalars(select(Lesson).where(Lesson.id.in_(lesson_ids))).all()
        history = Counter(
            session.scalars(
                select(LessonHistory.lesson_id).where(LessonHistory.lesson_id.in_(lesson_ids))
            ).all()
        )
        return sorted(
            (x.id, x.status, x.support_count, x.situation, x.correction, x.updated_at,
             history[x.id])
            for x in lessons
        )  # fmt: skip


def test_llm_fault_mix(
    pg_url: str,
    redis_url: str,
    queue: str,
    tenant: str,
    mix_llm: Any,
    workers: Callable[..., WorkerProcess],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.conftest import LLM_ATTEMPTS, llm_env

    point_here(base_env(pg_url, redis_url, queue), monkeypatch)
    seeded = _seed(tenant, AGENT)
    # The same lessons for another agent of this tenant and for another tenant: never touched.
    bystanders = _seed(tenant, "other-bot") + _seed(f"{tenant}-b", AGENT)
    frozen = _frozen(pg_url, bystanders)

    env = {**llm_env(pg_url, redis_url, queue, mix_llm.api_base),
           "DIGEST_LLM_TIMEOUT_S": str(LLM_TIMEOUT_S), "DIGEST_LLM_RETRY_WAIT_MAX_S": "0.1",
           "DIGEST_THRESHOLD_SIGNALS": "1000000",
           # a fault that outlasts the in-task attempts fails the event at once here (this
           # test checks the reasons and the bank; tests/test_fault_heal.py that faults heal)
           "DIGEST_LLM_GIVE_UP_AFTER_S": "0"}  # fmt: skip
    workers(env, concurrency=8, pool="threads")
    rng = random.Random(SEED + 3)
    plans: list[Planned] = []
    event_ids: list[int] = []
    # Every behaviour once first (reconcile ones after a plain reflect), then drawn by weight.
    forced = [(r, None) for r in REFLECT_FAULTS] + [("ok", c) for c in RECONCILE_OPS]
    for i in range(max(scaled(MIX_EVENTS), len(forced))):
        plan = plan_event(rng, f"mix{i}-{tenant}", *(forced[i] if i < len(forced) else ()))
        mix_llm.script_by_kind(
            plan.name, reflect=plan.reflect_steps, reconcile=plan.reconcile_steps
        )
        plans.append(plan)
        event_ids.append(
            capture(tenant, "run_outcome", {
                "task": f"handle a request about {plan.topic} [script:{plan.name}]",
                "outcome": "failure",
                # No error text: such a run has no fingerprint, so every event is judged and
                # reconciled by its own script (the same failure would share the first one's
                # judgement, and each different failure would be a lesson of its own without
                # asking the model: tests/test_identity_pipeline.py covers both).
                "attempt_summary": f"looked the record up by hand, case {_letters(i)}",
            })
        )  # fmt: skip
    started = time.monotonic()
    got = wait_all_terminal(pg_url, tenant, event_ids, timeout=400)
    elapsed = time.monotonic() - started

    # Every event ends as its script says, and every failure carries its reason.
    wrong_status = [
        (i, p.reflect, p.reconcile, s, e)
        for i, (p, s, e) in enumerate(zip(plans, got.statuses, got.last_errors, strict=True))
        if s != p.status
    ]
    assert wrong_status == [], wrong_status[:5]
    for plan, status, error in zip(plans, got.statuses, got.last_errors, strict=True):
        if status in ("failed", "dead"):
            assert error and error.strip(), (plan, error)
            assert plan.reason is not None and plan.reason.lower() in error.lower(), (plan, error)
        if plan.reconcile == "-" and plan.status == "failed":
            assert mix_llm.count(plan.name, "reflect") == LLM_ATTEMPTS, plan
            assert mix_llm.count(plan.name) == LLM_ATTEMPTS, plan

    with session_scope(pg_url) as session:
        agent_id = session.scalars(select(Lesson.agent_id).where(Lesson.id == seeded[0])).one()
        lessons = {
            x.id: x for x in session.scalars(select(Lesson).where(Lesson.agent_id == agent_id))
        }
        history = list(
            session.scalars(
                select(LessonHistory)
                .where(LessonHistory.agent_id == agent_id)
                .order_by(LessonHistory.id)
            )
        )
        evidence = Counter(
            session.scalars(
                select(LessonEvidence.lesson_id).where(LessonEvidence.lesson_id.in_(list(lessons)))
            ).all()
        )
        runs = session.scalars(
            select(DigestRun).where(DigestRun.agent_id == agent_id, DigestRun.kind == "reflect")
        ).all()
        event_rows = {
            e.id: e for e in session.scalars(select(Event).where(Event.id.in_(event_ids)))
        }

    # Per event: only the operations its answer allows; hallucinated ids never reach the bank.
    ops_by_event: dict[int, list[str]] = {}
    reasons_by_event: dict[int, list[str]] = {}
    for row in history:
        if row.event_id is not None:
            ops_by_event.setdefault(row.event_id, []).append(row.op)
            reasons_by_event.setdefault(row.event_id, []).append(row.reason or "")
    for plan, event_id, status in zip(plans, event_ids, got.statuses, strict=True):
        ops = tuple(sorted(ops_by_event.get(event_id, [])))
        if status != "reflected":
            assert ops == (), (plan, ops)
        else:
            assert ops in RECONCILE_OPS[plan.reconcile], (plan.reflect, plan.reconcile, ops)
            if ops == ("NOOP",) and "update" in plan.reconcile:
                assert any("changed meanwhile" in r for r in reasons_by_event[event_id]), plan
    # UPDATE, DELETE and NOOP only ever name a lesson the model was shown for that event (by
    # any of its texts: a concurrent UPDATE may have reworded it between read and write).
    texts: dict[int, set[tuple[str, str]]] = {}
    for row in history:
        for snap in (row.before, row.after):
            if snap is not None:
                texts.setdefault(row.lesson_id, set()).add((snap["situation"], snap["correction"]))
    by_id = {event_ids[i]: plan for i, plan in enumerate(plans)}
    for row in history:
        if row.op in ("UPDATE", "DELETE", "NOOP") and row.event_id in by_id:
            shown = set(_shown_existing(mix_llm.bodies[by_id[row.event_id].name]))
            assert texts[row.lesson_id] & shown, (row.id, row.op, row.lesson_id)

    # The bank is consistent: nothing hard-deleted, every lesson cited, history matches.
    adds = Counter(row.lesson_id for row in history if row.op == "ADD")
    assert set(adds) == set(lessons) and set(adds.values()) == {1}
    assert len(lessons) == len(seeded) + sum(r.n_add for r in runs)
    last_after = {row.lesson_id: row.after for row in history}
    for lesson in lessons.values():
        assert evidence[lesson.id] >= 1, lesson.id
        assert lesson.support_count == evidence[lesson.id], lesson.id
        assert last_after[lesson.id]["status"] == lesson.status, lesson.id
        assert last_after[lesson.id]["support_count"] == lesson.support_count, lesson.id
        if lesson.status == "superseded":
            assert lesson.superseded_by_id in lessons, lesson.id
    assert {x.status for x in lessons.values()} <= {"active", "superseded"}
    assert all(event_rows[i].agent_id == agent_id for i in event_ids)
    assert _frozen(pg_url, bystanders) == frozen
    counted = Counter(op for ops in ops_by_event.values() for op in ops)
    print(
        f"\n{len(event_ids)} events through the fault mix in {elapsed:.1f} s: "
        f"{Counter(got.statuses)}; ops {dict(counted)}; {len(lessons)} lessons"
    )


def _letters(number: int) -> str:
    """A number written in letters (a-j), so that it survives fingerprint masking."""
    return "".join(chr(ord("a") + int(digit)) for digit in str(number))
