"""An inverted index of words held in three flat pieces (issue 27 point 4): the sorted
vocabulary, each word's offset into one array of positions, and that array. A word's entries
are one slice of it, a prefix's (every word it begins) one slice too, since the words it
begins are neighbours in the sorted vocabulary.

A dict of one array per word costs an array header and a dict slot per word of every agent's
index; here a word costs its place in the vocabulary and four bytes, and a posting two (four
in an index of more than 65,536 entries). An
index made again from ones it held before (``combined``: an overlay folded in) moves their
postings as arrays and never reads a text again.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence

import numpy as np

#: words a prefix's matches read, at most (a very common stem: its first words say enough)
PREFIX_WORDS = 256
#: positions below this are held in two bytes each
_SHORT = 2**16


class Postings:
    """Words → the positions of the entries holding them, ascending."""

    __slots__ = ("offsets", "positions", "vocabulary")

    def __init__(self, vocabulary: list[str], offsets: np.ndarray, positions: np.ndarray) -> None:
        self.vocabulary = vocabulary
        self.offsets = offsets
        self.positions = positions

    @classmethod
    def of(cls, words: Sequence[Iterable[str]]) -> Postings:
        """The postings of ``words[position]`` for each position."""
        pairs = [(word, position) for position, held in enumerate(words) for word in held]
        return cls._from_pairs(pairs)

    @classmethod
    def _from_pairs(cls, pairs: list[tuple[str, int]]) -> Postings:
        vocabulary = sorted({word for word, _ in pairs})
        number = {word: i for i, word in enumerate(vocabulary)}
        words = np.fromiter((number[w] for w, _ in pairs), np.int64, count=len(pairs))
        positions = np.fromiter((p for _, p in pairs), np.int64, count=len(pairs))
        return cls._from_arrays(vocabulary, words, positions)

    @classmethod
    def _from_arrays(
        cls, vocabulary: list[str], words: np.ndarray, positions: np.ndarray
    ) -> Postings:
        order = np.lexsort((positions, words))
        counts = np.bincount(words, minlength=len(vocabulary))
        offsets = np.zeros(len(vocabulary) + 1, np.int32)
        np.cumsum(counts, out=offsets[1:])
        short = not len(positions) or int(positions.max()) < _SHORT
        return cls(vocabulary, offsets, positions[order].astype(np.uint16 if short else np.int32))

    @classmethod
    def combined(cls, parts: Sequence[tuple[Postings, np.ndarray]]) -> Postings:
        """The postings of several indexes as one: each part's position ``p`` moved to
        ``moved[p]`` (dropped where it is negative). A word no kept position holds leaves
        the vocabulary."""
        vocabulary = sorted(set().union(*(part.vocabulary for part, _ in parts)))
        number = {word: i for i, word in enumerate(vocabulary)}
        words, positions = [], []
        for part, moved in parts:
            renumber = np.fromiter(
                (number[w] for w in part.vocabulary), np.int64, count=len(part.vocabulary)
            )
            words_of = np.repeat(renumber, np.diff(part.offsets))
            to = moved[part.positions].astype(np.int64)
            kept = to >= 0
            words.append(words_of[kept])
            positions.append(to[kept])
        found = cls._from_arrays(
            vocabulary,
            np.concatenate(words) if words else np.zeros(0, np.int64),
            np.concatenate(positions) if positions else np.zeros(0, np.int64),
        )
        held = np.diff(found.offsets) > 0
        if held.all():
            return found
        offsets = np.concatenate([[0], found.offsets[1:][held]]).astype(np.int32)
        kept_words = [w for w, keep in zip(found.vocabulary, held, strict=True) if keep]
        return cls(kept_words, offsets, found.positions)

    def __contains__(self, word: str) -> bool:
        return self._number(word) is not None

    def _number(self, word: str) -> int | None:
        i = bisect.bisect_left(self.vocabulary, word)
        return i if i < len(self.vocabulary) and self.vocabulary[i] == word else None

    def count(self, word: str) -> int:
        """How many entries hold ``word``."""
        i = self._number(word)
        return 0 if i is None else int(self.offsets[i + 1] - self.offsets[i])

    def at(self, number: int) -> np.ndarray:
        """The positions holding the ``number``-th word of the vocabulary."""
        return self.positions[int(self.offsets[number]) : int(self.offsets[number + 1])]

    def holding(self, word: str) -> np.ndarray:
        """The positions holding ``word`` itself."""
        i = self._number(word)
        return self.at(i) if i is not None else np.zeros(0, np.int32)

    def newest(self, word: str, limit: int) -> np.ndarray:
        """The ``limit`` highest positions holding ``word``, highest first."""
        i = self._number(word)
        if i is None:
            return np.zeros(0, np.int32)
        start, end = int(self.offsets[i]), int(self.offsets[i + 1])
        return self.positions[max(start, end - limit) : end][::-1]

    def with_prefix(self, prefix: str) -> np.ndarray | None:
        """The positions holding a word ``prefix`` begins ("refund": "refunds", "refunded"),
        of its first ``PREFIX_WORDS`` words; None when no word begins with it."""
        start = bisect.bisect_left(self.vocabulary, prefix)
        end = start
        limit = min(len(self.vocabulary), start + PREFIX_WORDS)
        while end < limit and self.vocabulary[end].startswith(prefix):
            end += 1
        if end == start:
            return None
        return self.positions[int(self.offsets[start]) : int(self.offsets[end])]

    @property
    def nbytes(self) -> int:
        """The arrays' bytes and the vocabulary list's slots (its words are interned:
        shared by every index of the process)."""
        return int(self.offsets.nbytes + self.positions.nbytes + 8 * len(self.vocabulary))
