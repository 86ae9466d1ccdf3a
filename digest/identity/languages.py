"""One error in two languages: what the static table cannot read, the words can still show
(issue 24, DESIGN §8a: meaning decides identity, structure is evidence).

The static table is distilled from all-MiniLM-L6-v2, an English model with an English
WordPiece vocabulary: "die IBAN für die Erstattung fehlt" and "the IBAN for the refund is
missing" read 0.33 even after the gloss (``digest.identity.gloss``) has turned "fehlt" into
"missing", because the gloss knows the words of errors, not those of every business. What
the two still share are the words that cross languages as they are: names and codes ("IBAN"),
and cognates ("certificado"/"certificate", "supporti"/"supports",
"legitymacji studenckiej"/"student card"). Two errors of one tool in two languages that
share such a word about what they are about (not a word of the condition: "missing",
"required" belong to the error family, which is compared on its own) may be one error, and
the judge reads the pair (``digest.reflect.readings.in_doubt``); two that share none ("the
source file is missing", "die Zielsprache fehlt") are not put to it.

Pure functions of two texts; rapidfuzz scores the cognates.
"""

from __future__ import annotations

import re

from rapidfuzz.distance import Indel

from digest.frames import swapped
from digest.identity.gloss import GLOSSES, gloss
from digest.identity.task_gloss import plain_letters

#: words of the gloss's languages (``digest.identity.gloss.GLOSSES``) that are English words too
_HOMOGRAPHS = frozenset(
    """a am an as con den die do e elle fil i in is lager met no o ore par pas per pour rom son
    te timer valor van var war was""".split()  # noqa: SIM905
)
#: letters English does not write (an accent, a ligature, a Nordic or Slavic letter)
_NOT_ENGLISH = re.compile(r"[^\W\d_a-zA-Z]")
#: English words of a condition rather than of a subject (the error family reads these), and
#: function words a cognate must not be
_NOT_SUBJECT = frozenset(
    """rejected refused denied failed invalid valid required requires missing found
    expired allowed permitted exceeds exceeded limit maximum minimum blocked closed
    cancelled insufficient already available supported submitted must longer least error
    matches instead open free given cannot could would should there their these those
    other about which where after before under above from into with than that this have
    been were does""".split()  # noqa: SIM905
)
_WORD = re.compile(r"[^\W\d_][^\W\d_'-]*")
_PLACEHOLDER = re.compile(r"[‹<][^›>\s]{1,12}[›>]")
_HEAD = re.compile(r"^[^:\n]{1,60}:\s+(?=\S)")

_SERVICE_WORDS = frozenset(GLOSSES.values())

#: a word shorter than this is not read as a cognate (too many short words look alike)
COGNATE_MIN = 5
#: the Indel similarity two spellings of one word across languages reach ("certificado",
#: "certificate": 0.91; "studenckiej", "student": 0.78 as a prefix, see ``_cognate``)
COGNATE_RATIO = 0.8
#: the letters two cognates must open with alike ("support-", "vehic-")
COGNATE_PREFIX = 4
#: a cognate this long (or a name in capitals) is evidence alone; shorter ones count in pairs
STRONG = 6


def _words(text: str) -> list[str]:
    return _WORD.findall(_PLACEHOLDER.sub(" ", text))


def _signals(text: str) -> int:
    """How many distinct words of a text are not English: a word with a letter English does not
    write, or a word of the gloss's languages that is no English word."""
    found: set[str] = set()
    for word in _words(text):
        folded = word.casefold()
        if len(folded) < 2:
            continue  # "y", "e", "o", "i": a format letter as often as a conjunction
        if (folded in GLOSSES and folded not in _HOMOGRAPHS) or _NOT_ENGLISH.search(word):
            found.add(folded)
    return len(found)


#: the words of other languages that say a text is not English (one can be a name, a
#: borrowed word or a value)
FOREIGN_WORDS = 2


def two_languages(a: str, b: str) -> bool:
    """Is one text written in another language (``FOREIGN_WORDS`` of its words or more) and
    the other in English (none)?"""
    mine, theirs = _signals(a), _signals(b)
    return min(mine, theirs) == 0 and max(mine, theirs) >= FOREIGN_WORDS


def neither_english(a: str, b: str) -> bool:
    """Are both texts written in another language than English (``FOREIGN_WORDS`` of their
    words or more each)?"""
    return min(_signals(a), _signals(b)) >= FOREIGN_WORDS


def error_line(text: str) -> str:
    """The line of a lesson's observation that holds the error (its longest: a title line
    above it repeats the error's head)."""
    return max(text.splitlines() or [""], key=len)


def _reason(text: str) -> str:
    """What a refusal says after its head ("Booking refused: …"): the head is the frame, in
    each language its own words."""
    return _HEAD.sub("", error_line(text).strip(), count=1)


def reasons_swapped(a: str, b: str) -> bool:
    """Do the reasons of two errors, read through the gloss, swap one word or phrase in one
    frame ("the amount is missing", "die Währung fehlt": "amount" against "Währung")?"""
    return swapped(gloss(_reason(a)), gloss(_reason(b)))


def _subject(text: str) -> dict[str, str]:
    """The words a text is about (folded → as written), read through the gloss: no function
    word, no word of a condition, none shorter than ``COGNATE_MIN`` unless in capitals."""
    found: dict[str, str] = {}
    for word in _words(gloss(_reason(text))):
        folded = plain_letters(word)
        if folded in _NOT_SUBJECT:
            continue
        if len(folded) >= COGNATE_MIN or (word.isupper() and len(word) >= 3):
            found.setdefault(folded, word)
    return found


def _cognate(a: str, b: str) -> bool:
    if a == b:
        return True
    if min(len(a), len(b)) < COGNATE_MIN or a[:COGNATE_PREFIX] != b[:COGNATE_PREFIX]:
        return False
    short = min(a, b, key=len)
    # an inflected or derived form keeps the stem ("studen-": "student", "studenckiej")
    opening = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(short))
    return opening >= STRONG or Indel.normalized_similarity(a, b) >= COGNATE_RATIO


def cognates(a: str, b: str) -> list[tuple[str, str]]:
    """The words of what ``a`` and ``b`` are about that are one word in both (a name, a
    cognate), each word of ``a`` matched at most once."""
    mine, theirs = _subject(a), _subject(b)
    found: list[tuple[str, str]] = []
    taken: set[str] = set()
    for word, written in mine.items():
        match = next((w for w in theirs if w not in taken and _cognate(word, w)), None)
        if match is not None:
            taken.add(match)
            found.append((written, theirs[match]))
    return found


def same_subject_across(a: str, b: str) -> bool:
    """Do two errors written in two languages name one thing: a name in capitals or a cognate
    of ``STRONG`` letters in both, or two shorter cognates? (Not whether they say one thing
    of it: the error families and the figures are compared on their own.)"""
    if not two_languages(error_line(a), error_line(b)):
        return False
    found = cognates(a, b)
    # a word the gloss writes in English ("number", "booking") is a word of every service:
    # it counts only beside another
    strong = any(
        (min(len(x), len(y)) >= STRONG and plain_letters(x) not in _SERVICE_WORDS)
        or (x.isupper() and y.isupper())
        for x, y in found
    )
    return strong or len(found) >= 2
