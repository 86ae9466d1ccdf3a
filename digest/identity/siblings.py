"""Siblings: the lessons learned from the runs of one task, ranked together for a prompt.

A run that failed in several ways teaches a lesson per error, and each keeps the task's
telling words as its cues (``digest.lessons.cues``). When a prompt's best lesson is one of
them, the others are the pitfalls of that same kind of task: ``with_siblings`` ranks them just
after it, before the lessons of other tasks that happen to share a word with the prompt. Two
lessons are siblings when they share ``SIBLING_CUES`` cues, or when a short task ("my flight
was delayed, I want compensation") gave one of them all its cues and the other holds them all.
Pure: it reads the entries of an index (``digest.identity.index``), nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from digest.fingerprint import same_subject, subject_of
from digest.identity.index import AgentIndex, Entry, terms

#: two lessons learned from one run share its task's telling words: at least this many cues
SIBLING_CUES = 4
#: …or every cue of one of them, when it has at least this many (a short task's)
SHORT_TASK_CUES = 2
#: how far below the best lesson its siblings rank (before the lessons of other tasks)
SIBLING_GAP = 1e-4
#: …raised siblings keep their own order within this part of the gap (from ``floor`` up to it,
#: by their own score's share of the best one's): ``best_of`` rounds scores to 6 places
SIBLING_ORDER = SIBLING_GAP / 2
#: lessons of one of the best tasks that the prompt did not find, brought in at most (those
#: sharing most of its cues first, then the newest about its tool): each is a row read on
#: the agent's turn
TASK_REACH = 2


def with_siblings(
    ranked: Iterable[Iterable[tuple[Entry, float]]], scores: dict[int, float]
) -> dict[int, float]:
    """The scores with the best lesson's siblings (lessons learned from the runs of the same
    task: ``SIBLING_CUES`` cues in common, ``digest.lessons.cues``) raised to just below it,
    in their own order (``SIBLING_ORDER``):
    a task that failed in several ways finds each of its errors' lessons before those of
    other tasks that share a word with it. Lessons without cues (a person's) have none."""
    entries = {entry.lesson_id: entry for part in ranked for entry, _score in part}
    if not scores:
        return scores
    best = max(scores, key=lambda lesson_id: (scores[lesson_id], lesson_id))
    own = terms(entries[best].cues) if best in entries else set()
    if len(own) < SHORT_TASK_CUES:
        return scores
    raised = dict(scores)
    top = scores[best]
    floor = top - SIBLING_GAP
    for lesson_id, entry in entries.items():
        if lesson_id != best and siblings(own, terms(entry.cues)):
            # in their own order of relevance: when they are more than a block holds, the
            # cut falls by what the prompt matched, not by ties
            own_share = scores[lesson_id] / top if top > 0 else 0.0
            raised[lesson_id] = max(raised[lesson_id], floor + SIBLING_ORDER * own_share)
    return raised


def siblings(own: set[str], theirs: set[str]) -> bool:
    """Were two lessons of these cues' terms learned from the runs of one task?"""
    shared = own & theirs
    if len(shared) >= SIBLING_CUES:
        return True
    return len(shared) >= SHORT_TASK_CUES and shared in (own, theirs)


def task_heads(
    ranked: Iterable[Iterable[tuple[Entry, float]]], scores: dict[int, float]
) -> dict[int, int]:
    """Each ranked lesson's task: the best-scoring lesson it is a sibling of (``siblings`` by
    their cues), or that is about the same tool (``same_subject``: another error of the tool
    the task calls), or else itself. In score order, a lesson joins the first task whose best
    lesson is such, or begins one of its own."""
    entries = {entry.lesson_id: entry for part in ranked for entry, _score in part}
    heads: dict[int, int] = {}
    opened: list[tuple[int, set[str], str | None]] = []
    for lesson_id in sorted(scores, key=lambda i: (-scores[i], -i)):
        entry = entries.get(lesson_id)
        own = terms(entry.cues) if entry is not None else set()
        key = entry.fingerprint if entry is not None else None
        head = next(
            (
                h
                for h, theirs, their_key in opened
                if (own and len(theirs) >= SHORT_TASK_CUES and siblings(theirs, own))
                or same_subject(their_key, key)
            ),
            None,
        )
        heads[lesson_id] = lesson_id if head is None else head
        if head is None:
            opened.append((lesson_id, own, key))
    return heads


def with_tasks(
    parts: Sequence[tuple[AgentIndex, np.ndarray]],
    ranked: Iterable[Iterable[tuple[Entry, float]]],
    scores: dict[int, float],
    heads: dict[int, int],
    k: int,
) -> tuple[dict[int, float], dict[int, int]]:
    """The scores and tasks (``task_heads``) with the other lessons of the ``k`` best tasks
    that the prompt did not find: a later task of one kind is told in other words than the
    errors its runs hit, and when one of its lessons is found, each of the others is its
    pitfall as well. In ``parts`` (each index with the mask of what may be shown), a task's
    lessons are its best lesson's siblings by their cues and the lessons about its tool; at
    most ``TASK_REACH`` of them per task join it, just below its siblings."""
    entries = {entry.lesson_id: entry for part in ranked for entry, _score in part}
    best = sorted(set(heads.values()), key=lambda head: (-scores[head], -head))[:k]
    scores, heads = dict(scores), dict(heads)
    for head in best:
        entry = entries.get(head)
        if entry is None:
            continue
        # the tools of the task's other lessons the prompt found (its best lesson's first)
        members = sorted(
            (lesson_id for lesson_id, its in heads.items() if its == head and lesson_id != head),
            key=lambda lesson_id: (-scores[lesson_id], -lesson_id),
        )
        tools = [entries[m].fingerprint for m in members if m in entries]
        found = sorted(
            (priority, lesson_id)
            for index, visible in parts
            for priority, lesson_id in _lessons_of_task(index, visible, entry, tools)
        )
        added = 0
        for _priority, lesson_id in found:
            if added == TASK_REACH:
                break
            if lesson_id not in scores:
                scores[lesson_id] = scores[head] - 2 * SIBLING_GAP
                heads[lesson_id] = head
                added += 1
    return scores, heads


def _lessons_of_task(
    index: AgentIndex, visible: np.ndarray, head: Entry, tools: Sequence[str | None] = ()
) -> list[tuple[tuple[int, int, int], int]]:
    """(priority, lesson id) of the visible entries of ``index`` that are ``head``'s siblings
    (most cues in common first), about its tool (newest first), or about the tool of another
    of the task's lessons (``tools``: their fingerprints, in the task's order), at most
    ``2 * TASK_REACH`` of each (no entry's cues are read beyond the few that share most)."""
    found: list[tuple[tuple[int, int, int], int]] = []
    own = terms(head.cues)
    if len(own) >= SHORT_TASK_CUES:
        postings = index.words(cues=True)
        shared = np.zeros(len(index), np.int32)
        for term in own:
            shared[postings.holding(term)] += 1
        shared[~visible] = 0
        close = np.flatnonzero(shared >= SHORT_TASK_CUES)
        if close.size > 2 * TASK_REACH:
            close = close[np.argsort(-shared[close], kind="stable")[: 2 * TASK_REACH]]
        for position in close.tolist():
            entry = index.entries[position]
            if siblings(own, terms(entry.cues)):
                found.append(((0, -int(shared[position]), -position), entry.lesson_id))
                if len(found) == TASK_REACH:
                    break
    # the task's own lessons (the head among them) are in these too: looked up beyond them
    for position in index.with_subject(head.fingerprint, visible, 2 * TASK_REACH):
        found.append(((1, 0, -position), index.entries[position].lesson_id))
    # another error a kind of task met is often told in a later run with other words: one of
    # the task's lessons found by its cues is about a tool whose other lessons are the task's
    subjects = {subject_of(head.fingerprint)}
    for order, tool in enumerate(tools, 1):
        subject = subject_of(tool)
        if not subject or subject in subjects:
            continue
        subjects.add(subject)
        for position in index.with_subject(tool, visible, 2 * TASK_REACH):
            found.append(((2, order, -position), index.entries[position].lesson_id))
    return found
