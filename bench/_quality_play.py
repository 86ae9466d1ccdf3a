"""How the quality benchmark sends its streams through the one reflect core, and reads back what
they left (``bench/quality.py``).

A ``Script`` is one agent's events, sent one after another: each event is captured through the
agent API and reflected to its final status before the next is sent, as events spaced in time
arrive (an API change days after the failure it reverses). Two players:

- ``in_process``: ``offline/rules`` in this process, no broker: each capture is followed by
  ``digest.pipeline.drain`` for the agent, the embedded mode's worker (``digest drain``);
- ``through_worker``: a real ``celery worker`` process (threads pool) whose model is remote:
  ``openai/loopback`` on ``bench/_loopback.py``'s server, which answers every request (reflect
  and reconcile alike) with the offline rules over HTTP, as ``tests/fake_llm.OfflineOverHTTP``
  does. The worker judges one event at a time with no transaction open during the call; the
  scripts of different agents run side by side (``THREADS`` at once), each in order.

Nothing composes (the signal threshold is out of reach), so every model call counted is a
reflect or a reconcile call.
"""

from __future__ import annotations

import os
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from _quality_cases import Case
from _quality_verdict import EventRun, Observed, Seen

#: scripts (agents) played at once through the worker, and the worker's threads
THREADS = 4
#: a signal threshold no stream reaches: nothing composes while a stream is played
NO_COMPOSE = "1000000"
TERMINAL = ("reflected", "skipped", "failed", "dead")
#: settings a player replaces in this process while it plays (restored after)
_ENV = (
    "DIGEST_DATABASE_URL", "DIGEST_BROKER_URL", "DIGEST_QUEUE", "DIGEST_LLM_MODEL",
    "DIGEST_LLM_API_BASE", "DIGEST_EMBEDDING_MODEL", "DIGEST_THRESHOLD_SIGNALS",
)  # fmt: skip


@dataclass(frozen=True)
class Step:
    """One capture: ``payload`` is the capture call's keyword arguments."""

    key: str
    kind: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Script:
    tenant: str
    agent: str
    steps: tuple[Step, ...]


def agent_of(case: Case) -> str:
    return f"q:{case.key}"


def case_script(tenant: str, case: Case) -> Script:
    steps = tuple(Step(f"{case.key}:{e.id}", e.kind, e.payload) for e in case.events)
    return Script(tenant, agent_of(case), steps)


def capture(tenant: str, agent: str, step: Step) -> int:
    """Send one step through the agent API; its event id."""
    import digest

    records: dict[str, Callable[..., int]] = {
        "run_outcome": digest.record_run,
        "operator_edit": digest.record_edit,
        "owner_answer": digest.record_answer,
    }
    return int(records[step.kind](tenant, agent, idempotency_key=step.key, **step.payload))


@contextmanager
def environment(**values: str | None) -> Iterator[None]:
    """This process's settings as ``values`` say (None: unset), read afresh; restored after."""
    from digest.runtime import runtime

    saved = {key: os.environ.get(key) for key in _ENV}
    try:
        for key in _ENV:
            os.environ.pop(key, None)
        os.environ.update({k: v for k, v in values.items() if v is not None})
        runtime().reset()
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        runtime().reset()


def in_process(url: str, scripts: list[Script], *, embedding: str) -> None:
    """Play ``scripts`` with ``offline/rules`` in this process (``drain`` after each capture)."""
    from digest.pipeline import drain

    settings = dict(
        DIGEST_DATABASE_URL=url, DIGEST_LLM_MODEL="offline/rules",
        DIGEST_EMBEDDING_MODEL=embedding, DIGEST_THRESHOLD_SIGNALS=NO_COMPOSE,
    )  # fmt: skip
    with environment(**settings):
        for script in scripts:
            for step in script.steps:
                capture(script.tenant, script.agent, step)
                drain(tenant=script.tenant, agent=script.agent)


@dataclass
class Remote:
    """A worker process with the loopback model, and this process capturing onto its queue."""

    url: str
    workers: list[Any]  # _worker.Worker, one or more on one queue
    loop: Any  # _loopback.Loopback
    #: capture each script's events at once, then wait for them all (a stream captured
    #: faster than it is judged: the worker may take an agent's events side by side)
    burst: bool = False

    def play(self, scripts: list[Script]) -> None:
        failed: list[BaseException] = []
        lock = threading.Lock()

        def one(script: Script) -> None:
            import psycopg

            with psycopg.connect(self.url, autocommit=True) as conn:
                if self.burst:
                    ids = [capture(script.tenant, script.agent, step) for step in script.steps]
                    for event_id in ids:
                        self._wait(conn, event_id)
                    return
                for step in script.steps:
                    event_id = capture(script.tenant, script.agent, step)
                    self._wait(conn, event_id)

        with ThreadPoolExecutor(THREADS) as pool:
            for done in [pool.submit(one, s) for s in scripts]:
                try:
                    done.result()
                except BaseException as exc:  # every script finishes before one is raised
                    with lock:
                        failed.append(exc)
        if failed:
            raise failed[0]

    def _wait(self, conn: Any, event_id: int, timeout_s: float = 120) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            row = conn.execute("SELECT status FROM events WHERE id = %s", (event_id,)).fetchone()
            if row and row[0] in TERMINAL:
                return
            for worker in self.workers:
                if worker.proc.poll() is not None:
                    raise RuntimeError(f"a worker exited:\n{worker.log()[-2000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"event {event_id} not reflected after {timeout_s:.0f} s")
            time.sleep(0.02)


@contextmanager
def through_worker(
    url: str,
    embedding: str,
    answerer: Callable[[list[dict[str, Any]]], str] | None = None,
    *,
    burst: bool = False,
    workers: int = 1,
) -> Iterator[Remote]:
    """A worker on a queue of its own (Redis: ``DIGEST_BENCH_REDIS``) judging with the loopback
    model (``answerer``: who answers on it, the offline rules when None, ``bench/_oracle.py``'s
    oracle for ``--judge oracle``); this process captures onto that queue meanwhile."""
    from _loopback import Loopback, loopback_env
    from _worker import REDIS_URL, flush_broker, start_worker, worker_env

    queue = f"bench-quality-{uuid.uuid4().hex[:6]}"
    with Loopback(answerer=answerer) as loop:
        extra = {
            **loopback_env(loop.api_base), "DIGEST_EMBEDDING_MODEL": embedding,
            "DIGEST_THRESHOLD_SIGNALS": NO_COMPOSE,
        }  # fmt: skip
        started = []
        try:
            for _ in range(workers):
                started.append(start_worker(worker_env(url, queue, **extra), "threads", THREADS))
            with environment(DIGEST_DATABASE_URL=url, DIGEST_BROKER_URL=REDIS_URL,
                             DIGEST_QUEUE=queue):  # fmt: skip
                yield Remote(url, started, loop, burst)
        finally:
            for worker in started:
                worker.stop()
            flush_broker()


def observe(url: str, tenant: str, case: Case) -> Observed:
    """What the case's stream left for its agent: lessons with the case events they cite,
    and each event's status and reflect runs."""
    import psycopg

    with psycopg.connect(url) as conn:
        agent = conn.execute(
            "SELECT a.id FROM agents a JOIN tenants t ON t.id = a.tenant_id"
            " WHERE t.name = %s AND a.name = %s",
            (tenant, agent_of(case)),
        ).fetchone()
        if agent is None:
            raise RuntimeError(f"{case.key}: its agent was never created")
        prefix = f"{case.key}:"
        named = {
            int(event_id): key.removeprefix(prefix)
            for event_id, key in conn.execute(
                "SELECT id, idempotency_key FROM events WHERE agent_id = %s", agent
            )
        }
        status: dict[int, str] = {
            int(i): str(s)
            for i, s in conn.execute("SELECT id, status FROM events WHERE agent_id = %s", agent)
        }
        cites: dict[int, set[str]] = {}
        for lesson_id, event_id in conn.execute(
            "SELECT le.lesson_id, le.event_id FROM lesson_evidence le JOIN lessons l"
            " ON l.id = le.lesson_id WHERE l.agent_id = %s",
            agent,
        ):
            cites.setdefault(int(lesson_id), set()).add(named.get(int(event_id), "?"))
        retired: dict[int, set[str]] = {}
        for lesson_id, event_id in conn.execute(
            "SELECT lesson_id, event_id FROM lesson_history WHERE agent_id = %s AND op = 'DELETE'"
            " AND coalesce(reason, '') <> '' AND event_id IS NOT NULL",
            agent,
        ):
            retired.setdefault(int(lesson_id), set()).add(named.get(int(event_id), "?"))
        lessons = tuple(
            Seen(
                int(i),
                str(s),
                None if by is None else int(by),
                frozenset(cites.get(int(i), ())),
                frozenset(retired.get(int(i), ())),
                None if replaces is None else int(replaces),
                str(title or ""),
            )
            for i, s, by, replaces, title in conn.execute(
                "SELECT id, status, superseded_by_id, replaces_id, title FROM lessons"
                " WHERE agent_id = %s",
                agent,
            )
        )
        runs: dict[str, list[int]] = {}
        for event_id, calls, tokens, ops, fast in conn.execute(
            "SELECT event_id, llm_calls, prompt_tokens, n_add + n_update + n_delete + n_noop,"
            " n_fast_path FROM digest_runs WHERE agent_id = %s AND kind = 'reflect'"
            " AND event_id IS NOT NULL",
            agent,
        ):
            total = runs.setdefault(named[int(event_id)], [0, 0, 0, 0])
            for n, value in enumerate((calls, tokens, ops, fast)):
                total[n] += int(value or 0)
    events = {
        name: EventRun(str(status[event_id]), *runs.get(name, [0, 0, 0, 0]))
        for event_id, name in named.items()
    }
    return Observed(lessons, events)


def stream_cost(url: str, tenant: str, prefix: str) -> tuple[int, int, int, int]:
    """(events, model calls, prompt tokens, events whose reconcile asked the model) of every
    reflect run of ``tenant``'s agents whose name starts with ``prefix``."""
    import psycopg

    mine = (
        " JOIN agents a ON a.id = {}.agent_id JOIN tenants t ON t.id = a.tenant_id"
        " WHERE t.name = %s AND a.name LIKE %s"
    )
    like = prefix.replace("%", r"\%").replace("_", r"\_") + "%"
    with psycopg.connect(url) as conn:
        events = conn.execute(
            "SELECT count(*) FROM events e" + mine.format("e"), (tenant, like)
        ).fetchone()
        cost = conn.execute(
            "SELECT coalesce(sum(r.llm_calls), 0), coalesce(sum(r.prompt_tokens), 0),"
            " count(*) FILTER (WHERE r.n_add + r.n_update + r.n_delete + r.n_noop"
            " > r.n_fast_path) FROM digest_runs r" + mine.format("r") + " AND r.kind = 'reflect'",
            (tenant, like),
        ).fetchone()
    assert events is not None and cost is not None
    return int(events[0]), int(cost[0]), int(cost[1]), int(cost[2])
