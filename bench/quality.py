"""Benchmark: is the lesson bank right? Ground-truth streams by class (issue 24, point 6).

    .venv/bin/python bench/quality.py [--judge offline|remote|oracle|both|all]
                                      [--split dev|held-out|both]
                                      [--class CLASS ...] [--file STEM ...]
                                      [--embedding static|local|none] [--report] [--titles]

The cases (``bench/data/quality/<split>/<class>.jsonl``, ``bench/_quality_cases.py``) are short
scripted streams, one agent each, with what a right bank holds afterwards: which events end as
ONE lesson, which stay apart, which lesson supersedes which. Classes: ``contradiction`` (a
tool's API changed, worded in several languages; an owner reversing an answer; and look-alikes
that reverse nothing), ``two_rules`` (operator edits that teach a tone rule and a content rule
at once; edits sharing a diff shape with different content), ``alike_facts`` (distinct owner
facts that read alike), ``paraphrase`` (the same failure with other ids, the same question
reworded), ``transient`` (timeouts, 429, 503: nothing learned; and errors that only mention a
timeout), ``multi_error`` (tool-using agents' runs in the style of tau-bench's retail and
airline domains: several tool errors per run, recurring error families). No dataset can be
downloaded here: every case was written for this benchmark, realistic but not real. The
``held-out`` split was written with ``dev``, by the same hand, and is only measured. A class
may have more files (``<class>_<tag>.jsonl``, e.g. ``two_rules_fresh``): each is reported on
a row of its own (a record of such a file may name another class: the look-alikes a set keeps
apart, on a row ``<stem> (<class>)``), and ``--file`` plays only the files named.

Each case's stream goes through the one reflect core two ways (``bench/_quality_play.py``):
``offline/rules`` in process (``drain`` after each capture, the embedded mode) and a remote
stand-in, a real worker process judging with ``openai/loopback``, an OpenAI-compatible server
answering every request with the offline rules over HTTP (an oracle is not allowed to peek:
the stand-in's reconcile answers know nothing the ground truth says). ``--judge oracle`` is a
CEILING measurement, not a judge: the same worker path with ``bench/_oracle.py``'s oracle on the
loopback, a model that PEEKS at each case's ground truth and answers rightly whenever it is
asked; a case it leaves wrong is wrong because of the structure around the model (neighbours
not shown, a fast path that decided without asking, an answer refused when applied, a trust or
release rule), which no better model fixes (``both``: offline and remote; ``all``: the three;
``measure()`` runs offline and remote only). Each judge gets a fresh
PostgreSQL database. Grading (``bench/_quality_verdict.py``) reads the bank back: right, merged,
split, kept both (a reversal that did not supersede, and no held lesson waits to replace it),
superseded wrongly, and the rest; a reversal of a released lesson that one run reported waits,
held, to replace it (the release rule) and is counted apart as held.

Then a stream where half the events repeat an earlier one with other ids (the stream of
``bench/llm_calls.py``: ``_stream.make_stream(repeats="other_ids")``, one agent, seed 101, here
on an empty bank) goes through each judge with every contradiction case of both splits played
beside it: model calls and prompt tokens per event of the stream (target at most 0.5 calls per
event), and whether the judge was asked about every contradiction candidate (the reversing
event's ``digest_runs`` row: candidates written minus those the fast path decided).

Redis: the worker uses ``DIGEST_BENCH_REDIS`` (default ``redis://127.0.0.1:6379/7``), which it
flushes after; point it at a database of your own. ``--report`` lists every wrong case with
what was found. ``--titles`` adds, for multi-error files, the kinds of the active lessons'
titles (a generic fallback, or a remedy naming the error's precondition or argument) and how
many rules (recurring error families) ended at one lesson, split, merged or missing
(``bench/_quality_titles.py``; with ``--report``, every title). The exit status is 1 when a
case of a class run is wrong.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

import _quality_titles as titles  # noqa: E402
from _quality_cases import CLASSES, SPLITS, Case, class_of, load  # noqa: E402
from _quality_play import Script, Step  # noqa: E402
from _quality_verdict import Graded, grade  # noqa: E402
from _report import Figure  # noqa: E402
from _scratch import ADMIN_URL  # noqa: E402

BENCH = "lesson quality"
JUDGES = ("offline", "remote", "oracle")
#: what ``--judge`` names: one judge, or several
CHOICES = {**{j: (j,) for j in JUDGES}, "both": ("offline", "remote"), "all": JUDGES}
LABELS = {
    "offline": "offline/rules in process",
    "remote": "remote stand-in, worker",
    "oracle": "oracle (CEILING: peeks at the ground truth), worker",
}
TENANT = "quality"
STREAM_TENANT = "stream"
#: the half-repeats stream's agents are named with this prefix (the cases' with "q:")
STREAM_AGENT = "repeats-"
CALLS_TARGET = 0.5
MEM0_CALLS = 2.0
#: the stream of bench/llm_calls.py (its STREAM_SEED)
STREAM_SEED = 101
#: the columns of a summary row, after the case count: verdicts shown apart, the rest "other"
SHOWN = ("right", "merged", "split", "kept both", "superseded wrongly")


@dataclass(frozen=True)
class StreamCost:
    """The half-repeats stream's cost, and the contradiction cases played beside it."""

    events: int
    calls: int
    prompt_tokens: int
    repeats: int
    #: events of the stream whose reconcile asked the model (a call each)
    reconciled: int
    #: the contradiction cases' events and calls, played in the same stream
    case_events: int
    case_calls: int
    reversals: int
    asked: int
    requests: dict[str, int] = field(default_factory=dict)

    @property
    def per_event(self) -> float:
        return self.calls / self.events if self.events else 0.0


@dataclass(frozen=True)
class JudgeRun:
    judge: str
    graded: list[Graded]
    stream: StreamCost | None


def _stream_scripts(n: int) -> tuple[list[Script], int]:
    """The half-repeats stream (one agent) as scripts, and how many of it are repeats."""
    from _stream import make_stream

    events = make_stream(n, 1, seed=STREAM_SEED, repeats="other_ids")
    by_agent: dict[str, list[Step]] = {}
    for i, event in enumerate(events):
        by_agent.setdefault(event.agent, []).append(Step(f"stream:{i}", event.kind, event.fields))
    scripts = [Script(STREAM_TENANT, f"{STREAM_AGENT}{a}", tuple(s)) for a, s in by_agent.items()]
    return scripts, sum(e.repeat_of is not None for e in events)


def run_judge(
    judge: str,
    cases: list[Case],
    *,
    embedding: str = "static",
    stream_events: int = 0,
    admin_url: str = ADMIN_URL,
    burst: bool = False,
    workers: int = 1,
) -> JudgeRun:
    """Play ``cases`` through ``judge`` on a fresh database and grade what they left; then,
    with ``stream_events``, the half-repeats stream with every contradiction case of both
    splits beside it."""
    from _quality_play import case_script, in_process, observe, stream_cost, through_worker
    from _scratch import scratch_database

    with scratch_database(admin_url) as url, ExitStack() as stack:
        if judge == "offline":
            play = partial(in_process, url, embedding=embedding)
        else:
            answerer = None
            if judge == "oracle":
                from _oracle import Oracle

                known = {c.key: c for c in cases}
                known.update({c.key: c for s in SPLITS for c in load(s, ("contradiction",))})
                answerer = Oracle(list(known.values())).answer
            remote = stack.enter_context(
                through_worker(url, embedding, answerer, burst=burst, workers=workers)
            )
            play = remote.play
        play([case_script(TENANT, case) for case in cases])
        graded = [grade(case, observe(url, TENANT, case)) for case in cases]
        if not stream_events:
            return JudgeRun(judge, graded, None)
        contradictions = [c for split in SPLITS for c in load(split, ("contradiction",))]
        scripts, repeats = _stream_scripts(stream_events)
        before = remote.loop.kinds() if judge != "offline" else {}
        play(scripts + [case_script(STREAM_TENANT, c) for c in contradictions])
        after = remote.loop.kinds() if judge != "offline" else {}
        asked = [grade(c, observe(url, STREAM_TENANT, c)) for c in contradictions]
        events, calls, tokens, reconciled = stream_cost(url, STREAM_TENANT, STREAM_AGENT)
        stream = StreamCost(
            events, calls, tokens, repeats, reconciled, sum(g.events for g in asked),
            sum(g.calls for g in asked), sum(g.reversals for g in asked),
            sum(g.asked for g in asked), {k: v - before.get(k, 0) for k, v in after.items()},
        )  # fmt: skip
    return JudgeRun(judge, graded, stream)


def summary(graded: list[Graded]) -> dict[str, float]:
    """Counts for a group of graded cases: cases, each verdict, other, superseded and
    reversals, asked, events, calls and tokens."""
    verdicts = Counter(g.verdict for g in graded)
    row: dict[str, float] = {"cases": len(graded), **{k: verdicts[k] for k in SHOWN}}
    row["other"] = len(graded) - sum(verdicts[k] for k in SHOWN)
    for name in (
        "superseded", "waiting", "reversals", "asked", "events", "calls", "prompt_tokens",
    ):  # fmt: skip
        row[name] = sum(getattr(g, name) for g in graded)
    return row


def _groups(run: JudgeRun) -> list[tuple[str, str, list[Graded]]]:
    """(split, row, graded cases): a class's own file, then its tagged files; a tagged file's
    records of another class on rows of their own (``<stem> (<class>)``)."""
    rows = list(dict.fromkeys((g.case.source, g.case.cls) for g in run.graded))
    return [
        (split, source if class_of(source) == cls else f"{source} ({cls})", found)
        for split in SPLITS
        for source, cls in rows
        if (
            found := [
                g
                for g in run.graded
                if g.case.split == split and (g.case.source, g.case.cls) == (source, cls)
            ]
        )
    ]


def table(run: JudgeRun) -> str:
    head = ("split", "class", "cases", *SHOWN, "other", "superseded", "asked", "calls/ev", "tok/ev")
    lines = [" | ".join(head)]
    for split, cls, found in _groups(run):
        r = summary(found)
        lines.append(" | ".join([
            split, cls, *(f"{r[k]:.0f}" for k in ("cases", *SHOWN, "other")),
            f"{r['superseded']:.0f}/{r['reversals']:.0f}"
            + (f" (+{r['waiting']:.0f} held)" if r["waiting"] else ""),
            f"{r['asked']:.0f}/{r['reversals']:.0f}",
            f"{r['calls'] / r['events']:.2f}", f"{r['prompt_tokens'] / r['events']:.0f}",
        ]))  # fmt: skip
    return "\n".join(lines)


def wrong(run: JudgeRun) -> str:
    out = []
    for g in run.graded:
        if g.verdict != "right":
            out.append(f"  {g.case.key}: {g.verdict}")
            out += [f"      {kind}: {text}" for kind, text in g.findings]
    return "\n".join(out) or "  (none)"


def figures(run: JudgeRun) -> list[Figure]:
    label = LABELS[run.judge]
    found: list[Figure] = []
    for split, cls, graded in _groups(run):
        r = summary(graded)
        others = Counter(g.verdict for g in graded if g.verdict not in SHOWN)
        note = (
            f"{r['right']:.0f} of {r['cases']:.0f} right; merged {r['merged']:.0f}, split "
            f"{r['split']:.0f}, kept both {r['kept both']:.0f}, superseded wrongly "
            f"{r['superseded wrongly']:.0f}"
            + "".join(f", {k} {v}" for k, v in sorted(others.items()))
            + f"; {r['calls'] / r['events']:.2f} model calls and "
            f"{r['prompt_tokens'] / r['events']:.0f} prompt tokens per event"
        )
        if r["reversals"]:
            note += (
                f"; superseded {r['superseded']:.0f} of {r['reversals']:.0f} reversals"
                + (
                    f" ({r['waiting']:.0f} more held to replace a released lesson once a"
                    " second source reports it)"
                    if r["waiting"]
                    else ""
                )
                + f", the judge asked about {r['asked']:.0f}"
            )
        share = 100 * r["right"] / r["cases"]
        found.append(
            Figure(
                BENCH,
                f"{cls}, {split}: cases right ({label})",
                share,
                "%",
                target="100%",
                met=r["right"] == r["cases"],
                note=note,
            )
        )
    s = run.stream
    if s is not None:
        kinds = ", ".join(f"{v} {k}" for k, v in sorted(s.requests.items()))
        both = (s.calls + s.case_calls) / (s.events + s.case_events)
        found += [
            Figure(
                BENCH, f"model calls/event, half the stream repeats ({label})", s.per_event,
                "calls/event", floor_name="Mem0 classic add (extract + update)",
                floor=MEM0_CALLS, target=f"<= {CALLS_TARGET}", met=s.per_event <= CALLS_TARGET,
                note=(
                    f"{s.events} events of one agent (bench/llm_calls.py's stream, on an empty"
                    f" bank), {s.repeats} repeating an earlier one with other ids: about"
                    f" {s.calls - s.reconciled} reflect and {s.reconciled} reconcile calls;"
                    f" {s.prompt_tokens / s.events:.0f} prompt tokens per event;"
                    f" with the {s.case_events} events of every contradiction case (both splits)"
                    f" played beside them, {both:.2f} calls per event"
                    + (f"; the loopback served {kinds}" if kinds else "")
                ),
            ),
            Figure(
                BENCH, f"contradiction candidates the judge was asked about ({label})",
                100 * s.asked / s.reversals if s.reversals else 100.0, "%", target="100%",
                met=s.asked == s.reversals,
                note=(
                    f"{s.asked} of {s.reversals} reversing events (every contradiction case of"
                    " both splits, played beside the stream) had a candidate reach reconcile's"
                    " model call (digest_runs: candidates written minus fast-path decisions)"
                ),
            ),
        ]  # fmt: skip
    return found


def measure(scale: float = 1.0) -> list[Figure]:
    """Both judges, both splits, every class, and the half-repeats stream (``scale`` sizes
    the stream only: the cases are fixed)."""
    cases = [c for split in SPLITS for c in load(split)]
    stream = max(40, int(200 * scale))
    found: list[Figure] = []
    for judge in CHOICES["both"]:
        found += figures(run_judge(judge, cases, stream_events=stream))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--judge", choices=list(CHOICES), default="both")
    parser.add_argument("--split", choices=[*SPLITS, "both"], default="both")
    parser.add_argument("--class", dest="classes", nargs="*", choices=CLASSES, default=None)
    parser.add_argument(
        "--file",
        dest="files",
        nargs="*",
        default=None,
        metavar="STEM",
        help="only these data files (stems such as two_rules_fresh)",
    )
    parser.add_argument(
        "--embedding",
        choices=("static", "local", "none"),
        default="static",
        help="DIGEST_EMBEDDING_MODEL for the judged runs (static: the product's default)",
    )
    parser.add_argument("--stream", type=int, default=200, help="events in the repeats stream")
    parser.add_argument("--report", action="store_true", help="list every wrong case")
    parser.add_argument(
        "--burst",
        action="store_true",
        help="through a worker: capture each case's events at once, then wait for them "
        "(not one at a time)",
    )
    parser.add_argument(
        "--workers", type=int, default=1, help="worker processes on the one queue (not offline)"
    )
    parser.add_argument(
        "--titles",
        action="store_true",
        help="multi-error files: the kinds of the lessons' titles and the rules' fates",
    )
    args = parser.parse_args(argv)
    from digest.logs import configure_logging

    configure_logging("WARNING", json=False)
    splits = SPLITS if args.split == "both" else (args.split,)
    classes = tuple(args.classes or CLASSES)
    files = tuple(args.files) if args.files else None
    cases = [c for split in splits for c in load(split, classes, files)]
    ok = True
    for judge in CHOICES[args.judge]:
        run = run_judge(
            judge, cases, embedding=args.embedding, stream_events=args.stream,
            burst=args.burst, workers=args.workers,
        )  # fmt: skip
        print(f"\n== {LABELS[judge]} (embedding {args.embedding})\n{table(run)}", flush=True)
        for f in figures(replace(run, graded=[])):
            print(f"{f.name} = {f.value:.2f} {f.unit}  met={f.met}\n    {f.note}")
        if args.titles:
            print(f"titles and families (bench/_quality_titles.py):\n{titles.table(_groups(run))}")
        if args.report:
            print(f"wrong cases:\n{wrong(run)}")
            if args.titles:
                print(f"titles:\n{titles.listing(run.graded)}")
        ok = ok and all(g.verdict == "right" for g in run.graded)
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
