"""``offline/rules`` answering a same-question request (``prompts/same_question``): does a new
question ask what one of the agent's open questions asks?

The rules read questions as ``digest.facts`` reads owners' questions when it decides whether
two answers are one fact: the subject terms (stop words and question scaffolding out, a light
stem, the concepts table's synonyms), and the names and numbers each gives. Two questions are
one when

- neither names a thing or number the other lacks (``facts.names_apart``: Norway is never
  Finland), and
- ``facts.relation`` reads them as one subject (the same terms, or one asks a little more), or
  they share a subject term and what is left of each differs in a way that can be wording: a
  concept (appointment, cost, delivery…) on one side only, against words the table does not
  know on the other ("see clients over the weekend" and "weekend appointments"). Left-over
  concepts on both sides are two attributes (cost and duration), left-over plain words on both
  sides two entities of one kind (students and seniors): two questions.

Rules, honest about being rules: they join more paraphrases than the hot path's own test and
keep most near misses apart (``bench/question_identity.py`` prints both figures on a tuning
and a held-out split); a remote model judges from the prompt instead.
"""

from __future__ import annotations

import json
from typing import Any

from digest import facts


def _left(one: facts.Fact, other: facts.Fact) -> frozenset[str]:
    return frozenset(t for t in one.subject if not facts.meets(t, other.subject))


def same_question(new: str, old: str) -> bool:
    """Do ``new`` and ``old`` ask one thing, by the rules of this module's docstring?"""
    a, b = facts.fact(new, ""), facts.fact(old, "")
    if not a.subject or not b.subject or facts.names_apart(a, b):
        return False
    if facts.relation(a, b) is not facts.Relation.DISTINCT:
        return True
    left_a, left_b = _left(a, b), _left(b, a)
    if len(left_a) == len(a.subject):  # nothing in common
        return False
    return bool(left_a & facts.CONCEPTS) != bool(left_b & facts.CONCEPTS)


def judge(question: dict[str, Any], open_questions: list[dict[str, Any]]) -> str:
    """The answer to a same-question request, in its output contract: the ids of the open
    questions the rules join with the new one, in their words or another wording each was
    asked in (``also``); none, an empty list."""
    text = str(question["text"])
    found = [
        q
        for q in open_questions
        if any(same_question(text, str(w)) for w in [q["text"], *(q.get("also") or [])])
    ]
    return json.dumps(
        {
            "same_as": sorted(int(q["id"]) for q in found),
            "why": "the same subject in other words (rules)" if found else "none asks it (rules)",
        }
    )
