"""Replay cost per compose (issue 16): one agent with 1,000 recent failed or edited events
(PostgreSQL, offline/rules, in this process).

Every compose replays the agent's most recent failed or edited events against the active
version and the proposal (``digest.versions.replay``). This measures what that adds to a
compose, as a ratio to the compose itself, measured in the same run on the same agent:

- the agent's bank comes from a realistic stream (``bench/_stream.py``: tool failures, failed
  and escalated runs, transient faults the judge skips, operator edits, owner answers; half of
  it repeats an earlier event with other ids and words), reflected by the real pipeline with
  ``offline/rules``, and a tenant gate of 1, so that the run lessons enter the document;
  ``DIGEST_REPLAY_EVENTS`` is 1,000, and the stream holds at least that many;
- every compose is preceded by one more owner lesson (so the document changes and a compose
  writes a version; its capture and reflection are not timed). Each round times three
  composes, one after the other, so the machine's other load weighs on each alike: with the
  replay of every one of those events, with the replay of ``DIGEST_REPLAY_EVENTS``'s default
  (200), and without the replay (``DIGEST_REPLAY_EVENTS=0``). The replay's own time is the
  ``ms`` it stores with its version;
- steady state: the process keeps what it read of each replayed event (its probe's keywords,
  its fingerprints and, with embeddings, its probe's vector), as a worker does between
  composes. The first replay of all (every event read; with ``local`` every probe embedded
  and stored) and replays in a process that forgot all that (the events read again, the
  vectors from ``replay_probes``) are reported apart;
- embedding ``none`` (keywords only) and ``local`` (all-MiniLM-L6-v2, the default: cosines
  too).

Target: a compose with the replay takes at most twice the compose without it (the summarize
step answers in process here; a real model's call is slower than both).

    .venv/bin/python bench/replay.py [--events 1000] [--rounds 10] [--modes none,local]

Uses DIGEST_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres) to create and drop
a scratch database. Embedded mode: no broker, nothing published.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from _report import Figure  # noqa: E402

BENCH = "replay"
#: failed or edited events replayed per compose (issue 16)
EVENTS = 1_000
ROUNDS = 10
#: DIGEST_REPLAY_EVENTS's default, measured beside the issue's 1,000
DEFAULT_EVENTS = 200
#: composes whose replay runs in a process that has not replayed those events before
COLD_ROUNDS = 3
MODES = ("none", "local")
#: a compose with the replay, at most this many times the compose without it
RATIO_TARGET = 2.0
TENANT = "bench"
#: the share of the stream that is a failed run or an operator edit (the rest: transient
#: faults the judge skips, owner answers)
_REPLAYABLE = 0.85


@dataclass
class _Mode:
    agent: str
    agent_id: int = 0
    events: int = 0
    lessons: int = 0
    folded: int = 0
    fill_s: float = 0.0
    first_replay_ms: float = 0.0
    covered: str = ""
    with_replay: list[float] = field(default_factory=list)
    with_default: list[float] = field(default_factory=list)
    without: list[float] = field(default_factory=list)
    replay_ms: list[float] = field(default_factory=list)
    default_ms: list[float] = field(default_factory=list)
    cold_ms: list[float] = field(default_factory=list)


def measure(
    scale: float = 1.0,
    events: int | None = None,
    rounds: int | None = None,
    modes: tuple[str, ...] = MODES,
) -> list[Figure]:
    """Compose with and without the replay, per embedding mode; the replay alone."""
    from _scratch import environment, scratch_database, use_settings

    events = events or max(50, int(EVENTS * scale))
    rounds = rounds or max(3, int(ROUNDS * min(1.0, scale)))
    names = ("DIGEST_DATABASE_URL", "DIGEST_EMBEDDING_MODEL", "DIGEST_BROKER_URL",
             "DIGEST_LLM_MODEL", "DIGEST_REPLAY_EVENTS")  # fmt: skip
    results: dict[str, _Mode] = {}
    with environment(*names), scratch_database() as url:
        os.environ["DIGEST_DATABASE_URL"] = url
        os.environ.pop("DIGEST_BROKER_URL", None)  # embedded: reflect here, publish nothing
        os.environ["DIGEST_LLM_MODEL"] = "offline/rules"
        for mode in modes:
            os.environ["DIGEST_EMBEDDING_MODEL"] = mode
            os.environ["DIGEST_REPLAY_EVENTS"] = str(events)
            use_settings()
            results[mode] = run = _Mode(f"bot-{mode}")
            _fill(run, events)
            _rounds(run, rounds, mode)
    return [fig for mode in modes for fig in _figures(results[mode], mode)]


def _fill(run: _Mode, events: int) -> None:
    """Capture a stream of at least ``events`` failed or edited events for the agent and
    reflect it in this process."""
    from _stream import capture, make_stream

    from digest.db import session_scope
    from digest.pipeline import drain
    from digest.tenants import configure_tenant, find_agent
    from digest.versions.replay.probes import recent_events

    started = time.perf_counter()
    with session_scope() as session:
        configure_tenant(session, TENANT, frequency_gate=1, independent_spread_s=0)
    stream = make_stream(int(events / _REPLAYABLE) + 20, 1, repeats="other_ids", seed=16)
    for i, event in enumerate(stream):
        capture(_as(event, run.agent), TENANT, f"{run.agent}-{i}")
    drain(tenant=TENANT, agent=run.agent)
    with session_scope() as session:
        agent = find_agent(session, TENANT, run.agent)
        run.agent_id = agent.id
        run.events = len(recent_events(session, agent.id, events))
        run.lessons = _count(session, agent.id)
    run.fill_s = time.perf_counter() - started


def _as(event: Any, agent: str) -> Any:
    from dataclasses import replace

    return replace(event, agent=agent)


def _count(session: Any, agent_id: int) -> int:
    from sqlalchemy import func, select

    from digest.models import Lesson

    return int(
        session.scalar(
            select(func.count()).where(Lesson.agent_id == agent_id, Lesson.status == "active")
        )
        or 0
    )


def _rounds(run: _Mode, rounds: int, mode: str) -> None:
    from digest.config import get_settings
    from digest.identity.embedding import clear_cache
    from digest.versions.compose import compose_version
    from digest.versions.replay.facts import forget_facts

    on = get_settings()
    default = on.model_copy(update={"replay_events": DEFAULT_EVENTS})
    off = on.model_copy(update={"replay_events": 0})
    turn = 0

    def compose(settings: Any) -> tuple[float, float]:
        nonlocal turn
        turn += 1
        return _compose(run, settings, turn, compose_version)

    # the first compose: every probe is read and (local) embedded and stored; apart
    run.first_replay_ms = compose(on)[1]
    for _ in range(rounds):
        for settings, samples, replays in (
            (on, run.with_replay, run.replay_ms),
            (default, run.with_default, run.default_ms),
            (off, run.without, None),
        ):
            seconds, replay_ms = compose(settings)
            samples.append(seconds)
            if replays is not None:
                replays.append(replay_ms)
    for _ in range(COLD_ROUNDS):  # a process that has not replayed these events yet
        forget_facts()
        clear_cache()
        run.cold_ms.append(compose(on)[1])


def _compose(run: _Mode, settings: Any, turn: int, compose_version: Any) -> tuple[float, float]:
    """Add an owner lesson (not timed), then time one compose; (seconds, replay ms)."""
    import digest
    from digest.db import session_scope
    from digest.models import LearningVersion
    from digest.pipeline import drain

    digest.record_lesson(TENANT, run.agent, f"rule-{turn}: check the bench rule number {turn}")
    drain(tenant=TENANT, agent=run.agent)
    started = time.perf_counter()
    result = compose_version(run.agent_id, "manual", settings)
    seconds = time.perf_counter() - started
    assert result.status == "created", result
    with session_scope() as session:
        version = session.get(LearningVersion, result.version_id)
        assert version is not None
        report = version.replay or {}
        run.folded = len(version.folded_lesson_ids or [])
        run.lessons = _count(session, run.agent_id)
        if report:
            run.covered = (
                f"{report['current_covered']} covered by the active version, "
                f"{report['proposed_covered']} by the proposal"
            )
    return seconds, float(report.get("ms") or 0.0)


def _figures(run: _Mode, mode: str) -> list[Figure]:
    from _scratch import percentile

    def ms(samples: list[float], q: float = 0.5) -> float:
        return percentile(samples, q) * 1000

    at = f"{run.events:,} events, embedding {mode}"
    without = ms(run.without)
    with_replay = ms(run.with_replay)
    ratio = with_replay / without if without else float("inf")
    bank = (
        f"{run.lessons:,} active lessons, {run.folded:,} in the document; {run.covered}; "
        f"{len(run.with_replay)} composes each way, alternated"
    )
    floor = "compose p50 without it"
    return [
        Figure(
            BENCH, f"compose p50 with the replay, {at}", with_replay, "ms",
            floor_name=floor, floor=without, target=f"<= {RATIO_TARGET:g}x the compose without it",
            met=ratio <= RATIO_TARGET, note=bank,
        ),
        Figure(
            BENCH, f"replay alone p50, {at}", percentile(run.replay_ms, 0.5), "ms",
            floor_name=floor, floor=without,
            note="as stored with each version: reading the events, lessons, evidence and"
            " probe vectors, embedding new probes, ranking both versions per event",
        ),
        Figure(
            BENCH, f"compose p50 with the replay of {DEFAULT_EVENTS} events (the default), "
            f"embedding {mode}", ms(run.with_default), "ms", floor_name=floor, floor=without,
            note=f"its replay alone: p50 {percentile(run.default_ms, 0.5):.0f} ms",
        ),
        Figure(
            BENCH, f"replay alone in a fresh process p50, {at}", percentile(run.cold_ms, 0.5),
            "ms", floor_name=floor, floor=without,
            note=f"{len(run.cold_ms)} composes, each after the process forgot what it kept of"
            " the events (payloads and fingerprints read again"
            + (", probe vectors read from replay_probes)" if mode == "local" else ")"),
        ),
        Figure(
            BENCH, f"first replay, {at}", run.first_replay_ms, "ms",
            note="every probe embedded and stored" if mode == "local" else "a cold process",
        ),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=EVENTS)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    parser.add_argument("--modes", default=",".join(MODES))
    args = parser.parse_args()
    modes = tuple(m for m in args.modes.split(",") if m)
    for f in measure(1.0, args.events, args.rounds, modes):
        versus = f"  floor {f.floor:.2f} ms  ratio {f.ratio:.2f}x" if f.ratio is not None else ""
        verdict = {True: "  met", False: "  MISSED", None: ""}[f.met]
        print(f"{f.name}: {f.value:.2f} {f.unit}{versus}{verdict}  {f.note}".rstrip())


if __name__ == "__main__":
    main()
