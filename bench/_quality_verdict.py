"""How the quality benchmark grades a case: what the lesson bank holds against its ground truth.

Pure functions on what was read back (``Observed``), so the grading itself is tested apart from
any judge. A lesson's identity is read from the events it cites (``lesson_evidence``), never
from its words: the grade does not depend on how a judge phrases a lesson, and cannot be
tuned by wording. (The price: a judge that swapped two rules between lessons citing the same
events would pass.)

1. Every rule is matched to a lesson citing exactly the rule's events (a maximum matching,
   so two rules with the same events need two lessons).
2. A matched rule checks its lesson's status: active when the rule stands; when the rule is
   ``superseded_by`` another, ``superseded`` with ``superseded_by_id`` the other rule's
   lesson and a DELETE row in its history, written for an event of the other rule, with a
   reason (the history says why). Under the release rule (issue 25) one untrusted run may not
   change what agents read: when the old lesson was already released, the reversal's lesson
   is held and names the old one it *replaces* once corroborated (``lessons.replaces_id``),
   and agents keep the old words until then. That is right too, counted apart as **waiting**
   (a second source, or a person, completes it). A reversal whose old lesson is still active
   with nothing replacing it is **kept both**; a lesson that should stand but was superseded
   is **superseded wrongly**.
3. A rule with no lesson of its own is **merged** when its events sit in a lesson that also
   holds events no one rule groups with them, **split** when they are spread over lessons each
   holding a part of it, **missing** when no lesson cites them, or only lessons matched to
   other rules do (an edit's second rule folded into its first, or never stated: without the
   words the two cannot be told apart).
4. A lesson no rule explains is **noise** when it cites an event that must teach nothing,
   else **extra** (a lesson nobody expected, e.g. one about a timeout beside a real error).
5. An event the pipeline failed (``failed``, ``dead``) is **failed**.

A case with no finding is **right**; otherwise its verdict is its worst finding in ``VERDICTS``
order.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from _quality_cases import Case, Rule

#: the verdicts a case can get, worst first ("right" last)
VERDICTS = (
    "merged",
    "superseded wrongly",
    "kept both",
    "split",
    "noise",
    "extra",
    "missing",
    "wrong status",
    "failed",
    "right",
)


@dataclass(frozen=True)
class Seen:
    """One lesson of the case's agent as read back: what it cites (the case's event ids)."""

    lesson_id: int
    status: str
    superseded_by: int | None
    cites: frozenset[str]
    #: events of the case that wrote a DELETE row with a reason on this lesson
    retired_by: frozenset[str] = frozenset()
    #: the released lesson this held one replaces once corroborated (``lessons.replaces_id``)
    replaces: int | None = None
    #: its title (never graded: ``bench/_quality_titles.py`` reads it for multi-error cases)
    title: str = ""


@dataclass(frozen=True)
class EventRun:
    """What reflecting one event did and cost (its ``digest_runs`` rows, summed)."""

    status: str
    calls: int = 0
    prompt_tokens: int = 0
    #: operations written (one per candidate lesson) and how many the fast path decided
    candidates: int = 0
    fast: int = 0

    @property
    def asked(self) -> bool:
        """Was the judge asked to reconcile a candidate of this event (not the fast path)?"""
        return self.candidates > self.fast


@dataclass(frozen=True)
class Observed:
    lessons: tuple[Seen, ...]
    events: dict[str, EventRun]


@dataclass(frozen=True)
class Graded:
    case: Case
    verdict: str
    findings: tuple[tuple[str, str], ...] = ()
    #: reversals expected, and how many superseded as they should
    reversals: int = 0
    superseded: int = 0
    #: reversals of a released lesson waiting, as held replacements, for corroboration
    waiting: int = 0
    #: reversals whose new event's candidates the judge was asked about
    asked: int = 0
    events: int = 0
    calls: int = 0
    prompt_tokens: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    #: the lessons read back (their titles are reported, never graded)
    lessons: tuple[Seen, ...] = ()


def _match(rules: tuple[Rule, ...], lessons: list[Seen]) -> dict[str, Seen]:
    """A maximum matching of rules to lessons citing exactly the rule's events (augmenting
    paths; cases are small)."""
    owner: dict[int, str] = {}
    by_id = {lesson.lesson_id: lesson for lesson in lessons}

    def place(rule: Rule, seen: set[int]) -> bool:
        for lesson in lessons:
            if lesson.cites != rule.events or lesson.lesson_id in seen:
                continue
            seen.add(lesson.lesson_id)
            held = owner.get(lesson.lesson_id)
            if held is None or place(next(r for r in rules if r.name == held), seen):
                owner[lesson.lesson_id] = rule.name
                return True
        return False

    for rule in rules:
        place(rule, set())
    return {name: by_id[lesson_id] for lesson_id, name in owner.items()}


def grade(case: Case, observed: Observed) -> Graded:
    """The case's verdict and findings (see the module docstring)."""
    lessons = [lesson for lesson in observed.lessons if lesson.cites]
    matched = _match(case.rules, lessons)
    taken = {lesson.lesson_id for lesson in matched.values()}
    loose = [lesson for lesson in lessons if lesson.lesson_id not in taken]
    findings: list[tuple[str, str]] = []
    superseded = waiting = asked = reversals = 0
    order = [event.id for event in case.events]
    for rule in case.rules:
        if rule.superseded_by is not None:
            reversals += 1
            newer = case.rule(rule.superseded_by)
            first = min(newer.events, key=order.index)
            run = observed.events.get(first)
            asked += bool(run and run.asked)
        lesson = matched.get(rule.name)
        if lesson is None:
            findings.append(_unmatched(rule, lessons, loose))
            continue
        if rule.superseded_by is None:
            if lesson.status == "superseded":
                findings.append(("superseded wrongly", f"{rule.name}: its lesson was superseded"))
            elif lesson.status != "active":
                findings.append(("wrong status", f"{rule.name}: its lesson is {lesson.status}"))
            continue
        newer_lesson = matched.get(rule.superseded_by)
        newer = case.rule(rule.superseded_by)
        if (
            lesson.status == "superseded"
            and newer_lesson is not None
            and lesson.superseded_by == newer_lesson.lesson_id
            and lesson.retired_by & newer.events
        ):
            superseded += 1
        elif (
            lesson.status == "active"
            and newer_lesson is not None
            and newer_lesson.replaces == lesson.lesson_id
        ):
            waiting += 1  # the release rule: one run's reversal waits for a second source
        elif lesson.status == "active":
            findings.append(("kept both", f"{rule.name}: still active beside {rule.superseded_by}"))
        else:
            findings.append(
                ("wrong status", f"{rule.name}: {lesson.status}, not superseded by "
                 f"{rule.superseded_by}'s lesson with a reason in its history"),
            )  # fmt: skip
    open_rules = [r for r in case.rules if r.name not in matched]
    for lesson in loose:
        if lesson.cites & case.nothing:
            noise = sorted(lesson.cites & case.nothing)
            findings.append(("noise", f"lesson {lesson.lesson_id} learned from {noise}"))
        elif not any(lesson.cites & rule.events for rule in open_rules):
            findings.append(
                ("extra", f"lesson {lesson.lesson_id} ({sorted(lesson.cites)}) is no rule's")
            )
    for event_id, run in observed.events.items():
        if run.status in ("failed", "dead"):
            findings.append(("failed", f"event {event_id} ended {run.status}"))
    verdict = min((kind for kind, _ in findings), key=VERDICTS.index, default="right")
    runs = [observed.events[e.id] for e in case.events if e.id in observed.events]
    counts = dict(Counter(kind for kind, _ in findings))
    return Graded(
        case=case, verdict=verdict, findings=tuple(findings), reversals=reversals,
        superseded=superseded, waiting=waiting, asked=asked, events=len(case.events),
        calls=sum(r.calls for r in runs), prompt_tokens=sum(r.prompt_tokens for r in runs),
        counts=counts, lessons=observed.lessons,
    )  # fmt: skip


def _unmatched(rule: Rule, lessons: list[Seen], loose: list[Seen]) -> tuple[str, str]:
    """Why ``rule`` has no lesson citing exactly its events: merged, split or missing."""
    mine = sorted(rule.events)
    touching = [lesson for lesson in lessons if lesson.cites & rule.events]
    if not touching:
        return "missing", f"{rule.name}: no lesson cites {mine}"
    pieces = [lesson for lesson in touching if lesson in loose]
    mixed = [lesson for lesson in pieces if not lesson.cites <= rule.events]
    if mixed:
        where = ", ".join(f"{m.lesson_id} {sorted(m.cites)}" for m in mixed)
        return "merged", f"{rule.name} {mine}: in lesson(s) that hold other events too: {where}"
    if not pieces:
        return "missing", f"{rule.name} {mine}: {_FOLDED}"
    covered = set().union(*(lesson.cites for lesson in pieces))
    if len(pieces) >= 2 or covered == rule.events:
        where = ", ".join(f"{p.lesson_id} {sorted(p.cites)}" for p in pieces)
        return "split", f"{rule.name} {mine}: spread over lessons {where}"
    rest = sorted(rule.events - covered)
    if any(lesson.cites & set(rest) for lesson in touching):
        return "missing", f"{rule.name} {mine}: {rest} {_FOLDED}"
    return "missing", f"{rule.name} {mine}: nothing cites {rest}"


#: a rule whose events only other rules' lessons cite: the words would say which happened
_FOLDED = (
    "no lesson of its own; cited only by other rules' lessons (folded into them, or never stated)"
)
