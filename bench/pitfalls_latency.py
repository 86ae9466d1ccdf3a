"""``digest.pitfalls`` latency at 100, 1,000 and 10,000 lessons for one agent (PostgreSQL).

Reports p50 and p99 of ``pitfalls(tenant, agent, prompt)`` over a few hundred prompts at each
bank size, each as a ratio to a floor measured in the same run at the same size: a primary-key
SELECT of one lesson in its own transaction (checkout, BEGIN, SELECT, COMMIT), the least a read
of the lessons can cost. ``pitfalls`` does more by design: it looks the agent up, reads its
``lesson_epoch``, ranks the agent's lessons in its in-memory index (``digest.identity.index``:
the share of the prompt's keywords a lesson holds and, with embeddings, its cosine to the
prompt), reads the few best back from the database and, when something matched, queues the hit
counts (written by a thread of the process after the call returns, ``digest.lessons.hits``; it
competes for the CPU with the calls that follow). "surfaced" is the mean number of lessons per
block.

Three modes, the settings a deployment picks (``DIGEST_EMBEDDING_MODEL``):

- ``none``: keywords only;
- ``static`` (the default): keywords and the cosine of the static table's vectors
  (``digest.identity.distil``);
- ``local``: keywords and the cosine of all-MiniLM-L6-v2 int8 vectors.

With embeddings, each timed call embeds its prompt: the process's embedding cache is cleared
before every call, so no prompt is ever served from it. The prompt's embedding alone (the
embedder called directly on the same prompt, right after the call) is reported as its own
figure.

Steady state: each agent's index is built before the timed calls; its first build (the bank
read and indexed, stored vectors included: the bank is seeded with the vectors the product
would have stored for ``local``, none is computed; the ``static`` vectors are computed by that
build, as after a change of model) is reported as "cold build". Target (issues 13, 27): p99 at
10,000 lessons ≤ 10 ms in each mode, the prompt's embedding included.

    .venv/bin/python bench/pitfalls_latency.py [--queries 200] [--sizes 100,1000,10000]
        [--modes none,static,local] [--interleave]

Lesson texts are synthetic: common support words ("customer", "refund", "order", …) that many
lessons share, and words from a vocabulary of a few thousand. Prompts mix both, so most match
hundreds of lessons on a common word and a few on the rare ones; one in twenty matches nothing.
Each agent is one bank size; the banks are prefixes of one list of lessons, so the local vectors
are computed once (about a minute on an idle 2-core host, two on a busy one). The sizes are
probed in turn, prompt by prompt, so the machine's other load weighs on each alike.

Uses DIGEST_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres) to create and drop
a scratch database.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from _report import Figure  # noqa: E402
from neighbour_search import vocabulary  # noqa: E402

BENCH = "pitfalls latency"
SIZES = (100, 1_000, 10_000)
#: DIGEST_EMBEDDING_MODEL values measured, in order
MODES = ("none", "static", "local")
#: p99 at 10,000 lessons, in ms (issue 13)
P99_TARGET_MS = 10.0

#: words many lessons share: a prompt with one of them matches a large part of the bank.
COMMON = [
    "customer",
    "refund",
    "order",
    "invoice",
    "always",
    "before",
    "after",
    "check",
    "never",
    "shipping",
    "account",
    "the",
    "a",
    "to",
    "for",
]


def sentence(rng: random.Random, words: list[str], n: int, common: float = 0.35) -> str:
    return " ".join(
        rng.choice(COMMON) if rng.random() < common else rng.choice(words) for _ in range(n)
    )


def lesson_rows(
    rng: random.Random, words: list[str], start: int, stop: int
) -> list[dict[str, Any]]:
    return [
        {
            "slug": f"l-{i}",
            "title": f"{rng.choice(words)} {sentence(rng, words, 3)}",
            "situation": f"When {sentence(rng, words, 8)}",
            "correction": f"Check the {sentence(rng, words, 10)} first",
            "tags": json.dumps(rng.sample(words, rng.randint(0, 3))),
            "hits": rng.randint(0, 50),
        }
        for i in range(start, stop)
    ]


def prompt(rng: random.Random, words: list[str], i: int) -> str:
    if i % 20 == 0:  # now and then a prompt about something no lesson mentions
        return "Hi, " + " ".join(f"zzq{rng.choice(words)}" for _ in range(rng.randint(5, 15)))
    return f"Hi, {sentence(rng, words, rng.randint(12, 40), common=0.25)}?"


@dataclass
class _Timings:
    measured: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    embedding: list[float] = field(default_factory=list)
    #: the calling thread's CPU time per call (what it computed, not what it waited for)
    cpu: list[float] = field(default_factory=list)
    cold: float = 0.0
    surfaced: int = 0


@dataclass
class _Bank:
    agent: str
    agent_id: int
    ids: list[int]
    prompts: list[str]
    modes: dict[str, _Timings] = field(default_factory=dict)


def measure(
    scale: float = 1.0,
    queries: int | None = None,
    sizes: list[int] | None = None,
    modes: tuple[str, ...] = MODES,
    interleave: bool = False,
) -> list[Figure]:
    """p50 and p99 of ``pitfalls`` per mode and bank size, each against the primary-key
    floor; the cold build per bank, and the prompt's embedding alone for ``local``.

    ``interleave``: each mode has agents of its own (the same lessons, the same prompts) and
    the modes take turns prompt by prompt, so that the host's other load weighs on each
    alike; each mode with embeddings is then also reported against words only (``none``)."""
    if interleave:
        return _measure_interleaved(scale, queries, sizes, modes)
    from _scratch import environment, scratch_database, use_settings

    queries = queries or max(20, int(200 * scale))
    sizes = sorted(sizes or {max(100, int(s * min(1.0, scale))) for s in SIZES})
    rng = random.Random(11)
    words = vocabulary(rng)
    rows = lesson_rows(rng, words, 0, sizes[-1])
    vectors = _vectors(rows) if "local" in modes else None
    with environment("DIGEST_DATABASE_URL", "DIGEST_EMBEDDING_MODEL"), scratch_database() as url:
        # pitfalls() reads its database from the settings: point them here.
        os.environ["DIGEST_DATABASE_URL"] = url
        use_settings()
        banks = [
            _fill_bank(url, f"bot-{size}", rows[:size], vectors, rng, words, queries)
            for size in sizes
        ]
        for mode in modes:
            os.environ["DIGEST_EMBEDDING_MODEL"] = mode
            use_settings()
            _measure_mode(banks, mode, queries)
    return [fig for mode in modes for fig in _figures(banks, mode)]


def _measure_interleaved(
    scale: float, queries: int | None, sizes: list[int] | None, modes: tuple[str, ...]
) -> list[Figure]:
    from _scratch import environment, scratch_database, use_settings

    queries = queries or max(20, int(200 * scale))
    sizes = sorted(sizes or {max(100, int(s * min(1.0, scale))) for s in SIZES})
    rng = random.Random(11)
    words = vocabulary(rng)
    rows = lesson_rows(rng, words, 0, sizes[-1])
    vectors = _vectors(rows) if "local" in modes else None
    by_mode: dict[str, list[_Bank]] = {}
    with environment("DIGEST_DATABASE_URL", "DIGEST_EMBEDDING_MODEL"), scratch_database() as url:
        os.environ["DIGEST_DATABASE_URL"] = url
        use_settings()
        for mode in modes:
            by_mode[mode] = [
                _fill_bank(url, f"bot-{size}-{mode}", rows[:size], vectors, rng, words, queries)
                for size in sizes
            ]
        first = by_mode[modes[0]]
        for banks in by_mode.values():  # the same prompts in every mode
            for bank, same in zip(banks, first, strict=True):
                bank.prompts = same.prompts
        embedders = {}
        for mode, banks in by_mode.items():
            _switch(mode)
            embedders[mode] = _warm(banks, mode)
        rng = random.Random(17)
        for turn in range(queries):
            for mode, banks in by_mode.items():
                _switch(mode)
                for bank in banks:
                    _time_turn(bank, mode, turn, rng, embedders[mode])
    figures = [fig for mode in modes for fig in _figures(by_mode[mode], mode)]
    if "none" in by_mode:
        figures += _versus_words(by_mode)
    prompts = by_mode[modes[0]][0].prompts
    figures += [_short_text(mode, embedders[mode], prompts) for mode in modes if embedders[mode]]
    return figures


#: a short text: the first words of a prompt
SHORT_WORDS = 8
SHORT_TARGET_MS = 1.0


def _short_text(mode: str, embedder: Any, prompts: list[str]) -> Figure:
    """p50 of the embedder on one short text at a time (no cache), one core."""
    from _scratch import percentile

    texts = [" ".join(p.split()[:SHORT_WORDS]) for p in prompts]
    timings = []
    for _ in range(3):
        for text_value in texts:
            started = time.perf_counter()
            embedder.embed([text_value])
            timings.append(time.perf_counter() - started)
    p50 = percentile(timings, 0.5) * 1000
    return Figure(
        BENCH, f"embedding one short text p50, embedding {mode}", p50, "ms",
        target=f"< {SHORT_TARGET_MS:g} ms", met=p50 < SHORT_TARGET_MS,
        note=f"{len(timings)} calls, {SHORT_WORDS} words each, the embedder called directly",
    )  # fmt: skip


def _switch(mode: str) -> None:
    """Settings read again with ``DIGEST_EMBEDDING_MODEL=mode`` (the engines are kept)."""
    from digest.config import get_settings

    os.environ["DIGEST_EMBEDDING_MODEL"] = mode
    get_settings.cache_clear()
    get_settings()


def _versus_words(by_mode: dict[str, list[_Bank]]) -> list[Figure]:
    """p50 and p99 of each mode with embeddings against words only, same prompts, same run."""
    from _scratch import percentile

    figures = []
    for mode, banks in by_mode.items():
        if mode == "none":
            continue
        for bank, words_only in zip(banks, by_mode["none"], strict=True):
            size = len(bank.ids)
            target = size == SIZES[-1]
            for label, q in (("p50", 0.5), ("p99", 0.99)):
                value = percentile(bank.modes[mode].measured, q) * 1000
                floor = percentile(words_only.modes["none"].measured, q) * 1000
                check = target and label == "p99"
                figures.append(
                    Figure(
                        BENCH, f"pitfalls {label}, {size:,} lessons, {mode} vs words only",
                        value, "ms", floor_name=f"pitfalls {label}, embedding none, same run",
                        floor=floor, target="<= 2x floor" if check else "",
                        met=value <= 2 * floor if check else None,
                        note="interleaved prompt by prompt" if label == "p50" else "",
                    )
                )  # fmt: skip
            for label, q in (("p50", 0.5), ("p99", 0.99)):
                value = percentile(bank.modes[mode].cpu, q) * 1000
                floor = percentile(words_only.modes["none"].cpu, q) * 1000
                figures.append(
                    Figure(
                        BENCH, f"pitfalls CPU {label}, {size:,} lessons, {mode} vs words only",
                        value, "ms", floor_name=f"pitfalls CPU {label}, embedding none",
                        floor=floor, note="the calling thread's CPU time per call: on a busy "
                        "host, what the call computed, not what it waited for"
                        if label == "p50" else "",
                    )
                )  # fmt: skip
    return figures


def _vectors(rows: list[dict[str, Any]]) -> list[tuple[bytes, str]]:
    """(embedding bytes, key) per row, as the product stores them."""
    from digest.config import Settings
    from digest.identity.embedding import clear_cache, embed_many, get_embedder, to_bytes
    from digest.lessons.vectors import vector_key
    from digest.text import lesson_text

    embedder = get_embedder(Settings(embedding_model="local"))
    assert embedder is not None
    texts = [lesson_text(row["situation"], row["correction"]) for row in rows]
    found = [
        (to_bytes(vector), vector_key(embedder.name, text))
        for vector, text in zip(embed_many(embedder, texts), texts, strict=True)
    ]
    clear_cache()
    return found


def _fill_bank(
    url: str,
    agent: str,
    rows: list[dict[str, Any]],
    vectors: list[tuple[bytes, str]] | None,
    rng: random.Random,
    words: list[str],
    queries: int,
) -> _Bank:
    """An agent with these lessons (a fingerprint each, and their vectors when given), loaded
    with COPY; then its lesson epoch moved, as after any bulk load."""
    import psycopg

    from digest.fingerprint import manual_key

    now = datetime.now(UTC)
    with psycopg.connect(url) as conn:
        if conn.execute("SELECT count(*) FROM tenants").fetchone() == (0,):
            conn.execute(
                "INSERT INTO tenants (name, learning_apply_mode, settings, created_at)"
                " VALUES ('bench', 'auto', '{}', now())"
            )
        found = conn.execute(
            "INSERT INTO agents (tenant_id, name, enable_learning, lesson_epoch, created_at)"
            " VALUES (1, %s, true, 0, now()) RETURNING id",
            (agent,),
        ).fetchone()
        assert found is not None
        agent_id = int(found[0])
        with (
            conn.cursor() as cur,
            cur.copy(
                "COPY lessons (tenant_id, agent_id, scope, slug, title, situation, correction,"
                " tags, source, outcome, confidence, support_count, success_count,"
                " failure_count, hit_count, status, last_seen_at, created_at, updated_at,"
                " fingerprint, embedding, embedding_key, independent_sources) FROM STDIN"
            ) as copy,
        ):
            for i, row in enumerate(rows):
                vector, key = vectors[i] if vectors is not None else (None, None)
                copy.write_row((
                    1, agent_id, "agent", row["slug"], row["title"], row["situation"],
                    row["correction"], row["tags"], "run_outcome", "failure", 0.5, 2, 0, 0,
                    row["hits"], "active", now, now, now,
                    manual_key(row["situation"], row["correction"]), vector, key,
                    2,  # corroborated by two contacts: released to the agent (issue 25)
                ))  # fmt: skip
        conn.execute("UPDATE agents SET lesson_epoch = lesson_epoch + 1 WHERE id = %s", (agent_id,))
        conn.execute("ANALYZE lessons")
        ids = [
            int(r[0])
            for r in conn.execute("SELECT id FROM lessons WHERE agent_id = %s", (agent_id,))
        ]
    return _Bank(agent, agent_id, ids, [prompt(rng, words, i) for i in range(queries)])


def _measure_mode(banks: list[_Bank], mode: str, queries: int) -> None:

    embedder = _warm(banks, mode)
    rng = random.Random(17)
    for turn in range(queries):
        for bank in banks:
            _time_turn(bank, mode, turn, rng, embedder)


def _warm(banks: list[_Bank], mode: str) -> Any:
    """Each bank's index built (its cold build timed) and one call made; the embedder."""
    from digest import pitfalls
    from digest.db import session_scope
    from digest.lessons.neighbours import agent_view, forget
    from digest.lessons.vectors import embedder as configured_embedder

    for bank in banks:
        timings = bank.modes[mode] = _Timings()
        forget(bank.agent_id)
        with session_scope() as session:
            started = time.perf_counter()
            agent_view(session, bank.agent_id)
            timings.cold = time.perf_counter() - started
        # warm up: pool, statement and plan caches, the embedder's session
        pitfalls("bench", bank.agent, f"{bank.prompts[-1]} warm up")
    return configured_embedder()


def _time_turn(bank: _Bank, mode: str, turn: int, rng: random.Random, embedder: Any) -> None:
    """One prompt: the floor, then ``pitfalls`` (no cached vector), then the embedding alone."""
    from sqlalchemy import select

    from digest import pitfalls
    from digest.db import session_scope
    from digest.identity.embedding import clear_cache
    from digest.models import Lesson

    timings = bank.modes[mode]
    text_value = bank.prompts[turn]
    started = time.perf_counter()
    with session_scope() as session:
        session.execute(select(Lesson).where(Lesson.id == rng.choice(bank.ids))).first()
    timings.floor.append(time.perf_counter() - started)
    clear_cache()
    started, cpu = time.perf_counter(), time.thread_time()
    block = pitfalls("bench", bank.agent, text_value)
    timings.measured.append(time.perf_counter() - started)
    timings.cpu.append(time.thread_time() - cpu)
    timings.surfaced += block.count("(#")
    if embedder is not None:
        started = time.perf_counter()
        embedder.embed([text_value])
        timings.embedding.append(time.perf_counter() - started)


def _figures(banks: list[_Bank], mode: str) -> list[Figure]:
    from _scratch import percentile

    def ms(samples: list[float], q: float) -> float:
        return percentile(samples, q) * 1000

    figures: list[Figure] = []
    what = "the prompt's embedding included" if mode != "none" else "keywords only"
    for bank in banks:
        timings = bank.modes[mode]
        size = len(bank.ids)
        at = f"{size:,} lessons, embedding {mode}"
        p99 = ms(timings.measured, 0.99)
        target = size == SIZES[-1]
        surfaced = timings.surfaced / len(timings.measured)
        figures += [
            Figure(
                BENCH, f"pitfalls p50, {at}", ms(timings.measured, 0.5), "ms",
                floor_name="primary-key SELECT p50", floor=ms(timings.floor, 0.5),
                note=f"{len(timings.measured)} prompts, {what}; {surfaced:.2f} lessons"
                " surfaced per block",
            ),
            Figure(
                BENCH, f"pitfalls p99, {at}", p99, "ms",
                floor_name="primary-key SELECT p99", floor=ms(timings.floor, 0.99),
                target=f"<= {P99_TARGET_MS:g} ms" if target else "",
                met=p99 <= P99_TARGET_MS if target else None,
            ),
            Figure(
                BENCH, f"cold build, {at}", timings.cold * 1000, "ms",
                note="the first agent_view: the bank read and indexed"
                + {"local": ", its stored vectors with it (none computed)",
                   "static": ", its 128-dimension vectors computed (the stored ones are local's)"
                   if any(b.modes.get("local") for b in banks) else ", its vectors computed"
                   }.get(mode, ""),
            ),
        ]  # fmt: skip
    embedded = [t for bank in banks for t in bank.modes[mode].embedding]
    if embedded:
        from neighbour_search import _mean_tokens

        tokens = _mean_tokens([p for bank in banks for p in bank.prompts])
        figures += [
            Figure(
                BENCH, f"prompt embedding alone {label}, embedding {mode}", ms(embedded, q),
                "ms",
                note=f"{len(embedded)} prompts of {tokens:.0f} wordpiece tokens on average, the"
                " embedder called directly (no cache)" if label == "p50" else "",
            )
            for label, q in (("p50", 0.5), ("p99", 0.99))
        ]  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sizes", default=",".join(str(s) for s in SIZES))
    parser.add_argument("--modes", default=",".join(MODES))
    parser.add_argument(
        "--interleave", action="store_true",
        help="the modes take turns prompt by prompt (agents of their own); each is compared "
        "with words only (none)",
    )  # fmt: skip
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = tuple(m for m in args.modes.split(",") if m)
    for f in measure(1.0, args.queries, sizes, modes, args.interleave):
        versus = f"  floor {f.floor:.2f} ms  ratio {f.ratio:.1f}x" if f.ratio is not None else ""
        verdict = {True: "  met", False: "  MISSED", None: ""}[f.met]
        print(f"{f.name}: {f.value:.2f} {f.unit}{versus}{verdict}  {f.note}".rstrip())


if __name__ == "__main__":
    main()
