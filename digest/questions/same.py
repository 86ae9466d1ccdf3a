"""Is a question already asked, or already answered? Meaning first, as for owner answers.

Two questions are one when ``digest.facts`` reads them as one subject (the thing and the
attribute asked about, whatever the wording, with a name or number one of them has and the
other lacks making them two: "Do you ship to Norway?" is not "Do you ship to Finland?"). A
question that asks a little more than the other (``Relation.NARROWER``) joins it in the queue:
the owner answers both at once. An owner's answer lesson answers a question only when it is
about the same subject, or the question's extra words are in the answer.

Words are not enough for a paraphrase that shares few of them ("Do you see clients over the
weekend?" and "Do you take weekend appointments?"). ``ask`` does not wait for more: it opens a
new question, and the worker compares it with the open ones by embedding neighbours
(``NEIGHBOUR_RELEVANCE`` on the embedder's scale, no name or number apart) and, where unsure,
by the judge, and merges the two (``digest.questions.merge``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from digest import facts
from digest.bounded import memo

#: parsed texts each process keeps (a question is compared with every open one on each ask),
#: at most, and at most these bytes of texts and parses per memory
CACHED = 8192
CACHED_BYTES = 8 * 2**20


@memo(CACHED, CACHED_BYTES)
def question_fact(question: str) -> facts.Fact:
    return facts.fact(question, "")


@memo(CACHED, CACHED_BYTES)
def lesson_fact_of(situation: str, correction: str) -> facts.Fact:
    """The fact an owner-answer lesson states (``facts.lesson_fact``), parsed once."""
    return facts.lesson_fact(situation, correction)


@memo(CACHED, CACHED_BYTES)
def _keys(subject: frozenset[str]) -> frozenset[str]:
    return facts.subject_keys(subject)


def _may_share(new: facts.Fact, old: facts.Fact) -> bool:
    """False when the two subjects cannot meet (``facts.subject_keys``): a set intersection
    that spares most comparisons of an ask with a queue of other subjects."""
    return not _keys(new.subject).isdisjoint(_keys(old.subject))


def same_question(new: facts.Fact, old: facts.Fact) -> bool:
    """Does ``new`` ask what ``old`` asks (in other words, or a little more or less)?"""
    return _may_share(new, old) and facts.relation(new, old) is not facts.Relation.DISTINCT


def answered_by(new: facts.Fact, answer: facts.Fact) -> bool:
    """Does an owner's answer (a ``facts.lesson_fact`` or ``facts.fact``) answer ``new``?"""
    return _may_share(new, answer) and facts.relation(new, answer) is facts.Relation.SAME


#: the relevance on the embedder's scale (``CosineScale.relevance``: 0 nothing in common, 1 the
#: same in other words) at which the worker takes two questions of no name or number apart
#: for one (``digest.questions.merge``)
NEIGHBOUR_RELEVANCE = 0.9


def queued_match(asked: facts.Fact, queued: Sequence[Any]) -> Any:
    """The open question (a row with ``text``, ``id`` and ``ask_count``) that ``asked``
    repeats by the facts: the most asked of those that match; None when none does."""
    by_facts = [r for r in queued if same_question(asked, question_fact(r.text))]
    if by_facts:
        return max(by_facts, key=lambda r: (r.ask_count, -r.id))
    return None
