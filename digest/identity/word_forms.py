"""Word forms for keyword matching (issue 24 point 5): "changing" finds "change" and
"changes", "balances" finds "balance", "cancelled" finds "cancel", "reservation" finds
"reserve".

A prompt's keyword matches the words it begins (``digest.identity.postings.with_prefix``), so
a keyword in another form of a lesson's word matched nothing unless an embedder's word vectors
found it near (``digest.identity.near``); with embeddings off, nothing did. ``stem`` cuts one
common English ending off a keyword (and the doubled consonant before "-ing"/"-ed") when at
least ``MIN_STEM`` letters remain, so that its prefix begins the other forms too. It only ever
makes a keyword's prefix shorter: what a keyword matched before, its stem matches still. Pure
and cheap: a few ``endswith`` per keyword.
"""

from __future__ import annotations

#: a stem keeps at least this many letters (a shorter one begins too many unrelated words)
MIN_STEM = 4
#: endings cut, the longest that fits first; "ss" keeps its "s" ("address", "class")
ENDINGS = ("ations", "ation", "ings", "ions", "ing", "ion", "ies", "ied", "es", "ed", "s", "e")
#: endings after which a doubled consonant is one ("cancelled", "cancellation", "shipping")
_DOUBLING = frozenset({"ations", "ation", "ings", "ing", "ed"})
_VOWELS = frozenset("aeiouy")


def stem(keyword: str) -> str:
    """``keyword`` without one common English ending, at least ``MIN_STEM`` letters long; the
    keyword itself when no ending fits."""
    for ending in ENDINGS:
        if not keyword.endswith(ending) or len(keyword) - len(ending) < MIN_STEM:
            continue
        found = keyword[: -len(ending)]
        if ending == "s" and found.endswith("s"):
            return keyword
        if (
            ending in _DOUBLING
            and len(found) > MIN_STEM
            and found[-1] == found[-2]
            and found[-1] not in _VOWELS
        ):
            found = found[:-1]
        return found
    return keyword
