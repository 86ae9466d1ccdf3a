"""Words two lessons share, past what every lesson of a frame shares (DESIGN §8a: structure is
evidence). Two texts in one language that share not one word they say something with, past
their common frame and the words their figures sit in, say two things: "Not enough seats on
the flight" and "Cabin class basic_economy does not allow changes"; "card refunds take 5 to 7
business days" and "supplier payments take 5 to 7 business days". Used where the judge's
NOOP may be refused (``digest.reflect.ask``) and where a failure of a lesson's own tool in
other words is shown to the judge (``digest.reflect.reconcile.for_the_judge``). Pure.
"""

from __future__ import annotations

import re

from digest.fact_words import STOP
from digest.identity.languages import two_languages
from digest.identity.word_forms import stem
from digest.masking import mask_ids
from digest.text import NEGATION


def nothing_in_common(new: str, old: str) -> bool:
    """Do two texts in one language share not one content word past their shared frame
    (``past_shared_frame``: "Not enough seats on the flight", "Cabin class basic_economy does
    not allow changes")? Then they say two things, whoever called them one. Two languages may
    share none and say one thing."""
    mine, theirs = past_shared_frame(new, old)
    return not (own_words(mine) & own_words(theirs)) and not two_languages(mine, theirs)


#: a word of a text (letters, an identifier's underscores: ids and figures are compared apart)
_WORD = re.compile(r"[^\W\d]{3,}")


#: a token of a text: a word, or a figure ("5", "18:00", "12kg")
_TOKEN = re.compile(r"\w+(?:[:.,]\d+)*")


def own_words(text: str) -> set[str]:
    """The words a text says something with, each by its stem: function words and negations
    aside, and the words a figure sits in (one before it, two after: "take 5 to 7 business
    days" says its figures, not what they are about); no concept a table maps two words to (a
    booking and a reservation are one concept, yet "cannot be added after booking" and
    "cannot update the reservation" are two errors)."""
    tokens = _TOKEN.findall(text.casefold())
    near = {
        i + step
        for i, token in enumerate(tokens)
        if any(c.isdigit() for c in token)
        for step in (-1, 1, 2)
    }
    return {
        stem(token)
        for i, token in enumerate(tokens)
        if i not in near
        and _WORD.fullmatch(token)
        and token not in STOP
        and not NEGATION.fullmatch(token)
    }


def past_shared_frame(new: str, old: str) -> tuple[str, str]:
    """Two lessons' texts without the words both begin and end with (a judge's frame, "Tell
    the customer what the operator told them: …", is no evidence that they say one thing)."""
    a, b = new.split(), old.split()
    start = 0
    while start < min(len(a), len(b)) and a[start].casefold() == b[start].casefold():
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end].casefold() == b[-1 - end].casefold():
        end += 1
    return " ".join(a[start : len(a) - end]), " ".join(b[start : len(b) - end])


#: a word inside a sentence: after a word, a comma or a bracket and a space (not the word a
#: sentence or a quotation begins with)
_INNER_WORD = re.compile(r"(?<=[\w,)] )[^\W\d_]{3,}\b")


def _names(text: str) -> set[str]:
    """The names in running text: capitalised words inside a sentence ("werkplaats Utrecht is
    vol", "no courier in Leeds"); not a code in capitals (CAP, PC) or a word in lower case."""
    return {w for w in _INNER_WORD.findall(text) if w[0].isupper() and w[1:].islower()}


def names_apart_only(new: str, old: str) -> bool:
    """Do two errors say one thing about other named instances ("werkplaats Utrecht is vol op
    ‹date›", "werkplaats Amersfoort is vol op ‹date›": another workshop, one failure)? Each
    names something the other does not, and past those names what one says the other says
    too. A name is the instance the way an id is; the words around it are the failure."""
    mine, theirs = _names(new), _names(old)
    if not mine or not theirs or mine == theirs:
        return False
    said = own_words(" ".join(w for w in new.split() if w.strip(".,;:…") not in mine))
    known = own_words(" ".join(w for w in old.split() if w.strip(".,;:…") not in theirs))
    return bool(said and known) and (said <= known or known <= said)


#: an instance ``masking.mask_ids`` put aside, with the word that names it ("order #<id>")
_INSTANCE = re.compile(r"(?:[^\W\d]+\s+)?#?<\w+>")


def instances_aside(text: str) -> str:
    """``text`` with every instance (an id, a date, a quoted value: ``masking.mask_ids``) and
    the word naming it taken out: "Order #W2291 not found" → "not found", "No order found with
    id #W8812" → "No order found with". One failure's errors differ in their instances; the
    noun of an instance is not what an error says ("Not enough seats on flight HAT40 for 3
    passengers" and "Flight HAT43 is not available" share only the flight they name)."""
    return _INSTANCE.sub(" ", mask_ids(text))
