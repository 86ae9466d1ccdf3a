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

from collections.abc import Iterable

from digest.fingerprint import same_subject
from digest.identity.index import Entry, terms

#: two lessons learned from one run share its task's telling words: at least this many cues
SIBLING_CUES = 4
#: …or every cue of one of them, when it has at least this many (a short task's)
SHORT_TASK_CUES = 2
#: how far below the best lesson its siblings rank (before the lessons of other tasks)
SIBLING_GAP = 1e-4


def with_siblings(
    ranked: Iterable[Iterable[tuple[Entry, float]]], scores: dict[int, float]
) -> dict[int, float]:
    """The scores with the best lesson's siblings (lessons learned from the runs of the same
    task: ``SIBLING_CUES`` cues in common, ``digest.lessons.cues``) raised to just below it:
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
    floor = scores[best] - SIBLING_GAP
    for lesson_id, entry in entries.items():
        if lesson_id != best and siblings(own, terms(entry.cues)):
            raised[lesson_id] = max(raised[lesson_id], floor)
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
