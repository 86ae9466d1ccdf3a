"""How a candidate and a lesson of its kind with another key compare in meaning (issue 24,
DESIGN §8a): ``meaning_of``, the score the judge is shown as ``reads_like``, and ``in_doubt``,
a pair the score cannot decide that states the same facts, which the judge is asked to read.

Two errors of one tool, two runs' own errors, two owners' answers and two operators' content
rules are compared; other pairs (another subject, another kind, the same key) are not: their
keys already tell. Read with the static table and the structure that tells where it cannot
(``digest.identity.meaning``).
"""

from __future__ import annotations

from digest import facts
from digest import fingerprint as fp
from digest.figures import figures
from digest.frames import as_compared
from digest.identity import languages, meaning
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.text import lesson_text, observed

#: what an owner's answer must say (content terms) for its words to tell one fact from another
#: ("Yes." to two questions says nothing of what it is about)
FACT_TERMS = 3


def _fact_reads_like(asked: facts.Fact, known: facts.Fact) -> float:
    """How much two owners' answers state one fact in other words: the answers read alike
    (``digest.identity.meaning``), each saying something of its own, and the questions name
    no other thing (another name or figure, or one word swapped in a frame: dog and cat)."""
    if facts.names_apart(asked, known):
        return 0.0
    if min(len(asked.answer_terms), len(known.answer_terms)) < FACT_TERMS:
        return 0.0
    questions = meaning.likeness(asked.question, known.question)
    if questions.swap or questions.figures_apart or questions.names_apart:
        return 0.0
    answers = meaning.likeness(asked.answer, known.answer)
    if answers.unread and not (answers.swap or answers.figures_apart or answers.names_apart):
        # words the table cannot read (a language the gloss does not know): the owner's own
        # words decide, when the questions share a term and the answers most of theirs
        return _said_alike(asked, known)
    return answers.score()


#: the share of the shorter answer's terms two answers in words the table cannot read must
#: share (and at least ``FACT_TERMS`` of them) to state one fact
SAID_ALIKE = 0.6


def _said_alike(asked: facts.Fact, known: facts.Fact) -> float:
    """Two owners' answers in the same words: most of the shorter one's terms are the other's
    (``SAID_ALIKE``), and the questions share a term (or one's is in the other's answer)."""
    if not (asked.subject & known.said or known.subject & asked.said):
        return 0.0
    shared = asked.answer_terms & known.answer_terms
    share = len(shared) / min(len(asked.answer_terms), len(known.answer_terms))
    return round(share, 2) if len(shared) >= FACT_TERMS and share >= SAID_ALIKE else 0.0


#: two operators' content rules read alike from this cosine: full sentences about one
#: business share its words, so two of its facts that share a figure read half alike ("Parcels
#: are kept at the depot for 7 days", "Refunds for returns are issued within 7 days": 0.52)
CONTENT_READS_ALIKE = 0.6


def _candidate_text(candidate: Candidate) -> str:
    return lesson_text(candidate.situation, candidate.correction)


def _failures(candidate: Candidate, neighbour: Neighbour) -> tuple[str, str] | None:
    """What two failures observed (their «…» quotations) as they are compared
    (``digest.frames.as_compared``: each value and figure a call passed masked like an id,
    only the reasons when one frame holds both); None when either quotes nothing."""
    new = _candidate_text(candidate)
    old = lesson_text(neighbour.situation, neighbour.correction)
    if observed(new) == new or observed(old) == old:
        return None
    return as_compared(
        observed(new), observed(old), candidate.mistake or "", neighbour.mistake or ""
    )


def _compared_kind(candidate: Candidate, neighbour: Neighbour) -> str | None:
    """The kind two lessons are compared as ("answer", "edit" for two content rules, or a
    failure's kind), or None when their keys already tell."""
    mine, theirs = candidate.fingerprint, neighbour.fingerprint
    if not fp.distinct(mine, theirs) or fp.other_subject(mine, theirs):
        return None
    kind = fp.kind_of(mine)
    if kind != fp.kind_of(theirs):
        return None
    if kind == "edit":
        content = fp.edit_family(mine) == fp.edit_family(theirs) == "content"
        return kind if content else None
    if kind == "answer" or fp.tells_a_failure(mine):
        return kind
    return None


def meaning_of(candidate: Candidate, neighbour: Neighbour) -> float:
    """How much a candidate and a lesson of its kind with another key read as one thing, 0..1
    (``digest.identity.meaning``; ``READS_ALIKE`` and above: one): two errors of one tool, or
    two runs' own errors, read in what both observed (their «…» quotations); two owners'
    answers (``_fact_reads_like``); two operators' content rules, read in what they say. Other
    pairs (another subject, another kind, the same key) are 0: their keys already tell."""
    kind = _compared_kind(candidate, neighbour)
    if kind is None:
        return 0.0
    if kind == "answer":
        asked = facts.lesson_fact(candidate.situation, candidate.correction)
        known = facts.lesson_fact(neighbour.situation, neighbour.correction)
        return _fact_reads_like(asked, known)
    if kind == "edit":
        new = _candidate_text(candidate)
        old = lesson_text(neighbour.situation, neighbour.correction)
        found = meaning.reads_like(observed(new), observed(old))
        return found if found >= CONTENT_READS_ALIKE else 0.0
    texts = _failures(candidate, neighbour)
    if texts is None:
        return 0.0
    if languages.neither_english(*texts) and meaning.failure_unread(*texts):
        # two errors in a language the table barely reads: the pieces of its words read half
        # alike whatever the errors say (across English, cognates' pieces do carry meaning)
        return 0.0
    return meaning.reads_like(*texts)


#: the error family a tool error's lesson carries when the rules know no specific one
GENERIC_FAMILY = "tool-failure"
#: the tags a failure's family follows (a tool's error, a run's own error)
FAMILY_AFTER = ("tool-error", "failure")


def family_of(tags: tuple[str, ...] | list[str] | None) -> str | None:
    """The error family a failure's lesson was tagged with: the tag after ``tool-error`` (a
    tool's error) or ``failure`` (a run's own), or None."""
    tags = list(tags or ())
    for after in FAMILY_AFTER:
        if after in tags:
            at = tags.index(after)
            while at + 1 < len(tags) and tags[at + 1] == after:
                at += 1  # a kind's tag and the judge's own ("failure", "failure", family)
            return str(tags[at + 1]) if at + 1 < len(tags) else None
    return None


def families_agree(mine: tuple[str, ...], theirs: tuple[str, ...] | None) -> bool:
    """Do two failures' error families (their tags: ``fp.error_family``) say one condition:
    the same family, or one of them generic (the rules read no condition in it)? "Expired" and
    "below the minimum" are two conditions, whatever else the errors share."""
    a, b = family_of(mine), family_of(theirs)
    return a == b or GENERIC_FAMILY in (a, b) or a is None or b is None


def in_doubt(candidate: Candidate, neighbour: Neighbour) -> float:
    """The whole-text cosine of a pair the score cannot decide that states the same facts
    (``meaning.Likeness.in_doubt``: what both are about, the same figures, nothing read
    apart), under ``READS_ALIKE`` (``CONTENT_READS_ALIKE`` for content rules) and from
    ``meaning.IN_DOUBT``; else 0. Two errors of one tool or two runs' own errors must say one
    condition too (``families_agree``). Such a pair goes to the judge, which reads it (the
    request's ``in_doubt``): "Seat ‹id› is already taken for screening ‹id›" and "Screening
    ‹id›: seat ‹id› is occupied by another booking" read 0.40 on the static table. Owners'
    answers are not: ``digest.facts`` reads their questions."""
    kind = _compared_kind(candidate, neighbour)
    if kind is None or kind == "answer":
        return 0.0
    if kind == "edit":
        new = observed(_candidate_text(candidate))
        old = observed(lesson_text(neighbour.situation, neighbour.correction))
        return meaning.likeness(new, old).in_doubt(CONTENT_READS_ALIKE)
    if not families_agree(candidate.tags, neighbour.tags):
        return 0.0
    texts = _failures(candidate, neighbour)
    if texts is None:
        return 0.0
    found = meaning.likeness(*texts)
    doubt = found.in_doubt(meaning.READS_ALIKE)
    unread = doubt == 0.0 and found.score() < meaning.READS_ALIKE
    if unread and (same_rule_figures(found, *texts) or across_languages(found, *texts)):
        return meaning.IN_DOUBT
    return doubt


def same_rule_figures(found: meaning.Likeness, a: str, b: str) -> bool:
    """Do two errors of one tool whose words the table cannot read alike (two languages:
    "Achslast von 22,5 t überschritten", "exceeds the permitted axle load of 22.5 t") state
    the same figures, the figures that are their rule (those a call passed are masked), and
    nothing reads them apart (a swap, names apart)? Language-independent evidence that they
    may be one error: the judge reads the pair."""
    if found.swap or found.names_apart or found.figures_apart:
        return False
    mine = figures(a)
    return bool(mine) and mine == figures(b)


def across_languages(found: meaning.Likeness, a: str, b: str) -> bool:
    """Are two errors of one tool written in two languages (the static table is English: it
    reads them apart) about one thing, by the words that cross languages as they are (a
    name in capitals, a cognate: ``digest.identity.languages``), with nothing read apart (a
    swap, names or figures apart)? Evidence that they may be one error: the judge reads the
    pair ("die IBAN für die Erstattung fehlt", "the IBAN for the refund is missing"); "die
    Zielsprache fehlt" and "the source file is missing" share no such word and stay apart."""
    if found.names_apart or found.figures_apart or languages.reasons_swapped(a, b):
        return False  # (a swap read over the whole texts pairs a head's words across languages)
    return languages.same_subject_across(a, b)
