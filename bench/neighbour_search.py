"""Neighbour-search latency and recall at 100, 1,000 and 10,000 lessons for one agent (PostgreSQL).

Reports, at each bank size, p50 and p99 of ``digest.lessons.neighbours.find_neighbours`` against
a floor measured in the same run at the same size (a primary-key SELECT of one lesson through
the same session), and recall@k: for probes made from a known lesson, how often that lesson is
among the k neighbours returned. Next to it stands the recall of an exhaustive rapidfuzz scan of
the whole bank, computed in the same run on the same probes: the best any shortlist could do.

Probes are a mix: unrelated candidates (what most reflections produce: an ADD), paraphrases of
a stored lesson (words replaced, dropped and added, case and punctuation changed: reconcile's
UPDATE/NOOP material) and exact repeats (which must always be found).

Target: p50 at the largest bank ≤ 2x p50 at 100 lessons. The search reads a bounded number of
index entries (``SHORTLIST_BUDGET`` + ``POSTINGS_PER_TERM`` lessons, and one capped count per
term of the candidate) whatever the bank size. A 100-lesson bank rarely fills that budget and
a 10,000-lesson bank usually does, and the btree is deeper and the cache colder. 2x leaves room
for those and for the noise of a shared machine. A search that scanned the bank would grow about
100x, and the GiST trigram walk this replaced grew 5-7x (3.4 ms to 25 ms). Recall targets: exact
repeats 100%; paraphrases within two points of the exhaustive scan.

    .venv/bin/python bench/neighbour_search.py [--scale 1.0]

Lesson texts are synthetic: 40% common words, the rest drawn from a vocabulary of a few
thousand words, which is closer to a real lesson bank than a handful of repeated words (with a
tiny vocabulary every lesson shares every word and no index can narrow the search).

Uses DIGEST_BENCH_PG (default postgresql://postgres@127.0.0.1:5432/postgres) to create and drop
a scratch database.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

# Run as a script (python bench/neighbour_search.py) or imported as bench.neighbour_search:
# either way the helpers are the one ``bench._report`` module, so a runner sees one Figure class.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Figure
from bench._scratch import percentile, scratch_database

BENCH = "neighbour search"
K = 5
SIZES = (100, 1_000, 10_000)
QUERIES = 200
#: p50 at the largest bank over p50 at the smallest (see the module docstring).
FLAT_TARGET = 2.0
#: paraphrase recall may trail the exhaustive scan by this much.
RECALL_SLACK = 0.02

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


def paraphrase(rng: random.Random, words: list[str], original: str) -> str:
    """The same lesson told again: about one word in five replaced, one in ten dropped, a few
    added, case and punctuation changed."""
    out: list[str] = []
    for word in original.split():
        roll = rng.random()
        if roll < 0.1:
            continue
        out.append(sentence(rng, words, 1) if roll < 0.3 else word)
        if rng.random() < 0.1:
            out.append(sentence(rng, words, 1))
    text = " ".join(out)
    return text.upper() if rng.random() < 0.2 else text.replace(" first", ", first.")


@dataclass(frozen=True)
class Probe:
    text: str
    source: int | None  # the lesson it was made from; None for an unrelated candidate
    exact: bool = False


def sizes_for(scale: float) -> list[int]:
    """1.0 → 100, 1,000, 10,000; a smaller scale shrinks the largest bank (never below 200)."""
    largest = max(200, round(SIZES[-1] * scale))
    return sorted({SIZES[0], min(SIZES[1], largest), largest})


@dataclass
class _Bank:
    """One agent's lesson bank of one size, and what was measured on it."""

    agent_id: int
    texts: dict[int, str]  # lesson id → its text, for probes and the exhaustive scan
    probes: list[Probe]
    measured: list[float] = field(default_factory=list)
    floor: list[float] = field(default_factory=list)
    found: dict[str, int] = field(default_factory=lambda: {"paraphrase": 0, "exact": 0})


def measure(scale: float = 1.0) -> list[Figure]:
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.lessons.neighbours import find_neighbours
    from digest.models import Lesson

    sizes = sizes_for(scale)
    queries = max(50, round(QUERIES * min(1.0, scale)))
    rng = random.Random(7)
    words = vocabulary(rng)
    with scratch_database() as libpq_url:
        url = libpq_url.replace("postgresql://", "postgresql+psycopg://")
        # One agent per size in one database, probed in turn: whatever else the machine is
        # doing meanwhile weighs on every size alike, so the ratios between sizes hold.
        banks = {size: _fill_bank(url, rng, words, size, queries) for size in sizes}
        _vacuum(libpq_url)
        with session_scope(url) as session:
            for turn in range(queries):
                for bank in banks.values():
                    probe = bank.probes[turn]
                    some_id = rng.choice(list(bank.texts))
                    started = time.perf_counter()
                    session.execute(select(Lesson).where(Lesson.id == some_id)).first()
                    bank.floor.append(time.perf_counter() - started)
                    started = time.perf_counter()
                    neighbours = find_neighbours(session, 1, bank.agent_id, probe.text, K)
                    bank.measured.append(time.perf_counter() - started)
                    session.expunge_all()
                    if probe.source in {n.lesson_id for n in neighbours}:
                        bank.found["exact" if probe.exact else "paraphrase"] += 1
    figures = [fig for size, bank in banks.items() for fig in _size_figures(size, bank)]
    small, large = (
        percentile(banks[sizes[0]].measured, 0.5),
        percentile(banks[sizes[-1]].measured, 0.5),
    )
    growth = large / small
    figures.append(
        Figure(
            BENCH,
            f"p50 @{sizes[-1]:,} / p50 @{sizes[0]:,}",
            round(growth, 2),
            "x",
            target=f"<= {FLAT_TARGET:g}x",
            met=growth <= FLAT_TARGET,
            note=f"{small * 1000:.2f} ms → {large * 1000:.2f} ms",
        )
    )
    return figures


def _fill_bank(url: str, rng: random.Random, words: list[str], size: int, queries: int) -> _Bank:
    from sqlalchemy import select, text

    from digest.db import session_scope
    from digest.models import Lesson
    from digest.text import lesson_text

    rows = [
        {
            "slug": f"l-{i}",
            "title": f"lesson {i}",
            "situation": f"When {sentence(rng, words, 6)}",
            "correction": f"Check the {sentence(rng, words, 8)} first",
        }
        for i in range(size)
    ]
    with session_scope(url) as session:
        if session.scalar(text("SELECT count(*) FROM tenants")) == 0:
            session.execute(
                text(
                    "INSERT INTO tenants (name, learning_apply_mode, settings, created_at)"
                    " VALUES ('bench', 'auto', '{}', now())"
                )
            )
        agent_id = session.execute(
            text(
                "INSERT INTO agents (tenant_id, name, enable_learning, lesson_epoch, created_at)"
                " VALUES (1, :name, true, 0, now()) RETURNING id"
            ),
            {"name": f"bot-{size}"},
        ).scalar_one()
        session.execute(
            text(
                "INSERT INTO lessons (tenant_id, agent_id, scope, slug, title, situation,"
                " correction, tags, source, outcome, confidence, support_count, success_count,"
                " failure_count, hit_count, status, created_at, updated_at) VALUES (1,"
                " :agent_id, 'agent', :slug, :title, :situation, :correction, '[]',"
                " 'manual_lesson', 'mixed', 0.5, 1, 0, 0, 0, 'active', now(), now())"
            ),
            [{**row, "agent_id": agent_id} for row in rows],
        )
        texts = {
            lesson_id: lesson_text(situation, correction)
            for lesson_id, situation, correction in session.execute(
                select(Lesson.id, Lesson.situation, Lesson.correction).where(
                    Lesson.agent_id == agent_id
                )
            )
        }
    return _Bank(agent_id, texts, _probes(rng, words, texts, queries))


def _vacuum(libpq_url: str) -> None:
    """What autovacuum does to a live bank: statistics, and the visibility map that lets the
    term lookups read the index alone. VACUUM cannot run inside a transaction."""
    import psycopg

    with psycopg.connect(libpq_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE lessons")
        conn.execute("VACUUM ANALYZE lesson_terms")


def _probes(rng: random.Random, words: list[str], texts: dict[int, str], n: int) -> list[Probe]:
    """Half unrelated candidates, two in five paraphrases, one in ten exact repeats."""
    ids = list(texts)
    probes = []
    for i in range(n):
        if i % 10 == 0:
            source = rng.choice(ids)
            probes.append(Probe(texts[source], source, exact=True))
        elif i % 10 < 5:
            source = rng.choice(ids)
            probes.append(Probe(paraphrase(rng, words, texts[source]), source))
        else:
            probes.append(
                Probe(f"When {sentence(rng, words, 6)} Check the {sentence(rng, words, 8)}", None)
            )
    rng.shuffle(probes)
    return probes


def _exhaustive_recall(bank: _Bank) -> float:
    """The reference: every lesson of the bank scored, ranked as ``find_neighbours`` ranks
    (relevance, then identity, then id), the top k kept. rapidfuzz's C loop scores the bank;
    the ranking is redone on a generous head of it so ties break the same way."""
    from rapidfuzz import fuzz, process

    from digest.text import normalise, score

    choices = {lesson_id: normalise(t) for lesson_id, t in bank.texts.items()}
    paraphrases = [p for p in bank.probes if p.source is not None and not p.exact]
    hits = 0
    for probe in paraphrases:
        head = process.extract(
            normalise(probe.text), choices, scorer=fuzz.token_set_ratio, limit=K * 4
        )
        ranked = sorted(
            (lesson_id for _, _, lesson_id in head),
            key=lambda i: (*(-s for s in score(probe.text, bank.texts[i])), i),
        )
        hits += probe.source in ranked[:K]
    return hits / len(paraphrases)


def _size_figures(size: int, bank: _Bank) -> list[Figure]:
    at = f"@{size:,}"
    floor_name = "primary-key SELECT of one lesson"
    paraphrases = sum(1 for p in bank.probes if p.source is not None and not p.exact)
    exacts = sum(1 for p in bank.probes if p.exact)
    recall = bank.found["paraphrase"] / paraphrases
    reference = _exhaustive_recall(bank)
    return [
        Figure(BENCH, f"p50 {at}", round(percentile(bank.measured, 0.5) * 1000, 3), "ms",
               floor_name=f"{floor_name} p50",
               floor=round(percentile(bank.floor, 0.5) * 1000, 3)),
        Figure(BENCH, f"p99 {at}", round(percentile(bank.measured, 0.99) * 1000, 3), "ms",
               floor_name=f"{floor_name} p99",
               floor=round(percentile(bank.floor, 0.99) * 1000, 3)),
        Figure(BENCH, f"recall@{K} paraphrases {at}", round(recall, 3), "fraction",
               floor_name="exhaustive rapidfuzz scan", floor=round(reference, 3),
               target=f">= exhaustive - {RECALL_SLACK:g}",
               met=recall >= reference - RECALL_SLACK, note=f"{paraphrases} probes"),
        Figure(BENCH, f"recall@{K} exact repeats {at}", round(bank.found["exact"] / exacts, 3),
               "fraction", target="= 1", met=bank.found["exact"] == exacts,
               note=f"{exacts} probes"),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    print(f"{'figure':<34} {'value':>10} {'floor':>10} {'ratio':>7}  target")
    for fig in measure(args.scale):
        floor = f"{fig.floor:g}" if fig.floor is not None else ""
        ratio = f"{fig.ratio:.1f}x" if fig.ratio is not None else ""
        verdict = {True: "met", False: "MISSED", None: ""}[fig.met]
        print(
            f"{fig.name:<34} {fig.value:>10g} {floor:>10} {ratio:>7}  {fig.target} {verdict}"
            f"  {fig.note}".rstrip()
        )


if __name__ == "__main__":
    main()
