"""Do two observations say one thing? Meaning read with the static embedding table, and the
structure that tells where the table cannot (issue 24, DESIGN §8a: meaning decides identity,
structure is evidence).

Two lessons with other keys may state one thing: one tool's error worded by two services
("Microchip ‹id› is not registered in the national pet database", "No entry for microchip
‹id› in the national pet registry"), a run's own error in other words, an owner's fact
restated to another question, one fact two operators added in their own words. Their keys
differ, so only meaning can join them; and look-alikes that are two things (a minimum TTL
and a maximum priority, Oslo closed on Mondays and Bergen on Tuesdays) must stay apart.

``reads_like(a, b)`` is that evidence, 0..1, for the judge (``digest.reflect.reconcile``
shows it in the reconcile prompt; the offline judge reads it there):

- the texts are read as the table reads English: masked values (``‹id›``), labels in
  backticks, the word "error" and the words that only frame a sentence left out, and the
  common words of
  errors and service answers in the languages the product screens glossed into English
  (``digest.identity.gloss``: the table is English-centred, "Zahlung abgelehnt: Karte
  abgelaufen" reads as "payment declined card expired");
- the cosine of the whole texts, and the cosine of what each says alone (its content words
  the other lacks): two wordings of one thing differ in words that mean alike
  ("registered"/"registry", "refused"/"cannot be submitted"), two things in one frame differ
  in words that do not ("exceeds the 25 MB limit"/"type not allowed", "full tank"/"clean
  inside"); a pair that reads nearly the same as a whole (``READS_SAME``) is not read apart
  by its rest, nor a pair that shares most of what it is about (two or more content terms,
  half of the shorter one's: "Seat ‹id› is already taken for screening ‹id›", "Screening
  ‹id›: seat ‹id› is occupied by another booking"): the table reads "taken"/"occupied by
  another booking" poorly word by word, and a frame around two things is read apart below;
- a **swap** (``digest.frames.swapped``: each says exactly one word the other does not, in a
  frame they share: "dog" and "cat", "amount is required" and "currency is required"; or a
  short phrase each in the same place of one sentence: "…at least one digit" and "…at least
  one uppercase letter") is two things of one kind, which an embedding reads as alike: 0. A
  synonym swapped alone ("porting", "transfer") is read apart too: a merge loses a fact, a
  split only a count;
- **unread** (what one text says alone is two or more words the table only reads in pieces:
  codes, coined names, words of a language the gloss does not know) is not evidence: 0;
- **figures apart** (each states a figure the other does not: a minimum of 300 and a maximum
  of 65535; 21 and 25) is two things: 0. Figures are read in words too ("six months" is 6),
  and with thousands separators ("10,000" is 10000).
- **names apart** (each names a thing the other does not: a capitalised name inside a
  sentence, a quoted field, a code in capitals: "Oslo" and "Bergen", ``'sku'`` and
  ``'product_code'``) is two things: 0.

The score is the whole texts' cosine on the table's own scale (unrelated texts sit near 0.2,
one thing in other words above ``READS_ALIKE``), or 0 when what each says alone does not
align (``REST_ALIKE``). Measured on the dev pairs of ``bench/data/quality`` (one tool's
paraphrased errors, owner answers and edit contents restated, against one tool's distinct
errors and alike facts): see bench/RESULTS.md, branches ``meaning`` and ``para4``.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from digest import facts
from digest.bounded import memo
from digest.figures import figures, on_clocks, says_times, sets_apart
from digest.frames import UNITS, named, swapped
from digest.identity.embedding import embed_many, static_embedder
from digest.identity.gloss import gloss
from digest.identity.wordpiece import default_tokenizer

#: at or above this whole-text cosine (the static table's own scale, where unrelated texts
#: sit near 0.2), two observations read as one thing
READS_ALIKE = 0.5
#: …when what each says alone (its words the other lacks) reads like what the other says
#: alone at least this well (one frame around two things sits near 0)
REST_ALIKE = 0.12
#: from this whole-text cosine up to ``READS_ALIKE``, a pair that states the same facts (what
#: it is about, its figures, nothing read apart) is in doubt: the judge reads it
IN_DOUBT = 0.35
#: at or above this whole-text cosine, what each says alone is not read apart: the texts say
#: nearly all of it alike (a frame around two things sits below it, names and figures aside)
READS_SAME = 0.75

_PLACEHOLDER = re.compile(r"[‹<][^›>\s]{1,12}[›>]")
_LABEL = re.compile(r"`[^`\n]{1,80}`")
_WORD = re.compile(r"[^\W\d_][\w'’-]*", re.UNICODE)
#: the word every error opens with, in any language (glossed): it tells no two errors apart
_ANNOUNCES = re.compile(r"\b(?:error|exception)s?\b", re.I)


def plain(text: str) -> str:
    """``text`` as the table should read it: masked values, labels and the word "error" out,
    glossed."""
    return _ANNOUNCES.sub(" ", gloss(_LABEL.sub(" ", _PLACEHOLDER.sub(" ", text))))


def _words(text: str) -> dict[str, str]:
    """Each content word of ``text`` by its term (``digest.facts``: stemmed, the words for one
    thing joined, function words and the generic ones out: "required", "available"): what
    two texts say apart is read in their nouns and the verbs of their own."""
    found: dict[str, str] = {}
    for word in _WORD.findall(text.casefold()):
        for term in facts.terms(word):
            found.setdefault(term, word)
    return found


@dataclass(frozen=True)
class Likeness:
    """How two texts compare: the cosines (the static table's own) of the whole texts and of
    what each says that the other does not, and what reads them apart."""

    whole: float
    rest: float | None
    swap: bool
    figures_apart: bool
    names_apart: bool
    #: what one text says alone is words the table only reads in pieces (codes, coined
    #: names, words of languages the gloss does not know): it cannot say they mean alike
    unread: bool = False
    #: the texts share most of what they are about (``_about_alike``): what each says alone
    #: is how it says it, not another thing
    about_alike: bool = False
    #: the texts state the same figures (or none)
    same_figures: bool = True

    def in_doubt(self, ceiling: float = READS_ALIKE) -> float:
        """The whole cosine when it is from ``IN_DOUBT`` to under ``ceiling`` and the texts
        state the same facts: they share what they are about (``about_alike``), the same
        figures, and nothing reads them apart (a swap, figures or names apart, words the
        table cannot read); else 0. The static table reads "already taken" and "occupied by
        another booking" poorly word by word: such a pair is for the judge to read."""
        if self.swap or self.figures_apart or self.names_apart or self.unread:
            return 0.0
        if not (self.about_alike and self.same_figures):
            return 0.0
        return round(self.whole, 2) if IN_DOUBT <= self.whole < ceiling else 0.0

    def score(self) -> float:
        """0..1: the whole texts' cosine, or 0 when they read apart (see the module)."""
        if self.swap or self.figures_apart or self.names_apart or self.unread:
            return 0.0
        rest_apart = self.rest is not None and self.rest < REST_ALIKE
        if self.whole < READS_SAME and rest_apart and not self.about_alike:
            return 0.0
        return round(max(0.0, self.whole), 2)


#: the fewest words a text must say alone for ``_unread`` to judge them
UNREAD_WORDS = 2


#: the share of a failure's words said alone that leaves its cosine unread
#: (``failure_unread``): another language's error keeps a few short words the table has rows
#: for ("vol", "is") beside the ones it reads only in pieces
FAILURE_UNREAD_SHARE = 2 / 3


def _unread(words: list[str], share: float = 1.0) -> bool:
    """Are ``words`` (at least ``UNREAD_WORDS``) words the table has no row of their own for
    (its tokenizer cuts each into pieces: names, codes, another language's words): all of
    them, or ``share`` of them?"""
    if len(words) < UNREAD_WORDS:
        return False
    tokenizer = default_tokenizer()
    pieces = sum(len(tokenizer.tokenize(word)) > 1 for word in words)
    return pieces >= share * len(words)


#: the content terms two texts must share (and at least half of the shorter one's) for what
#: each says alone not to read them apart
ABOUT_TERMS = 2


def _about_alike(mine: set[str], theirs: set[str]) -> bool:
    """Do two texts share what they are about: at least ``ABOUT_TERMS`` content terms, half
    of the shorter one's or more ("Seat ‹id› is already taken for screening ‹id›",
    "Screening ‹id›: seat ‹id› is occupied by another booking": seat and screening)? Then the
    words each says alone are its own way of saying it (taken, occupied by another booking),
    which the table reads poorly word by word; a frame around two things is read apart by
    its swapped place (``digest.frames.swapped``), its figures and its names."""
    shared = len(mine & theirs)
    return shared >= ABOUT_TERMS and 2 * shared >= min(len(mine), len(theirs))


def _alone(words: list[str]) -> str:
    return " ".join(words)


#: texts a process remembers its reading of (``_Reading``), and their bytes
#: (``digest.bounded``): the judge's evidence compares a candidate with each neighbour, and the
#: same lessons again for every event on their subject. An entry weighs about 1.1-1.3 KB on
#: the throughput stream (issue 27), so the entries bind first there; 1.5 MiB holds as many
#: long texts' readings as 2 MiB held before they were made lighter
READINGS_KEPT, READINGS_BYTES = 1024, 3 * 2**19


#: one empty set for every reading that has none (most texts give no names or figures)
_NONE: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class _Reading:
    """What ``likeness`` reads of one text alone: it as the table reads it (``plain``), its
    content words by term (``_words`` of that: ``terms[i]`` is read in ``words[i]``), the
    names it gives that are no figure, the terms whose word states a figure, and the figures
    the text states. Kept light: two flat tuples rather than a pair per word, no instance
    dictionary, one shared empty set (about 40% of an entry's bytes, issue 27 point 4)."""

    plain: str
    terms: tuple[str, ...]
    words: tuple[str, ...]
    names: frozenset[str]
    figured: frozenset[str]
    figures: frozenset[str]
    #: it gives times of day (``digest.figures.says_times``)
    times: bool


def _light(found: frozenset[str]) -> frozenset[str]:
    return found or _NONE


@memo(READINGS_KEPT, READINGS_BYTES, digest_keys=True)
def _read(text: str) -> _Reading:
    read = plain(text)
    # each line (quotation) is a sentence of its own: its first word names nothing
    # figures are compared as figures (``figures_apart``: "10,000" and "10000" are one), not
    # as names, nor the units they are counted in ("KB", "MB": ``frames.UNITS``)
    found = named(text) | facts.names(text.replace("\n", ". "))
    # the words interned: the same words recur across the texts it remembers
    by_term = _words(read)
    terms = tuple(sys.intern(term) for term in by_term)
    words = tuple(sys.intern(word) for word in by_term.values())
    return _Reading(
        read,
        terms,
        words,
        _light(frozenset(n for n in found if not figures(n) and n not in UNITS)),
        _light(frozenset(t for t, w in zip(terms, words, strict=True) if figures(w))),
        _light(figures(text)),
        says_times(text),
    )


def _said_alone(read_a: _Reading, read_b: _Reading) -> tuple[list[str], list[str]]:
    """The words each text says that the other does not (by term), figures aside: they are
    compared as figures (``figures_apart``), not as words."""
    wa = dict(zip(read_a.terms, read_a.words, strict=True))
    wb = dict(zip(read_b.terms, read_b.words, strict=True))
    only_a = [w for t, w in wa.items() if t not in wb and t not in read_a.figured]
    only_b = [w for t, w in wb.items() if t not in wa and t not in read_b.figured]
    return only_a, only_b


def likeness(a: str, b: str) -> Likeness:
    """How ``a`` and ``b`` compare (see the module's docstring)."""
    read_a, read_b = _read(a), _read(b)
    pa, pb = read_a.plain, read_b.plain
    figured_a, figured_b = read_a.figured, read_b.figured
    only_a, only_b = _said_alone(read_a, read_b)
    swap = swapped(pa, pb)
    unread = _unread(only_a) or _unread(only_b)
    texts = [pa, pb] + ([_alone(only_a), _alone(only_b)] if only_a and only_b else [])
    # the static table whatever the neighbour search embeds with: the evidence a judge is
    # shown must not depend on the search's settings
    vectors = embed_many(static_embedder(), texts)
    whole = float(vectors[0] @ vectors[1])
    rest = float(vectors[2] @ vectors[3]) if len(vectors) == 4 else None
    names_a, names_b = read_a.names, read_b.names
    about = _about_alike(set(read_a.terms) - figured_a, set(read_b.terms) - figured_b)
    # ``figures_apart(a, b)``, from each text's figures as read once
    fa, fb = read_a.figures, read_b.figures
    clock = on_clocks(read_a.times, read_b.times, fa & fb)
    return Likeness(
        whole=whole, rest=rest, swap=swap, figures_apart=sets_apart(fa, fb, clock=clock),
        unread=unread, names_apart=bool(names_a - names_b) and bool(names_b - names_a),
        about_alike=about, same_figures=fa == fb,
    )  # fmt: skip


def failure_unread(a: str, b: str) -> bool:
    """Do two failures say alone mostly words the table reads only in pieces
    (``FAILURE_UNREAD_SHARE``: "werkplaats ‹name› is vol op ‹date›", "voertuig ‹id› heeft een
    openstaande terugroepactie")? Then, both in a language the gloss barely knows
    (``digest.reflect.readings`` asks only then), their cosine is the pieces', not the
    errors': they read half alike whatever they say. An owner's answer or a person's rule is
    not read so: its sentences say more words the table knows."""
    only_a, only_b = _said_alone(_read(a), _read(b))
    return _unread(only_a, FAILURE_UNREAD_SHARE) or _unread(only_b, FAILURE_UNREAD_SHARE)


def reads_like(a: str, b: str) -> float:
    """How much ``a`` and ``b`` read as one thing, 0..1 (``READS_ALIKE`` and above: one)."""
    if not a.strip() or not b.strip():
        return 0.0
    return likeness(a, b).score()
