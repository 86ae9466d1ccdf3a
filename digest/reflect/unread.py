"""Pairs no score can read as one lesson or two, so only the judge may (DESIGN §8a: meaning
decides; structure is evidence). ``reconcile.for_the_judge`` shows them to the judge above the
reconcile floor; a right judge joins a paraphrase and keeps a look-alike apart, and the NOOP
rules of ``digest.reflect.ask`` still refuse a join where a conflict can be read (other
figures, other names). Each rule asks a model only where words cannot decide, so a stream in
one language whose distinct failures state no figure pays nothing for them. Pure.
"""

from __future__ import annotations

import re

from digest import facts
from digest import fingerprint as fp
from digest.figures import figures, figures_apart
from digest.function_words import FUNCTION_WORDS
from digest.identity.languages import two_languages
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.reflect.shared_words import nothing_in_common, own_words, past_shared_frame
from digest.text import lesson_text, observed

_LETTERS = re.compile(r"[^\W\d_][\w'-]*")


def _said(candidate: Candidate, neighbour: Neighbour, text: str) -> tuple[str, str]:
    """What the two observed: the answers of two owner facts, else what each quotes."""
    if fp.kind_of(candidate.fingerprint) == fp.kind_of(neighbour.fingerprint) == "answer":
        asked = facts.lesson_fact(candidate.situation, candidate.correction)
        known = facts.lesson_fact(neighbour.situation, neighbour.correction)
        return asked.answer, known.answer
    return observed(text), observed(lesson_text(neighbour.situation, neighbour.correction))


def in_two_languages(candidate: Candidate, neighbour: Neighbour, text: str) -> bool:
    """Are a failure and a lesson's failure observed in two languages (one in English, the
    other not: "Booking refused: vehicles longer than 6 m need a freight ticket", "Reserva
    rechazada: los vehículos de más de 6 m necesitan un billete de carga")? Words and the
    static table read two languages apart whatever they say: only the judge can tell. Read in
    what both observed, and in what the candidate quotes of its error alone (``error_seen``)."""
    if not (
        fp.tells_a_failure(candidate.fingerprint) and fp.tells_a_failure(neighbour.fingerprint)
    ):
        return False
    if two_languages(*_said(candidate, neighbour, text)):
        return True
    theirs = observed(lesson_text(neighbour.situation, neighbour.correction))
    return two_languages(error_seen(candidate), theirs)


def error_seen(candidate: Candidate) -> str:
    """What a failure's candidate observed of its error: the quotations of what it says, not of
    the call (a Dutch API's argument names, "kenteken", sit beside an English error); those of
    its mistake when what it says quotes nothing."""
    said = lesson_text(candidate.situation, candidate.correction)
    seen = observed(said)
    if seen != said:
        return seen
    return observed(" ".join(filter(None, (candidate.situation, candidate.mistake, said))))


def may_be_the_same_failure(candidate: Candidate, neighbour: Neighbour) -> bool:
    """A failure of the lesson's own tool that the similarity floor left out may still be its
    failure in other words ("the seat is already taken", "that seat is occupied by another
    booking"; one error in two languages): a word they share past their frame, or two
    languages, and only the judge can say. One that shares no word in one language is another
    failure ("429: quota of the day used up" beside "401: missing Authorization header"): a
    free ADD, no model call."""
    if not (
        fp.tells_a_failure(candidate.fingerprint) and fp.tells_a_failure(neighbour.fingerprint)
    ):
        return False
    theirs = observed(lesson_text(neighbour.situation, neighbour.correction))
    return not nothing_in_common(error_seen(candidate), theirs)


def states_one_figure(candidate: Candidate, neighbour: Neighbour, text: str) -> bool:
    """Do two failures, or two owners' answers, state the same figure about a word they share
    past their frame ("sweeps must be scheduled at least 72 hours ahead", "we need 72 hours
    before any sweep appointment"; "Ab 22 Uhr gilt Nachtruhe", "die Nachtruhe beginnt um 22
    Uhr")? One rule restated in other words reads so; so do two rules with one figure ("the
    sauna opens at 7", "the pool opens at 7"), which the judge keeps apart. Figures in words
    are digits ("twenty" and "20")."""
    kinds = (fp.kind_of(candidate.fingerprint), fp.kind_of(neighbour.fingerprint))
    failures = fp.tells_a_failure(candidate.fingerprint) and fp.tells_a_failure(
        neighbour.fingerprint
    )
    if not failures and kinds != ("answer", "answer"):
        return False
    mine, theirs = _said(candidate, neighbour, text)
    if not figures(mine) & figures(theirs):
        return False
    new, old = past_shared_frame(mine, theirs)
    return bool(own_words(new) & own_words(old))


def refigures_a_rule(candidate: Candidate, neighbour: Neighbour) -> bool:
    """Do two content rules of an operator's edits give other figures for something both say
    ("Incheckning från kl. 14", "Rummen är klara för incheckning först kl. 16")? The later
    edit may change the earlier rule (check-in moved to 16), or state another rule that shares
    a word (breakfast until 10, the breakfast room closed after 11): only the judge can say.
    Read in what each rule quotes; the frame both lessons share is no shared word."""
    families = {fp.edit_family(candidate.fingerprint), fp.edit_family(neighbour.fingerprint)}
    if families != {"content"}:
        return False
    mine, theirs = observed(candidate.correction), observed(neighbour.correction)
    if not figures_apart(mine, theirs):
        return False
    new, old = past_shared_frame(mine, theirs)
    return bool(own_words(new) & own_words(old))


#: the fewest digits a figure two answers share must have to say they may state one fact
#: ("895 kr" in both; "at 7" is every second opening time)
SHARED_FIGURE_DIGITS = 2


def asked_with_own_circumstances(asked: facts.Fact, known: facts.Fact) -> bool:
    """May a new owner's answer be a known fact asked again by someone who gives their own
    circumstances ("I'm in Otley, about 10 miles out - will there be anything extra?"; "I'm
    locked out at 2 pm - what will it cost?"), so that only the new question names a place, a
    time or a figure (a name the old fact never says, and none of the old's unsaid by the
    new)? It may when the questions share a term and the
    answers take opposite stances (what was free now costs), or when both answers state one
    figure of at least ``SHARED_FIGURE_DIGITS`` digits. The names read the pair apart for the
    rules; only a judge can read whether the asker's own circumstances change the fact."""
    mine = asked.names - known.said
    if not mine or known.names - asked.said:
        return False  # nothing named by the new question alone, or the old names its own
    if asked.stance * known.stance < 0 and any(
        facts.meets(t, known.subject) for t in asked.subject
    ):
        return True
    shared = set(asked.numbers) & set(known.numbers)
    return any(len(figure.replace(".", "").replace(",", "")) >= SHARED_FIGURE_DIGITS
               for figure in shared)  # fmt: skip


def answered_in_two_languages(asked: facts.Fact, known: facts.Fact) -> bool:
    """Are two owners' answers written in two languages (one in English, one not: "조제된 약은
    7일 동안 보관하고…", "We hold filled prescriptions for one week only; after seven days …")
    and do they state one figure, or name one thing in one spelling (a loanword, a name:
    ``_spelled_alike``)? No word and no score reads them as one fact; the judge can. A pair
    that shares neither costs no call."""
    mine, theirs = f"{asked.question} {asked.answer}", f"{known.question} {known.answer}"
    if not two_languages(mine, theirs):
        return False
    return bool(figures(asked.answer) & figures(known.answer)) or bool(_spelled_alike(mine, theirs))


#: a word two languages write alike is a name or a loanword ("wetsuit", "Wi-Fi", "Airbnb"):
#: it has this many letters at least
_LOANWORD_LETTERS = 4


def _spelled_alike(mine: str, theirs: str) -> set[str]:
    """The words of ``_LOANWORD_LETTERS`` letters or more two texts in two languages both
    write ("Do I need my own wetsuit?" and "Tenho de levar wetsuit?"), function words aside:
    the thing both pairs speak of, named in one spelling."""

    def words(text: str) -> set[str]:
        found = {w.casefold() for w in _LETTERS.findall(text)}
        return {w for w in found if len(w) >= _LOANWORD_LETTERS} - FUNCTION_WORDS

    return words(mine) & words(theirs)
