"""Where a Celery worker child's memory goes, for the pipeline benchmarks (issue 27 point 4).

Opt-in: ``bench/throughput.py --trace-memory DIR`` starts the worker with ``BENCH_MEMORY_TRACE
= DIR`` (not ``DIGEST_*``: the worker would warn about a setting it does not know), and the
benchmark process writes the number of events finished to ``DIR/done`` at each sample. Each
prefork child, after each task, reads that number; at each 1,000 events it appends a line to
``DIR/<pid>.jsonl``: its RSS, glibc's heap in use and free (``mallinfo2``), pymalloc's live
blocks and its arenas (held, and the bytes live in them), the RSS of the brk heap and of all
anonymous memory, what tracemalloc holds, the objects the collector tracks by type (the largest
counts), and the size of every memory it keeps: each piece of ``digest.runtime`` and every
bounded memo or ``lru_cache`` at the module level of ``digest`` and ``worker`` (entries and,
where it weighs them, bytes), SQLAlchemy's compiled statements. tracemalloc (``FRAMES`` frames)
starts at ``BENCH_MEMORY_TRACE_FROM`` events (default 4,000: tracing slows the child) and a
snapshot is dumped at each mark of ``BENCH_MEMORY_TRACE_AT`` (default ``5000,10000,20000``) to
``DIR/<pid>-<mark>.snap``; ``report(DIR)`` prints the growth between the first and the last
snapshot of each child by traceback and by file, and the sizes at the first and last line.
At each mark the report also prints the kept indexes' MB and how full the byte-bounded
memories are: the MB they hold of their bounds, and how many of those in use are full (at 90%
of their entry or byte bound): past the mark where that count stops rising, what a child still
gains is the bank (the kept indexes) or something no bound holds.

The marks are the run's events finished (both children's), read after the child's own task:
a mark is taken by a child at its first task end past it. Tracing costs CPU and memory (its
own, counted in RSS): a traced run's events/s, CPU and RSS are not the benchmark's figures.
``BENCH_MEMORY_TRACE_FROM=1000000000`` takes the census alone (no tracemalloc: a run at about
the benchmark's pace, the census's collections aside).

The report splits each child's RSS growth between data live in the allocators (pymalloc's live
bytes and glibc's heap in use: what the process keeps) and what the allocators hold free
(pymalloc's arenas beyond their live bytes, glibc's free heap after the trim: fragmentation,
which allocator settings could change and a memory's bound cannot).
"""

from __future__ import annotations

import ctypes
import gc
import json
import os
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Any, ClassVar

ENV = "BENCH_MEMORY_TRACE"
FROM_ENV = "BENCH_MEMORY_TRACE_FROM"
AT_ENV = "BENCH_MEMORY_TRACE_AT"
FRAMES = 12
KEPT = "kept indexes (AgentIndex.nbytes)"
PAGE = os.sysconf("SC_PAGE_SIZE")


class _State:
    folder: Path | None = None
    start_at = 4000
    marks: tuple[int, ...] = (5000, 10000, 20000)
    next_line = 1000
    snapped: ClassVar[set[int]] = set()


def note_done(folder: Path, done: int) -> None:
    """The benchmark's side: the events finished so far, for the children to read."""
    tmp = folder / "done.tmp"
    tmp.write_text(str(done))
    tmp.replace(folder / "done")


def _done() -> int:
    assert _State.folder is not None
    try:
        return int((_State.folder / "done").read_text() or 0)
    except (OSError, ValueError):
        return 0


def _rss_mb() -> float:
    with open(f"/proc/{os.getpid()}/statm") as f:
        return int(f.read().split()[1]) * PAGE / 2**20


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
            "uordblks", "fordblks", "keepcost",
        )
    ]  # fmt: skip


def _mallinfo() -> dict[str, float]:
    try:
        libc = ctypes.CDLL("libc.so.6")
        libc.mallinfo2.restype = _Mallinfo2
        info = libc.mallinfo2()
    except (OSError, AttributeError):
        return {}
    return {
        "heap_in_use_mb": info.uordblks / 2**20,
        "heap_free_mb": info.fordblks / 2**20,
        "mmapped_mb": info.hblkhd / 2**20,
    }


def _pymalloc() -> dict[str, float]:
    """pymalloc's arenas (``sys._debugmallocstats``, which writes to the C stderr): arenas
    held, bytes in live blocks, and what the held arenas keep beyond them (free blocks, free
    pools, headers): a fragmentation that no trim returns, since an arena goes back to the
    system only when all of it is free."""
    import tempfile

    with tempfile.TemporaryFile() as out:
        sys.stderr.flush()
        saved = os.dup(2)
        try:
            os.dup2(out.fileno(), 2)
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        text = out.read().decode(errors="replace")
    found: dict[str, float] = {}
    for raw in text.splitlines():
        name, _, value = raw.partition("=")
        key = {
            "# arenas allocated current": "pymalloc_arenas",
            "# bytes in allocated blocks": "pymalloc_live_mb",
        }.get(name.strip())
        if key is not None:
            number = float(value.replace(",", "").strip())
            found[key] = number if key == "pymalloc_arenas" else number / 2**20
    return found


def _smaps() -> dict[str, float]:
    """Resident MB of the process's brk heap (glibc's main arena) and of all its anonymous
    memory (pymalloc's arenas, glibc's other arenas and mmapped chunks, numpy's buffers)."""
    heap = 0
    current = ""
    try:
        with open("/proc/self/smaps") as f:
            for raw in f:
                if not raw[0].isupper() or ":" not in raw.split()[0]:
                    current = raw.split()[-1] if len(raw.split()) > 5 else ""
                elif raw.startswith("Rss:") and current == "[heap]":
                    heap += int(raw.split()[1])
        with open("/proc/self/smaps_rollup") as f:
            anon = next(int(x.split()[1]) for x in f if x.startswith("Anonymous:"))
    except (OSError, StopIteration):
        return {}
    return {"brk_heap_rss_mb": heap / 1024, "anonymous_mb": anon / 1024}


def _memories() -> dict[str, list[float]]:
    """Every memory the process keeps that code of ``digest``/``worker`` names: name →
    [entries, bytes (-1: not weighed), and hits, misses, its bounds (entries, bytes) where it
    counts them]."""
    from digest.bounded import BytesLRU, approx_bytes
    from digest.runtime import runtime

    found: dict[str, list[float]] = {}
    for name, module in list(sys.modules.items()):
        if not name.startswith(("digest", "worker")) or module is None:
            continue
        for attr, value in list(vars(module).items()):
            if attr.startswith("__"):
                continue
            where = f"{name}.{attr}"
            if getattr(value, "__module__", name) != name:
                continue  # imported from elsewhere: counted where it is defined
            if hasattr(value, "memo_info"):
                info = value.memo_info()
                found[where] = [
                    info.entries, info.nbytes, info.hits, info.misses, info.max_entries,
                    info.max_bytes,
                ]  # fmt: skip
            elif hasattr(value, "cache_info") and callable(value.cache_info):
                cached = value.cache_info()
                found[where] = [cached.currsize, -1, cached.hits, cached.misses]
            elif isinstance(value, BytesLRU):
                found[where] = [
                    len(value), value.nbytes, value.hits, value.misses, value.max_entries,
                    value.max_bytes,
                ]  # fmt: skip
            elif isinstance(value, dict | set | list) and len(value) > 64:
                found[where] = [len(value), approx_bytes(value)]
    pieces = getattr(runtime(), "_pieces", {})
    for factory, piece in list(pieces.items()):
        where = f"runtime:{factory.__module__}.{factory.__qualname__}"
        nbytes = getattr(piece, "nbytes", None)
        if callable(getattr(piece, "census", None)):  # a bounded memory that counts itself
            found[where] = list(piece.census())
            continue
        if "engine" in where.lower() or "session" in where.lower():
            found[where] = [len(piece) if hasattr(piece, "__len__") else 1, -1]
            continue
        found[where] = [
            len(piece) if hasattr(piece, "__len__") else 1,
            nbytes if isinstance(nbytes, int) else approx_bytes(piece),
        ]
        held = [piece] if isinstance(piece, BytesLRU) else [
            v for v in getattr(piece, "__dict__", {}).values() if isinstance(v, BytesLRU)
        ]  # fmt: skip
        if held:  # a bounded memory, or an object holding some: their counts and bounds
            found[where] += [
                sum(x.hits for x in held), sum(x.misses for x in held),
                sum(x.max_entries for x in held), sum(x.max_bytes for x in held),
            ]  # fmt: skip
    try:
        from digest.lessons.bank import kept_sizes

        entries, held = kept_sizes()
        found[KEPT] = [entries, held]
    except ImportError:
        pass
    try:
        from digest.identity.wordpiece import default_tokenizer

        info = default_tokenizer()._word_ids.cache_info()  # type: ignore[attr-defined]
        found["wordpiece word ids"] = [info.currsize, -1]
    except (ImportError, AttributeError):
        pass
    from digest.db import Engines

    made = runtime().peek(Engines)
    engines = [e for e, _ in made.by_url.values()] + list(made.autocommit.values()) if made else []
    for number, engine in enumerate(engines):
        cache = getattr(engine, "_compiled_cache", None)
        found[f"sqlalchemy compiled statements, engine {number}"] = [len(cache or ()), -1]
    return found


def _types(top: int = 25) -> list[tuple[str, int]]:
    counts = Counter(type(o).__qualname__ for o in gc.get_objects())
    return counts.most_common(top)


def _line(done: int) -> dict[str, Any]:
    gc.collect()
    started = time.monotonic()
    line: dict[str, Any] = {
        "done": done,
        "rss_mb": _rss_mb(),
        "blocks": sys.getallocatedblocks(),
        "traced_mb": tracemalloc.get_traced_memory()[0] / 2**20
        if tracemalloc.is_tracing()
        else 0.0,
        **_mallinfo(),
        **_pymalloc(),
        **_smaps(),
        "memories": _memories(),
        "types": _types(),
    }
    line["census_s"] = time.monotonic() - started
    return line


def _after_task(**_: Any) -> None:
    folder = _State.folder
    if folder is None:
        return
    done = _done()
    if done >= _State.start_at and not tracemalloc.is_tracing():
        tracemalloc.start(FRAMES)
    if done >= _State.next_line:
        _State.next_line = (done // 1000 + 1) * 1000
        with (folder / f"{os.getpid()}.jsonl").open("a") as out:
            out.write(json.dumps(_line(done)) + "\n")
    for mark in _State.marks:
        if done >= mark and mark not in _State.snapped and tracemalloc.is_tracing():
            _State.snapped.add(mark)
            gc.collect()
            tracemalloc.take_snapshot().dump(str(folder / f"{os.getpid()}-{mark}.snap"))


def install() -> None:
    """In a worker (main process): each pool child records its memory after each task."""
    folder = os.environ.get(ENV)
    if not folder:
        return
    from celery import signals

    _State.folder = Path(folder)
    _State.start_at = int(os.environ.get(FROM_ENV, _State.start_at))
    marks = os.environ.get(AT_ENV)
    if marks:
        _State.marks = tuple(int(m) for m in marks.split(","))
    signals.task_postrun.connect(_after_task, weak=False)


# --- the report (the benchmark's side) -------------------------------------------------------


def _ours(frame: tracemalloc.Frame) -> bool:
    return "/digest/" in frame.filename or "/worker/" in frame.filename


def _where(trace: tracemalloc.Traceback) -> str:
    """The allocating line and the nearest line of the project's own code."""
    frames = list(trace)[::-1]  # a Traceback is oldest first: most recent first here
    first = frames[0]
    text = f"{_short(first.filename)}:{first.lineno}"
    own = [f for f in frames if _ours(f)]
    if own and own[0] is not first:
        text += f" <- {_short(own[0].filename)}:{own[0].lineno}"
    if len(own) > 1:
        text += f" <- {_short(own[1].filename)}:{own[1].lineno}"
    return text


def _short(path: str) -> str:
    for root in ("/digest/", "/worker/", "site-packages/", "/lib/python3"):
        if root in path:
            tail = path.split(root, 1)[1]
            return "digest/" + tail if root == "/digest/" else tail
    return path


def report(folder: Path, top: int = 25) -> list[str]:
    """The growth between each child's first and last snapshot, and its sizes."""
    out: list[str] = []
    for lines_path in sorted(folder.glob("*.jsonl")):
        pid = lines_path.stem
        lines = [json.loads(x) for x in lines_path.read_text().splitlines() if x.strip()]
        snaps = sorted(folder.glob(f"{pid}-*.snap"), key=lambda p: int(p.stem.split("-")[1]))
        out.append(f"child {pid}: RSS at each mark: " + ", ".join(
            f"{x['done'] // 1000}k {x['rss_mb']:.1f}" for x in lines))  # fmt: skip
        if not lines:
            continue
        out.append(
            "  done: RSS | glibc in use, free, mmapped | pymalloc arenas, live MB |"
            " brk heap RSS, anonymous RSS (MB) | kept indexes MB | byte-bounded memories:"
            " held of their bounds, MB; full of those in use"
        )
        for x in lines:
            held, bound = filled(x["memories"])
            share = 100 * held / bound if bound else 0.0
            at_bound, used = full(x["memories"])
            kept = x["memories"].get(KEPT, [0, 0])[1] / 2**20
            out.append(
                f"  {x['done']:>6}: {x['rss_mb']:6.1f} | {x.get('heap_in_use_mb', 0):5.1f},"
                f" {x.get('heap_free_mb', 0):5.1f}, {x.get('mmapped_mb', 0):5.1f} |"
                f" {x.get('pymalloc_arenas', 0):4.0f}, {x.get('pymalloc_live_mb', 0):5.1f} |"
                f" {x.get('brk_heap_rss_mb', 0):5.1f}, {x.get('anonymous_mb', 0):5.1f} |"
                f" {kept:5.2f} | {held:5.2f} of {bound:5.2f} ({share:3.0f}%); {at_bound} of {used}"
            )
        out.append("  " + _split(lines[0], lines[-1]))
        first, last = _nearest(lines, snaps[0]) if snaps else lines[0], lines[-1]
        if snaps:
            last = _nearest(lines, snaps[-1])
        out.append(
            f"  from {first['done']} to {last['done']} events: RSS {first['rss_mb']:.1f} ->"
            f" {last['rss_mb']:.1f} MB; glibc in use {first.get('heap_in_use_mb', 0):.1f} ->"
            f" {last.get('heap_in_use_mb', 0):.1f}, free {first.get('heap_free_mb', 0):.1f} ->"
            f" {last.get('heap_free_mb', 0):.1f}; pymalloc blocks {first['blocks']} ->"
            f" {last['blocks']}; traced {first['traced_mb']:.1f} -> {last['traced_mb']:.1f} MB"
        )
        names = sorted(set(first["memories"]) | set(last["memories"]))
        for name in names:
            a = first["memories"].get(name, [0, 0])
            b = last["memories"].get(name, [0, 0])
            if a[:2] != b[:2] or b[1] > 2**20:
                hits = f", hits {b[2]:.0f} of {b[2] + b[3]:.0f} calls" if len(b) > 3 else ""
                out.append(
                    f"    {name}: {a[0]:.0f} -> {b[0]:.0f} entries, "
                    f"{a[1] / 2**20:.2f} -> {b[1] / 2**20:.2f} MB{hits}"
                )
        before, after = dict(first["types"]), dict(last["types"])
        grown = sorted(((after[k] - before.get(k, 0), k) for k in after), reverse=True)[:10]
        out.append("    tracked objects grown: " + ", ".join(f"{k} +{d}" for d, k in grown))
        if len(snaps) >= 2:
            a_snap = tracemalloc.Snapshot.load(str(snaps[0]))
            b_snap = tracemalloc.Snapshot.load(str(snaps[-1]))
            total = sum(s.size_diff for s in b_snap.compare_to(a_snap, "filename"))
            out.append(
                f"  tracemalloc growth {snaps[0].stem} -> {snaps[-1].stem}: "
                f"{total / 2**20:+.2f} MB; by file:"
            )
            for stat in b_snap.compare_to(a_snap, "filename")[:12]:
                out.append(
                    f"    {stat.size_diff / 2**20:+7.2f} MB {stat.count_diff:+8d} blocks"
                    f"  {_short(stat.traceback[0].filename)}"
                )
            out.append("  by traceback:")
            for stat in b_snap.compare_to(a_snap, "traceback")[:top]:
                out.append(
                    f"    {stat.size_diff / 2**20:+7.2f} MB {stat.count_diff:+8d} blocks"
                    f"  {_where(stat.traceback)}"
                )
    return out


def filled(memories: dict[str, list[float]]) -> tuple[float, float]:
    """MB the byte-bounded memories hold, and the MB of their byte bounds (those the census
    reads a bound of: ``memo`` and ``BytesLRU``, the kept indexes aside)."""
    held = bound = 0.0
    for entry in memories.values():
        if len(entry) >= 6 and entry[5] > 0:
            held += max(entry[1], 0) / 2**20
            bound += entry[5] / 2**20
    return held, bound


#: a memory this close to one of its bounds is full (an LRU at its byte bound sits just below
#: it: the next entry drops the oldest)
FULL_SHARE = 0.9


def full(memories: dict[str, list[float]]) -> tuple[int, int]:
    """Of the byte-bounded memories in use (holding an entry), how many are full: at
    ``FULL_SHARE`` of their entry bound or of their byte bound."""
    used = at_bound = 0
    for entry in memories.values():
        if len(entry) >= 6 and entry[5] > 0 and entry[0] > 0:
            used += 1
            by_entries = entry[4] > 0 and entry[0] >= FULL_SHARE * entry[4]
            at_bound += by_entries or entry[1] >= FULL_SHARE * entry[5]
    return at_bound, used


def _split(first: dict[str, Any], last: dict[str, Any]) -> str:
    """RSS growth between two lines: live in the allocators, and held free by them."""

    def live(x: dict[str, Any]) -> float:
        return float(x.get("pymalloc_live_mb", 0) + x.get("heap_in_use_mb", 0))

    def slack(x: dict[str, Any]) -> float:
        pymalloc = x.get("pymalloc_arenas", 0) - x.get("pymalloc_live_mb", 0)
        return float(pymalloc + x.get("heap_free_mb", 0))

    per = max(1, last["done"] - first["done"]) / 1000
    grown = last["rss_mb"] - first["rss_mb"]
    return (
        f"from {first['done']} to {last['done']} events: RSS {grown:+.1f} MB ({grown / per:.2f}"
        f" per 1,000), live in the allocators {live(last) - live(first):+.1f} MB, held free by"
        f" them (pymalloc's arenas, glibc's heap) {slack(last) - slack(first):+.1f} MB"
    )


def _nearest(lines: list[dict[str, Any]], snap: Path) -> dict[str, Any]:
    mark = int(snap.stem.split("-")[1])
    return min(lines, key=lambda x: abs(x["done"] - mark))
