"""Shared fixtures: a fresh PostgreSQL database, a Redis queue of our own, real worker processes.

Services come from the machine (DIGEST_TEST_PG / DIGEST_TEST_REDIS override the defaults).
Every test uses its own tenant name, so tests share one database without seeing each other.
"""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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


def _reset_process_state() -> None:
    """Forget cached settings, engines, broker connections and agent ids in this process."""
    from digest.capture.api import forget_agent_ids
    from digest.config import get_settings
    from digest.db import dispose_engines
    from digest.outbox.publish import reset_publisher

    get_settings.cache_clear()
    dispose_engines()
    reset_publisher()
    forget_agent_ids()


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    name = f"digest_test_{os.getpid()}_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    base = PG_ADMIN.rsplit("/", 1)[0]
    url = f"{base}/{name}".replace("postgresql://", "postgresql+psycopg://", 1)
    from digest.migrate import upgrade

    upgrade(url)
    yield url
    _reset_process_state()
    with psycopg.connect(PG_ADMIN, autocommit=True) as conn:
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


@pytest.fixture()
def sqlite_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The embedded default: a fresh SQLite file, no broker, offline/rules."""
    url = f"sqlite:///{tmp_path / 'digest.db'}"
    monkeypatch.setenv("DIGEST_DATABASE_URL", url)
    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    monkeypatch.delenv("DIGEST_LLM_API_BASE", raising=False)
    monkeypatch.setenv("DIGEST_LLM_MODEL", "offline/rules")
    _reset_process_state()
    from digest.migrate import upgrade

    upgrade(url)
    yield url
    _reset_process_state()


@pytest.fixture()
def tenant() -> str:
    return f"t-{uuid.uuid4().hex[:10]}"


@dataclass
class WorkerProcess:
    """A real ``celery -A worker worker`` subprocess with its own process group."""

    proc: subprocess.Popen[bytes]
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the whole group (main process and pool children), as a crash would."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc.poll() is not None:
            return
        os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()


def base_env(pg_url: str, redis_url: str, queue: str) -> dict[str, str]:
    return {
        "DIGEST_DATABASE_URL": pg_url,
        "DIGEST_BROKER_URL": redis_url,
        "DIGEST_QUEUE": queue,
        "DIGEST_LLM_MODEL": "offline/rules",
    }


def spawn_worker(
    env: dict[str, str], log_path: Path, concurrency: int = 1, pool: str = "prefork"
) -> WorkerProcess:
    """Start ``celery -A worker worker`` on ``env["DIGEST_QUEUE"]`` and wait until it is ready."""
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    full_env = {**inherited, **env, "DIGEST_LOG_JSON": "true"}
    name = f"w-{uuid.uuid4().hex[:8]}@%h"
    cmd = [
        sys.executable, "-m", "celery", "-A", "worker", "worker",
        "--loglevel=INFO", f"--concurrency={concurrency}", f"--pool={pool}",
        "-Q", env["DIGEST_QUEUE"], "-n", name,
        "--without-gossip", "--without-mingle", "--without-heartbeat",
    ]  # fmt: skip
    handle = log_path.open("wb")
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=full_env, stdout=handle, stderr=subprocess.STDOUT,
        start_new_session=True,
    )  # fmt: skip
    worker = WorkerProcess(proc, log_path)
    deadline = time.monotonic() + 60
    while " ready." not in worker.log():
        if proc.poll() is not None:
            raise RuntimeError(f"worker exited early:\n{worker.log()[-3000:]}")
        if time.monotonic() > deadline:
            worker.kill()
            raise RuntimeError(f"worker not ready after 60 s:\n{worker.log()[-3000:]}")
        time.sleep(0.2)
    return worker


@pytest.fixture()
def start_worker(
    services_env: dict[str, str], tmp_path: Path
) -> Iterator[Callable[..., WorkerProcess]]:
    """Start real worker processes on this test's queue; all are stopped after the test."""
    started: list[WorkerProcess] = []

    def start(concurrency: int = 1, pool: str = "prefork", **extra_env: str) -> WorkerProcess:
        log_path = tmp_path / f"worker-{len(started)}.log"
        worker = spawn_worker({**services_env, **extra_env}, log_path, concurrency, pool)
        started.append(worker)
        return worker

    yield start
    for worker in started:
        worker.stop()


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
        "DIGEST_LLM_TIMEOUT_S": "1.5",
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
