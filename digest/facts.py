"""Owner facts compared by meaning: is a new answer about the same fact as an old one, and
does it reverse it? (issue 24, DESIGN §8a)

An owner's question is keyed by its words (``digest.fingerprint``), so "Are returns free?"
and "Do customers pay for return shipping?" get two keys while they ask about one fact, and
"Do you ship to Finland?" and "Do you ship to Norway?" read nearly alike while they are two.
What decides is the question's **subject**: the thing and the attribute asked about
(returns + cost, delivery + Sunday, discount + students), whatever the wording.

- A question becomes its content terms: case and accents' forms folded, stop words and the
  scaffolding of questions out ("do you", "is there", "available"), a light stem (plural
  and verb endings, cut at ``STEM``) so "deliveries" and "delivery" meet, and a small table
  of concepts for the words people use for one thing (pay, cost, charge, fee, free; ship,
  deliver, arrive), in the languages the product screens most (``digest.fact_words``).
- Names and numbers the question holds (a capitalised word inside a sentence, a code with a
  digit, a single capital letter such as a size) name one entity: a name one question has and
  the other lacks is another entity of the same kind (Finland and Norway, Aero and Aero Pro,
  size M and size L), so another fact. A figure the asker gives of their own case ("a dinner
  of 12 people?") that the answer only echoes beside its rule's figure ("a minimum of 20
  guests, so not for 12") names no entity and is no figure of the fact
  (``digest.answer_figures.asked_instances``).
- Two questions are one subject when each content term of one is found in the other (its
  question or its answer): an extra term on both sides is a differing pair (students and
  seniors, pad thai and green curry), so another fact. An extra term on one side only is a
  narrower question (``Relation.NARROWER``): the same fact only when the two answers agree.
- A new answer about the same subject **reverses** the old one when its stance flips (a yes
  where there was a no, read against the question: a yes to "free?" is a no to "pay?"), it
  gives another value where the old gave one (``figure_replaced``: no reversal word needed),
  it states a change and says something else (``stated_change``), or it states that what
  the old answer said was removed, replaced or inverted (``digest.reversal``, with stemmed
  words).
- A new answer to a **narrower or broader** question (``Relation.NARROWER``) that disagrees
  is one of two things. It **overrides** the old fact when it states a change about what both
  questions ask ("What are the collection times now?" "We changed it: collection now runs
  until 7pm" over "the parcel counter is open until 5pm"): the old fact is superseded.
  It is an **exception** when what it says changed is the narrower case itself, or it states
  no change at all ("Do you deliver on Sundays?" "Not any more" beside "we deliver Monday to
  Saturday"; "Is parking free on Sundays?" "Yes" beside "parking costs £1 an hour"): both
  facts stay, the narrower one read as the exception to the broader. A bare yes or no to a
  narrower question never says the broader rule changed.

Pure functions on text, like ``digest.reversal``; the offline judge answers a reconcile
request with them. Nothing here decides what a real model is asked.
"""

from __future__ import annotations

import enum
import re
import sys
import unicodedata
from dataclasses import dataclass
from itertools import takewhile

from digest.answer_figures import asked_instances, replaced, rule_figures
from digest.answer_scope import qualifiers
from digest.bounded import memo
from digest.fact_words import CONCEPTS as _CONCEPTS
from digest.fact_words import PHRASES as _PHRASES
from digest.fact_words import STOP as _STOP
from digest.fact_words import WEEKEND_DAYS as _WEEKEND_DAYS
from digest.fact_words import WITHOUT as _WITHOUT
from digest.fact_words import WORKING_DAYS as _WORKING_DAYS
from digest.reversal import (
    answer_polarity,
    extends,
    reversal_sentences,
    reversal_terms,
    says_only_a_change,
    states_reversal,
)

#: the concept terms (``cost``, ``deliver``, ``appointment``…): words the table knows
CONCEPTS = frozenset(concept.lstrip("-") for concept in _CONCEPTS.values())

#: a content term is cut to this many characters after its endings are stripped
STEM = 7


_JOINED = re.compile(r"['’-]")
_TOKEN = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+(?:[.,:]\d+)*", re.UNICODE)
#: scripts written without spaces: their words are read as overlapping pairs of characters
_UNSPACED = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
_WORD = re.compile(r"[^\W_][\w'’-]*", re.UNICODE)
_SENTENCE_START = re.compile(r"(?:^|[.!?:;]\s+|[\"“«(¿¡]\s*)(\w+)", re.UNICODE)


#: endings stripped, longest first, while four letters stay (three for a plural s): plurals,
#: verb forms, and the German and Dutch plural and verb endings
_ENDINGS = ("sses", "ies", "ing", "es", "ed", "en", "er", "s")


def _stem(word: str) -> str:
    """A light stem good enough to make plural and verb forms meet in the languages above
    ("deliveries", "delivered", "delivery"; "Hunde", "Hund"), cut at ``STEM`` characters."""
    while True:
        before = word
        for ending in _ENDINGS:
            # a plural s may leave three letters ("dogs"), other endings four
            if word.endswith(ending) and len(word) - len(ending) >= (3 if ending == "s" else 4):
                if ending == "s" and word.endswith(("ss", "us", "is")):
                    continue
                word = word[: -len(ending)] + ("y" if ending == "ies" else "")
                break
        # a final e or y after a consonant: "store"/"stores", "expiry"/"expire"; and after the
        # u of a "-que", "-gue" ("chèque"/"chèques", "banque", "league": the plural's "es"
        # leaves "chèqu")
        if len(word) > 4 and (
            (word[-1] in "ey" and word[-2] not in "aeiouy") or word.endswith(("que", "gue"))
        ):
            word = word[:-1]
        # a doubled consonant an ending left: "wrapping", "cancelled"
        if len(word) > 3 and word[-1] == word[-2] and word[-1] not in "aeiouls":
            word = word[:-1]
        if word == before:
            return word[:STEM]


def _fold(text: str) -> str:
    folded = unicodedata.normalize("NFKC", str(text)).casefold()
    for pattern, replacement in _PHRASES:
        folded = pattern.sub(replacement, folded)
    return folded


def _term(word: str) -> tuple[str, int] | None:
    """A word as a content term and its sign (-1 for a word naming an absence), or None."""
    if word in _STOP or (len(word) < 2 and not word.isdigit()):
        return None
    concept = _CONCEPTS.get(word) or _CONCEPTS.get(_stem(word))
    if concept is not None:
        return (concept[1:], -1) if concept.startswith("-") else (concept, 1)
    return _stem(word), 1


def terms(text: str) -> set[str]:
    """The content terms of ``text`` (see the module's docstring)."""
    return {term for term, _ in _read_terms(text)}


def _signed_terms(text: str) -> dict[str, int]:
    """Each content term of ``text`` and its sign, in the order the text says them (a new
    dict each call)."""
    return dict(_read_terms(text))


#: texts whose terms a process remembers, and their bytes (``digest.bounded``): the judge's
#: evidence reads each word of a candidate and of each neighbour (``digest.identity.meaning``,
#: ``digest.frames``) once per pair, and the same lessons' words again for every event
TERMS_KEPT, TERMS_BYTES = 4096, 1 * 2**20


@memo(TERMS_KEPT, TERMS_BYTES, digest_keys=True)
def _read_terms(text: str) -> tuple[tuple[str, int], ...]:
    # the terms interned: the same words recur across the texts it remembers
    return tuple((sys.intern(term), sign) for term, sign in _signed_terms_uncached(text).items())


def _signed_terms_uncached(text: str) -> dict[str, int]:
    found: dict[str, int] = {}
    absent = False  # the last word said "without": the next term names an absence
    for token in _TOKEN.findall(_fold(text)):
        if token in _WITHOUT:
            absent = True  # and read as any word (a stop word in most languages)
        if _UNSPACED.search(token):
            pairs = [token[i : i + 2] for i in range(max(1, len(token) - 1))]
            found.update(dict.fromkeys(pairs, 1))
            continue
        # a concept written with hyphens is one word ("click-and-collect", "rendez-vous")
        parts = [token] if token in _CONCEPTS else _JOINED.split(token)
        # "gluten-free" is without gluten, not without cost
        parts = [parts[0], *(part for part in parts[1:] if _CONCEPTS.get(part) != "-cost")]
        for part in parts:
            term = _term(part)
            if term is not None and part in _WITHOUT:
                found.setdefault(term[0], term[1])
            elif term is not None:
                # "sin pagar", "without booking": the term is absent, its sign turned
                found.setdefault(term[0], -term[1] if absent else term[1])
                absent = False
    return found


#: words only German text has: there every noun is capitalised, so capitals mark no name
_CAPITALISED_NOUNS = frozenset(
    """sind ist und der das dem den im ich nicht für eine einen einem darf dürfen kann können
    gibt wir mein meine meinen bitte auch werden wird haben habe zu ihr euch welche welcher
    welchem welches welchen wie wann bei auf nach sie noch schon oder aber ein einer eines
    kein keine keinen mir mich uns wenn dass muss müssen soll sollen nehmt nehmen habt seid
    bist kostet kosten""".split()  # noqa: SIM905
)


def names(question: str) -> set[str]:
    """The names and numbers ``question`` gives, as terms: what makes it about one entity (a
    capitalised word inside a sentence, a single capital letter such as a size, a word with a
    digit). Capitals count only where they mark names: not where most words inside sentences
    are capitalised (German nouns), never on a sentence's first word, and never for a day of
    the week (``_DAYS``)."""
    text = unicodedata.normalize("NFKC", str(question))
    starts = {m.start(1) for m in _SENTENCE_START.finditer(text)}
    words = [m for m in _WORD.finditer(text) if not any(ch.isdigit() for ch in m.group(0))]
    inside = [m for m in words if m.start() not in starts]
    german = bool(_CAPITALISED_NOUNS & {m.group(0).casefold() for m in words})
    capitalised = sum(1 for m in inside if m.group(0)[0].isupper())
    capitals_mark_names = not german and capitalised * 2 <= len(inside)
    found: set[str] = set()
    for match in _WORD.finditer(text):
        word, inside_a_sentence = match.group(0), match.start() not in starts
        letter = len(word) == 1 and word.isupper() and word != "I" and inside_a_sentence
        if letter or any(ch.isdigit() for ch in word):
            found.add(word.casefold())
        elif (
            word[0].isupper()
            and capitals_mark_names
            and inside_a_sentence
            and word.casefold() not in _DAYS
        ):
            found |= terms(word)
    return found


#: the days of the week: when something holds, which a question names in capitals in English,
#: not an entity it is about (their terms still make two questions two subjects)
_DAYS = _WEEKEND_DAYS | _WORKING_DAYS
#: their terms, as ``terms`` reads them
DAY_TERMS = frozenset(t for day in _DAYS for t in terms(day))


#: the answer's opening that says yes or no without the word: "they do", "we don't"
_SHORT_ANSWER = re.compile(
    r"\b(?:they|we|you|it|customers?|i)(?:\s+(?:do|does|can|will|are|is|have|has|charge|pay)"
    r"|['’](?:re|s|ve|ll))(?P<negated>\s*(?:n[o'’]t|not)\b)?",
    re.IGNORECASE,
)
_FIRST_CLAUSE = re.compile(r"^[^:;.!?\n]*")


def _polarity(answer: str) -> int:
    opening = answer_polarity(answer)
    if opening:
        return opening
    clause = _FIRST_CLAUSE.match(answer.strip())
    found = _SHORT_ANSWER.search(clause.group(0) if clause else "")
    if found is None:
        return 0
    return -1 if found.group("negated") else 1


#: a figure an answer gives ("7am", "€3.90", "14 days")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)?")


@dataclass(frozen=True)
class Fact:
    """An owner's answer as compared: the question's subject and names, all its terms, and
    its stance (+1 yes, -1 no, 0 unknown) read against the question's sense."""

    question: str
    answer: str
    subject: frozenset[str]
    names: frozenset[str]
    said: frozenset[str]
    answer_terms: frozenset[str]
    stance: int
    numbers: tuple[str, ...]


def _priced(question: dict[str, int], answer: str) -> int:
    """To a question about what something costs (or whether it is free, included), an answer
    that says neither yes nor no still takes a side: a price ("Breakfast costs 14 euros", "45
    zł a person") says it costs (+1), "free" with no figure says it does not (-1); 0 when it
    says both ("free over 50 euros, else 4.90") or neither."""
    if "cost" not in question:
        return 0
    said = _signed_terms(answer)
    price = said.get("cost") == 1 and bool(_NUMBER.search(answer))
    free = said.get("cost") == -1 and not _NUMBER.search(answer)
    return 1 if price and "cost" not in _free_words(answer) else -1 if free else 0


def _free_words(answer: str) -> set[str]:
    """The cost terms ``answer`` says are absent anywhere ("free", "included"): a price beside
    them is a condition, not a price of the thing asked."""
    return {t for word in _TOKEN.findall(_fold(answer)) for t, s in _read_terms(word) if s < 0}


def fact(question: str, answer: str) -> Fact:
    """An owner's answer to ``question``, read for comparison."""
    signed = _signed_terms(question)
    sense = -1 if any(sign < 0 for sign in signed.values()) else 1
    answer_terms = terms(answer)
    polarity = _polarity(answer)
    return Fact(
        question=question,
        answer=answer,
        subject=frozenset(signed),
        names=frozenset(names(question)),
        said=frozenset(signed) | answer_terms,
        answer_terms=frozenset(answer_terms),
        stance=polarity * sense if polarity else _priced(signed, answer),
        numbers=tuple(sorted(_NUMBER.findall(answer))),
    )


class Relation(enum.Enum):
    """How a new owner fact relates to an old one."""

    #: another entity, or another attribute: two facts
    DISTINCT = "distinct"
    #: the same subject asked in other words
    SAME = "same"
    #: one question asks a little more than the other; one fact only if the answers agree
    NARROWER = "narrower"


#: how the offline rules frame an owner's answer as a lesson (``digest.model.offline_reflect``)
_ANSWERED = re.compile(
    r'Answer "(?P<question>.*)" with the owner\'s facts\.\s*(?P<answer>.*)', re.DOTALL
)
#: a situation that says a question was asked: "Asked: …", "A customer asks: …"
_ASKED = re.compile(r"^[^:?]{0,40}\bask(?:s|ed)?\b[^:?]{0,20}:\s*", re.IGNORECASE)


def lesson_fact(situation: str, correction: str) -> Fact:
    """The fact an owner's answer lesson states: its question and its answer, read from the
    rules' frame (``Answer "…" with the owner's facts. …``); a lesson in other words is its
    situation asked ("A customer asks: …") and its correction answered."""
    framed = _ANSWERED.search(str(correction))
    if framed:
        return fact(framed["question"], framed["answer"].strip())
    return fact(_ASKED.sub("", str(situation)), str(correction))


#: a term this long that begins another is the same word ("cancel", "cancellation")
PREFIX_MATCH = 5


def meets(term: str, pool: frozenset[str]) -> bool:
    """Is ``term`` in ``pool``, or one of its words the beginning of the other?"""
    if term in pool:
        return True
    return any(
        min(len(term), len(word)) >= PREFIX_MATCH
        and (word.startswith(term) or term.startswith(word))
        for word in pool
    )


def subject_keys(subject: frozenset[str]) -> frozenset[str]:
    """What two subjects must share for a term of one to meet the other (``meets``): each
    term, cut to its first ``PREFIX_MATCH`` characters. Disjoint keys: ``relation`` is
    ``DISTINCT`` (a set intersection tells, instead of comparing every pair of terms)."""
    return frozenset(term[:PREFIX_MATCH] for term in subject)


def _joins(word: str, first: str, second: str) -> bool:
    """Is ``word`` the terms ``first`` and ``second`` written as one compound, with or without
    a linking s ("erstber…": "erst" and "beratun"), as far as ``word``'s stem goes?"""
    if len(first) < 4 or len(second) < 4 or len(word) - len(first) < 3:
        return False
    return word.startswith(first) and (
        (first + second).startswith(word) or (first + "s" + second).startswith(word)
    )


def _missing(terms_: frozenset[str], pool: frozenset[str]) -> set[str]:
    """The terms of ``terms_`` not found in ``pool`` (``meets``); a compound on one side meets
    its two parts written apart on the other ("Erstberatung", "erste Beratung")."""
    missing = {term for term in terms_ if not meets(term, pool)}
    if not missing:
        return missing
    covered = {
        part
        for word in pool
        for first in terms_
        for second in terms_
        if first != second and _joins(word, first, second)
        for part in (first, second)
    }
    covered |= {
        term for term in missing if any(_joins(term, a, b) for a in pool for b in pool if a != b)
    }
    return missing - covered


def _names(fact_: Fact, other: Fact) -> frozenset[str]:
    """The names ``fact_`` gives but the asker's figures its answer only takes as an instance
    of its rule (``asked_instances``: "a dinner of 12 people?" "… a minimum of 20 guests, so
    not for 12" names no party of 12)."""
    return fact_.names - asked_instances(fact_.question, fact_.numbers, other.numbers)


def names_apart(new: Fact, old: Fact) -> bool:
    """Does one fact name a thing or number the other lacks (Norway, Finland; X5, X6)?"""
    return bool(_missing(_names(new, old), old.subject) or _missing(_names(old, new), new.subject))


def days_apart(new: Fact, old: Fact) -> bool:
    """Does each question ask of a day of the week the other does not ("Do you deliver on
    Saturdays?", "Do you deliver on Sundays?")? Two facts, however alike: a day is no name
    (``names``), but two days asked of are two subjects."""
    mine = (new.subject & DAY_TERMS) - old.subject
    theirs = (old.subject & DAY_TERMS) - new.subject
    return bool(mine) and bool(theirs)


def named_by_one(new: Fact, old: Fact) -> bool:
    """Does only one of two facts name a thing the other lacks ("Is the shop open on Easter
    Monday?" beside "Are you open on public holidays?"): a narrower question, not another?"""
    return bool(_missing(_names(new, old), old.subject)) != bool(
        _missing(_names(old, new), new.subject)
    )


def relation(new: Fact, old: Fact) -> Relation:
    """Are two owner facts about one subject? (see the module's docstring)"""
    if names_apart(new, old):
        return Relation.DISTINCT
    if len(_missing(new.subject, old.subject)) == len(new.subject):
        return Relation.DISTINCT
    extra_new, extra_old = _missing(new.subject, old.said), _missing(old.subject, new.said)
    if extra_new and extra_old:
        return Relation.DISTINCT
    if extra_new or extra_old:
        return Relation.NARROWER
    return Relation.SAME


#: how much of their terms two answers must share to say the same thing
AGREE_OVERLAP = 0.5


#: …or this much, when both say the same yes or no
AGREE_OVERLAP_SAME_STANCE = 0.25


def agree(new: Fact, old: Fact) -> bool:
    """Do two answers say the same thing: no stance against the other, the same numbers (the
    asker's own aside, ``asked_instances``), and most of their words shared (or the same
    numbers, or the same yes or no, and some words)?"""
    if new.stance * old.stance < 0:
        return False
    if rule_figures(new.question, new.numbers, old.numbers) != rule_figures(
        old.question, old.numbers, new.numbers
    ):
        return False  # the asker's own figures aside (``asked_instances``)
    union = new.answer_terms | old.answer_terms
    if not union or new.numbers:
        return True
    shared = len(new.answer_terms & old.answer_terms) / len(union)
    if new.stance and new.stance == old.stance:
        return shared >= AGREE_OVERLAP_SAME_STANCE
    return shared >= AGREE_OVERLAP


def restated_apart(new: Fact, old: Fact) -> bool:
    """May two answers state one fact to questions worded apart ("Do you take credit cards?"
    "Yes, all major credit cards." beside "Can I pay by card?" "Yes, any major card is
    fine.")? The questions share a term, neither names a thing the other lacks, and the answers
    agree (``agree``: the same yes or no and words, the same figures). Each question also asks
    of something the other does not ("credit", "pay"), so no rule here calls them one subject:
    only a judge can (``digest.reflect.reconcile.for_the_judge`` shows it the pair)."""
    if names_apart(new, old) or not agree(new, old):
        return False
    return any(meets(term, old.subject) for term in new.subject)


#: an answer's opening clause ("Ya no:", "Not any more.", "Nicht mehr,")
_OPENING = re.compile(r"^[^:;,.!?\n]*")


def opens_with_bare_reversal(answer: str) -> bool:
    """Does the answer open by saying only that something changed ("Ya no: …", "No longer.",
    "Nicht mehr, …")? Then the change is about what its question asks."""
    text = answer.strip()
    opening = _OPENING.match(text)
    clause = opening.group(0) if opening else ""
    if clause and answer_polarity(clause) and not states_reversal(clause):
        # "Nein, nicht mehr.": the no alone, then the change it says
        following = _OPENING.match(text[len(clause) :].lstrip(":;,.!? "))
        clause = following.group(0) if following else ""
    return bool(clause) and says_only_a_change(clause)


#: a question that asks how things stand now ("What is the fee now?", "Do you still…?")
_ASKS_NOW = re.compile(
    r"\b(?:now|still|any ?more|any longer|currently|these days|nowadays|noch|jetzt|inzwischen"
    r"|encore|toujours|maintenant|désormais|todavía|aún|ahora|ainda|agora|ancora|adesso|nog"
    r"|nu|nadal|wciąż|jeszcze|teraz|vielä|enää|nyt|today|heute|hoy|aujourd'hui|hoje|oggi"
    r"|vandaag|idag|dzisiaj|dziś|tänään)\b",
    re.IGNORECASE,
)


def reports_change(new: Fact) -> bool:
    """Does an owner's answer report that something changed: it states a change ("Not
    anymore: …", "Da questo mese … non sono più ammessi") or, asked how things stand now
    ("Do you still …?", "Accettate ancora …?"), it says yes or no? Such an answer may reverse
    a fact asked in words nothing here reads as the same (walk-ins, dropping by without
    booking): only a judge can tell (``digest.reflect.reconcile.for_the_judge``)."""
    if states_reversal(new.answer):
        return True
    return bool(new.stance and _ASKS_NOW.search(new.question))


def figures_changed(new: Fact, old: Fact) -> bool:
    """Was the new answer asked how things stand now, and does it give other figures than the
    old one ("What are the opening hours now?" "10 to 6" after "9 to 5")? The owner reports a
    change: the old figures no longer hold. (Other figures to a question that does not ask
    about now refine the fact: an UPDATE.)"""
    if not _ASKS_NOW.search(new.question):
        return False
    return bool(new.numbers and old.numbers) and set(new.numbers) != set(old.numbers)


def refigured(new: Fact, old: Fact) -> bool:
    """Does the new answer give another figure for what a figure of the old answer counts,
    whatever their questions ask ("How many students are in a group?" "Groups are capped at 6
    students" beside "Classes have 8-10 students")? It may restate the old fact with a new
    value, or state another fact that shares a noun: only a judge can tell
    (``digest.reflect.reconcile.for_the_judge`` asks; the rules decide nothing on it)."""
    if not figure_replaced(new, old):
        return False
    counted = _counted(old.answer)
    return any(meets(term, counted) for term in _counted(new.answer))


#: a figure and the word after it: what the figure counts ("6 students", "8-10 students")
_COUNTED = re.compile(r"\d+(?:[.,]\d+)?\s*(?:-|–|to)?\s*(?:\d+(?:[.,]\d+)?)?\s+([^\W\d_]+)")


def _counted(answer: str) -> frozenset[str]:
    """The content terms a figure of ``answer`` counts (the word right after it)."""
    return frozenset(terms(" ".join(_COUNTED.findall(answer))))


def figure_replaced(new: Fact, old: Fact) -> bool:
    """Does the new answer to the same question give another value where the old one gave
    one: a figure of the old answer is gone and one the new answer gives is new ("Late
    checkout until 2 pm costs $25" → "… is $40")? Whatever words say it (none, here), the old
    value no longer holds. Figures only added ("9am" → "9am, and 10am on Saturdays") refine
    the fact: an UPDATE."""
    return replaced(new.numbers, old.numbers, new.answer, old.answer)


#: a word opening with an elided article or pronoun (Italian, French, Catalan: "l'abbiamo",
#: "qu'il", "d'ora"): a function word glued to the next
_ELIDED = re.compile(r"(?:[ldjnsmtc]|qu|un|dell|all|nell|sull|dall)['’]\w", re.I)


def narrows(new: Fact, old: Fact) -> frozenset[str]:
    """The case the new answer names that neither its question nor the old fact speaks of
    (``digest.answer_scope.qualifiers``: "On Saturdays we open 10-2" beside "We are open
    9-5"): its figures are said of that case, a narrower fact beside the old one, not another
    value for it. Empty when the answer names no such case."""
    # a phrase's words up to its first function word ("Saturdays we open": "Saturdays"), or
    # an elided one that opens the next clause ("in giornata l'abbiamo sospeso": "giornata")
    cut = [" ".join(takewhile(lambda w: w.casefold() not in _STOP and not _ELIDED.match(w),
                              p.split())) for p in qualifiers(new.answer)]  # fmt: skip
    found = terms(" ".join(cut))
    return frozenset(
        term
        for term in found
        if not term.isdigit() and not meets(term, old.said) and not meets(term, new.subject)
    )


def stated_change(new: Fact, old: Fact) -> bool:
    """Does the new answer to the same question state a change ("From now on we only take Pix
    or card", "Effective immediately …") and say something else than the old one
    (``agree``)? Asked the same question, what it says changed is what the question asks
    about, whichever words the change names."""
    return states_reversal(new.answer) and not agree(new, old)


def reverses(new: Fact, old: Fact) -> bool:
    """Does the new answer to the same subject reverse the old one: its stance flips against
    the question's sense, it gives another value where the old gave one
    (``figure_replaced``; ``figures_changed``: asked for now, other figures), it states a
    change and says something else (``stated_change``), or it states that something the old
    fact speaks of was removed, replaced or inverted (an answer that opens with a bare "Ya
    no:" or "No longer." says so of its question)?"""
    if new.stance * old.stance < 0:
        return True
    # other figures said of a case the old fact does not speak of are a narrower fact
    narrower = bool(narrows(new, old))
    if figures_changed(new, old) and not narrower:
        return True
    if extends(new.answer, old.answer):  # all it said, and more: an UPDATE
        return False
    if (figure_replaced(new, old) and not narrower) or stated_change(new, old):
        return True
    stated = terms(" ".join(reversal_terms(new.answer)))
    if opens_with_bare_reversal(new.answer):
        stated |= new.subject
    return bool(stated & old.said)


def changed_terms(new: Fact) -> frozenset[str]:
    """The terms the new answer says changed: the words of its sentences that state a
    reversal (``digest.reversal.reversal_terms``), as content terms."""
    return frozenset(terms(" ".join(reversal_terms(new.answer))))


def _changed_numbers(new: Fact) -> set[str]:
    """The figures of the new answer's sentences that state a change ("8am instead of 7am")."""
    return set(_NUMBER.findall(" ".join(reversal_sentences(new.answer))))


def may_reverse(new: Fact, old: Fact) -> bool:
    """Might the new answer change the old fact though their questions read as two subjects:
    it states a change, the questions share a term, and neither names a thing the other
    lacks? ("When do you open in the morning now?" "From 1 March we open at 8am instead of
    7am", beside "What time does the bakery open?") Only a judge can tell; a real model is
    asked (``digest.reflect.reconcile.for_the_judge``)."""
    if names_apart(new, old) or not changed_terms(new):
        return False
    return any(meets(term, old.subject) for term in new.subject)


def flipped_on_old_answer(new: Fact, old: Fact) -> bool:
    """Does the new answer say no where the old said yes (or the other way round) and state
    its change on what the old *answer* said beyond what both questions ask ("Can I come
    without booking?" "Yes, no booking needed" → "Do you take clients without a visit?" "No,
    from now on only with an online booking")? Then it answers the old question in other
    words. A change stated only on a term both questions share ("gift" of gift cards and gift
    wrapping) names no fact of the old answer's own."""
    if new.stance * old.stance >= 0:
        return False
    asked_both = frozenset(term for term in new.subject if meets(term, old.subject))
    own = frozenset(term for term in old.answer_terms if not meets(term, asked_both))
    return any(meets(term, own) for term in changed_terms(new) if not meets(term, asked_both))


def overrides(new: Fact, old: Fact) -> bool:
    """Does the new answer to a narrower or broader question (``Relation.NARROWER``) state
    that what both questions ask about changed, so that it supersedes the old fact? Not when
    it states no change (a narrower yes or no is an exception), nor when the change it states
    is about what only its own question asks (the narrower case: an exception to the old
    rule, which stays). Two questions that read as two subjects are one fact changed only
    when the change names the old answer's own figures ("8am instead of 7am" after "we open
    at 7am") on a term both questions share (``may_reverse``)."""
    found = relation(new, old)
    if found is Relation.SAME:
        return False
    broader = found is Relation.NARROWER and not _missing(new.subject, old.said)
    if broader and figures_changed(new, old):
        return True  # the broader question, asked for now, with other figures
    changed = changed_terms(new)
    if not changed:
        return False
    if found is Relation.DISTINCT and may_reverse(new, old) and flipped_on_old_answer(new, old):
        return True
    if found is Relation.DISTINCT and not (
        may_reverse(new, old) and old.numbers and set(old.numbers) <= _changed_numbers(new)
    ):
        return False
    narrower_case = _missing(new.subject, old.said)
    if any(meets(term, changed) for term in narrower_case):
        return False
    shared = frozenset(term for term in new.subject if meets(term, old.subject))
    return any(meets(term, shared) for term in changed)


def same_fact(new: Fact, old: Fact) -> bool:
    """Is the new answer about the fact the old one states (whether it agrees or not)?"""
    found = relation(new, old)
    return found is Relation.SAME or (found is Relation.NARROWER and agree(new, old))


def says_more(new: Fact, old: Fact) -> bool:
    """Does the new answer add something to the old one (words or numbers it lacks)?"""
    return bool(new.answer_terms - old.said) or bool(set(new.numbers) - set(old.numbers))


def repeats(new: Fact, old: Fact) -> bool:
    """Does the new answer restate the old fact, in any words, and add nothing to it?"""
    return same_fact(new, old) and agree(new, old) and not says_more(new, old)


#: a value a template masked ("‹id›", "<date>")
_PLACEHOLDER = re.compile(r"[‹<][a-z]{1,10}[›>]")
#: what says "not" in an observation (a bare "no" too: "No order found")
_NEGATED = re.compile(r"\b(?:no|not|never|none|cannot|without)\b|n['’]t\b", re.IGNORECASE)
#: words an error's wording may add or drop without saying anything else
_SAYS_NOTHING = frozenset(
    """a an the and or of to in on at by for from with is are was were be been has have had
    this that it its id ids no not never none cannot without could can""".split()  # noqa: SIM905
)
#: how much of their words two observations must share to say one thing
REWORDED_TERMS = 0.75


#: a word of an observation: an identifier stays whole ("amount_cents" is not "amount")
_OBSERVED_WORD = re.compile(r"[^\W\d][\w'’-]*", re.UNICODE)
#: a name an error quotes ('sku', "amount"): what it is about, never reworded
_QUOTED_NAME = re.compile(r"""['"‘“]([\w.-]{1,40})['"’”]""")


def _observed_terms(text: str) -> set[str]:
    folded = _PLACEHOLDER.sub(" ", unicodedata.normalize("NFKC", text)).casefold()
    words = _OBSERVED_WORD.findall(folded)
    return {w if "_" in w else _stem(w) for w in words if w not in _SAYS_NOTHING}


def rewords(new: str, old: str) -> bool:
    """Do two observations (two errors of one tool, as their lessons quote them) say the same
    thing in other words: "Order #‹id› not found" and "No order found with id ‹id›"? Nearly
    all their words are shared (stemmed; masked values, function words and the word "id"
    aside), the names they quote are the same, and both negate or neither does."""
    if bool(_NEGATED.search(new)) != bool(_NEGATED.search(old)):
        return False
    if set(_QUOTED_NAME.findall(new)) != set(_QUOTED_NAME.findall(old)):
        return False
    mine, theirs = _observed_terms(new), _observed_terms(old)
    union = mine | theirs
    return bool(union) and len(mine & theirs) / len(union) >= REWORDED_TERMS
