"""Pitfalls finds the lesson for the task (issue 24 points 4 and 5), end to end with the offline
judge: realistic multi-error runs of a tool-using agent are reflected, then, for a later task
of the same kind in other words and with other ids, ``digest.pitfalls`` of the user's first
message must show the lesson of every error the earlier trials hit, each recurring error must
end at exactly one active lesson, and nothing of the users' tasks may reach what an agent
reads (pitfalls, the learning document, its summary; DESIGN §8).

The runs are data (``tests/runs/data``), measured with keywords alone and with the static
embedding table (a real deployment's default; the ONNX model it is distilled from, ``local``,
reached 88% on the tuned split, the table 82%, then 85% with keywords alone at 80% once a
task's own lessons ranked first: ``digest.identity.siblings``). The held-out split, which
nothing was tuned on, must reach the target (90%). The tuned split was written to be harder
(later messages that share few or no words with the earlier tasks: "the plate I received is
cracked" for "the mug arrived broken") and is held at what it reached, so that it cannot slide back.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import pytest
from sqlalchemy import select

import digest
from bench._teaching import teacher
from digest.db import session_scope
from digest.fingerprint import tool_key
from digest.lessons.cues import telling_words
from digest.lessons.hits import flush_hits
from digest.model.error_families import FAMILIES
from digest.models import Lesson, LessonEvidence
from digest.pipeline import drain, improve_now
from digest.retrieve import OBSERVED_HEAD, PITFALLS_END, PITFALLS_HEAD
from digest.tenants import set_tenant
from digest.versions.document import OBSERVED_HEADING
from tests.conftest import _reset_process_state
from tests.reflect.helpers import active_lessons
from tests.runs.corpus import Kind, load

AGENT = "shop-agent"
#: the share of (later task, error) pairs whose lesson pitfalls must show, on held-out runs
TARGET = 0.9
#: …and on the tuned split, per embedder: what it reached less one pair, to hold it there (80%
#: and 85% on its first 60 pairs; 45% and 58% once 13 kinds told in other words than their
#: trials were added, 120 pairs; the static table 67% once every keyword matched words of close
#: meaning, ``digest.identity.near``, 63% once only a keyword the bank does not hold does: the
#: pass over the vocabulary cost the agent's turn 2.6x the CPU of words only, issue 27; 57%
#: and 70% once ``k`` counted tasks, each with its lessons: ``digest.retrieve.best_of``; the
#: static table 76% once it embedded a prompt's telling words: ``retrieve.prompt_meaning``; 58%
#: and 78% once the best tasks brought their lessons the prompt did not find: ``with_tasks``;
#: the static table 80% once a task's meaning read other languages' words and short words:
#: ``digest.lessons.cues.task_meaning``)
TUNED_FLOOR = {"none": 0.575, "static": 0.8}
#: …and on the other splits (``data/check``, ``data/fresh4-check`` and ``data/fresh5-check`` never
#: tuned on), what each reached less a pair (``fresh5-check``: 24 and 39 of 69 at its start, 23
#: and 37 once a message's request was read before its chatter and a task brought the lessons
#: about the tools of its other lessons, session 10)
CHECK_FLOOR = {
    "check": {"none": 0.25, "static": 0.76},
    "fresh4": {"none": 0.33, "static": 0.79},
    # keywords 18 -> 16/46 in session 11 (offline_failures.states_apart and the family of
    # amounts that do not add up): a pharmacy kind's two errors and a parcel kind's end as other
    # lessons, which keywords alone no longer find (the static table's figure held)
    "fresh4-check": {"none": 0.32, "static": 0.76},
    # session 11 (task6): fresh5 37 and 49 of 75 -> 45 and 54, fresh5-check 23 and 37 of 69 ->
    # 25 and 43 once a task's kinds of ids were cues and keywords (digest.lessons.id_kinds) and
    # a one-off request to the address its own call passed was not quarantined
    # (digest.reflect.recipients); fresh6 23 and 26 of 63 -> 49 and 51, fresh6-check 26 and 36
    # -> 54 and 61 (49 with the static table before the stems of task_gloss_more, written
    # after fresh6-check by the same hand: data/README.md)
    "fresh5": {"none": 0.58, "static": 0.70},
    "fresh5-check": {"none": 0.34, "static": 0.60},
    "fresh6": {"none": 0.76, "static": 0.79},
    "fresh6-check": {"none": 0.84, "static": 0.95},
}
_ID = re.compile(r"\(#(\d+)\)")
_WORD = re.compile(r"[^\W\d_]+")
#: per kind: each error its trials hit (tool and error template) → the lesson teaching it
Families = dict[str, dict[str, Lesson | None]]


@dataclass
class Measured:
    """What one split gave: hits per (later message, family), and the misses."""

    pairs: int = 0
    hits: int = 0
    misses: list[str] = field(default_factory=list)
    #: lessons shown over all blocks, and those that teach an error of the message's kind
    shown: int = 0
    of_kind: int = 0

    @property
    def rate(self) -> float:
        return self.hits / self.pairs if self.pairs else 0.0

    def line(self, label: str) -> str:
        precision = self.of_kind / self.shown if self.shown else 0.0
        return (
            f"{label}: {self.hits}/{self.pairs} = {self.rate:.0%}"
            f" (lessons shown {self.shown}, of the kind's errors {self.of_kind} = {precision:.0%})"
        )


def _record(tenant: str, kinds: list[Kind]) -> dict[str, list[int]]:
    """Every trial as a failed run; the event ids per kind."""
    events: dict[str, list[int]] = defaultdict(list)
    for kind in kinds:
        for trial in kind.trials:
            events[kind.name].append(
                digest.record_run(
                    tenant, AGENT, task=trial.task, outcome="failure",
                    tool_calls=trial.calls(), contact_id=trial.contact,
                )
            )  # fmt: skip
    return events


def _families(tenant: str, kinds: list[Kind], events: dict[str, list[int]]) -> Families:
    """Per kind, the lesson that teaches each error its trials hit (tool and error template),
    in order. A lesson teaches a failure when it cites the failing run, is about the same
    tool, and is the one keyed by that error or else quotes most of its words (a judge may
    call two templates one family: "voucher SPRING20" and "voucher BDAY-CASA"). A family none
    of whose runs left an active lesson maps to None (a miss of every later message)."""
    active = {lesson.id: lesson for lesson in active_lessons(tenant, AGENT)}
    with session_scope() as session:
        cited = defaultdict(list)
        for event_id, lesson_id in session.execute(
            select(LessonEvidence.event_id, LessonEvidence.lesson_id)
        ):
            if lesson_id in active:
                cited[event_id].append(active[lesson_id])
    found: Families = {}
    for kind in kinds:
        taught: dict[str, Lesson | None] = {}
        for trial, event_id in zip(kind.trials, events[kind.name], strict=True):
            for call in trial.failures():
                key = tool_key(str(call["tool"]), str(call["error"]))
                lessons = (
                    (lesson, lesson.fingerprint, lesson.correction) for lesson in cited[event_id]
                )
                best = teacher(str(call["tool"]), str(call["error"]), lessons)
                if taught.get(key) is None:
                    # a later trial's lesson when an earlier one's is not active (the screen
                    # held that run: its lessons are quarantined)
                    taught[key] = best
        found[kind.name] = taught
    return found


def _measure(tenant: str, kinds: list[Kind], families: Families) -> tuple[Measured, list[str]]:
    """Pitfalls of every later first message against the lessons of its kind's errors; and
    every pitfalls block shown (for the check that no task text is in them)."""
    measured, blocks = Measured(), []
    for kind in kinds:
        for message in kind.later:
            block = digest.pitfalls(tenant, AGENT, message)
            # the hits this turn counts are written after it returns (digest.lessons.hits);
            # the next turn ranks ties by them, so wait for them as a later turn would have
            flush_hits()
            blocks.append(block)
            shown = {int(found) for found in _ID.findall(block)}
            own = {lesson.id for lesson in families[kind.name].values() if lesson is not None}
            measured.shown += len(shown)
            measured.of_kind += len(shown & own)
            for key, lesson in families[kind.name].items():
                measured.pairs += 1
                if lesson is not None and lesson.id in shown:
                    measured.hits += 1
                else:
                    title = lesson.title if lesson is not None else f"(no lesson for {key})"
                    measured.misses.append(f"{kind.name}: {message!r} did not show {title!r}")
    return measured, blocks


def _learn(tenant: str, *splits: str) -> tuple[list[Kind], Families]:
    """Every trial of ``splits`` recorded and reflected; the kinds and their errors' lessons."""
    # The release rule: one independent source releases a run's lesson in this tenant, so
    # what pitfalls and the document show is decided by retrieval alone.
    set_tenant(tenant, frequency_gate=1, independent_spread_s=0)
    kinds = [kind for split in splits for kind in load(split)]
    events = _record(tenant, kinds)
    drain()
    return kinds, _families(tenant, kinds, events)


@pytest.fixture(params=["none", "static"])
def embedder(
    request: pytest.FixtureRequest, sqlite_env: str, monkeypatch: pytest.MonkeyPatch
) -> str:
    """Retrieval by keywords alone, and hybrid with the static embedding table (the default
    of a real deployment)."""
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", request.param)
    _reset_process_state()
    return str(request.param)


def test_pitfalls_of_a_later_first_message_shows_the_errors_of_its_kind(
    embedder: str, tenant: str
) -> None:
    kinds, families = _learn(tenant, "tuned")
    measured, _blocks = _measure(tenant, kinds, families)
    print(measured.line(f"tuned, embeddings {embedder}"), *measured.misses, sep="\n  ")
    assert measured.pairs >= 40
    assert measured.rate >= TUNED_FLOOR[embedder], "\n".join(measured.misses)


def test_held_out_runs_are_measured(embedder: str, tenant: str) -> None:
    """The held-out split, as it comes: printed for the record, and gated at the target."""
    kinds, families = _learn(tenant, "held-out")
    measured, _blocks = _measure(tenant, kinds, families)
    print(measured.line(f"held-out, embeddings {embedder}"), *measured.misses, sep="\n  ")
    assert measured.pairs >= 15
    assert measured.rate >= TARGET, "\n".join(measured.misses)


@pytest.mark.parametrize("split", list(CHECK_FLOOR))
def test_other_splits_are_measured(split: str, embedder: str, tenant: str) -> None:
    """The splits of other domains, each printed on its own line and held at what it reached
    (``CHECK_FLOOR``): ``check`` (written by another hand, never tuned on), ``fresh4``
    (session 9, written before the changes it measures, tuned on) and ``fresh4-check`` (its
    half never tuned on); ``fresh5`` and ``fresh5-check`` likewise (session 10), ``fresh6`` and
    ``fresh6-check`` too (session 11)."""
    kinds, families = _learn(tenant, split)
    measured, _blocks = _measure(tenant, kinds, families)
    print(measured.line(f"{split}, embeddings {embedder}"), *measured.misses, sep="\n  ")
    assert measured.pairs >= 40
    assert measured.rate >= CHECK_FLOOR[split][embedder], "\n".join(measured.misses)


def test_each_recurring_error_family_is_one_active_lesson(sqlite_env: str, tenant: str) -> None:
    """An error met again, with other ids or in another kind of task, is one lesson: the
    lesson of its first run, which every later run supports; and every lesson is one error's."""
    kinds, families = _learn(tenant, "tuned", "held-out")
    seen = Counter(
        tool_key(str(call["tool"]), str(call["error"]))
        for kind in kinds
        for trial in kind.trials
        for call in trial.failures()
    )
    lessons: dict[str, set[int]] = defaultdict(set)
    for taught in families.values():
        for key, lesson in taught.items():
            assert lesson is not None, f"no lesson teaches {key}"
            lessons[key].add(lesson.id)
    recurring = [key for key, count in seen.items() if count > 1]
    split = {key: len(lessons[key]) for key in recurring if len(lessons[key]) > 1}
    print(
        f"recurring error families: {len(recurring)}, at more than one active lesson: {len(split)}"
    )
    assert len(recurring) >= 10
    assert not split
    active = active_lessons(tenant, AGENT)
    assert len({lesson.fingerprint for lesson in active}) == len(active)
    taught_by = {lesson_id for ids in lessons.values() for lesson_id in ids}
    assert {lesson.id for lesson in active} == taught_by  # nothing but the runs' errors


def _rule_words() -> set[str]:
    """Words the judge says in its own words, or a run's tools and errors say."""
    words: set[str] = set()
    for family in FAMILIES:
        for text in (family.remedy, family.remedy_for, family.when, family.advice):
            words |= {w.casefold() for w in _WORD.findall(text or "")}
    return words


def test_no_task_text_reaches_what_an_agent_reads(sqlite_env: str, tenant: str) -> None:
    """The tasks' telling words are the lessons' cues (they found the lessons above); none of
    the words only a user said is in pitfalls, the document or its summary, nor in a lesson's
    title, situation, mistake, correction or tags."""
    kinds, families = _learn(tenant, "tuned", "held-out")
    improve_now(tenant, AGENT)
    _measured, blocks = _measure(tenant, kinds, families)
    learning = digest.current_learning(tenant, AGENT)
    assert learning is not None and "Observed in past runs" in learning.body
    shown = " ".join([*blocks, learning.body, learning.summary, learning.change_summary])
    shown_words = {w.casefold() for w in _WORD.findall(shown)}
    said_by_runs = _rule_words() | {
        w.casefold()
        for heading in (PITFALLS_HEAD, PITFALLS_END, OBSERVED_HEAD, OBSERVED_HEADING)
        for w in _WORD.findall(heading)
    }
    for kind in kinds:
        for trial in kind.trials:
            said_by_runs |= {w.casefold() for w in _WORD.findall(str(trial.tool_calls))}
    user_only = {
        word
        for kind in kinds
        for trial in kind.trials
        for word in telling_words(trial.task)
        if word not in said_by_runs
    }
    assert len(user_only) >= 60  # the check has something to find
    assert not user_only & shown_words, sorted(user_only & shown_words)
    lessons = active_lessons(tenant, AGENT)
    for lesson in lessons:
        fields = (lesson.title, lesson.situation, lesson.mistake, lesson.correction, *lesson.tags)
        said = {w.casefold() for w in _WORD.findall(" ".join(filter(None, fields)))}
        assert not user_only & said, (lesson.title, sorted(user_only & said))
    # …while the lessons hold them where retrieval reads them
    cues = {cue for lesson in lessons for cue in lesson.cues or ()}
    assert len(user_only & cues) >= 60
