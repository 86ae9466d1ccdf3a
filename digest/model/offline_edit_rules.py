"""``offline/rules`` reconciling the rules operators' edits teach (DESIGN §8a): each rule is
its own lesson; two edits' tone rules that share a shape rule are one tone (NOOP, or an UPDATE
that asks for both); two content rules are one fact only when they say it in other words
(``same_content``), and content is reversed only by content (``content_reversed``).
"""

from __future__ import annotations

import itertools
import re
from typing import Any

from digest import facts
from digest.edits import same_tone, tone_added
from digest.figures import figures
from digest.fingerprint import edit_family, same
from digest.model.offline_reflect import (
    EDIT_SITUATION,
    NO_CONTEXT_SITUATION,
    REPLACED_DRAFT,
    tone_lesson,
)
from digest.reversal import about_words, reversal_terms
from digest.text import negation_flipped, score

#: two texts read as one topic at this relevance (``digest.text.score``)
SAME_TOPIC = 0.8


def update(cand: dict[str, Any], old: dict[str, Any], reason: str) -> dict[str, Any]:
    merged_tags = list(dict.fromkeys([*(old.get("tags") or []), *(cand.get("tags") or [])]))
    return {
        "op": "UPDATE",
        "candidate": cand.get("candidate"),
        "id": old["id"],
        "lesson": {
            "situation": cand.get("situation"),
            "mistake": cand.get("mistake") or old.get("mistake"),
            "correction": cand.get("correction"),
            "tags": merged_tags,
        },
        "reason": reason,
    }


#: what an operator's content rule says: the first quotation of its correction
_SAID = re.compile(r"«([^»]{1,2000})»")


#: the words a reversal in new content must share with the old content it reverses
CONTENT_REVERSAL_WORDS = 2


def quoted_content(item: dict[str, Any]) -> str:
    found = _SAID.search(str(item.get("correction") or ""))
    return found.group(1) if found else str(item.get("correction") or "")


def content_reversed(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Among the rules of operators' edits only content is reversed, and only by content: what
    the operator now says states that what the older content says was removed, replaced or
    inverted, on the same topic ("Refunds are now sent within ten business days" after "Refunds
    take five business days"). A tone or a promise rule, a rejected draft, or content that merely
    mentions another rule's words supersedes nothing: distinct rules stay apart. An edit that
    takes out what an earlier edit added (the same content, left out) reverses it too."""
    families = {edit_family(cand.get("fingerprint")), edit_family(item.get("fingerprint"))}
    if families != {"content"}:
        return False
    new, old = quoted_content(cand), quoted_content(item)
    if _left_out(cand) != _left_out(item):
        # the operator takes out what an earlier edit added (or puts back what one took
        # out): the same content, one rule saying it and the other leaving it out
        return _values(new) == _values(old) and _says_alike(new, old)
    if not _left_out(item) and _replaces(draft_replaced(cand), old, new):
        return True
    old_words = about_words(old)
    shared = [t for t in reversal_terms(new) if any(_inflected_alike(t, w) for w in old_words)]
    return len(shared) >= CONTENT_REVERSAL_WORDS


#: two words are one word inflected when they share this many first letters…
_STEM_LETTERS = 5
#: …and neither has more than this many letters past them ("gotówki", "gotówką";
#: "instruktorzy", "instruktorowi": the cases of a noun in Polish, Czech, Finnish, German)
_ENDING_LETTERS = 3


def _inflected_alike(a: str, b: str) -> bool:
    """Are two words one word in two inflections (or the same word)?"""
    if a == b:
        return True
    stem = next(
        (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
    )
    return stem >= _STEM_LETTERS and max(len(a), len(b)) - stem <= _ENDING_LETTERS


#: the draft's words an operator replaced, as a content rule's mistake quotes them
_BEFORE, _BETWEEN, _ = REPLACED_DRAFT.split("{}")
_REPLACED = re.compile(re.escape(_BEFORE) + "«([^»]{1,2000})»" + re.escape(_BETWEEN))


def draft_replaced(item: dict[str, Any]) -> str:
    """What the draft said that the operator replaced (a content rule's mistake), else ""."""
    found = _REPLACED.match(str(item.get("mistake") or ""))
    return found.group(1) if found else ""


#: a term two contents share says they speak of one thing when it has this many letters
#: ("incheck", "kursbeg"; not a unit: "kl", "uhr")
_TOPIC_LETTERS = 4


def _replaces(replaced: str, old: str, new: str) -> bool:
    """Did an operator replace what an older content rule says ("Incheckning från kl. 14" →
    "Rummen är klara för incheckning först kl. 16")? The draft said the old rule (its values,
    its terms) and the final says something else about it in its place: not the old rule
    again with more to it ("Check-in from 14; early check-in on request"), which refines it,
    and not another rule the same edit added beside it (every rule of one edit quotes the
    draft's words it replaced: "exchanges are free within 30 days" reverses no sizing rule)."""
    if not replaced or _values(replaced) != _values(old) or not _says_alike(replaced, old):
        return False
    if not any(len(t) >= _TOPIC_LETTERS for t in facts.terms(new) & facts.terms(old)):
        return False
    if _values(old):
        return not _values(old) <= _values(new)
    return not _says_alike(new, old)


def _left_out(item: dict[str, Any]) -> bool:
    """Is an operator's content rule one that leaves out what the draft said?"""
    return "left-out" in (item.get("tags") or [])


#: what pins a fact down besides its figures (``digest.figures``: numbers and times, and
#: numbers written as words): codes in capitals (CET, EUR, SKU names)
_CODE = re.compile(r"\b[A-Z]{2,5}\b")


def _values(text: str) -> set[str]:
    return set(_CODE.findall(text)) | figures(text)


#: the share of their content terms two operators' content rules without figures must share
SAME_CONTENT_TERMS = 0.75
#: …or the share of the shorter one's terms the other says, and at least this many terms
SAME_CONTENT_SHARED = 3
#: …or this many terms, if they are at least half of the shorter one's: a fact with many
#: words of its own said again with several of them ("The driver can only unload at street
#: level, so have a pallet truck ready", "Our drivers unload at the kerbside only; you need
#: your own pallet truck"), where two rules that share their subject share two or three
SAME_CONTENT_MANY = 4
SAME_CONTENT_HALF = 0.5


def _content_terms(text: str) -> set[str]:
    """What an operator's content says, as ``digest.facts`` terms, and the words it may be
    written as elsewhere: two words written as one ("back up", "backup") and a German
    participle's verb ("geliefert", "liefert")."""
    found = facts.terms(text)
    words = re.findall(r"[^\W\d_]+", text.casefold())
    found |= {term for a, b in itertools.pairwise(words) for term in facts.terms(a + b)}
    found |= {
        term for w in words if w.startswith("ge") and len(w) > 6 for term in facts.terms(w[2:])
    }
    return found


def _words_about(terms: set[str]) -> set[str]:
    """``terms`` without the values (any term holding a digit: 5, 18:00, 12kg)."""
    return {term for term in terms if not any(c.isdigit() for c in term)}


def _says_alike(said: str, stored: str) -> bool:
    """Do two contents say one thing in their terms: nearly all terms alike, or nearly all of
    the shorter one's said by the other (``SAME_CONTENT_SHARED`` at least), or many of them
    and half the shorter one's (``SAME_CONTENT_MANY``), neither negated?
    "Please back up your data before you hand the laptop in" and "Make a backup of your data
    before you bring the phone in"; "The car must be returned with a full tank" and "… clean
    inside" share half their terms: two rules.
    The values (a term with a digit) are not terms here: both callers hold them equal, and
    counted again they would make "card refunds take 5 to 7 business days" and "supplier
    payments take 5 to 7 business days" one rule by their figures alone (unless the values
    are all either says)."""
    every, others = facts.terms(said), facts.terms(stored)
    mine, theirs = _words_about(every), _words_about(others)
    if not mine or not theirs:
        mine, theirs = every, others
    if not mine or not theirs or negation_flipped(said, stored):
        return False
    if len(mine & theirs) / len(mine | theirs) >= SAME_CONTENT_TERMS:
        return True
    # a word one writes as two or as a participle counts where the other writes it so
    shared = _content_terms(said) & _content_terms(stored) & (mine | theirs)
    share = len(shared) / min(len(mine), len(theirs))
    if len(shared) >= SAME_CONTENT_MANY and share >= SAME_CONTENT_HALF:
        return True
    return len(shared) >= SAME_CONTENT_SHARED and share >= SAME_CONTENT_TERMS


def same_content(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Do two operators' content rules state one fact in other words? Both are content, what
    they say carries the same values (every number, time and code of one is the other's), and
    their terms say one thing (``_says_alike``: "Gift cards are valid for 12 months", "The gift
    card can be used for 12 months from purchase"), or they carry a value and were taught for
    the same kind of reply (their situations, the edits' context, read alike): "Callbacks
    between 8:00 and 18:00 CET" and "phone back during support hours, 8:00 to 18:00 CET" for
    a callback request are one rule; card refunds and bank transfers that both take 5 to 7
    days, asked about apart, stay two."""
    mine, theirs = cand.get("fingerprint"), item.get("fingerprint")
    if same(mine, theirs) or {edit_family(mine), edit_family(theirs)} != {"content"}:
        return False
    if _left_out(cand) != _left_out(item):
        return False  # content said and the same content left out: a reversal, not one rule
    said, stored = quoted_content(cand), quoted_content(item)
    new, old = _values(said), _values(stored)
    if new != old:
        return False
    if _says_alike(said, stored):
        return True
    if not new:
        return False
    situations = (_own_words(cand), _own_words(item))
    if not all(situations):
        return False  # a situation any edit has is no evidence of the same kind of reply
    return score(*situations)[0] >= SAME_TOPIC and not negation_flipped(said, stored)


def _own_words(item: dict[str, Any]) -> str:
    """What an edit's situation says of its own: the context after "Drafting a reply:", the
    draft it would say; nothing for an edit reported without a context."""
    situation = " ".join(str(item.get("situation") or "").split())
    if situation == NO_CONTEXT_SITUATION:
        return ""
    for prefix in (f"{EDIT_SITUATION}:", f"{EDIT_SITUATION} that would say"):
        if situation.startswith(prefix):
            return situation[len(prefix) :].strip()
    return situation


def _tone_names(item: dict[str, Any]) -> tuple[str, ...]:
    return tuple(str(t) for t in item.get("tags") or [] if str(t) not in ("operator-edit", "tone"))


def same_tone_rule(cand: dict[str, Any], item: dict[str, Any]) -> bool:
    """Are two operators' tone rules one tone (``digest.edits.same_tone``)?"""
    mine, theirs = cand.get("fingerprint"), item.get("fingerprint")
    if same(mine, theirs) or edit_family(mine) != "tone" or edit_family(theirs) != "tone":
        return False
    return same_tone(_tone_names(cand), _tone_names(item))


def grown_tone(cand: dict[str, Any], item: dict[str, Any]) -> dict[str, Any]:
    """The operator's tone rule seen again: NOOP when the candidate asks nothing the lesson
    does not (a reply made shorter or longer says nothing of tone on its own), else an UPDATE
    asking for both."""
    old = _tone_names(item)
    more = tone_added(_tone_names(cand), old)
    if not more:
        return {"op": "NOOP", "candidate": cand.get("candidate"), "id": item["id"],
                "reason": "the operator's tone rule, seen in another edit"}  # fmt: skip
    mistake, correction, tags = tone_lesson((*old, *more))
    grown = {"situation": item.get("situation"), "mistake": mistake, "correction": correction,
             "tags": tags}  # fmt: skip
    return update({**cand, "tags": tags, **grown}, item, "the operator's tone rule, grown by "
                   "another edit")  # fmt: skip
