"""Neighbour recall on model paraphrases: is a lesson the agent already knows found again when
it comes back in another model's words?

    .venv/bin/python bench/recall.py [--scale 1.0]

The bank is ``bench/paraphrases.py``: a few hundred realistic lessons of support, travel,
coding, data and calendar agents, many of them near neighbours (one tool or one domain,
different facts). Each pair there re-tells one bank lesson the way another LLM run would:
other structure, other verbs and nouns, more or less detail. The bank goes into one
``digest.identity.index.AgentIndex`` with local sentence vectors; every paraphrase is searched
in each mode (lexical, semantic, hybrid), and a pair is found at k when its original is among
the first k hits.

Reports, for each local embedding model (``static``, the default, then ``local``, the ONNX
model it is distilled from; ``DIGEST_EMBEDDING_MODEL``), recall@5 per mode (target for hybrid:
>= 0.95; the lexical recall is the floor each is compared with), recall@1 per mode, MRR over
the first ten hits in the notes, and the time the embedder takes per text. ``main()`` also
lists the pairs each mode misses at 5. The set is fixed: ``scale`` is ignored.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

# Run as a script or imported as bench.recall: either way one ``bench._report`` module.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import Figure
from bench.paraphrases import BANK, PAIRS

BENCH = "paraphrase recall"
MODES = ("lexical", "semantic", "hybrid")
K = 5
#: hits read per search, for the rank of the original (MRR@10)
DEPTH = 10
HYBRID_TARGET = 0.95
#: DIGEST_EMBEDDING_MODEL values measured; the first is the default, its figures unsuffixed
MODELS = ("static", "local")


@dataclass(frozen=True)
class Outcome:
    """One mode's result: per pair, the 1-based rank of its original (None: not in the first
    ``DEPTH`` hits)."""

    mode: str
    ranks: tuple[int | None, ...]

    def recall(self, k: int) -> float:
        return sum(1 for r in self.ranks if r is not None and r <= k) / len(self.ranks)

    def mrr(self) -> float:
        return sum(1 / r for r in self.ranks if r is not None) / len(self.ranks)

    def missed(self, k: int = K) -> list[int]:
        """Positions in ``PAIRS`` of the pairs whose original is not in the first k hits."""
        return [i for i, r in enumerate(self.ranks) if r is None or r > k]


@dataclass(frozen=True)
class Run:
    outcomes: dict[str, Outcome]
    embedder: str
    #: seconds the embedder took per text, model loaded
    embed_s_per_text: float
    texts: int


def run(model: str = MODELS[0]) -> Run:
    """Embed the bank and the paraphrases with ``model``, index the bank, search every
    paraphrase per mode."""
    from digest.config import Settings
    from digest.identity.embedding import cosine_scale, get_embedder
    from digest.identity.index import AgentIndex, Entry
    from digest.text import lesson_text

    embedder = get_embedder(Settings(embedding_model=model))
    if embedder is None:
        raise RuntimeError(f"the {model} embedder is not available: semantic recall cannot run")
    bank_texts = [lesson_text(situation, correction) for situation, correction in BANK]
    probe_texts = [lesson_text(situation, correction) for _, situation, correction in PAIRS]
    # the embedder itself, not the process cache: every text is embedded, and the time per
    # text is the model's
    embedder.embed(["warm up: load the model before the clock starts"])
    started = time.perf_counter()
    vectors = embedder.embed([*bank_texts, *probe_texts])
    per_text = (time.perf_counter() - started) / len(vectors)
    bank_vectors, probe_vectors = vectors[: len(bank_texts)], vectors[len(bank_texts) :]

    # lesson id = bank position, so a miss reads back as a line of the bank
    entries = zip(bank_texts, bank_vectors, strict=True)
    index = AgentIndex(
        [Entry(i, text, vector=vector) for i, (text, vector) in enumerate(entries)],
        cosine_scale(embedder),
    )
    outcomes = {}
    for mode in MODES:
        ranks = []
        for (original, _, _), text, vector in zip(PAIRS, probe_texts, probe_vectors, strict=True):
            found = [hit.lesson_id for hit in index.search(text, vector, DEPTH, mode=mode)]
            ranks.append(found.index(original) + 1 if original in found else None)
        outcomes[mode] = Outcome(mode, tuple(ranks))
    return Run(outcomes, embedder.name, per_text, len(vectors))


def figures(result: Run, suffix: str = "") -> list[Figure]:
    """The figures of one model's run; ``suffix`` follows each name (another model's)."""
    lexical = result.outcomes["lexical"]
    out = []
    modes = MODES if not suffix else MODES[1:]  # lexical recall is the same for every model
    for mode in modes:
        outcome = result.outcomes[mode]
        recall = outcome.recall(K)
        hybrid = mode == "hybrid"
        out.append(
            Figure(
                BENCH,
                f"recall@{K} {mode}{suffix}",
                round(recall, 3),
                "fraction",
                floor_name="" if mode == "lexical" else f"lexical recall@{K}",
                floor=None if mode == "lexical" else round(lexical.recall(K), 3),
                target=f">= {HYBRID_TARGET:g}" if hybrid else "",
                met=recall >= HYBRID_TARGET if hybrid else None,
                note=f"MRR@{DEPTH} {outcome.mrr():.3f}; {len(PAIRS)} paraphrases of a"
                f" {len(BANK)}-lesson bank",
            )
        )
    out += [
        Figure(
            BENCH, f"recall@1 {mode}{suffix}", round(result.outcomes[mode].recall(1), 3), "fraction"
        )
        for mode in modes
    ]
    out.append(
        Figure(
            BENCH,
            f"embedding time per text{suffix}",
            round(result.embed_s_per_text * 1000, 2),
            "ms",
            note=f"{result.embedder}, {result.texts} texts in one call, model loaded",
        )
    )
    return out


def measure(scale: float = 1.0) -> list[Figure]:
    """The paraphrase set is fixed: ``scale`` is ignored."""
    return [fig for model, result in runs() for fig in figures(result, _suffix(model))]


def runs() -> list[tuple[str, Run]]:
    return [(model, run(model)) for model in MODELS]


def _suffix(model: str) -> str:
    return "" if model == MODELS[0] else f", {model} model"


def _short(text: str, width: int = 90) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="ignored: the set is fixed")
    parser.parse_args()
    results = runs()
    print(f"{'figure':<40} {'value':>8} {'floor':>8}  target")
    for model, result in results:
        for fig in figures(result, _suffix(model)):
            floor = f"{fig.floor:g}" if fig.floor is not None else ""
            verdict = {True: "met", False: "MISSED", None: ""}[fig.met]
            line = f"{fig.name:<40} {fig.value:>8g} {floor:>8}  {fig.target} {verdict}  {fig.note}"
            print(line.rstrip())
    for model, result in results:
        _misses(model, result)


def _misses(model: str, result: Run) -> None:
    for mode in MODES:
        outcome = result.outcomes[mode]
        missed = outcome.missed()
        print(f"\n{model} model, {mode}: {len(missed)} missed at {K}")
        for i in missed:
            original, situation, correction = PAIRS[i]
            rank = outcome.ranks[i]
            where = f"rank {rank}" if rank else f"not in top {DEPTH}"
            print(f"  bank #{original} ({where}): {_short(' '.join(BANK[original]))}")
            print(f"      paraphrase: {_short(f'{situation} {correction}')}")


if __name__ == "__main__":
    main()
