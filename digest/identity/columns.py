"""An agent's index held in arrays (issue 27 point 4): what ``digest.identity.index``'s
``AgentIndex`` searches, and how it is made.

One row or slot per entry: each vector once (the matrix's row, as int8 codes with a scale:
``digest.identity.quantized``; the entries given keep theirs, the index does not), the words'
postings flat (``digest.identity.postings``), the texts only in the normalised form the
lexical scores compare, the exact texts and fingerprints as hash arrays, and the entries kept
without text or vectors. ``Columns.combined`` makes an index of
other indexes' entries from their arrays (an overlay folded into a kept index) without
normalising a text or finding a word again.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

import numpy as np

from digest.fingerprint import same_subject, subject_of
from digest.identity.postings import Postings
from digest.identity.quantized import QuantizedRows
from digest.identity.scale import DEFAULT_SCALE, CosineScale
from digest.text import normalise

C = TypeVar("C", bound="Columns")

#: words of fewer letters, and these common ones, are not index terms
MIN_TERM = 3
STOPWORDS = frozenset(
    {
        "the", "and", "for", "are", "but", "not", "you", "all", "any", "can", "her", "was", "one",
        "our", "out", "has", "had", "how", "its", "may", "new", "now", "own", "see", "way", "who",
        "did", "get", "got", "let", "put", "say", "she", "too", "use", "with", "that", "this",
        "from", "they", "will", "would", "there", "their", "what", "when", "which", "while", "into",
        "than", "then", "them", "these", "those", "been", "have", "were", "your", "about", "also",
        "does", "just", "like", "more", "most", "much", "only", "other", "should", "some", "such",
        "very", "want", "could",
    }
)  # fmt: skip
_WORD = re.compile(r"[^\W_]+")

#: what ``AgentIndex.nbytes`` counts per entry beside its arrays and texts: the entry kept and
#: its ``meta`` (``digest.lessons.bank.Row``: no text but its fingerprint), and a text's header
#: (measured with tracemalloc: ``tests/identity/test_columns.py``)
ENTRY_BYTES = 600
TEXT_OVERHEAD = 49


def terms(text: str) -> set[str]:
    """The index terms of a text: its normalised words of three or more characters that are
    not common words."""
    return {w for w in _WORD.findall(normalise(text)) if len(w) >= MIN_TERM and w not in STOPWORDS}


@dataclass(frozen=True, eq=False, slots=True)
class Entry:
    """One lesson given to an index (compared by identity: it holds a vector). An index
    keeps of it only its id, fingerprint, ``meta`` and cues (``AgentIndex.entries``): its
    text's normalised form, its words and its vectors go into the index's arrays."""

    lesson_id: int
    #: the lesson's text as compared: ``digest.text.lesson_text(situation, correction)``
    text: str = ""
    fingerprint: str | None = None
    vector: np.ndarray | None = None
    #: anything the caller wants back with a hit (title, trust, scope …)
    meta: Any = None
    #: extra words a keyword search matches (title, tags)
    extra: str = ""
    #: the words of the tasks it was learned from (``digest.lessons.cues``): a keyword search
    #: matches them too, and a prompt's keywords found here weigh more (its situation)
    cues: str = ""
    #: what the tasks it was learned from meant (``digest.lessons.cues``): unit rows, one per
    #: kind of task; a prompt is compared with the closest as well as with the text
    cue_vectors: np.ndarray | None = None

    def kept(self) -> Entry:
        """What an index keeps of it."""
        return Entry(self.lesson_id, "", self.fingerprint, None, self.meta, "", self.cues)


#: masks an index remembers (``AgentIndex.mask``), at most: one per contact a prompt names
MAX_MASKS = 16


class Columns:
    """An agent's lessons held in arrays, one row or slot per entry (see the module's
    docstring); ``AgentIndex`` searches them."""

    def __init__(self, entries: Sequence[Entry] = (), scale: CosineScale = DEFAULT_SCALE) -> None:
        normalised = [normalise(e.text) for e in entries]
        words = [
            [sys.intern(term) for term in terms(f"{e.text} {e.extra} {e.cues}")] for e in entries
        ]
        cue_words = [[sys.intern(term) for term in terms(e.cues)] for e in entries]
        dim = next((e.vector.shape[0] for e in entries if e.vector is not None), 0)
        has_vector = np.array(
            [e.vector is not None and e.vector.shape == (dim,) for e in entries], dtype=bool
        )
        matrix = np.zeros((len(entries), dim), np.float32)
        for position, entry in enumerate(entries):
            if has_vector[position]:
                matrix[position] = entry.vector
        cues = [
            (position, e.cue_vectors)
            for position, e in enumerate(entries)
            if e.cue_vectors is not None and dim and e.cue_vectors.shape[1:] == (dim,)
        ]
        self._assemble(
            [e.kept() for e in entries],
            scale,
            normalised,
            Postings.of(words),
            Postings.of(cue_words),
            QuantizedRows.of(matrix),
            has_vector,
            QuantizedRows.of(np.vstack([rows for _, rows in cues])) if cues else None,
            np.concatenate([np.full(len(rows), p, np.int32) for p, rows in cues]) if cues else None,
        )

    def _assemble(
        self,
        entries: list[Entry],
        scale: CosineScale,
        normalised: list[str],
        postings: Postings,
        cue_postings: Postings,
        vectors: QuantizedRows,
        has_vector: np.ndarray,
        cue_vectors: QuantizedRows | None,
        cue_owner: np.ndarray | None,
    ) -> None:
        self.entries = entries
        self.scale = scale
        self.ids = np.fromiter((e.lesson_id for e in entries), np.int64, count=len(entries))
        self._masks: dict[str, np.ndarray] = {}
        self._normalised = normalised
        #: the normalised texts' bytes, counted once (``nbytes`` is read on every keep)
        self._text_bytes = sum(len(t) + TEXT_OVERHEAD for t in normalised)
        self._text_hash = np.fromiter((hash(t) for t in normalised), np.int64, len(normalised))
        self._fingerprint_hash = np.fromiter(
            (hash(e.fingerprint) if e.fingerprint else 0 for e in entries), np.int64, len(entries)
        )
        #: what each entry's fingerprint is about (a tool), hashed: 0 for none
        self._subject_hash = np.fromiter(
            (hash(subject) if (subject := subject_of(e.fingerprint)) else 0 for e in entries),
            np.int64,
            len(entries),
        )
        self._postings = postings
        self._cue_postings = cue_postings
        self._has_cues = np.array([bool(e.cues.strip()) for e in entries], dtype=bool)
        self.dim = vectors.dim
        self._vectors = vectors
        self._has_vector = has_vector
        #: the tasks' vectors (rows), and the entry each belongs to
        self._cue_vectors = cue_vectors
        self._cue_owner = cue_owner
        #: its words' vectors and the words near each keyword asked, per embedder and for
        #: its cues (``digest.identity.near``)
        self.near_words: dict[tuple[str, bool], Any] = {}

    @classmethod
    def combined(
        cls: type[C], parts: Sequence[tuple[C, np.ndarray]], scale: CosineScale = DEFAULT_SCALE
    ) -> C:
        """One index of the entries each part's boolean mask keeps, ordered by lesson id (the
        first part's entry first on a tie), made from the parts' arrays: no text is
        normalised, no word found and no vector copied but into the new matrix."""
        kept = [(index, np.flatnonzero(keep)) for index, keep in parts]
        ids = np.concatenate([index.ids[at] for index, at in kept] + [np.zeros(0, np.int64)])
        order = np.argsort(ids, kind="stable")
        new_of = np.empty(len(order), np.int64)
        new_of[order] = np.arange(len(order))
        dim = next((index.dim for index, at in kept if index.dim and len(at)), 0)
        sources: list[tuple[C, np.ndarray, np.ndarray]] = []
        start = 0
        for index, at in kept:
            moved = np.full(len(index), -1, np.int64)
            moved[at] = new_of[start : start + len(at)]
            sources.append((index, at, moved))
            start += len(at)
        entries = [e for index, at in kept for e in (index.entries[p] for p in at)]
        normalised = [t for index, at in kept for t in (index._normalised[p] for p in at)]
        fits = [index.dim == dim for index, _ in kept]
        vectors = QuantizedRows.concatenate(
            [
                index._vectors.take(at) if fit else QuantizedRows.of(np.zeros((len(at), dim)))
                for (index, at), fit in zip(kept, fits, strict=True)
            ],
            dim,
        )
        has_vector = np.concatenate(
            [
                index._has_vector[at] if fit else np.zeros(len(at), bool)
                for (index, at), fit in zip(kept, fits, strict=True)
            ]
            + [np.zeros(0, bool)]
        )
        cue_rows, cue_owners = [], []
        for (index, _at, moved), fit in zip(sources, fits, strict=True):
            if fit and index._cue_vectors is not None and index._cue_owner is not None:
                owner = moved[index._cue_owner]
                cue_rows.append(index._cue_vectors.take(owner >= 0))
                cue_owners.append(owner[owner >= 0].astype(np.int32))
        found = cls.__new__(cls)
        found._assemble(
            [entries[i] for i in order],
            scale,
            [normalised[i] for i in order],
            Postings.combined([(index._postings, moved) for index, _, moved in sources]),
            Postings.combined([(index._cue_postings, moved) for index, _, moved in sources]),
            vectors.take(order),
            has_vector[order],
            QuantizedRows.concatenate(cue_rows, dim) if sum(map(len, cue_rows)) else None,
            np.concatenate(cue_owners) if sum(map(len, cue_rows)) else None,
        )
        return found

    @property
    def nbytes(self) -> int:
        """About what the index holds, in bytes: its arrays, per entry its normalised text
        and ``ENTRY_BYTES`` for the entry kept and its ``meta``, and its words' vectors once a
        prompt looked for near words (the bound of ``digest.lessons.bank``'s kept
        indexes)."""
        arrays = (
            self.ids, self._text_hash, self._fingerprint_hash, self._subject_hash, self._has_cues,
            self._vectors,
            self._has_vector, self._cue_vectors, self._cue_owner, *self._masks.values(),
        )  # fmt: skip
        texts = self._text_bytes
        return (
            sum(a.nbytes for a in arrays if a is not None)
            + self._postings.nbytes
            + self._cue_postings.nbytes
            + texts
            + ENTRY_BYTES * len(self.entries)
            + sum(getattr(state, "nbytes", 0) for state in list(self.near_words.values()))
        )

    def __len__(self) -> int:
        return len(self.entries)

    def mask(self, name: str, keep: Callable[[Entry], bool]) -> np.ndarray:
        """A boolean mask of the entries ``keep`` accepts, computed once per index and name
        (the index never changes once built). A copy: callers may change it."""
        found = self._masks.get(name)
        if found is None:
            while len(self._masks) >= MAX_MASKS:
                del self._masks[next(iter(self._masks))]
            found = self._masks[name] = np.array([keep(e) for e in self.entries], dtype=bool)
        return found.copy()

    def _with_fingerprint(self, fingerprint: str | None) -> list[int]:
        if not fingerprint:
            return []
        at = np.flatnonzero(self._fingerprint_hash == hash(fingerprint))
        return [int(p) for p in at if self.entries[p].fingerprint == fingerprint]

    def _with_any_fingerprint(self, fingerprints: Sequence[str]) -> list[int]:
        """The positions of the entries holding any of ``fingerprints`` (one pass)."""
        if not fingerprints or not self.entries:
            return []
        wanted = set(fingerprints)
        at = np.flatnonzero(np.isin(self._fingerprint_hash, [hash(f) for f in wanted]))
        return [int(p) for p in at if self.entries[p].fingerprint in wanted]

    def with_subject(
        self, fingerprint: str | None, allowed: np.ndarray | None = None, limit: int | None = None
    ) -> list[int]:
        """The positions of the (``allowed``) entries about the subject of ``fingerprint``
        (another error of its tool: ``digest.fingerprint.same_subject``), its own included,
        newest (highest position) first, at most ``limit``."""
        subject = subject_of(fingerprint)
        if not subject:
            return []
        at = np.flatnonzero(self._subject_hash == hash(subject))
        if allowed is not None:
            at = at[allowed[at]]
        found: list[int] = []
        for position in at[::-1].tolist():
            if limit is not None and len(found) >= limit:
                break
            if same_subject(fingerprint, self.entries[position].fingerprint):
                found.append(position)
        return found

    def _with_text(self, normalised: str) -> list[int]:
        at = np.flatnonzero(self._text_hash == hash(normalised))
        return [int(p) for p in at if self._normalised[p] == normalised]

    def holds(self, fingerprint: str | None, allowed: np.ndarray | None = None) -> bool:
        """Does an (allowed) entry have this fingerprint?"""
        positions = self._with_fingerprint(fingerprint)
        return any(allowed is None or allowed[p] for p in positions)

    @property
    def has_vectors(self) -> bool:
        return bool(self.dim) and bool(self._has_vector.any())
