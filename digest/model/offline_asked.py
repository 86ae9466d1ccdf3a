"""Is an owner's new answer about the thing an old answer speaks of, though its question is
worded apart (issue 24, class D: "Do you repair vintage watches?" and "Could you fix my
grandfather's old pocket watch?"; "Is there a kids' menu?" and "Do children get smaller plates
for less?" answered "Not anymore, we dropped it with the new menu")?

``digest.facts.relation`` reads two questions as two subjects as soon as each asks about a
term the other lacks; a reversal asked in other words then stays beside the fact it reverses.
The structure of the two question/answer pairs says more than their questions alone:

- a **thing** both questions name (a content term that is not the question's frame: what it
  costs, when, whether it is open, ``FRAME``), or a thing one question names that the other
  pair's *answer* speaks of (the old answer's "smaller portions", the new answer's "menu");
- nothing reads them apart: the questions are not one frame with one word swapped (Saturday,
  Sunday), neither names a thing or a figure the other lacks, and the new answer does not
  speak of a case of its own (``facts.narrows``: "on public holidays").

It is evidence for the offline judge only when the new answer reverses the old one
(``facts.reverses``: the stance flipped, a change stated, another value): then it supersedes
it. A real model decides from the meaning; this module never makes two facts one.
"""

from __future__ import annotations

import re
from dataclasses import replace

from digest import facts
from digest.answer_figures import asked_instances
from digest.fact_words import WEEKEND, WEEKEND_DAYS
from digest.figures import figures
from digest.frames import named, swapped

#: the concepts a question's frame carries whatever it asks about ("how much", "when", "are
#: you open"): sharing one of them says nothing about which thing two questions ask of
FRAME = frozenset({"cost", "-cost", "duration", "open", "-open", "hours"})


#: the weekend's terms, and its days' (``digest.fact_words``), as ``facts.terms`` reads them
_WEEKEND = frozenset(t for word in WEEKEND for t in facts.terms(word))
_WEEKEND_DAYS = frozenset(t for word in WEEKEND_DAYS for t in facts.terms(word))


def _covers(new_pool: frozenset[str], old_term: str) -> bool:
    """Does the new pair speak of ``old_term``: it names the term, or the old term is a day of
    the weekend and the new pair speaks of the whole weekend ("at weekends we are closed"
    after "on Saturdays, 9 to 12")? Only that way round: a new answer about Saturdays says
    nothing of the rest of a weekend an old fact spoke of."""
    if facts.meets(old_term, new_pool):
        return True
    return old_term in _WEEKEND_DAYS and bool(new_pool & _WEEKEND)


def _things(found: frozenset[str]) -> frozenset[str]:
    """The terms of ``found`` that name a thing: not the question's frame, not a figure."""
    return frozenset(t for t in found if t not in FRAME and not t.isdigit())


def shared_things(new: facts.Fact, old: facts.Fact) -> frozenset[str]:
    """The things the two pairs speak of alike: a thing both questions name, or a thing one
    question names that the other's answer speaks of."""
    mine, theirs = _things(new.subject), _things(old.subject)
    asked = {t for t in mine if facts.meets(t, old.subject)}
    asked |= {t for t in theirs if _covers(new.subject, t)}
    crossed = {t for t in mine if facts.meets(t, old.answer_terms)}
    crossed |= {t for t in theirs if _covers(new.answer_terms, t)}
    return frozenset(asked | crossed)


#: the terms of the days (and of the weekend, and "day" itself): when something holds, not
#: what holds then
_WHEN = facts.DAY_TERMS | _WEEKEND | frozenset(facts.terms("day"))


def only_when_shared(new: facts.Fact, old: facts.Fact) -> bool:
    """Do the two pairs share only when something holds, each speaking of a thing of its own
    ("Is the sauna open on Mondays?" "…the sauna is closed every Monday"; "Can I swim on a
    Monday?" "On Mondays the pool is closed"): two facts of one day, however alike the
    answers read?"""
    shared = shared_things(new, old)
    return bool(shared) and not shared - _WHEN


def _names_apart(new: facts.Fact, old: facts.Fact) -> bool:
    """``facts.names_apart``, with a day the old question names spoken of by the new pair's
    weekend (``_covers``): "Saturdays" is no other entity than "the weekend" it is part of."""
    if not facts.names_apart(new, old):
        return False
    kept = frozenset(n for n in old.names if not _covers(new.subject, n))
    if kept == old.names:
        return True
    return facts.names_apart(new, replace(old, names=kept))


def read_apart(new: facts.Fact, old: facts.Fact) -> bool:
    """Does the structure read the two as two facts: one question frame with a word swapped,
    a name or a figure one has and the other lacks, or a case the new answer names alone?"""
    if _names_apart(new, old) or facts.narrows(new, old):
        return True
    # the asker's own figures an answer takes as an instance of its rule ("a lunch for 18
    # people?" "our minimum is now 25, so 18 is too few") are no term a question asks about
    # …nor is the noun such a figure counts ("for 18 people"): the question is the old one's
    # thing ("a lunch") asked for the asker's case
    # (read apart only when the question reads apart both with and without them)
    instances = asked_instances(new.question, new.numbers, old.numbers)
    asked = _without_instances(new.question, instances)
    mine = new.subject - instances
    bare = mine - (facts.terms(new.question) - facts.terms(asked))
    theirs = old.subject - asked_instances(old.question, old.numbers, new.numbers)
    if swapped(new.question, old.question) and swapped(asked, old.question):
        return True
    # the frame's concepts (what it costs, when, whether open) are no thing swapped: "Can I
    # pay cash?" (cost) and "Do you still accept cash?" ask of one thing
    if _one_term_each(mine - FRAME, theirs - FRAME) and _one_term_each(
        bare - FRAME, theirs - FRAME
    ):
        return True
    mine, theirs = _names(new.question), _names(old.question)
    if mine - theirs and theirs - mine:
        return True
    said, known = figures(new.question), figures(old.question)
    return bool(said - known) and bool(known - said)


def _without_instances(question: str, instances: frozenset[str]) -> str:
    """``question`` without the asker's instance figures and the word each counts ("Can you
    cater a lunch for 18 people?" → "Can you cater a lunch for ?")."""
    for figure in instances:
        question = re.sub(
            rf"(?<![\w.,]){re.escape(figure)}(?![\w.,])(?:\s+[^\W\d_]+)?", "", question
        )
    return question


def _one_term_each(mine: frozenset[str], theirs: frozenset[str]) -> bool:
    """Do two questions' subjects (``digest.facts``: function words out, in every language it
    reads) share terms and differ by exactly one each ("how much is a haircut" / "how much is
    the children's cut": cost, cut, hair / cost, cut, child)? One frame, one thing swapped."""
    return bool(mine & theirs) and len(mine - theirs) == len(theirs - mine) == 1


def _names(question: str) -> frozenset[str]:
    """The names a question gives that are no figure (``digest.frames.named``, ``facts.names``)."""
    return frozenset(n for n in named(question) | facts.names(question) if not figures(n))


def changes_its_own_thing(new: facts.Fact, old: facts.Fact) -> bool:
    """Does the change the new answer states name a thing only its own question asks about,
    one the old pair never speaks of ("Do you sell gift cards?" "No longer: gift cards were
    discontinued" beside gift wrapping: the change is about cards)? Then it changed that."""
    own = {
        t
        for t in _things(new.subject)
        if not facts.meets(t, old.said) and not any(_covers(frozenset({t}), o) for o in old.said)
    }
    return any(facts.meets(term, frozenset(own)) for term in facts.changed_terms(new))


def reversed_in_other_words(new: facts.Fact, old: facts.Fact) -> bool:
    """Does the new answer, to a question worded apart, reverse the old fact: the questions
    read as two subjects (``facts.Relation.DISTINCT``: a narrower or the same question has
    rules of its own), the pairs speak of one thing (``shared_things``), nothing reads them
    apart (``read_apart``), the change stated names no thing of the new question alone
    (``changes_its_own_thing``), and the new answer reverses the old one
    (``facts.reverses``) saying what changed (``states_what_changed``); other figures alone
    count only when the two answers are not each about a thing of their own
    (``answered_apart``)?"""
    if facts.relation(new, old) is not facts.Relation.DISTINCT:
        return False
    if not shared_things(new, old) or read_apart(new, old) or changes_its_own_thing(new, old):
        return False
    if not (facts.reverses(new, old) and states_what_changed(new, old)):
        return False
    return (
        facts.reports_change(new) or bool(facts.changed_terms(new)) or not answered_apart(new, old)
    )


def answered_apart(new: facts.Fact, old: facts.Fact) -> bool:
    """Does each answer name a thing the other pair never speaks of ("En cartílago, a partir
    de los 16 años" beside "En el lóbulo, desde los 12 años"; "Spacer indywidualny … 50 zł"
    beside "Spacer grupowy … 40 zł")? Then other figures alone are no evidence that the new
    answer changed the old one: two facts of one frame give other figures for other things.
    (A price given again in the old answer's words, "42 CHF per day, boots and poles
    included", names nothing of its own. The price: "Groups are capped at 6" after "Classes
    have 8-10" reads apart too, and stays beside it for a judge to tell.)"""
    mine = {t for t in _things(new.answer_terms) if not facts.meets(t, old.said)}
    theirs = {t for t in _things(old.answer_terms) if not facts.meets(t, new.said)}
    return bool(mine) and bool(theirs)


def states_what_changed(new: facts.Fact, old: facts.Fact) -> bool:
    """Does the new answer say something changed, or give other figures than the old one
    ("Not anymore", "we stopped"; "30 euros a day" after "25 euros a day": ``facts.refigured``)?
    A yes where the old answer said no, to a question worded apart, is no reversal on its own:
    two facts of one shop about related things ("refunds for gift cards": no; "size
    exchanges": yes, "sale items can be exchanged but not refunded") often answer the other
    way round."""
    if facts.reports_change(new) or facts.changed_terms(new):
        return True
    # a price where the old answer said free or included: another value for what it costs
    if "cost" in new.subject and "cost" in old.subject and old.stance < 0 < new.stance:
        return bool(new.numbers) and not old.numbers
    # another figure for what the old figure counts ("30 euros a day", not "30 days" beside
    # "valid for 2 years")
    return facts.refigured(new, old)


#: an asker saying what they are not ("I'm not a student", "Öğrenci değilim", "ich bin kein
#: Mitglied", "no soy socio"): the word after (or, in Turkish, before) names the case
_NOT_ME = re.compile(
    r"\bI(?:'m| am) not (?:an? )?(\w+)|(\w+) değil(?:im|iz)\b|\bich bin kein(?:e|en)? (\w+)"
    r"|\bwir sind keine? (\w+)|\bno soy (?:una? )?(\w+)|\bno somos (\w+)"
    r"|\bje ne suis pas (?:une? )?(\w+)|\bnie jestem (\w+)|\bnon sono (?:una? )?(\w+)"
    r"|\bik ben geen (\w+)|\bnão sou (?:uma? )?(\w+)|\bjag är inte (?:en |ett )?(\w+)"
    r"|\bjeg er ikke (?:en |et )?(\w+)|\bnejsem (\w+)|\ben ole (\w+)",
    re.I,
)


def not_the_askers_case(new: facts.Fact, old: facts.Fact) -> frozenset[str]:
    """The terms of the old question that the new asker says they are not ("Öğrenci
    değilim, aylık üyelik kaç lira?" beside "Öğrenciler için aylık üyelik ne kadar?"): the
    new answer is about the other case (the full price, not the students'), never a change
    of the old fact. Empty when the asker says nothing of the kind."""
    said = {
        term
        for match in _NOT_ME.finditer(new.question)
        for word in match.groups()
        if word
        for term in facts.terms(word)
    }
    return frozenset(said & old.subject)
