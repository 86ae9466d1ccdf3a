"""Neighbour-search latency at 100, 1,000 and 10,000 lessons for one agent (PostgreSQL).

Reports p50 and p99 of ``digest.similarity.find_neighbours`` at each bank size, and each as a
ratio to a floor measured in the same run at the same size: a primary-key SELECT of one lesson
through the same session. The GiST trigram index answers "the k nearest" without sorting the
whole bank, but its pruning weakens as lessons share more trigrams: expect growth well below
linear, not a flat line (see the notes in README's reconciliation section).

    .venv/bin/python bench/neighbour_search.py [--queries 200] [--sizes 100,1000,10000]

Lesson texts are synthetic: 40% common words, the rest drawn from a vocabulary of a few
thousand words, which is closer to a real lesson bank than a handful of repeated words (with a
tiny vocabulary every lesson shares every trigram and no index can prune).

Uses DIGEST_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres) to create and drop
a scratch database.
"""

from __future__ import annotations

import argparse
import random
import time

COMMON = [
    "the",
    "a",
    "to",
    "for",
    "before",
    "after",
    "when",
    "customer",
    "order",
    "check",
    "ask",
    "use",
    "never",
    "always",
    "with",
    "of",
]
SYLLABLES = [
    "ka",
    "re",
    "mo",
    "lin",
    "tar",
    "vos",
    "pel",
    "dun",
    "shi",
    "gra",
    "bo",
    "nex",
    "fil",
    "tra",
    "cor",
    "um",
    "zen",
    "pa",
    "lu",
    "vek",
]


def vocabulary(rng: random.Random, size: int = 3000) -> list[str]:
    """A support agent's lessons name many things (tools, products, fields, policies): a few
    thousand distinct words, plus the common words every lesson shares."""
    words = {"".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4))) for _ in range(size)}
    return sorted(words)


def sentence(rng: random.Random, words: list[str], n: int) -> str:
    return " ".join(
        rng.choice(COMMON) if rng.random() < 0.4 else rng.choice(words) for _ in range(n)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--sizes", default="100,1000,10000")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]

    from _scratch import percentile, scratch_database
    from sqlalchemy import select, text

    with scratch_database() as libpq_url:
        url = libpq_url.replace("postgresql://", "postgresql+psycopg://")
        from digest.db import session_scope
        from digest.models import Lesson
        from digest.similarity import find_neighbours

        rng = random.Random(7)
        words = vocabulary(rng)
        with session_scope(url) as session:
            session.execute(
                text(
                    "INSERT INTO tenants (name, learning_apply_mode, settings, created_at)"
                    " VALUES ('bench', 'auto', '{}', now());"
                    "INSERT INTO agents (tenant_id, name, enable_learning, lesson_epoch,"
                    " created_at) VALUES (1, 'bot', true, 0, now())"
                )
            )
        have = 0
        print(f"{'lessons':>8} {'p50':>10} {'p99':>10} {'floor p50':>10} {'ratio p50':>10}")
        for size in sizes:
            rows = [
                {
                    "slug": f"l-{i}",
                    "title": f"lesson {i}",
                    "situation": f"When {sentence(rng, words, 6)}",
                    "correction": f"Check the {sentence(rng, words, 8)} first",
                }
                for i in range(have, size)
            ]
            with session_scope(url) as session:
                if rows:
                    session.execute(
                        text(
                            "INSERT INTO lessons (tenant_id, agent_id, scope, slug, title,"
                            " situation, correction, tags, source, outcome, confidence,"
                            " support_count,"
                            " success_count, failure_count, hit_count, status, created_at,"
                            " updated_at) VALUES (1, 1, 'agent', :slug, :title, :situation,"
                            " :correction, '[]', 'manual_lesson', 'mixed', 0.5, 1, 0, 0, 0,"
                            " 'active', now(), now())"
                        ),
                        rows,
                    )
                session.execute(text("ANALYZE lessons"))
            have = size
            probes = [
                f"When {sentence(rng, words, 6)} Check the {sentence(rng, words, 8)}"
                for _ in range(args.queries)
            ]
            measured: list[float] = []
            floor: list[float] = []
            with session_scope(url) as session:
                ids = list(session.scalars(select(Lesson.id)))
                for probe in probes:
                    started = time.perf_counter()
                    session.execute(select(Lesson).where(Lesson.id == rng.choice(ids))).first()
                    floor.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    find_neighbours(session, 1, 1, probe, 5)
                    measured.append(time.perf_counter() - started)
                    session.expunge_all()
            p50, p99, f50 = (
                percentile(measured, 0.5),
                percentile(measured, 0.99),
                percentile(floor, 0.5),
            )
            print(
                f"{size:>8} {p50 * 1000:>8.2f}ms {p99 * 1000:>8.2f}ms {f50 * 1000:>8.3f}ms"
                f" {p50 / f50:>9.1f}x"
            )


if __name__ == "__main__":
    main()
