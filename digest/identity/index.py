"""One agent's lessons, indexed in memory for hybrid retrieval (issue 13).

Two signals, scored together:

- **lexical**: an inverted index of each lesson's words. A search takes the lessons sharing
  the probe's rarest words (a bounded shortlist) and
  scores them with the rapidfuzz scores of ``digest.text`` (token-set relevance, plain-ratio
  identity), so the reconciliation thresholds keep their meaning;
- **semantic**: the cosine of sentence embeddings (``digest.identity.embedding``), over every
  lesson of the agent at once (one matrix-vector product over int8 codes,
  ``digest.identity.quantized``: 10,000 lessons × 128 dimensions is a fraction of a
  millisecond).

The same fingerprint (``digest.fingerprint``) is the strongest signal: such lessons
are always in the result, first.

The index is pure: built from ``Entry`` rows by ``digest.lessons.bank``, which keeps one per
agent per process and refreshes it when the agent's ``lesson_epoch`` moves; it is held in
arrays (``digest.identity.columns``: each vector once, the postings flat). Nothing here
touches the database.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz, process

from digest.fingerprint import other_subject, same
from digest.identity.columns import MIN_TERM, STOPWORDS, Columns, Entry, terms
from digest.identity.near import WordVectors, near_matches
from digest.identity.postings import Postings
from digest.identity.scale import (
    SEMANTIC_WEIGHT,
    combine,
    semantic_relevance,
)
from digest.identity.word_forms import stem
from digest.text import normalise

__all__ = [
    "MIN_TERM", "MODES", "STOPWORDS", "AgentIndex", "Entry", "Hit", "Matches", "keyword_weights",
    "sort_key", "terms",
]  # fmt: skip

MODES = ("hybrid", "lexical", "semantic")

#: lessons read from the rarest terms' postings, at most (the lexical shortlist)
SHORTLIST_BUDGET = 256
POSTINGS_PER_TERM = 64
#: lessons the cosine ranking adds to the shortlist, at least
SEMANTIC_TOP = 32

#: the weight of how well a prompt's keywords match the tasks a lesson was learned from (its
#: cues), beside how well they match the lesson as a whole
CUE_WEIGHT = 0.25
#: …and of how close its meaning is to those tasks', beside the closer of theirs and the
#: lesson's (a first message is told like a task, not like a lesson)
TASK_WEIGHT = 0.5


#: per keyword, the entries of one index it matches (``AgentIndex.keyword_matches``)
Matches = list[np.ndarray | None]


def keyword_weights(parts: Iterable[tuple[Matches, np.ndarray]]) -> list[float]:
    """How much each keyword tells, over the entries ``parts`` allow (each index's keyword
    matches with its mask): for ``n`` of ``N`` entries matching it,
    ``ln(1 + (N - n + 0.5) / (n + 0.5))`` (the inverse document frequency of BM25). A keyword
    no entry holds weighs most; one every entry holds (a word of the lessons' own template)
    next to nothing."""
    total = 0
    found: list[int] = []
    for matches, allowed in parts:
        total += int(allowed.sum())
        found += [0] * (len(matches) - len(found))
        for position, held in enumerate(matches):
            if held is not None:
                found[position] += int((held & allowed).sum())
    return [math.log(1 + (total - n + 0.5) / (n + 0.5)) for n in found]


@dataclass(frozen=True)
class Hit:
    lesson_id: int
    #: the score results are ranked by (same fingerprint first), 0..1
    relevance: float
    lexical: float
    cosine: float | None
    same_fingerprint: bool
    #: how nearly the same words (plain ratio of the normalised texts), 0..1
    identity: float = 0.0
    entry: Entry | None = field(default=None, compare=False, repr=False)


def _scores(probe: str, texts: list[str]) -> tuple[list[float], list[float]]:
    """(relevance, identity) of ``probe`` against each text, as ``digest.text`` scores them,
    computed in one pass each (rapidfuzz's ``cdist``) instead of a Python loop."""
    if not texts or not probe:
        return [0.0] * len(texts), [0.0] * len(texts)
    relevance = process.cdist([probe], texts, scorer=fuzz.token_set_ratio, dtype=np.float64)[0]
    identity = process.cdist([probe], texts, scorer=fuzz.ratio, dtype=np.float64)[0]
    empty = [not t for t in texts]
    return (
        [0.0 if e else float(r) / 100.0 for r, e in zip(relevance, empty, strict=True)],
        [0.0 if e else float(i) / 100.0 for i, e in zip(identity, empty, strict=True)],
    )


def sort_key(hit: Hit) -> tuple[bool, float, float, int]:
    """Same fingerprint first, then by relevance; ties: identity, then the oldest lesson."""
    return (not hit.same_fingerprint, -hit.relevance, -hit.identity, hit.lesson_id)


class AgentIndex(Columns):
    """An agent's lessons: an inverted index of words, a matrix of vectors, fingerprints
    (``digest.identity.columns``: held in arrays). ``scale`` is the cosine scale of the model
    the vectors are of."""

    # --- lexical ------------------------------------------------------------------------------

    def _shortlist(self, probe: str) -> set[int]:
        """The lessons sharing the probe's rarest terms, up to the budget; its exact text."""
        found: set[int] = set(self._with_text(normalise(probe)))
        counts = [(self._postings.count(t), t) for t in terms(probe)]
        for _count, term in sorted((c, t) for c, t in counts if c):
            if len(found) >= SHORTLIST_BUDGET:
                break
            # newest lessons (highest positions: callers give entries oldest first) first
            found.update(self._postings.newest(term, POSTINGS_PER_TERM).tolist())
        return found

    def cosines(self, vector: np.ndarray | None) -> np.ndarray | None:
        if vector is None or not self.has_vectors or vector.shape[0] != self.dim:
            return None
        scores = self._vectors.times(vector)
        scores[~self._has_vector] = -1.0
        return scores

    # --- search -------------------------------------------------------------------------------

    def search(
        self,
        text: str,
        vector: np.ndarray | None = None,
        k: int = 5,
        *,
        fingerprint: str | None = None,
        mode: str = "hybrid",
        allowed: np.ndarray | None = None,
        others_of_kind: bool = True,
        siblings: Sequence[str] = (),
    ) -> list[Hit]:
        """The ``k`` lessons most like ``text``: same fingerprint first, then by relevance
        (ties: identity, then the oldest). ``mode`` "lexical" ignores vectors, "semantic" ranks by
        cosine alone. ``allowed`` is a boolean mask of the entries that may be returned.
        ``others_of_kind=False`` leaves out lessons with another fingerprint of the probe's
        kind about another subject (another tool's errors): they are other lessons, and would
        crowd out the ones that may be the same (``digest.fingerprint.other_subject``). A
        lesson holding one of ``siblings`` (the probe's error on a sibling tool:
        ``digest.tool_siblings``) is always a candidate, whatever its words."""
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}")
        if not self.entries or k < 1:
            return []
        cosines = self.cosines(vector) if mode != "lexical" else None
        positions: set[int] = set(self._with_fingerprint(fingerprint))
        kin = set(self._with_any_fingerprint(siblings))
        positions |= kin
        if mode != "semantic":
            positions |= self._shortlist(text)
        if cosines is not None:
            top = min(len(cosines), max(SEMANTIC_TOP, 4 * k))
            best = (
                np.argpartition(-cosines, top - 1)[:top]
                if top < len(cosines)
                else range(len(cosines))
            )
            positions.update(int(p) for p in best)
        if allowed is not None:
            positions = {p for p in positions if allowed[p]}
        if not others_of_kind and fingerprint:
            positions = {
                p
                for p in positions
                if p in kin or not other_subject(fingerprint, self.entries[p].fingerprint)
            }
        probe = normalise(text)
        order = sorted(positions)
        lexicals, identities = _scores(probe, [self._normalised[p] for p in order])
        hits = []
        for position, lexical, identity in zip(order, lexicals, identities, strict=True):
            entry = self.entries[position]
            cosine = float(cosines[position]) if cosines is not None else None
            if mode == "semantic":
                relevance = semantic_relevance(cosine, self.scale) if cosine is not None else 0.0
            elif mode == "lexical":
                relevance = lexical
            else:
                relevance = combine(lexical, cosine, self.scale)
            hits.append(
                Hit(
                    entry.lesson_id,
                    relevance,
                    lexical,
                    cosine,
                    same(fingerprint, entry.fingerprint),
                    identity,
                    entry,
                )
            )
        hits.sort(key=sort_key)
        return hits[:k]

    # --- keyword search (pitfalls) ---------------------------------------------------------------

    def keyword_matches(
        self, keyword: str, *, cues: bool = False, forms: bool = False
    ) -> np.ndarray | None:
        """The entries a keyword matches (None: none): those holding a word it begins
        ("refund" matches "refunds" and "refunded"); with ``cues``, in their cues only.

        With ``forms`` (words only: no word vectors find a keyword's other forms,
        ``digest.identity.near``), also those holding a cue its stem begins (a task's word in
        another form: "changing" matches the cue "changes", ``digest.identity.word_forms``).
        Only cues: a lesson's own words are the judge's, alike across lessons ("Check the
        balance first"), and a stem ("checked" → "check") would match them all."""
        found = [] if cues else [self._postings.with_prefix(keyword)]
        if cues or forms:
            found.append(self._cue_postings.with_prefix(stem(keyword) if forms else keyword))
        held_at = [positions for positions in found if positions is not None]
        if not held_at:
            return None
        held = np.zeros(len(self.entries), dtype=bool)
        for positions in held_at:
            held[positions] = True
        return held

    def words(self, *, cues: bool = False) -> Postings:
        """Its words (with ``cues``, its cues' words): ``vocabulary`` sorted, and the entries
        holding each (``Postings.at``)."""
        return self._cue_postings if cues else self._postings

    def all_keyword_matches(self, keywords: Sequence[str], *, forms: bool = False) -> Matches:
        """``keyword_matches`` of each keyword, in order."""
        return [self.keyword_matches(keyword, forms=forms) for keyword in keywords]

    def _keyword_counts(self, matches: Matches, weights: Sequence[float] | None) -> np.ndarray:
        """Per entry: the keywords it matches, each counted once however many of its words it
        matches, and weighed by ``weights`` when given."""
        counts = np.zeros(len(self.entries), dtype=np.float64)
        for position, held in enumerate(matches):
            if held is not None:
                counts += held * (weights[position] if weights is not None else 1.0)
        return counts

    def rank_for_prompt(
        self,
        keywords: Sequence[str],
        vector: np.ndarray | None,
        k: int,
        *,
        allowed: np.ndarray | None = None,
        min_cosine: float | None = None,
        weights: Sequence[float] | None = None,
        matches: Matches | None = None,
        near: WordVectors | None = None,
    ) -> list[tuple[Entry, float]]:
        """The entries most relevant to a prompt, by the share of its keywords they hold and,
        with vectors, their cosine; an entry qualifies by one keyword or a cosine of at least
        ``min_cosine`` (by default the index's ``scale.qualifying``). With ``weights`` (one
        per keyword, ``keyword_weights``), the share is of the keywords' weight: a rare word
        says more than one most lessons hold. The cosine
        is the text's or, when closer, the tasks' the lesson was learned from (``cue_vectors``).
        ``matches`` are the keywords' matches when the caller has them (``all_keyword_matches``).
        With ``near`` (word vectors, ``digest.identity.near``), a keyword also matches, in part,
        the words closest to it in meaning. At most ``k`` (entry, score), best first (ties:
        newest)."""
        if not self.entries or k < 1:
            return []
        if near is not None and keywords:
            matches = near_matches(self, keywords, near, exact=matches)
        elif matches is None:
            matches = self.all_keyword_matches(keywords, forms=True)
        counts = self._keyword_counts(matches, weights)
        total = float(sum(weights)) if weights is not None else float(len(keywords))
        scale = total if keywords and total > 0 else 1.0
        # the share of the keywords in the tasks it was learned from (its situation) weighs
        # CUE_WEIGHT apart: a task's own words say more than the error's generic ones
        cue_counts = self._keyword_counts(
            near_matches(self, keywords, near, cues=True)
            if near is not None
            else [self.keyword_matches(k, cues=True, forms=True) for k in keywords],
            weights,
        )
        situation = np.where(self._has_cues, cue_counts, counts) / scale
        share = (1 - CUE_WEIGHT) * counts / scale + CUE_WEIGHT * situation
        cosines = self.cosines(vector)
        if cosines is None:
            score = share.astype(np.float64)
            qualifies = counts > 0
        else:
            if min_cosine is None:
                min_cosine = self.scale.qualifying
            semantic = self.scale.relevance(cosines)
            qualifies = (counts > 0) | (cosines >= min_cosine)
            if self._cue_vectors is not None and self._cue_owner is not None and vector is not None:
                # the closer of the lesson's text and the tasks it was learned from, the
                # tasks' alone weighing TASK_WEIGHT
                cues = np.full(len(self.entries), -1.0, np.float32)
                np.maximum.at(cues, self._cue_owner, self._cue_vectors.times(vector))
                tasks = self.scale.relevance(cues)
                closer = np.maximum(semantic, tasks)
                semantic = (1 - TASK_WEIGHT) * closer + TASK_WEIGHT * np.where(
                    cues > -1.0, tasks, closer
                )
                qualifies |= cues >= min_cosine
            score = (1 - SEMANTIC_WEIGHT) * share + SEMANTIC_WEIGHT * semantic
        if allowed is not None:
            qualifies &= allowed
        candidates = np.flatnonzero(qualifies)
        if candidates.size == 0:
            return []
        top = min(candidates.size, k)
        scores = score[candidates]
        if candidates.size > top:
            # only those scoring at least the top-th best are sorted (ties at the cut kept):
            # with a cosine, most of a large bank may qualify
            cut = np.partition(scores, candidates.size - top)[candidates.size - top]
            best = scores >= cut
            candidates, scores = candidates[best], scores[best]
        # ties go to the newest entry (the highest position)
        order = np.lexsort((-candidates, -scores))[:top]
        return [(self.entries[int(candidates[i])], float(scores[i])) for i in order]
