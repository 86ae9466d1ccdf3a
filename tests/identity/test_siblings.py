"""Pitfalls ranks a task's own lessons first (issue 24 point 5): a prompt's words found in the
tasks a lesson was learned from (its cues) weigh more than the same words in a lesson's
generic text, and the lessons learned from the runs of one task follow its best one
(``digest.identity.siblings``). Pure: entries in an index, no services."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import numpy as np

from digest.identity.index import AgentIndex, Entry
from digest.identity.siblings import (
    SIBLING_CUES,
    SIBLING_GAP,
    task_heads,
    with_siblings,
    with_tasks,
)
from digest.retrieve import LESSONS_PER_TASK, best_of

#: the words a task gave the lessons of its run (``digest.lessons.cues``)
BOOKING = "book flight seats passengers economy chicago"
CANCELLING = "cancel trip reservation refund travel plans"


def _entry(lesson_id: int, text: str, cues: str = "") -> Entry:
    return Entry(lesson_id, text, fingerprint=f"tool:t{lesson_id}:x", cues=cues)


def test_a_word_of_the_task_weighs_more_than_the_same_word_in_a_lessons_text() -> None:
    index = AgentIndex(
        [
            # a generic word of the judge's text ("flight" in a tool's name), not its task's
            _entry(1, "Check the status first: `update_flight` fails with «no»", CANCELLING),
            # the same word said by the task the lesson was learned from
            _entry(2, "Check availability first: `reserve` fails with «no seats»", BOOKING),
        ]
    )
    ranked = index.rank_for_prompt(["flight"], None, 2)
    assert [entry.lesson_id for entry, _score in ranked] == [2, 1]
    assert ranked[0][1] > ranked[1][1]


def test_a_lesson_without_cues_is_ranked_by_its_text_as_before() -> None:
    index = AgentIndex([_entry(1, "Refunds take five days"), _entry(2, "Gift cards never expire")])
    [(entry, score)] = index.rank_for_prompt(["refund"], None, 2)
    assert entry.lesson_id == 1 and score == 1.0


def test_the_best_lessons_siblings_follow_it_before_other_tasks_lessons() -> None:
    best = _entry(1, "Check availability first", BOOKING)
    sibling = _entry(2, "Check the balance first", BOOKING)
    other_task = _entry(3, "Check eligibility first", CANCELLING)
    person = _entry(4, "Greet the customer by name")
    ranked = [[(best, 0.40), (other_task, 0.30), (person, 0.25), (sibling, 0.10)]]
    scores = with_siblings(ranked, {1: 0.40, 3: 0.30, 4: 0.25, 2: 0.10})
    order = sorted(scores, key=lambda lesson_id: -scores[lesson_id])
    assert order == [1, 2, 3, 4]
    assert scores[2] < scores[1]  # just after the best, never before it
    assert (scores[3], scores[4]) == (0.30, 0.25)  # the rest as they were


def test_lessons_sharing_fewer_cues_than_one_runs_task_are_not_siblings() -> None:
    shared = " ".join(BOOKING.split()[: SIBLING_CUES - 1])
    best = _entry(1, "Check availability first", BOOKING)
    other = _entry(2, "Check the balance first", f"{shared} hotel room breakfast")
    scores = with_siblings([[(best, 0.4), (other, 0.1)]], {1: 0.4, 2: 0.1})
    assert scores == {1: 0.4, 2: 0.1}
    # a best lesson without cues (a person's) has no siblings
    person = _entry(3, "Greet the customer by name")
    assert with_siblings([[(person, 0.5), (best, 0.2)]], {3: 0.5, 1: 0.2}) == {3: 0.5, 1: 0.2}


def test_the_lessons_of_a_short_task_are_siblings_by_all_its_cues() -> None:
    """A short task ("my flight was delayed, I want compensation") gives each lesson of its run
    fewer than ``SIBLING_CUES`` words: holding all of them is enough; holding some is not."""
    short = "flight delayed compensation"
    best = _entry(1, "Check eligibility first", short)
    sibling = _entry(2, "Stay within the limit", short)
    later_run = _entry(3, "Check the status allows it first", f"{short} airport night")
    partly = _entry(4, "Check availability first", "flight seats economy")
    ranked = [[(best, 0.4), (partly, 0.3), (sibling, 0.1), (later_run, 0.05)]]
    scores = with_siblings(ranked, {1: 0.4, 4: 0.3, 2: 0.1, 3: 0.05})
    assert 0.4 - SIBLING_GAP < scores[3] < scores[2] < 0.4
    assert scores[4] == 0.3  # one word in common: another task's lesson


def test_raised_siblings_keep_their_own_order_so_the_blocks_cut_falls_by_relevance() -> None:
    """A task whose runs failed in many ways has more lessons than a block shows
    (``LESSONS_PER_TASK`` per task): raised to just below the best, they keep the order of
    what the prompt matched in each, and the cut drops the least relevant, not the oldest."""
    best = _entry(1, "Check availability first", BOOKING)
    weak = [_entry(i, f"Lesson {i}", BOOKING) for i in (2, 3, 4)]
    strong = _entry(5, "Check the balance first", BOOKING)
    ranked = [[(best, 0.5), (strong, 0.3), *((entry, 0.01) for entry in weak)]]
    scores = with_siblings(ranked, {1: 0.5, 5: 0.3, 2: 0.01, 3: 0.01, 4: 0.01})
    assert min(scores.values()) > 0.5 - SIBLING_GAP and scores[5] > scores[2] == scores[4]
    assert max(scores[i] for i in (2, 3, 4, 5)) < 0.5
    rows = [_Row(i, hit_count=10 if i in (2, 3, 4) else 0) for i in scores]
    shown = best_of(rows, scores, 1, heads=dict.fromkeys(scores, 1))
    # the often-shown weak siblings do not push out the one the prompt matched well
    assert [row.id for row in shown] == [1, 5]


def test_a_lessons_task_is_the_best_lesson_it_is_a_sibling_of_or_shares_a_tool_with() -> None:
    """``task_heads``: in score order, a lesson joins the first task whose best lesson shares
    its run's cues or its tool (another error of the tool the task calls); else it begins
    a task of its own. A person's lesson (no cues, no tool) is a task of its own."""
    booking = _entry(1, "Check availability first", BOOKING)
    cancelling = _entry(2, "Check eligibility first", CANCELLING)
    booking_too = _entry(3, "Check the balance first", BOOKING)
    person = _entry(4, "Greet the customer by name")
    same_tool = Entry(5, "Keep `quantity` within the limit", fingerprint="tool:t2-b:y")
    cancel_tool = Entry(6, "Check the status first", fingerprint="tool:t2-a:x")
    ranked = [
        [(booking, 0.5), (cancel_tool, 0.45), (cancelling, 0.4), (person, 0.3),
         (booking_too, 0.2), (same_tool, 0.1)]
    ]  # fmt: skip
    scores = {entry.lesson_id: score for entry, score in ranked[0]}
    assert task_heads(ranked, scores) == {1: 1, 6: 6, 2: 2, 4: 4, 3: 1, 5: 6}


@dataclass(frozen=True)
class _Row:
    id: int
    hit_count: int = 0
    last_seen_at: datetime | None = None


def test_with_tasks_k_counts_tasks_and_each_shows_its_lessons_up_to_a_cap() -> None:
    """``best_of`` with ``heads``: the lessons of the k best tasks in score order, a task's
    lessons after its best even below another task's, at most ``LESSONS_PER_TASK * k``."""
    scores = {1: 0.9, 2: 0.8, 3: 0.7, 4: 0.6, 5: 0.5, 6: 0.4, 7: 0.3}
    heads = {1: 1, 2: 1, 3: 3, 4: 4, 5: 3, 6: 1, 7: 7}
    rows = [_Row(i) for i in scores]
    assert [r.id for r in best_of(rows, scores, 2)] == [1, 2]  # without tasks: k lessons
    assert [r.id for r in best_of(rows, scores, 2, 0.0, heads)] == [1, 2, 3, 5]
    # three tasks (task 7 left out) hold six lessons: the cap
    assert [r.id for r in best_of(rows, scores, 3, 0.0, heads)] == [1, 2, 3, 4, 5, 6]
    assert len(best_of(rows, scores, 1, 0.0, heads)) == LESSONS_PER_TASK
    assert [r.id for r in best_of(rows, scores, 1, 0.0, {})] == [1]  # no task known: a lesson


def test_the_best_tasks_bring_their_lessons_the_prompt_did_not_find() -> None:
    """``with_tasks``: a lesson of one of the k best tasks that did not qualify for the prompt
    (its run's words differ from the later task's) joins its task, by its cues or its tool,
    if the mask lets it be shown; another task's lessons, and other tasks beyond k, do not."""
    found = _entry(1, "Check availability first", BOOKING)
    same_run = _entry(2, "Check the balance first", BOOKING)
    same_tool = Entry(3, "Keep `quantity` within the limit", fingerprint="tool:t9-b:y", cues="x")
    tool_lesson = Entry(4, "Check stock first", fingerprint="tool:t9-a:x", cues=CANCELLING)
    other_task = _entry(5, "Check eligibility first", "hotel room breakfast late checkout")
    hidden = _entry(6, "Check the seat map first", BOOKING)
    index = AgentIndex([found, same_run, same_tool, tool_lesson, other_task, hidden])
    visible = np.array([True, True, True, True, True, False])
    ranked = [[(found, 0.5), (tool_lesson, 0.3)]]
    scores = {1: 0.5, 4: 0.3}
    heads = task_heads(ranked, scores)
    raised, tasks = with_tasks([(index, visible)], ranked, scores, heads, k=2)
    assert tasks == {1: 1, 4: 4, 2: 1, 3: 4}  # 5 is another task, 6 may not be shown
    assert raised[2] == 0.5 - 2 * SIBLING_GAP and raised[3] == 0.3 - 2 * SIBLING_GAP
    # with k=1 only the best task brings its lessons
    _scores, tasks = with_tasks([(index, visible)], ranked, scores, heads, k=1)
    assert tasks == {1: 1, 4: 4, 2: 1}
    assert index.with_subject("tool:t9-c:z") == [3, 2]  # newest first
    assert index.with_subject("tool:t9-c:z", visible, limit=1) == [3]
    assert index.with_subject(None) == []
    assert index.words(cues=True).holding("seats").tolist() == [0, 1, 5]


def test_a_task_brings_the_lessons_about_the_tools_of_its_other_lessons() -> None:
    """A kind of task met two errors of a tool in two runs told in other words: the later
    prompt finds the first run's lessons (its best one about another tool, a sibling by their
    cues about this tool), and the second run's lesson about that tool joins the task by the
    sibling's tool, though it shares no cue with the best one and is not about its tool."""
    best = Entry(1, "Stay within the limit", fingerprint="tool:checkout-a:x", cues=BOOKING)
    sibling = Entry(2, "Check stock first", fingerprint="tool:add_to_cart-b:x", cues=BOOKING)
    other_run = Entry(
        3, "Check availability first", fingerprint="tool:add_to_cart-c:x", cues="gift"
    )
    unrelated = Entry(4, "Check eligibility first", fingerprint="tool:refund-d:x", cues=CANCELLING)
    index = AgentIndex([best, sibling, other_run, unrelated])
    visible = np.ones(4, bool)
    ranked = [[(best, 0.5), (sibling, 0.4)]]
    scores = {1: 0.5, 2: 0.4}
    heads = task_heads(ranked, scores)
    assert heads == {1: 1, 2: 1}
    raised, tasks = with_tasks([(index, visible)], ranked, scores, heads, k=1)
    assert tasks == {1: 1, 2: 1, 3: 1}
    assert raised[3] == 0.5 - 2 * SIBLING_GAP
    # the task's tools are looked up beyond its own lessons: with several of them about the
    # best lesson's tool, one it has not found still joins
    more = [
        Entry(10 + i, f"lesson {i}", fingerprint=f"tool:checkout-{i}:x", cues=f"run{i} word")
        for i in range(3)
    ]
    index = AgentIndex([*more, best])
    ranked = [[(best, 0.5), (more[2], 0.45), (more[1], 0.4)]]
    scores = {1: 0.5, 12: 0.45, 11: 0.4}
    _raised, tasks = with_tasks(
        [(index, np.ones(4, bool))], ranked, scores, task_heads(ranked, scores), k=1
    )
    assert tasks[10] == 1
