"""``digest.pitfalls`` latency at 1,000 and 10,000 lessons for one agent (PostgreSQL).

Reports p50 and p99 of ``pitfalls(tenant, agent, prompt)`` over a few hundred prompts at each
bank size, each as a ratio to a floor measured in the same run at the same size: a primary-key
SELECT of one lesson in its own transaction (checkout, BEGIN, SELECT, COMMIT), the least a read
of the lessons can cost. ``pitfalls`` does more by design: it scores every active lesson of the
agent against the prompt's keywords in SQL (a substring match has no index to use; see
``digest.retrieve._ranking_query``) and, when something matched, writes the hit counts (an
UPDATE and a durable COMMIT). Expect growth linear in the agent's lesson count. "surfaced" is
the mean number of lessons per block.

    .venv/bin/python bench/pitfalls_latency.py [--queries 200] [--sizes 1000,10000]

Lesson texts are synthetic: common support words ("customer", "refund", "order", …) that many
lessons share, and words from a vocabulary of a few thousand. Prompts mix both, so most match
hundreds of lessons on a common word and a few on the rare ones; one in twenty matches nothing.

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
from pathlib import Path
from typing import Any

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from _report import Figure  # noqa: E402
from neighbour_search import vocabulary  # noqa: E402

BENCH = "pitfalls latency"

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


def measure(
    scale: float = 1.0, queries: int | None = None, sizes: list[int] | None = None
) -> list[Figure]:
    """p50 and p99 of ``pitfalls`` per bank size, each against the primary-key floor."""
    queries = queries or max(20, int(200 * scale))
    sizes = sizes or [max(100, int(s * min(1.0, scale))) for s in (1000, 10000)]
    figures: list[Figure] = []

    from _scratch import percentile, scratch_database
    from sqlalchemy import select, text

    with scratch_database() as url:
        # pitfalls() reads its database from the settings: point them here, forget any cache.
        os.environ["DIGEST_DATABASE_URL"] = url
        from digest.config import get_settings
        from digest.db import dispose_engines

        get_settings.cache_clear()
        dispose_engines()
        from digest import pitfalls
        from digest.db import session_scope
        from digest.models import Lesson

        rng = random.Random(11)
        words = vocabulary(rng)
        with session_scope() as session:
            session.execute(
                text(
                    "INSERT INTO tenants (name, learning_apply_mode, settings, created_at)"
                    " VALUES ('bench', 'auto', '{}', now());"
                    "INSERT INTO agents (tenant_id, name, enable_learning, lesson_epoch,"
                    " created_at) VALUES (1, 'bot', true, 0, now())"
                )
            )
        have = 0
        for size in sizes:
            with session_scope() as session:
                session.execute(
                    text(
                        "INSERT INTO lessons (tenant_id, agent_id, scope, slug, title, situation,"
                        " correction, tags, source, outcome, confidence, support_count,"
                        " success_count, failure_count, hit_count, status, last_seen_at,"
                        " created_at, updated_at) VALUES (1, 1, 'agent', :slug, :title,"
                        " :situation, :correction, CAST(:tags AS jsonb), 'run_outcome',"
                        " 'failure', 0.5, 2, 0, 0, :hits, 'active', now(), now(), now())"
                    ),
                    lesson_rows(rng, words, have, size),
                )
                session.execute(text("ANALYZE lessons"))
            have = size
            prompts = [prompt(rng, words, i) for i in range(queries)]
            with session_scope() as session:
                ids = list(session.scalars(select(Lesson.id)))

            pitfalls("bench", "bot", prompts[0])  # warm up: pool, statement and plan caches
            measured: list[float] = []
            floor: list[float] = []
            surfaced = 0
            for text_value in prompts:
                started = time.perf_counter()
                with session_scope() as session:
                    session.execute(select(Lesson).where(Lesson.id == rng.choice(ids))).first()
                floor.append(time.perf_counter() - started)
                started = time.perf_counter()
                block = pitfalls("bench", "bot", text_value)
                measured.append(time.perf_counter() - started)
                surfaced += block.count("(#")
            note = f"{queries} prompts; {surfaced / len(prompts):.2f} lessons surfaced per block"
            for label, q in (("p50", 0.5), ("p99", 0.99)):
                figures.append(
                    Figure(
                        BENCH, f"pitfalls {label}, {size} lessons",
                        percentile(measured, q) * 1000, "ms",
                        floor_name=f"primary-key SELECT {label}",
                        floor=percentile(floor, q) * 1000,
                        note=note if label == "p50" else "",
                    )
                )  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sizes", default="1000,10000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for f in measure(1.0, args.queries, sizes):
        print(f"{f.name}: {f.value:.2f} ms  floor {f.floor:.2f} ms  ratio {f.ratio:.1f}x  {f.note}")


if __name__ == "__main__":
    main()
