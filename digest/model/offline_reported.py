"""``offline/rules``: an owner's answer that reports a change, asked in words nothing here reads
as an earlier question's ("Do you take walk-ins?" / "Can I just drop by without booking?";
"Posso portare il mio cane?" / "Accettate ancora animali domestici?").

The rules cannot read such questions as one (no shared term, no gloss, and the static table
scores them below unrelated pairs: 0.32 for walk-ins and dropping by, 0.45 for walk-ins and
parking), so they decide only where the request leaves a single fact the change can be about:
the answer states a change (``digest.facts.reports_change``), and of the owner's facts shown
beside it exactly one names nothing else (``facts.names_apart``), shares no term of its
subject with the new question (where they share one, other rules read them), is not a
case the new answer narrows with figures of its own (``facts.narrows``), and said otherwise
(another stance or other figures). With several such facts, only one sharing a term with the
new answer is taken; else nothing is decided and the candidate is added (a model reads the
questions; the rules never guess which fact a change reverses).
"""

from __future__ import annotations

from typing import Any

from digest import facts
from digest.fingerprint import kind_of


def _fact(item: dict[str, Any]) -> facts.Fact:
    return facts.lesson_fact(str(item.get("situation") or ""), str(item.get("correction") or ""))


def _said_otherwise(new: facts.Fact, old: facts.Fact) -> bool:
    """Did the old fact say something the new answer does not: another stance (a yes before a
    no or an "it stopped"), or other figures?"""
    return new.stance != old.stance or set(new.numbers) != set(old.numbers)


def _narrower(new: facts.Fact, old: facts.Fact) -> bool:
    """Does the new answer give figures of its own for a case the old fact does not speak of
    ("On Saturdays we open 10-2" beside "We are open 9-5")? A narrower fact, not a change of
    the old one (a dated change, "since January", names a case and no figure of its own)."""
    return bool(new.numbers and set(old.numbers) - set(new.numbers) and facts.narrows(new, old))


def _read_apart(new: facts.Fact, old: facts.Fact) -> bool:
    """Do the two questions share a term of their subject? Then the rules read them, and other
    rules decide: the same subject, a narrower or broader question ("gift-wrap oversized
    items" beside "gift wrapping": an exception), or two things of one kind ("gift cards").
    Only questions with no term in common are left to this reading."""
    return any(facts.meets(term, old.subject) for term in new.subject)


def _shares_a_term(new: facts.Fact, old: facts.Fact) -> bool:
    mine = new.subject | new.said
    return any(facts.meets(term, mine) for term in old.subject | old.said)


def reported_reversal(
    cand: dict[str, Any], existing: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """A DELETE of the one owner's fact the candidate's reported change can be about, with
    why; or None (see the module docstring)."""
    if kind_of(cand.get("fingerprint")) != "answer":
        return None
    new = _fact(cand)
    if not facts.reports_change(new):
        return None
    pool: list[tuple[dict[str, Any], facts.Fact]] = []
    for item in existing:
        if kind_of(item.get("fingerprint")) != "answer":
            continue
        old = _fact(item)
        if facts.names_apart(new, old) or _narrower(new, old) or _read_apart(new, old):
            continue
        if _said_otherwise(new, old):
            pool.append((item, old))
    if len(pool) > 1:
        pool = [(item, old) for item, old in pool if _shares_a_term(new, old)]
    if len(pool) != 1:
        return None
    item, _old = pool[0]
    return {
        "op": "DELETE",
        "candidate": cand.get("candidate"),
        "id": item["id"],
        "reason": "reversed: the owner's new answer reports a change, and this is the one "
        "fact shown that it can be about (its question asked in other words)",
    }
