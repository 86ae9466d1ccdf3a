"""Is a question already asked, or already answered? Meaning first, as for owner answers.

Two questions are one when ``digest.facts`` reads them as one subject (the thing and the
attribute asked about, whatever the wording, with a name or number one of them has and the
other lacks making them two: "Do you ship to Norway?" is not "Do you ship to Finland?"). A
question that asks a little more than the other (``Relation.NARROWER``) joins it in the queue:
the owner answers both at once. An owner's answer lesson answers a question only when it is
about the same subject, or the question's extra words are in the answer.
"""

from __future__ import annotations

import functools

from digest import facts

#: parsed texts each process keeps (a question is compared with every open one on each ask)
CACHED = 8192


@functools.lru_cache(maxsize=CACHED)
def question_fact(question: str) -> facts.Fact:
    return facts.fact(question, "")


@functools.lru_cache(maxsize=CACHED)
def lesson_fact_of(situation: str, correction: str) -> facts.Fact:
    """The fact an owner-answer lesson states (``facts.lesson_fact``), parsed once."""
    return facts.lesson_fact(situation, correction)


def same_question(new: facts.Fact, old: facts.Fact) -> bool:
    """Does ``new`` ask what ``old`` asks (in other words, or a little more or less)?"""
    return facts.relation(new, old) is not facts.Relation.DISTINCT


def answered_by(new: facts.Fact, answer: facts.Fact) -> bool:
    """Does an owner's answer (a ``facts.lesson_fact`` or ``facts.fact``) answer ``new``?"""
    return facts.relation(new, answer) is facts.Relation.SAME
