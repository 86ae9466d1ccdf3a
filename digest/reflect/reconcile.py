"""Reconciliation: each candidate lesson against what the agent already knows (DESIGN §4).

Mem0's shape (ADD / UPDATE / DELETE / NOOP), without its known failures:

- the model never sees real ids: neighbours are numbered 0..k-1 for this request, and an id
  it invents or gets wrong is dropped and logged; neighbours only ever come from the same
  tenant and agent, so an operation on another agent's lesson cannot be expressed;
- an exact re-submission is a NOOP, never a DELETE;
- a contradiction (DELETE) supersedes the old lesson AND adds the candidate;
- a candidate the answer leaves uncovered is added, never lost;
- unparseable output is retried, then the event fails with the reason.

Most candidates never reach the model: no neighbour above the similarity floor → ADD; a
near-identical neighbour → NOOP (the fast path, counted in ``digest_runs.n_fast_path``). The
rest go to the model in one call (``digest.reflect.ask``: the prompt blocks, the call and its
answer made safe). The operations are written by ``digest.reflect.operations``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest import facts
from digest import fingerprint as fp
from digest.edits import same_tone
from digest.figures import figures
from digest.frames import bracketed_apart, enums_masked, passed_values, quoted_apart, swapped
from digest.identity import meaning
from digest.lessons.neighbours import (
    Neighbour,
    embed_probes,
    find_neighbours_of,
    read_agent_held,
)
from digest.lessons.store import Candidate
from digest.logs import get_logger
from digest.model.error_reading import same_message
from digest.models import Agent
from digest.reflect.readings import in_doubt, meaning_of
from digest.reflect.unread import (
    answered_in_two_languages,
    asked_with_own_circumstances,
    in_two_languages,
    may_be_the_same_failure,
    refigures_a_rule,
    states_one_figure,
)
from digest.reversal import signals_change, states_reversal
from digest.text import lesson_text, negation_flipped, normalise, observed, score

log = get_logger("digest.reconcile")

OPS = ("ADD", "UPDATE", "DELETE", "NOOP")


@dataclass(frozen=True)
class Operation:
    """A decided operation for one candidate. ``lesson_id`` is a real id (never a prompt id)."""

    op: str
    candidate: int
    lesson_id: int | None = None
    merged: Candidate | None = None
    reason: str = ""
    fast: bool = False


@dataclass
class Plan:
    operations: list[Operation] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    llm_called: bool = False
    #: more lessons a candidate's DELETE supersedes (the judge named two or more for it: one
    #: change that reverses two lessons); applied after ``operations``, each as a DELETE
    also_retired: list[Operation] = field(default_factory=list)

    def count(self, op: str) -> int:
        return sum(1 for o in self.operations if o.op == op)

    @property
    def fast(self) -> int:
        return sum(1 for o in self.operations if o.fast)


def candidate_text(candidate: Candidate) -> str:
    return lesson_text(candidate.situation, candidate.correction)


def digits(text_value: str) -> list[str]:
    return sorted(re.findall(r"\d+", text_value))


#: the relevance a lesson of another kind of fingerprint needs to be worth a model's look (a
#: run's failure against an owner's answer or an edit rule): lessons written from templates
#: share many words across kinds, and such a pair is rarely one lesson unless nearly the same
CROSS_KIND_FLOOR = 0.75


#: the relevance a lesson with another key of the same kind and no known common subject needs
#: to be shown to the judge as a possible contradiction (two owner questions that may be one
#: fact restated, a run's error that may reverse another)
CONTRADICTION_FLOOR = 0.75


def _floor_for(fingerprint: str | None, neighbour: Neighbour, floor: float) -> float:
    if fp.other_kind(fingerprint, neighbour.fingerprint):
        return max(floor, CROSS_KIND_FLOOR)
    return floor


#: words that say nothing of what an observation is about: negations, articles, auxiliaries
_NOT_ABOUT = frozenset(
    """the and for with that this not never longer don't doesn't cannot can't stop was were
    are has have had been from any more does did will would should must its you your our
    they them their can may""".split()  # noqa: SIM905
)
#: the words two operators' content rules must share (beside a number) to be shown together
RESTATED_WORDS = 2
_ABOUT_WORD = re.compile(r"[^\W\d_][\w'-]{2,}")


#: an id a reply or an error masked, with the word that names it ("order ‹id›", "#‹id›"):
#: which order a reply is about is not what its rule says
_MASKED_ID = re.compile(r"(?:[^\W\d_][\w'-]*\s*#?\s*)?[‹<][a-z]{1,10}[›>]")


def _about(text: str) -> set[str]:
    text = _MASKED_ID.sub(" ", text)
    return {w for w in _ABOUT_WORD.findall(text.casefold()) if w not in _NOT_ABOUT}


def negation_flips(new: str, old: str) -> bool:
    """Does one lesson negate what the other asserts, about the same thing? Each is read in
    what it observed (``digest.text.observed``: its quotations, not a template's "Do not retry
    it"), and the two must share a word beside the negation: «bopa is required» against
    «order ‹id› not found» is two errors, «the header is required» against «the header is not
    accepted» one rule turned round."""
    a, b = observed(new), observed(old)
    return negation_flipped(a, b) and bool(_about(a) & _about(b))


def restates(candidate: Candidate, neighbour: Neighbour, floor: float) -> bool:
    """Might an operator's content rule say what another content rule says, in other words
    (two edits adding one fact to different drafts: "call back between 8:00 and 18:00 CET" and
    "phone back during support hours, 8:00 to 18:00 CET")? Content is keyed by its words, so
    only the judge can call two of them one fact; it is asked when the two are above the
    reconcile floor and what they quote shares a number or ``RESTATED_WORDS`` words (a
    sentence's letters alone make any two replies read half alike). Two different facts stay
    two lessons because the judge says so (DESIGN §8a)."""
    if fp.edit_family(candidate.fingerprint) != "content":
        return False
    if fp.edit_family(neighbour.fingerprint) != "content":
        return False
    if neighbour.relevance < floor:
        return False
    mine = observed(candidate_text(candidate))
    theirs = observed(lesson_text(neighbour.situation, neighbour.correction))
    shared = _about(mine) & _about(theirs)
    return len(shared) >= RESTATED_WORDS or bool(figures(mine) & figures(theirs))


def rewords(new: str, old: str) -> bool:
    """Might a new error of a tool be an error the lesson observed, in other words (one
    service's "Order #‹id› not found", another's "No order found with id ‹id›"; one message
    read through an SDK and as an HTTP body: ``same_message``)? Read in what both quote
    (``digest.facts.rewords``); a lesson that quotes nothing is not compared."""
    mine, theirs = observed(new), observed(old)
    if mine == new or theirs == old:
        return False
    return facts.rewords(mine, theirs) or same_message(mine, theirs)


def named_apart(candidate: Candidate, neighbour: Neighbour) -> bool:
    """Does a lesson with the candidate's own key quote another name than it does ("Field
    'postcode' is required", "Field 'state' is required": an error's template masks what it
    quotes, so both have one key)? Then it is another error, not a twin (``digest.frames``)."""
    if not fp.same(candidate.fingerprint, neighbour.fingerprint):
        return False
    new, old = candidate_text(candidate), lesson_text(neighbour.situation, neighbour.correction)
    if observed(new) == new or observed(old) == old:
        return False
    passed = passed_values(candidate.mistake or "", neighbour.mistake or "")
    return quoted_apart(observed(new), observed(old), passed)


def one_remedy(candidate: Candidate, neighbour: Neighbour) -> bool:
    """Do two lessons tell the agent one thing, word for word (three words or more: "members
    may hold at most 8 loans: return one first"), whatever each observed? A model writes the
    rule it learned in its correction; two errors worded apart ("has reached the maximum of
    8 concurrent loans", "already holds 8 items, which is the loan limit") that it answered
    with one rule are for it to join or keep apart."""
    if fp.states_a_fact(candidate.fingerprint) or fp.states_a_fact(neighbour.fingerprint):
        return False  # an owner's answer to another question ("Yes.") is another fact
    mine = normalise(candidate.correction)
    return len(mine.split()) >= 3 and mine == normalise(neighbour.correction)


def reads_alike(candidate: Candidate, neighbour: Neighbour) -> bool:
    return meaning_of(candidate, neighbour) >= meaning.READS_ALIKE


def for_the_judge(candidate: Candidate, neighbour: Neighbour, floor: float) -> bool:
    """Is a lesson with another key of the candidate's kind a contradiction candidate (an API
    that changed, a rule that was reversed, a fact restated), so that only the judge may say
    whether they are one lesson, one superseding the other, or two? A key on the candidate's
    subject (another error of the same tool) above the floor is, when the candidate says that
    something was removed, replaced or inverted (``digest.reversal.signals_change``), flips
    the lesson's negation about the same thing (``negation_flips``) or says what the lesson
    observed in other words (``rewords``); below the floor, when the candidate says so or
    reads alike (a change worded apart from the lesson is still about its tool): a new error
    of a tool that states no change and reads otherwise is another lesson, and costs no model
    call. Two owners' questions
    are when they ask about one subject in other words (``digest.facts``: "Are returns
    free?", "Do customers pay for return shipping?"; "until what time can I collect", "the
    click-and-collect hours": no word in common), however unlike their words read, or when
    the new answer states a change on a term both questions share (``facts.may_reverse``). A key
    with no subject is when nearly the same words, read in what both observed when both quote
    it (two runs' own errors in a template's words read alike whatever the errors say);
    another subject never, but for the same error of a sibling tool (``digest.
    tool_siblings``). Under any key of its kind and subject, a lesson that says what the
    candidate says in other words (``meaning_of``: one error worded by two services, an
    owner's fact restated, one content rule in an operator's own words) is too: the judge is
    shown the score and joins them."""
    fingerprint = candidate.fingerprint
    if not fp.distinct(fingerprint, neighbour.fingerprint):
        return False
    if neighbour.fingerprint in candidate.sibling_keys:
        # the same error of a sibling tool (one resource, another action: ``digest.
        # tool_siblings``): one failure of the resource, maybe; the judge reads them
        return True
    if one_remedy(candidate, neighbour) and not fp.other_subject(
        fingerprint, neighbour.fingerprint
    ):
        # the model's one remedy for both (what each observed aside): the judge reads them
        return True
    if fp.same_subject(fingerprint, neighbour.fingerprint):
        if (
            fp.edit_family(fingerprint) == "tone"
            and fp.edit_family(neighbour.fingerprint) == "tone"
        ):
            # two edits' tone rules that share a shape rule are one tone, however unlike the
            # replies they were taught on read (``digest.edits.same_tone``)
            return same_tone(candidate.tags, neighbour.tags or ())
        if refigures_a_rule(candidate, neighbour):
            return True  # another figure for what a content rule says: the judge reads them
        text = " ".join(
            filter(None, (candidate.situation, candidate.mistake, candidate.correction))
        )
        if neighbour.relevance < floor:
            # other words, one meaning; or a pair in doubt, for the judge to read; or a change
            # the tool reports in words the lesson does not share ("'sender_id' is deprecated
            # in favour of 'from_number'" beside "sender_id must be provided"): one subject,
            # so only the judge can say what it reverses
            return (
                signals_change(text)
                or reads_alike(candidate, neighbour)
                or in_doubt(candidate, neighbour) > 0
                or may_be_the_same_failure(candidate, neighbour)
            )
        old = lesson_text(neighbour.situation, neighbour.correction)
        changed = signals_change(text) or negation_flips(text, old)
        reworded = rewords(candidate_text(candidate), old) or fp.same_error_family(
            fingerprint, candidate.tags, candidate_text(candidate),
            neighbour.fingerprint, neighbour.tags, old,
        )  # fmt: skip
        if changed or restates(candidate, neighbour, floor) or reworded:
            return True
        if in_two_languages(candidate, neighbour, text) or states_one_figure(
            candidate, neighbour, text
        ):
            return True  # one error in two languages, or one figure restated: the judge reads
        return reads_alike(candidate, neighbour) or in_doubt(candidate, neighbour) > 0
    if fp.other_subject(fingerprint, neighbour.fingerprint):
        return False
    if reads_alike(candidate, neighbour):
        return True  # one error, fact or content rule in other words: the judge joins them
    if in_doubt(candidate, neighbour) > 0:
        return True  # the same facts, read in doubt: the judge reads the pair
    relevance = neighbour.relevance
    if relevance >= floor and (
        in_two_languages(candidate, neighbour, candidate_text(candidate))
        or states_one_figure(candidate, neighbour, candidate_text(candidate))
    ):
        # two runs' own errors in two languages, or two runs' errors or owners' answers
        # stating one figure about a word they share: no score reads them; the judge does
        return True
    mine, theirs = candidate_text(candidate), lesson_text(neighbour.situation, neighbour.correction)
    if fp.kind_of(fingerprint) == fp.kind_of(neighbour.fingerprint) == "answer":
        asked = facts.lesson_fact(candidate.situation, candidate.correction)
        known = facts.lesson_fact(neighbour.situation, neighbour.correction)
        if facts.relation(asked, known) is not facts.Relation.DISTINCT:
            return True
        if facts.restated_apart(asked, known):
            return True  # one fact, maybe, to questions worded apart: the judge reads them
        if facts.may_reverse(asked, known):
            return True  # a change stated on a shared term: the judge says what it reverses
        if asked_with_own_circumstances(asked, known) or answered_in_two_languages(asked, known):
            return True  # the asker's own place, time or figure; one figure in two languages
        if facts.reports_change(asked) and not facts.names_apart(asked, known):
            # a change reported beside a fact of the agent's that names nothing else: its
            # question may be the old one in other words (only a judge reads that)
            return True
        if states_reversal(asked.answer) or facts.refigured(asked, known):
            # an answer that states a change, or gives another figure for a noun the old
            # answer speaks of, beside a fact naming something else ("We had to end BYO" after
            # "Can I bring my own wine?"; "capped at 6 students" after "8-10 students"): the
            # name or the figure may be the old fact's in other words; the judge is asked, the
            # rules keep the two apart
            return True
        if facts.changed_terms(asked) & known.said:
            # a change stated on what the old fact says ("Not any more: since March we are
            # closed at weekends" beside "open on Saturdays"): only a judge can tell whether
            # it reverses it (a model is asked; the offline rules keep two subjects apart)
            return True
        # two facts of other subjects: read in the owner's words, not the lessons' frame
        # ("Answer … with the owner's facts", the same in every answer's lesson)
        said = (f"{asked.question} {asked.answer}", f"{known.question} {known.answer}")
        relevance = min(relevance, score(*said)[0])
    elif observed(mine) != mine and observed(theirs) != theirs:
        relevance = min(relevance, score(observed(mine), observed(theirs))[0])
    return relevance >= max(floor, CONTRADICTION_FLOOR)


def fast_path(
    index: int,
    candidate: Candidate,
    neighbours: list[Neighbour],
    *,
    floor: float,
    identical: float,
    alone: bool = True,
) -> Operation | None:
    """Decide without a model when the answer is obvious; None means: ask the model.

    Fingerprints find, they do not forbid (DESIGN §8a): a lesson with the candidate's own
    fingerprint is the same failure, edit rule or manual lesson → NOOP on it; the same
    owner's question with a new answer is left to the judge (an UPDATE, never a NOOP), and so
    is a candidate whose key another candidate of the batch shares with other words (not
    ``alone``: one error the model read as two lessons, the key's lesson is one's twin). A
    lesson with another fingerprint of the same kind is never a free NOOP; when it may be
    contradicted (``for_the_judge``: another error of the same tool that states a change, a
    fact restated), the judge decides (a contradiction supersedes, a different fact is added).
    Otherwise, as before: nothing comparable above the floor → ADD; near-identical words with
    the same numbers and no negation flipped → NOOP."""
    fingerprint = candidate.fingerprint
    text_value = candidate_text(candidate)
    # a key masks the names an error quotes: one key naming other fields is two errors, unless
    # the model wrote one remedy for both ("The term 'az' / 'helm' is not recognized": "the
    # CLI is not installed on the agent: install it or use another")
    neighbours = [
        n for n in neighbours if not named_apart(candidate, n) or one_remedy(candidate, n)
    ]
    twin = next((n for n in neighbours if fp.same(fingerprint, n.fingerprint)), None)
    if twin is not None:
        stored = lesson_text(twin.situation, twin.correction)
        if normalise(stored) != normalise(text_value) and not alone:
            return None  # one error, two lessons of its own: which one the twin is, the judge says
        if not fp.states_a_fact(fingerprint) or normalise(stored) == normalise(text_value):
            return Operation(
                "NOOP", index, lesson_id=twin.lesson_id,
                reason=f"same fingerprint as lesson {twin.lesson_id}", fast=True,
            )  # fmt: skip
        return None  # the same question answered anew: the judge writes the UPDATE
    comparable = [
        n
        for n in neighbours
        if not fp.distinct(fingerprint, n.fingerprint)
        and n.relevance >= _floor_for(fingerprint, n, floor)
    ]
    contested = [n for n in neighbours if for_the_judge(candidate, n, floor)]
    if not comparable and not contested:
        reason = (
            "no similar lesson"
            if not any(fp.distinct(fingerprint, n.fingerprint) for n in neighbours)
            else "the similar lessons are about other things"
        )
        return Operation("ADD", index, reason=reason, fast=True)
    # The same words say the same thing under any key; anything less is for the judge.
    same = max(comparable + contested, key=lambda n: (n.identity, -n.lesson_id))
    stored = lesson_text(same.situation, same.correction)
    flipped = negation_flipped(text_value, stored)
    # one frame saying two things ("tax code missing", "bank account missing") reads nearly
    # the same word for word: the judge reads it (an enum value it quotes, "reason:
    # AML_REVIEW", is the instance's, as a template masks it)
    seen = [enums_masked(observed(t)) for t in (text_value, stored)]
    two_things = not fp.same(fingerprint, same.fingerprint) and (
        swapped(*seen) or bracketed_apart(*seen)
    )
    if (
        same.identity >= identical
        and not flipped
        and not two_things
        and digits(text_value) == digits(stored)
    ):
        return Operation(
            "NOOP",
            index,
            lesson_id=same.lesson_id,
            reason=f"near-identical to lesson {same.lesson_id} ({same.identity:.2f})",
            fast=True,
        )
    return None


@dataclass(frozen=True)
class Snapshot:
    """What reconciliation read, and the agent's lesson epoch at that moment."""

    epoch: int
    neighbours: list[list[Neighbour]]
    #: how many neighbours per candidate were read
    k: int = 5
    #: each candidate's one neighbour is the live lesson it repeats (a stored judgement, an
    #: exact repeat): a plan from it stands while those lessons are active, whatever else moved
    settled: bool = False


def read_neighbours(
    session: Session,
    tenant_id: int,
    agent_id: int,
    candidates: list[Candidate],
    k: int,
    *,
    with_epoch: bool = True,
) -> Snapshot:
    """Each candidate's nearest lessons, and the epoch they were read at (``with_epoch=False``
    under the agent's lesson lock, where the bank cannot move and the epoch is not needed)."""
    epoch = 0
    read = None
    if with_epoch:
        epoch = session.scalar(select(Agent.lesson_epoch).where(Agent.id == agent_id)) or 0
    else:
        # under the lock: the agent's epoch and tenant, read once in the transaction (only
        # its own write moves the epoch), not two round trips per search
        read = read_agent_held(session, agent_id)
    # every candidate's vector in one call to the embedder (a batch), before the searches;
    # nothing is written until they end: they all search the view it looked at
    probes = [(candidate_text(c), c.fingerprint) for c in candidates]
    view = embed_probes(session, agent_id, probes, read=read)
    return Snapshot(
        k=k,
        epoch=int(epoch),
        # the hits' texts read in one round trip for all the candidates
        neighbours=find_neighbours_of(
            session,
            tenant_id,
            agent_id,
            probes,
            k,
            read=read,
            view=view,
            siblings=[c.sibling_keys for c in candidates],
        ),
    )


def decide(
    candidates: list[Candidate],
    snapshot: Snapshot,
    *,
    ask_model: Callable[[dict[int, Candidate], list[Neighbour]], Plan],
    floor: float,
    identical: float,
) -> Plan:
    """Fast path for the obvious candidates; one model call (``ask_model``) for the rest."""
    decided: dict[int, Operation] = {}
    pending: dict[int, Candidate] = {}
    shown: dict[int, Neighbour] = {}
    # one key under candidates that say different things: the judge read one error as several
    # lessons ("blocked due to the following policies: disallow-latest-tag, restrict-image-
    # registries"), so the key's lesson is the twin of one of them at most
    said: dict[str | None, set[str]] = {}
    for candidate in candidates:
        said.setdefault(candidate.fingerprint, set()).add(normalise(candidate_text(candidate)))
    for index, candidate in enumerate(candidates):
        neighbours = snapshot.neighbours[index]
        alone = candidate.fingerprint is None or len(said[candidate.fingerprint]) == 1
        fast = fast_path(
            index, candidate, neighbours, floor=floor, identical=identical, alone=alone
        )
        if fast is not None:
            decided[index] = fast
            continue
        pending[index] = candidate
        for neighbour in neighbours:
            shown.setdefault(neighbour.lesson_id, neighbour)
    plan = Plan()
    if pending:
        asked = ask_model(pending, list(shown.values()))
        decided.update({op.candidate: op for op in asked.operations})
        plan.dropped, plan.llm_called = asked.dropped, True
        plan.also_retired = asked.also_retired
    plan.operations = [decided[i] for i in sorted(decided)]
    return plan
