"""Reconciliation's operations written: ADD / UPDATE / DELETE (supersede) / NOOP, inside the
caller's transaction, which holds the agent's lesson lock.

An operation whose target is no longer an active lesson of this agent becomes an ADD; an ADD
looks again, under the lock, for an identical active lesson (a concurrent writer may have
stored it) and becomes a NOOP on it; a DELETE supersedes the old lesson AND keeps the new one.

An untrusted event's change to a lesson an agent reads (released, ``digest.lessons.release``)
waits like any untrusted lesson: a rewrite or a supersede is stored as a new held lesson that
replaces the old one once it is released itself; until then the agent reads the old words.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from sqlalchemy.orm import Session

from digest import fingerprint as fp
from digest.lessons.neighbours import find_neighbours, read_agent_held
from digest.lessons.release import is_released, recount, transaction_gate
from digest.lessons.store import (
    Candidate,
    promote_if_supported,
    supersede_lesson,
    support_lesson,
    update_lesson,
)
from digest.lessons.transition import lesson_by_id
from digest.lessons.vectors import stored_vector
from digest.logs import get_logger
from digest.masking import mask_ids
from digest.models import PROTECTED_TRUST, Event, Lesson
from digest.reflect.reconcile import OPS, Operation, Plan, candidate_text, digits, named_apart
from digest.reflect.tightening import tightens
from digest.reversal import about_policy, signals_change, speaks_of_policy, states_reversal
from digest.text import lesson_text, negation_flipped

log = get_logger("digest.reconcile")

#: why a merged lesson text may not be written for an untrusted event (None: it may)
Vet = Callable[[Candidate], str | None]


@dataclass
class Applied:
    lesson_ids: list[int] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OPS, 0))
    #: candidate index → the lesson it ended up in (added, supported or updated)
    by_candidate: dict[int, int] = field(default_factory=dict)


def _target(session: Session, lesson_id: int | None, event: Event) -> Lesson | None:
    """The lesson an operation names, if it is still an active lesson of this very agent."""
    if lesson_id is None:
        return None
    lesson = lesson_by_id(session, lesson_id)
    if lesson is None or lesson.status != "active":
        return None
    if (lesson.tenant_id, lesson.agent_id) != (event.tenant_id, event.agent_id):
        return None  # impossible by construction; refused anyway
    return lesson


def _identical_active(session: Session, event: Event, candidate: Candidate) -> Lesson | None:
    """An active lesson of this agent with (almost) the same words, read under the lock: the
    same numbers, no negation flipped, and not another fingerprint of the same kind (a new
    answer to another question is another lesson however alike it reads) nor one quoting
    another name ("Field 'state' is required" beside 'postcode': ``reconcile.named_apart``)."""
    text_value = candidate_text(candidate)
    found = find_neighbours(
        session, event.tenant_id, event.agent_id, text_value, 5,
        fingerprint=candidate.fingerprint, mode="lexical",
        read=read_agent_held(session, event.agent_id),
    )  # fmt: skip
    for neighbour in found:
        stored = lesson_text(neighbour.situation, neighbour.correction)
        if (
            neighbour.identity >= IDENTICAL_UNDER_LOCK
            and not negation_flipped(text_value, stored)
            and not fp.distinct(candidate.fingerprint, neighbour.fingerprint)
            and not named_apart(candidate, neighbour)
            and sorted(re.findall(r"\d+", text_value)) == sorted(re.findall(r"\d+", stored))
        ):
            return lesson_by_id(session, neighbour.lesson_id)
    return None


def _overrides_trust(event: Event, target: Lesson) -> bool:
    """Would this event's operation change a lesson it may not change? Untrusted (run,
    untrusted import) events never UPDATE or supersede a trusted or reviewed lesson."""
    return event.trust != "high" and target.trust in PROTECTED_TRUST


def _guarded(op: Operation, event: Event, target: Lesson | None, vet: Vet | None) -> Operation:
    """The trust rules, enforced on whatever the model answered (DESIGN §8, issue 12):

    - an untrusted event's UPDATE or DELETE of a trusted or reviewed lesson is a NOOP: it may
      only cite the event as evidence;
    - an untrusted event's DELETE (supersede) of a lesson about a policy, a permission or a
      role (``digest.reversal.speaks_of_policy``), or UPDATE whose merged text says such a
      thing changed, is an ADD of its candidate: a claim kept apart (held by the release rule
      like any lesson from run text), never a change to the lesson it contradicts; but for a
      DELETE whose event's tool error states the lesson's rule with a stricter threshold
      (``digest.reflect.tightening``: the tool now refuses what the lesson let through), which
      supersedes it once released like any change from run text;
    - an untrusted event's UPDATE whose merged text fails the screen (``vet``) is a NOOP: a
      model that obeyed the run text cannot rewrite a lesson with it;
    - a trusted event's UPDATE of an untrusted lesson becomes an ADD of its own candidate: the
      merged text would mix run text into a trusted lesson, and trust is never raised.
    """
    if target is None or op.op not in ("UPDATE", "DELETE"):
        return op
    if _overrides_trust(event, target):
        log.warning("untrusted_change_refused", op=op.op, lesson_id=target.id, event_id=event.id)
        return Operation(
            "NOOP",
            op.candidate,
            lesson_id=target.id,
            reason=f"{op.op} refused: an untrusted event cannot change a {target.trust} lesson",
        )
    merged = candidate_text(op.merged) if op.merged is not None else ""
    said = lesson_text(target.situation, target.correction)
    if event.trust != "high" and (
        (
            op.op == "DELETE"
            and about_policy(said)
            and not tightens(dict(event.payload or {}), f"{said}\n{target.mistake or ''}")
        )
        or (states_reversal(merged) and speaks_of_policy(merged))
    ):
        log.warning("untrusted_policy_change_kept_apart", lesson_id=target.id, event_id=event.id)
        return Operation(
            "ADD", op.candidate,
            reason=f"{op.op} kept apart: run text never changes a lesson about a policy",
        )  # fmt: skip
    if op.op == "UPDATE" and event.trust != "high" and vet is not None and op.merged is not None:
        why = vet(op.merged)
        if why is not None:
            log.warning("untrusted_merge_refused", lesson_id=target.id, event_id=event.id, why=why)
            return Operation(
                "NOOP", op.candidate, lesson_id=target.id,
                reason=f"UPDATE refused: the merged text {why}",
            )  # fmt: skip
    if op.op == "UPDATE" and event.trust == "high" and target.trust == "untrusted":
        return Operation(
            "ADD", op.candidate,
            reason=f"kept apart from untrusted lesson {target.id}: trust is never raised",
        )  # fmt: skip
    return op


#: under the lock, an ADD whose text is this close to an active lesson becomes a NOOP: two
#: workers racing on the same lesson never store two copies.
IDENTICAL_UNDER_LOCK = 0.95


def apply_plan(
    session: Session,
    event: Event,
    candidates: list[Candidate],
    plan: Plan,
    *,
    add: Callable[[Candidate], Lesson],
    model: str | None,
    prompt_hash: str | None,
    promote_at: int = 3,
    recheck_adds: bool = True,
    vet: Vet | None = None,
) -> Applied:
    """Apply ``plan`` inside the caller's transaction (which holds the agent's lesson lock).

    An ADD first looks again, under the lock, for an identical active lesson (a concurrent
    writer may have stored it since the plan's read). ``recheck_adds=False`` skips that for a
    caller that read the neighbours under this same lock and has one candidate. ``vet``
    screens the merged text of an untrusted event's UPDATE (see ``_guarded``)."""
    applied = Applied()
    index = 0
    #: each candidate's new lesson where its DELETE superseded a lesson at once
    superseding: dict[int, Lesson] = {}

    def read_by_agents(target: Lesson | None) -> bool:
        """Does an agent read ``target`` today (so an untrusted change to it must wait)?"""
        if target is None:
            return False
        # as of this transaction: a batch's earlier events may have corroborated it already
        recount(session, [target.id])
        counts = (target.trust, target.independent_sources, target.source_span_s)
        return is_released(*counts, transaction_gate(session, event.agent_id))

    def proposed(candidate: Candidate, target: Lesson) -> Lesson:
        """A held lesson with ``candidate``'s words that replaces ``target`` once released."""
        new = add(replace(candidate, fingerprint=candidate.fingerprint or target.fingerprint))
        new.replaces_id = target.id
        log.info("untrusted_change_held", lesson_id=target.id, held_id=new.id, event_id=event.id)
        return new

    def record(op: str, lesson: Lesson) -> None:
        applied.by_candidate[index] = lesson.id
        applied.counts[op] += 1
        if lesson.id not in applied.lesson_ids:
            applied.lesson_ids.append(lesson.id)
        if op in ("NOOP", "UPDATE"):
            promote_if_supported(session, lesson, min_contacts=promote_at, event=event)
        if lesson.replaces_id is not None and event.trust != "high":
            # a held change corroborated now replaces its lesson now, not when a batch commits
            recount(session, [lesson.id])

    for op in plan.operations:
        index = op.candidate
        candidate = candidates[op.candidate]
        target = _target(session, op.lesson_id, event)
        if op.op in ("NOOP", "UPDATE", "DELETE") and target is None:
            log.warning("reconcile_target_gone", op=op.op, lesson_id=op.lesson_id)
            op = Operation("ADD", op.candidate, reason=f"{op.op} target no longer active")
        else:
            op = _guarded(op, event, target, vet)
        if op.op == "ADD":
            same = _identical_active(session, event, candidate) if recheck_adds else None
            if same is not None:
                support_lesson(
                    session,
                    same,
                    reason="identical lesson already stored",
                    event=event,
                    model=model,
                    prompt_hash=prompt_hash,
                )
                record("NOOP", same)
            else:
                record("ADD", add(candidate))
        elif op.op == "NOOP":
            assert target is not None
            support_lesson(
                session, target, reason=op.reason, event=event, model=model, prompt_hash=prompt_hash
            )
            record("NOOP", target)
        elif op.op == "UPDATE" and event.trust != "high" and read_by_agents(target):
            assert target is not None and op.merged is not None
            if _rewrites(target, op.merged) and adds_to(target, op.merged):
                record("ADD", proposed(op.merged, target))
            else:
                # the same words, or the same rule reworded (no figure, name, negation or
                # change of its own): the event is the lesson's support, the words an agent
                # reads stay; the judge's wording is kept in the history, nothing is lost
                reason = op.reason
                if _rewrites(target, op.merged):
                    reason = (
                        f"{op.reason}; words kept, the judge proposed: "
                        + (candidate_text(op.merged)[:300])
                    )
                support_lesson(
                    session, target, reason=reason, event=event, model=model,
                    prompt_hash=prompt_hash,
                )  # fmt: skip
                record("NOOP", target)
        elif op.op == "UPDATE":
            assert target is not None and op.merged is not None
            said = lesson_text(target.situation, target.correction)
            update_lesson(
                session,
                target,
                op.merged,
                reason=op.reason,
                event=event,
                model=model,
                prompt_hash=prompt_hash,
            )
            if lesson_text(target.situation, target.correction) != said:
                # the new words' vector stored with them (the search embedded them already):
                # no worker's index computes it again
                target.embedding, target.embedding_key = stored_vector(
                    target.situation, target.correction
                )
            record("UPDATE", target)
        elif event.trust != "high" and read_by_agents(target):
            # DELETE of a lesson agents read: the new one waits, then supersedes it
            assert target is not None
            record("ADD", proposed(candidate, target))
        else:  # DELETE: supersede the old lesson AND keep the new one
            assert target is not None
            new = add(candidate)
            supersede_lesson(
                session,
                target,
                new,
                reason=op.reason,
                event=event,
                model=model,
                prompt_hash=prompt_hash,
            )
            applied.counts["DELETE"] += 1
            record("ADD", new)
            superseding[index] = new
    for extra in plan.also_retired:
        # the same candidate's new lesson supersedes another lesson the judge named too, by
        # the same rules; a change that waits (held) or was refused supersedes nothing more
        new_lesson = superseding.get(extra.candidate)
        target = _target(session, extra.lesson_id, event)
        if new_lesson is None or target is None or target.id == new_lesson.id:
            continue
        if _guarded(extra, event, target, vet).op != "DELETE" or (
            event.trust != "high" and read_by_agents(target)
        ):
            log.info("second_supersede_skipped", lesson_id=target.id, event_id=event.id)
            continue
        supersede_lesson(
            session, target, new_lesson, reason=extra.reason, event=event, model=model,
            prompt_hash=prompt_hash,
        )  # fmt: skip
        applied.counts["DELETE"] += 1
    return applied


#: a name a remedy spells as one: quoted or in backticks ('batch_no', `reserve_stock`)
_SPELLED = re.compile(r"""[`'"]([\w.-]{1,40})[`'"]""")


def adds_to(target: Lesson, merged: Candidate) -> bool:
    """Does a judge's UPDATE of ``target`` say something the lesson does not: a figure of its
    remedy (ids masked: the instance a run quotes is not the rule), a name the lesson never
    spells, a negation flipped, or a change the lesson does not state? An untrusted event's
    such UPDATE of a lesson agents read waits, held, for a second source; one that only
    rewords the rule is the lesson's support."""
    old, new = lesson_text(target.situation, target.correction), candidate_text(merged)
    said = set(digits(mask_ids(target.correction)))
    if set(digits(mask_ids(merged.correction))) - said:
        return True
    if {n.casefold() for n in _SPELLED.findall(merged.correction)} - set(
        _SPELLED.findall(old.casefold())
    ):
        return True
    return negation_flipped(merged.correction, target.correction) or (
        signals_change(new) and not signals_change(old)
    )


def _rewrites(target: Lesson, merged: Candidate) -> bool:
    """Would ``merged`` change the words of ``target`` an agent reads?"""
    text = merged.normalised()
    return (text.situation, text.correction, text.mistake or target.mistake, text.title) != (
        target.situation, target.correction, target.mistake, target.title,
    )  # fmt: skip
