"""Words of close meaning, for a prompt's keywords (``pitfalls``).

A later task of one kind is rarely told in the words of the earlier ones: "the plate I
received is cracked" for "the vase was shattered", "my plane was late" for "my flight was
delayed", "purchase" for "bought". A keyword then begins none of a lesson's words, and the
sentence embedding of a short first message says little. So a keyword also matches the
indexed words nearest it in meaning: by the cosine of the two words' vectors under the
agent's embedder, nothing at ``NEAR_ZERO`` or below, fully at ``NEAR_ONE`` or above, linear in
between; a word the keyword begins matches fully, as before.

Only an ``inline`` embedder gives word vectors (the static table: microseconds a word, each
word embedded once per process, ``WordVectors``): a model run per word would cost the agent's
turn too much, and without an embedder keywords match as they are. Each index keeps the
matrix of its words' vectors once made, and the words near each keyword once found
(``near_matches``). Nothing here reads the database.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

import numpy as np

from digest.identity.quantized import QuantizedRows
from digest.runtime import runtime

if TYPE_CHECKING:
    from digest.identity.embedding import Embedder
    from digest.identity.index import AgentIndex

#: two words this close (cosine of the static table's vectors) have nothing in common: below
#: it "cracked" and "glass", "plane" and "passenger"; above it "cracked" and "shattered",
#: "plane" and "flight", "compensated" and "compensation"
NEAR_ZERO = 0.5
#: …and at least this close, the same word for a prompt ("moving" and "move")
NEAR_ONE = 0.8
#: words whose vectors a process keeps, per embedder, at most, and at most these bytes (a
#: word of the static table's 128 dimensions is about 0.7 KB with its array and slot)
WORDS_MAX = 100_000
WORDS_BYTES = 32 * 2**20
#: what a kept word costs beside its vector's floats and its text (array header, dict slot)
WORD_OVERHEAD = 200
#: keywords whose near words an index keeps (then it forgets them all and starts again)
KEYWORDS_MAX = 4096
#: a keyword matches at most this many words near it, the closest: each costs the agent's
#: turn a pass over the entries holding it (a keyword near hundreds of a large bank's words
#: made pitfalls 2x words only at p99, issue 27)
NEAR_WORDS_MAX = 16
#: a prompt's keywords the index does not hold that look for near words, at most this many
#: (the first in the prompt): each costs a pass over the index's vocabulary on the agent's
#: turn, and a prompt of a dozen unseen words made the slowest turns (issue 27)
NEAR_KEYWORDS_MAX = 6


class WordVectors:
    """Unit vectors of single words under one inline embedder, each embedded once per
    process (at most ``WORDS_MAX`` words and ``WORDS_BYTES``; past that the oldest are
    forgotten)."""

    def __init__(self, embedder: Embedder) -> None:
        self.name = embedder.name
        self._embedder = embedder
        self._lock = threading.Lock()
        self._known: dict[str, np.ndarray] = {}
        self.nbytes = 0
        #: distinct words asked that were kept (hits) and that were embedded (misses)
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._known)

    def of(self, words: Sequence[str]) -> np.ndarray:
        """The words' vectors, one row each (float32)."""
        with self._lock:
            asked = dict.fromkeys(words)
            missing = [w for w in asked if w not in self._known]
            self.misses += len(missing)
            self.hits += len(asked) - len(missing)
        made = {
            word: np.asarray(vector, np.float32)
            for word, vector in zip(
                missing, self._embedder.embed(missing) if missing else [], strict=True
            )
        }
        with self._lock:
            for word, vector in made.items():
                if word not in self._known:
                    self._known[word] = vector
                    self.nbytes += _weight(word, vector)
            while self._known and (len(self._known) > WORDS_MAX or self.nbytes > WORDS_BYTES):
                word = next(iter(self._known))
                self.nbytes -= _weight(word, self._known.pop(word))
            # (the words just made are read from ``made``: the bound may have dropped them)
            rows = [made.get(word, self._known.get(word)) for word in words]
        dim = next((row.shape[0] for row in rows if row is not None), 0)
        if not rows or dim == 0:
            return np.zeros((len(words), dim), np.float32)
        return np.stack([row if row is not None else np.zeros(dim, np.float32) for row in rows])


def _weight(word: str, vector: np.ndarray) -> int:
    return len(word) + vector.nbytes + WORD_OVERHEAD


class _Words:
    """This process's ``WordVectors``, one per embedder name."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_name: dict[str, WordVectors] = {}

    def census(self) -> list[float]:
        """[words, bytes, hits, misses, bound in words, bound in bytes] over every embedder's
        word vectors (``bench/_memory_trace.py``)."""
        with self.lock:
            kept = list(self.by_name.values())
        return [
            sum(len(w) for w in kept), sum(w.nbytes for w in kept), sum(w.hits for w in kept),
            sum(w.misses for w in kept), WORDS_MAX * len(kept), WORDS_BYTES * len(kept),
        ]  # fmt: skip


def own_word_vectors(embedder: Embedder | None) -> WordVectors | None:
    """New word vectors of ``embedder`` (when inline) for one caller's own use, dropped with
    it: a compose's replay embeds its agent's vocabulary once and keeps none of it after
    (``digest.versions.replay.plan``). The same vectors as the process's (``word_vectors``):
    the static table embeds a word the same way each time."""
    if embedder is None or not getattr(embedder, "inline", False):
        return None
    return WordVectors(embedder)


def word_vectors(embedder: Embedder | None) -> WordVectors | None:
    """The word vectors of ``embedder`` when it is inline (the static table), else None."""
    if embedder is None or not getattr(embedder, "inline", False):
        return None
    words = runtime().piece(_Words)
    with words.lock:
        found = words.by_name.get(embedder.name)
        if found is None:
            found = words.by_name[embedder.name] = WordVectors(embedder)
        return found


def closeness(cosines: np.ndarray) -> np.ndarray:
    """How fully a word of these cosines to a keyword matches it, 0..1."""
    return np.clip((cosines - NEAR_ZERO) / (NEAR_ONE - NEAR_ZERO), 0.0, 1.0)


#: what a keyword's entry in ``_Near.by_keyword`` costs beside its arrays' numbers (two array
#: headers, the tuple, the dict slot, the keyword); a keyword near no word costs the slot only
NEAR_ENTRY_BYTES = 330


class _Near:
    """One index's words (or cues) under one embedder: their vectors, as int8 codes
    (``digest.identity.quantized``: a fourth of float32's bytes, cosines within about 0.001),
    and the words near each keyword asked so far (positions in its vocabulary, int32, and
    their closeness, float32). A kept index holds it for as long as it is kept: in a worker a
    compose's replay makes one for every agent it replays (issue 27 point 4)."""

    def __init__(self, matrix: np.ndarray) -> None:
        self.matrix = QuantizedRows.of(matrix.reshape(len(matrix), -1))
        self.lock = threading.Lock()
        self.by_keyword: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    def cosines(self, vectors: np.ndarray) -> np.ndarray:
        """(keywords, words): each keyword vector's cosine with each word of the vocabulary,
        on this thread (not through BLAS: ``digest.identity.scale.matrix_times``)."""
        products = np.einsum("ij,kj->ki", self.matrix.codes, vectors.astype(np.float32))
        return products * self.matrix.scales

    @property
    def nbytes(self) -> int:
        """About what it holds (counted in its index's ``nbytes``, the kept indexes' bound)."""
        with self.lock:
            near = sum(
                a.nbytes + b.nbytes + NEAR_ENTRY_BYTES if a.size else 100
                for a, b in self.by_keyword.values()
            )
        return self.matrix.nbytes + near


def _near_state(index: AgentIndex, words: WordVectors, cues: bool) -> _Near:
    key = (words.name, cues)
    found = index.near_words.get(key)
    if found is None:  # two threads may both make it: the same, and one is kept
        found = index.near_words.setdefault(key, _Near(words.of(index.words(cues=cues).vocabulary)))
    return cast(_Near, found)


def _near_words(
    state: _Near, keywords: Sequence[str], words: WordVectors
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per keyword, the positions of the words near it and their closeness: computed once per
    keyword and index (one pass over the vocabulary for the keywords not asked before)."""
    with state.lock:
        missing = [k for k in dict.fromkeys(keywords) if k not in state.by_keyword]
    if missing and len(state.matrix):
        vectors = words.of(missing).astype(np.float32, copy=False)
        # not through BLAS (digest.identity.scale.matrix_times): one pass, this thread
        cosines = state.cosines(vectors)
        with state.lock:
            if len(state.by_keyword) + len(missing) > KEYWORDS_MAX:
                state.by_keyword.clear()
            for keyword, row in zip(missing, cosines, strict=True):
                near = closeness(row)
                close = np.flatnonzero(near > 0)
                if close.size > NEAR_WORDS_MAX:
                    close = close[np.argsort(-near[close], kind="stable")[:NEAR_WORDS_MAX]]
                state.by_keyword[keyword] = (
                    (close.astype(np.int32), near[close].astype(np.float32))
                    if close.size
                    else _NONE  # one shared pair for every keyword near no word
                )
    with state.lock:
        return [state.by_keyword.get(k, _NONE) for k in keywords]


def near_matches(
    index: AgentIndex,
    keywords: Sequence[str],
    words: WordVectors,
    *,
    cues: bool = False,
    exact: Sequence[np.ndarray | None] | None = None,
) -> list[np.ndarray | None]:
    """Per keyword, how fully each entry of ``index`` holds it (None: no entry does): 1 where
    it begins one of the entry's words (``AgentIndex.keyword_matches``); a keyword that begins
    no word of the index matches, in part, the entry's word nearest it in meaning (its
    closeness). With ``cues``, among the entries' cues only.

    Only a keyword the index does not hold looks for near words (the first
    ``NEAR_KEYWORDS_MAX`` of them): a prompt's words are mostly the bank's own, so the pass over
    the vocabulary (the agent's turn pays it) is made for the few it has never seen, where it
    is what finds a lesson told in other words. ``exact``:
    the keywords' ``keyword_matches`` when the caller has them."""
    if exact is None:
        exact = [index.keyword_matches(keyword, cues=cues) for keyword in keywords]
    postings = index.words(cues=cues)
    unknown = [keyword for keyword, held in zip(keywords, exact, strict=True) if held is None][
        :NEAR_KEYWORDS_MAX
    ]
    if not postings.vocabulary or not unknown:
        return list(exact)
    state = _near_state(index, words, cues)
    nearest = dict(zip(unknown, _near_words(state, unknown, words), strict=True))
    found: list[np.ndarray | None] = []
    for keyword, held in zip(keywords, exact, strict=True):
        close, near = nearest.get(keyword, _NONE)
        if held is not None or close.size == 0:
            found.append(held)
            continue
        partial = np.zeros(len(index), np.float64)
        for position, closeness_of in zip(close.tolist(), near.tolist(), strict=True):
            entries = postings.at(position)
            partial[entries] = np.maximum(partial[entries], closeness_of)
        found.append(partial)
    return found


_NONE = (np.zeros(0, np.int32), np.zeros(0, np.float32))
