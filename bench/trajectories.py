"""Benchmark: what a real tool-using agent's runs teach (issue 24, acceptance on real runs).

    .venv/bin/python bench/trajectories.py [--embedding none|static|local ...]
        [--outcome reward|failure] [--release relaxed|default] [--tasks all|even|odd] [--report]

The runs are public: tau-bench's 200 airline trajectories of a GPT-4o agent (50 tasks, four
trials each, 73 tool errors in 36 runs; ``bench/data/trajectories``, derived by ``derive.py``
there). Nothing in this product was written or tuned with them in view: they were added in
session 11 as a measurement, and they stay one (see the README there).

The runs go through the embedded default (a fresh SQLite file, ``offline/rules``, ``drain``
in process) trial by trial: every task's first trial, then every task's second, and so on.
Before a trial's runs are recorded, ``digest.pitfalls`` of each run's first user message is
read, and for each error family (tool and error template, ``digest.fingerprint.tool_key``) an
earlier trial of the same task hit, the lesson teaching it must be in the block: the issue's
"for a task whose earlier trial hit an error, pitfalls of its first message shows that
error's lesson" (target 90%). A family's lesson is the active lesson citing the failing run,
about the same tool, keyed by that error or else quoting most of its words (as ``tests/runs``
reads it). At the end, every recurring error family (met in more than one run) must be at
exactly one active lesson (``one``), not ``split`` over several, nor ``missing``; a lesson
teaching several recurring families is counted ``merged`` (two families the judge read as
one). The active lessons' titles are put in kinds (``bench/_quality_titles.kind_of``): does
a lesson say what to do about *this* error?

``--outcome reward`` (default) reports a run with reward 1 as a success, the others as
failures (a tool error in a run that succeeded still counts); ``failure`` reports every run
as failed. ``--release relaxed`` (default) lets one run release its lesson (the tenant's
frequency gate 1), so what pitfalls shows is decided by retrieval alone, as in ``tests/runs``;
``default`` keeps the release rule a new tenant has. ``--tasks even`` plays the runs of even
task ids only (the half that may be read to find what goes wrong), ``odd`` the held-out half.
``--report`` lists every miss and every active lesson. Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from _report import Figure  # noqa: E402
from _teaching import teacher  # noqa: E402

BENCH = "public trajectories"
DATA = HERE / "data" / "trajectories" / "tau-airline-gpt4o.jsonl"
AGENT = "airline-agent"
TARGET = 0.9
_ID = re.compile(r"\(#(\d+)\)")


@dataclass(frozen=True)
class Run:
    task_id: int
    trial: int
    reward: float
    contact: str
    task: str
    tool_calls: tuple[dict[str, Any], ...]

    def failures(self) -> list[dict[str, Any]]:
        return [call for call in self.tool_calls if not call.get("ok", True)]


def load(path: Path = DATA) -> list[Run]:
    runs = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        try:
            raw = json.loads(line)
            runs.append(
                Run(int(raw["task_id"]), int(raw["trial"]), float(raw["reward"]),
                    str(raw["contact"]), str(raw["task"]), tuple(raw["tool_calls"]))
            )  # fmt: skip
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{number}: not a run ({exc})") from exc
    return runs


@dataclass
class Measured:
    pairs: int = 0
    hits: int = 0
    misses: list[str] = field(default_factory=list)
    fates: Counter[str] = field(default_factory=Counter)
    titles: Counter[str] = field(default_factory=Counter)
    lessons: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.hits / self.pairs if self.pairs else 0.0


def _key(call: dict[str, Any]) -> str:
    from digest.fingerprint import tool_key

    return tool_key(str(call["tool"]), str(call["error"]))


def _teaching(events: dict[int, int], runs: list[Run]) -> dict[tuple[int, str], int | None]:
    """Per (event id, error family) of a failing call: the active lesson teaching it."""
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import Lesson, LessonEvidence

    with session_scope() as session:
        active = {
            lesson.id: (lesson.fingerprint, lesson.correction.casefold())
            for lesson in session.scalars(select(Lesson).where(Lesson.status == "active"))
        }
        cited: dict[int, list[int]] = defaultdict(list)
        for event_id, lesson_id in session.execute(
            select(LessonEvidence.event_id, LessonEvidence.lesson_id)
        ):
            if lesson_id in active:
                cited[event_id].append(lesson_id)
    found: dict[tuple[int, str], int | None] = {}
    for index, event_id in events.items():
        for call in runs[index].failures():
            lessons = ((i, *active[i]) for i in cited[event_id])
            found[(event_id, _key(call))] = teacher(str(call["tool"]), str(call["error"]), lessons)
    return found


def play(runs: list[Run], *, outcome: str, release: str) -> Measured:
    """Record the runs trial by trial on the configured database, reading pitfalls of each
    run's first message before its trial is recorded."""
    import digest
    from digest.lessons.hits import flush_hits
    from digest.pipeline import drain
    from digest.tenants import set_tenant

    tenant = f"tau-{uuid.uuid4().hex[:8]}"
    if release == "relaxed":
        set_tenant(tenant, frequency_gate=1, independent_spread_s=0)
    measured = Measured()
    events: dict[int, int] = {}  # run's index -> event id
    for trial in sorted({run.trial for run in runs}):
        now = [i for i, run in enumerate(runs) if run.trial == trial]
        teaching = _teaching(events, runs)
        for index in now:
            run = runs[index]
            earlier = [
                (events[i], _key(call))
                for i, other in enumerate(runs)
                if other.task_id == run.task_id and other.trial < trial and i in events
                for call in other.failures()
            ]
            if not earlier:
                continue
            block = digest.pitfalls(tenant, AGENT, run.task, contact_id=run.contact)
            flush_hits()
            shown = {int(found) for found in _ID.findall(block)}
            for key in dict.fromkeys(key for _event, key in earlier):
                lessons = {
                    lesson
                    for e, k in earlier
                    if k == key and (lesson := teaching.get((e, k))) is not None
                }
                measured.pairs += 1
                if lessons & shown:
                    measured.hits += 1
                else:
                    held = "no active lesson" if not lessons else f"lessons {sorted(lessons)}"
                    measured.misses.append(
                        f"task {run.task_id} trial {trial}: {run.task[:70]!r} missed {key} ({held})"
                    )
        for index in now:
            run = runs[index]
            events[index] = digest.record_run(
                tenant, AGENT, task=run.task, tool_calls=list(run.tool_calls),
                outcome="success" if outcome == "reward" and run.reward >= 1 else "failure",
                contact_id=run.contact,
            )  # fmt: skip
        drain()
    _fates(measured, runs, events, _teaching(events, runs))
    _titles(measured, tenant)
    return measured


def _fates(
    measured: Measured,
    runs: list[Run],
    events: dict[int, int],
    teaching: dict[tuple[int, str], int | None],
) -> None:
    """Each recurring family's fate: one lesson, split over several, or missing; and lessons
    teaching several recurring families (merged)."""
    seen = Counter(key for run in runs for key in {_key(call) for call in run.failures()})
    recurring = {key for key, count in seen.items() if count > 1}
    lessons_of: dict[str, set[int]] = defaultdict(set)
    for (_event, key), lesson in teaching.items():
        if key in recurring and lesson is not None:
            lessons_of[key].add(lesson)
    for key in recurring:
        count = len(lessons_of[key])
        measured.fates["missing" if count == 0 else "one" if count == 1 else "split"] += 1
    families_of: dict[int, set[str]] = defaultdict(set)
    for key, ids in lessons_of.items():
        for lesson in ids:
            families_of[lesson].add(key)
    measured.fates["merged"] = sum(1 for keys in families_of.values() if len(keys) > 1)


def _titles(measured: Measured, tenant: str) -> None:
    from _quality_titles import kind_of
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import Lesson

    with session_scope() as session:
        for lesson in session.scalars(select(Lesson).where(Lesson.status == "active")):
            measured.titles[kind_of(lesson.title)] += 1
            measured.lessons.append(f"#{lesson.id} [{lesson.support_count}] {lesson.title}")


def measure_one(
    embedding: str, *, outcome: str = "reward", release: str = "relaxed", tasks: str = "all"
) -> Measured:
    """One play of the runs of ``tasks`` (``all``, ``even`` or ``odd`` task ids) on a fresh
    SQLite file with ``embedding``."""
    from digest.migrate import upgrade
    from digest.runtime import runtime

    with tempfile.TemporaryDirectory(prefix="digest-tau-") as folder:
        url = f"sqlite:///{Path(folder) / 'digest.db'}"
        saved = {k: os.environ.get(k) for k in _ENV}
        os.environ.update(
            DIGEST_DATABASE_URL=url, DIGEST_LLM_MODEL="offline/rules",
            DIGEST_EMBEDDING_MODEL=embedding,
        )  # fmt: skip
        os.environ.pop("DIGEST_BROKER_URL", None)
        try:
            runtime().reset()
            upgrade(url)
            runtime().reset()
            runs = [run for run in load() if tasks == "all" or run.task_id % 2 == PARITY[tasks]]
            return play(runs, outcome=outcome, release=release)
        finally:
            runtime().reset()
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


#: the dev half (``even``: read to find what goes wrong) and the held-out half (``odd``)
PARITY = {"even": 0, "odd": 1}
_ENV = ("DIGEST_DATABASE_URL", "DIGEST_LLM_MODEL", "DIGEST_EMBEDDING_MODEL", "DIGEST_BROKER_URL")


def _line(label: str, m: Measured) -> str:
    fates = ", ".join(f"{name} {m.fates[name]}" for name in ("one", "split", "missing", "merged"))
    titles = ", ".join(f"{name} {count}" for name, count in sorted(m.titles.items()))
    return (
        f"{label}: pitfalls {m.hits}/{m.pairs} = {m.rate:.0%}; recurring families: {fates};"
        f" active lessons {sum(m.titles.values())} ({titles})"
    )


def measure(scale: float = 1.0) -> list[Figure]:
    """For ``bench/run_all.py``: the static table (the default; the target applies to it),
    keywords only and the static table under a new tenant's release rule (reports)."""
    figures = []
    for embedding, release in (("static", "relaxed"), ("none", "relaxed"), ("static", "default")):
        m = measure_one(embedding, release=release)
        gated = (embedding, release) == ("static", "relaxed")
        label = f"{embedding}, release {release}"
        figures.append(
            Figure(BENCH, f"pitfalls shows an earlier trial's error lesson ({label})",
                   m.rate, "share", target=f">= {TARGET:.0%}" if gated else "",
                   met=m.rate >= TARGET if gated else None, note=_line(label, m))
        )  # fmt: skip
        if gated:
            recurring = sum(m.fates[f] for f in ("one", "split", "missing"))
            figures.append(
                Figure(BENCH, "recurring error families at exactly one lesson", m.fates["one"],
                       "families", target=f"= {recurring}, none merged",
                       met=m.fates["split"] == m.fates["missing"] == m.fates["merged"] == 0)
            )  # fmt: skip
    return figures


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--embedding", nargs="+", default=["static", "none"])
    parser.add_argument("--outcome", choices=("reward", "failure"), default="reward")
    parser.add_argument("--release", choices=("relaxed", "default"), default="relaxed")
    parser.add_argument(
        "--tasks",
        choices=("all", "even", "odd"),
        default="all",
        help="even task ids: the dev half; odd: the held-out half",
    )
    parser.add_argument("--report", action="store_true", help="every miss and every lesson")
    args = parser.parse_args()
    failed = False
    for embedding in args.embedding:
        m = measure_one(embedding, outcome=args.outcome, release=args.release, tasks=args.tasks)
        print(_line(f"{args.tasks} tasks, {embedding} ({args.outcome}, {args.release})", m),
              flush=True)  # fmt: skip
        if args.report:
            print(*(f"  miss: {line}" for line in m.misses), sep="\n")
            print(*(f"  lesson: {line}" for line in sorted(m.lessons)), sep="\n")
        failed |= m.rate < TARGET or bool(m.fates["split"] or m.fates["missing"])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
