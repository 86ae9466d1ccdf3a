"""The worker-RSS verdict of ``bench/throughput.py`` (Benchmark 6): each sample's RSS net of
the kept indexes, warm-up (a child's bounded memories and the first compose round, measured
where the children report it), and the least-squares slope after it. Pure arithmetic on the
samples a run took (what they are, and why the verdict reads them so: ``throughput``'s
docstring)."""

from __future__ import annotations

import sys

from _report import Figure

#: the stream's agents: a compose round is one compose run of each
AGENTS = 20
#: what a kept lesson costs a worker process in its kept indexes (``AgentIndex.nbytes`` per
#: entry, 1.4-1.5 KB measured in a worker child by ``--trace-memory``, bench/RESULTS.md):
#: every prefork child keeps every agent's index, so each grows by this per active lesson
KEPT_KB_PER_LESSON = 1.45
#: "flat": MB per 1,000 events below which a slope is no growth trend: 1 MB over 10,000 events
#: (a child's RSS moves by a few tenths of a MB between samples as its heap is trimmed)
FLAT_MB_PER_1K = 0.1
#: a worker child's events until its bounded memories are full at the defaults (the census,
#: ``--trace-memory``: 11 of the 17 byte-bounded memories in use full by a child's ~4,500th
#: event; the screen's reasons and the error templates last, at about its 4,500th)
WARMUP_EVENTS_PER_CHILD = 5_000
#: the shortest window after warm-up the verdict is read on: a child's allocator slack moves
#: by 0.5-2.5 MB over thousands of events (bench/RESULTS.md, tput9), 0.05-0.25 per 1,000 over
#: 10,000 events: about the target's size below that
WINDOW_MIN_EVENTS = 10_000
#: what a child's byte-bounded memories may still gain once the verdict's window has started
#: (``memories_filled``): over the window's ``WINDOW_MIN_EVENTS`` or more, at most a quarter of
#: ``FLAT_MB_PER_1K``
FILL_LEFT_MB = 0.25


def slope_mb_per_1k(samples: list[tuple[float, int, list[float]]]) -> float:
    """Least-squares slope of the largest process's RSS against events finished, per 1,000."""
    points = [(float(done), max(rss)) for _, done, rss in samples if rss and done > 0]
    if len(points) < 3:
        return 0.0
    n = len(points)
    mx = sum(x for x, _ in points) / n
    my = sum(y for _, y in points) / n
    var = sum((x - mx) ** 2 for x, _ in points)
    if var == 0:
        return 0.0
    return 1000 * sum((x - mx) * (y - my) for x, y in points) / var


def net_of_kept(
    samples: list[tuple[float, int, list[float]]],
    lessons: list[tuple[int, int]],
    kept: list[list[float]] | None = None,
) -> list[tuple[float, int, list[float]]]:
    """Each sample's largest RSS less what the kept indexes hold at that moment: the worker's
    memory beside the bank's data. Measured when ``kept`` is given (each process's own kept
    MB, reported by it with ``bench/_kept_bytes.py``, aligned with the sample's RSS: the
    largest of each process's RSS less its own kept MB); else estimated from the active
    lessons counted in the same sample x ``KEPT_KB_PER_LESSON``. ``samples``, ``lessons`` and
    ``kept`` are taken together, one of each a second."""
    if len(samples) != len(lessons):
        raise ValueError(f"{len(samples)} RSS samples but {len(lessons)} lesson counts")
    if kept:
        if len(kept) != len(samples):
            raise ValueError(f"{len(samples)} RSS samples but {len(kept)} kept-bytes samples")
        return [
            (t, done, [max(r - k for r, k in zip(rss, mb, strict=True))] if rss else [])
            for (t, done, rss), mb in zip(samples, kept, strict=True)
        ]
    return [
        (t, done, [max(rss) - active * KEPT_KB_PER_LESSON / 1024] if rss else [])
        for (t, done, rss), (_, active) in zip(samples, lessons, strict=True)
    ]


def memories_filled(
    samples: list[tuple[float, int, list[float]]], held: list[list[float]]
) -> tuple[int, str] | None:
    """The events finished from which no process's byte-bounded memories gain more than
    ``FILL_LEFT_MB`` to the run's end (its held MB at a sample against the most it holds at
    any later sample), and what they held then and at the end; None when no process reported
    any (``held``: each sample's MB per process, aligned with ``samples``' RSS, from
    ``bench/_kept_bytes.py``). Read on the run's end: a bound is not a level (the replay's
    facts, for one, hold each agent's last window, far below their byte bound)."""
    if len(held) != len(samples):
        raise ValueError(f"{len(samples)} RSS samples but {len(held)} bounded-memory samples")
    if not any(any(h) for h in held):
        return None
    start = 0
    for position in range(max(len(h) for h in held)):
        most = float("-inf")
        for at in range(len(held) - 1, -1, -1):
            if position >= len(held[at]):
                continue
            most = max(most, held[at][position])
            if most - held[at][position] > FILL_LEFT_MB:
                start = max(start, at + 1)
                break
    start = min(start, len(samples) - 1)
    first, last = max(held[start] or [0.0]), max(held[-1] or [0.0])
    return samples[start][1], f"bounded memories {first:.1f} -> {last:.1f} MB from there"


def warm_up_end(
    composes: list[tuple[int, int]], children: int, filled: tuple[int, str] | None = None
) -> tuple[int, str]:
    """``_warm_up_end``, or later the events at which the processes' byte-bounded memories
    stopped filling (``filled``, from ``memories_filled``: measured, where the other two
    rules are a census's estimate and a compose round)."""
    start, why = _warm_up_end(composes, children)
    if filled is not None and filled[0] > start:
        return filled[0], f"the bounded memories stopped filling ({filled[1]})"
    return start, why


def _warm_up_end(composes: list[tuple[int, int]], children: int) -> tuple[int, str]:
    """The events finished at which warm-up ends, and why: each child's
    ``WARMUP_EVENTS_PER_CHILD``-th event (its bounded memories full), or later the first
    sample at which ``AGENTS`` compose runs had finished (the first compose round, whose replay
    fills the replay's memories). A run in which no compose ran does not hold that step (with
    ``--compose-every 0`` the agents compose after a quiet period that starts when capture
    ends: on a fast host, after the run); one whose first round was under way at its end holds
    it in any window (``sys.maxsize``: no window). With the bench's rounds at fixed marks the
    first finishes soon after ``COMPOSE_EVERY`` events, before a child's 5,000th event; the
    replay's facts fill further until each child has composed every agent (three or four
    rounds at scale 3.0, bench/RESULTS.md, tput12): ``warm_up_end`` waits for them when the
    children report them."""
    memories = WARMUP_EVENTS_PER_CHILD * children
    child = f"a child's {WARMUP_EVENTS_PER_CHILD:,}th event ({children} children)"
    runs = composes[-1][1] if composes else 0
    if runs == 0:
        return memories, f"{child}; no compose ran (its replay's memories are not in the run)"
    composed = next((done for done, n in composes if n >= AGENTS), None)
    if composed is None:
        return sys.maxsize, f"the first compose round under way at the end ({runs} of {AGENTS})"
    if composed > memories:
        return composed, f"{AGENTS} compose runs finished at {composed:,} events"
    return memories, child


def net_slope_figures(
    samples: list[tuple[float, int, list[float]]],
    lessons: list[tuple[int, int]],
    composes: list[tuple[int, int]],
    children: int,
    kept: list[list[float]] | None = None,
    held: list[list[float]] | None = None,
) -> list[Figure]:
    """RSS slopes net of the kept indexes (``net_of_kept``): over the whole run (a report), and
    the verdict: over the samples after warm-up (``warm_up_end``, with ``held``: until the
    bounded memories stopped filling), target flat, given when that window holds
    ``WINDOW_MIN_EVENTS`` events (else ``met`` is None and the note says why); its note gives
    the slope from the warm-up the bench assumed before it measured the memories too. Beside
    the raw slopes, never instead of them."""
    net = [s for s in net_of_kept(samples, lessons, kept) if s[2]]
    if len(net) < 3:
        return []
    finished = max(done for _, done, _ in net)
    raw = max(samples[-1][2] or [0.0]) - max(next(s[2] for s in samples if s[2]))
    if kept:
        grown = max(kept[-1] or [0.0]) - max(kept[0] or [0.0])
        note = (
            f"{lessons[0][1]} -> {lessons[-1][1]} active lessons; each process's kept indexes"
            f" measured with each sample (AgentIndex.nbytes, near words and overlays included),"
            f" the largest {max(kept[0] or [0.0]):.1f} -> {max(kept[-1] or [0.0]):.1f} MB:"
            f" {grown:+.1f} MB of the run's {raw:+.1f} MB; the rest is warm-up and anything"
            f" unbounded"
        )
    else:
        grown = (lessons[-1][1] - lessons[0][1]) * KEPT_KB_PER_LESSON / 1024
        note = (
            f"{lessons[0][1]} -> {lessons[-1][1]} active lessons counted with each sample, x "
            f"{KEPT_KB_PER_LESSON} KB each (estimated: no process reported its kept bytes):"
            f" {grown:.1f} MB of the run's {raw:+.1f} MB; the rest is warm-up and anything"
            f" unbounded"
        )
    filled = memories_filled(samples, held) if held else None
    start, why = warm_up_end(composes, children, filled)
    assumed, _ = warm_up_end(composes, children)
    before = [s for s in net if s[1] >= assumed]
    if filled is not None and start > assumed and len(before) >= 3:
        why += f"; from {assumed:,} (not waiting for them) {slope_mb_per_1k(before):.2f}"
    window = [s for s in net if s[1] >= start]
    span = finished - start if window else 0
    slope = slope_mb_per_1k(window) if len(window) >= 3 else float("nan")
    runs = composes[-1][1] if composes else 0
    first = next((done for done, n in composes if n), None)
    composed = f"{runs} compose runs, the first by {first:,} events" if first else "no compose"
    if span >= WINDOW_MIN_EVENTS and len(window) >= 3:
        met: bool | None = slope < FLAT_MB_PER_1K
        verdict = f"from {start:,} to {finished:,} events; warm-up: {why}; {composed}"
    else:
        met = None
        ends = "never" if start == sys.maxsize else f"{start:,}"
        verdict = (
            f"no verdict (nan: no window): warm-up ends at {ends} ({why}), leaving {span:,} of"
            f" the {WINDOW_MIN_EVENTS:,} events the verdict needs after it: run --scale 5.0 or"
            f" more; {composed}"
        )
    return [
        Figure(
            "worker RSS", "RSS slope net of the kept indexes' growth", slope_mb_per_1k(net),
            "MB per 1,000 events", note=note + "; whole run, warm-up included: not a target",
        ),
        Figure(
            "worker RSS", "RSS slope after warm-up, net of the kept indexes", slope,
            "MB per 1,000 events", target=f"flat (< {FLAT_MB_PER_1K})", met=met, note=verdict,
        ),
    ]  # fmt: skip
