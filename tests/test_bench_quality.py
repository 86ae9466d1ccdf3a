"""The quality benchmark (``bench/quality.py``): its data loads, its grading can say wrong as
well as right, and a slice of it runs end to end with the offline judge in seconds.

The grading is checked on banks written by hand (``Observed``) for every verdict, and on a real
run where cases carry a ground truth that is deliberately wrong: an owner's answer said to
teach nothing, a timeout said to teach a rule. The benchmark's own figures (how right the
judge is) are not asserted here: they are what it measures.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path[:0] = [str(BENCH)]

import _quality_cases  # noqa: E402
from _quality_cases import CLASSES, SPLITS, Case, class_of, load  # noqa: E402
from _quality_verdict import VERDICTS, EventRun, Observed, Seen, grade  # noqa: E402


def _case(record: dict[str, Any], category: str = "contradiction") -> Case:
    return Case.from_record(record, split="dev", category=category)


def _answer(event_id: str, question: str, answer: str) -> dict[str, Any]:
    payload = {"question": question, "answer": answer}
    return {"id": event_id, "kind": "owner_answer", "payload": payload}


def _timeout(event_id: str) -> dict[str, Any]:
    payload = {"task": "Refund order 5", "outcome": "failure", "error": "upstream timed out"}
    return {"id": event_id, "kind": "run_outcome", "payload": payload}


#: a reversal (e1 superseded by e2) beside a fact that stands (e3), and a fault (e4)
REVERSAL = _case({
    "case": "reversal", "about": "a reversal beside a distinct fact and a fault",
    "events": [_answer("e1", "Open on Saturdays?", "No."), _answer("e2", "Open on Saturdays?",
               "Yes, 9 to 12."), _answer("e3", "Open on Sundays?", "No."), _timeout("e4")],
    "lessons": [
        {"rule": "old", "says": "closed", "events": ["e1"], "superseded_by": "new"},
        {"rule": "new", "says": "open 9-12", "events": ["e2"]},
        {"rule": "sunday", "says": "closed on Sundays", "events": ["e3"]},
    ],
    "nothing": ["e4"],
})  # fmt: skip
DONE = {e: EventRun("reflected", calls=1, candidates=1, fast=0) for e in ("e1", "e2", "e3")}
RUNS = {**DONE, "e4": EventRun("skipped", calls=1)}


def _seen(lesson_id: int, cites: str, status: str = "active", **kw: Any) -> Seen:
    return Seen(
        lesson_id, status, kw.get("by"), frozenset(cites.split()),
        kw.get("retired", frozenset()), kw.get("replaces"),
    )  # fmt: skip


RIGHT = (
    _seen(1, "e1", "superseded", by=2, retired=frozenset({"e2"})),
    _seen(2, "e2"),
    _seen(3, "e3"),
)


#: the rule of the malformed cases' record
ONE_RULE = {"rule": "r", "says": "s", "events": ["e1", "e2", "e3"]}


def test_every_class_has_cases_in_both_splits() -> None:
    for split in SPLITS:
        cases = load(split)
        assert {c.cls for c in cases} == set(CLASSES), split
        assert len({c.key for c in cases}) == len(cases)


def test_a_class_may_have_tagged_files_each_its_own_source(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert class_of("two_rules") == "two_rules"
    assert class_of("two_rules_fresh_check") == "two_rules"
    assert class_of("two_rules_") is None and class_of("notes") is None
    record = {"case": "c", "about": "a", "lessons": [{"rule": "r", "says": "s", "events": ["e1"]}],
              "events": [_answer("e1", "q", "a")]}  # fmt: skip
    (tmp_path / "dev").mkdir()
    for stem in ("two_rules", "two_rules_fresh"):
        line = json.dumps({**record, "case": stem})
        (tmp_path / "dev" / f"{stem}.jsonl").write_text(line + "\n", encoding="utf-8")
    monkeypatch.setattr(_quality_cases, "DATA", tmp_path)
    assert [(c.cls, c.source) for c in load("dev")] == [
        ("two_rules", "two_rules"),
        ("two_rules", "two_rules_fresh"),
    ]
    assert [c.source for c in load("dev", files=("two_rules_fresh",))] == ["two_rules_fresh"]
    (tmp_path / "dev" / "notes.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(ValueError, match=r"not the file of a class: notes\.jsonl"):
        load("dev")


def test_a_tagged_file_may_hold_records_of_other_classes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = {"case": "c", "about": "a", "lessons": [{"rule": "r", "says": "s", "events": ["e1"]}],
              "events": [_answer("e1", "q", "a")]}  # fmt: skip
    (tmp_path / "dev").mkdir()
    lines = [{**record, "case": "p"}, {**record, "case": "f", "class": "alike_facts"}]
    mixed = "".join(json.dumps(line) + "\n" for line in lines)
    (tmp_path / "dev" / "paraphrase_fresh.jsonl").write_text(mixed, encoding="utf-8")
    monkeypatch.setattr(_quality_cases, "DATA", tmp_path)
    found = [(c.name, c.cls, c.source) for c in load("dev")]
    assert found == [("p", "paraphrase", "paraphrase_fresh"),
                     ("f", "alike_facts", "paraphrase_fresh")]  # fmt: skip
    assert [c.name for c in load("dev", ("alike_facts",))] == ["f"]
    # a class's own file holds that class only, and a record names a known class
    own = json.dumps({**record, "class": "alike_facts"})
    (tmp_path / "dev" / "paraphrase.jsonl").write_text(own + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"paraphrase\.jsonl:1: class 'alike_facts'"):
        load("dev")
    (tmp_path / "dev" / "paraphrase.jsonl").unlink()
    unknown = json.dumps({**record, "class": "rumours"})
    (tmp_path / "dev" / "paraphrase_fresh.jsonl").write_text(unknown + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="class 'rumours'"):
        load("dev")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"extra": 1}, "unknown case fields"),
        ({"nothing": []}, "neither taught nor in nothing"),
        ({"nothing": ["e1", "e4"]}, "both taught and in nothing"),
        ({"lessons": [{"rule": "r", "says": "s", "events": ["e9"]}]}, "unknown one"),
        ({"lessons": [{**ONE_RULE, "superseded_by": "gone"}]}, "superseded by an unknown rule"),
    ],
)
def test_a_malformed_case_is_refused(change: dict[str, Any], why: str) -> None:
    record = {
        "case": "c", "about": "a",
        "lessons": [ONE_RULE],
        "events": [_answer("e1", "q", "a"), _answer("e2", "q", "b"), _answer("e3", "p", "c"),
                   _timeout("e4")],
        "nothing": ["e4"],
    }  # fmt: skip
    with pytest.raises(ValueError, match=why):
        _case({**record, **change})


def test_a_right_bank_is_right_and_counts_the_supersession() -> None:
    graded = grade(REVERSAL, Observed(RIGHT, RUNS))
    assert graded.verdict == "right", graded.findings
    assert (graded.reversals, graded.superseded, graded.asked) == (1, 1, 1)
    assert (graded.events, graded.calls) == (4, 4)


@pytest.mark.parametrize(
    ("lessons", "verdict"),
    [
        # the reversal rewrote the old lesson in place: both rules in one lesson
        ((_seen(1, "e1 e2"), _seen(3, "e3")), "merged"),
        # the distinct fact was taken for the same one
        ((*RIGHT[:2], _seen(4, "e2 e3")), "merged"),
        # the reversal was added beside the old lesson
        ((_seen(1, "e1"), _seen(2, "e2"), _seen(3, "e3")), "kept both"),
        # the superseding lesson left no reason in the old one's history
        ((_seen(1, "e1", "superseded", by=2), _seen(2, "e2"), _seen(3, "e3")), "wrong status"),
        # the distinct fact superseded the reversal's new lesson
        ((RIGHT[0], _seen(2, "e2", "superseded", by=3), _seen(3, "e3")), "superseded wrongly"),
        # the timeout taught something
        ((*RIGHT, _seen(5, "e4")), "noise"),
        # the fact was learned twice
        ((*RIGHT, _seen(6, "e3")), "extra"),
        # the fact was never learned
        (RIGHT[:2], "missing"),
        # a quarantined lesson does not stand
        ((*RIGHT[:2], _seen(3, "e3", "quarantined")), "wrong status"),
    ],
)
def test_a_wrong_bank_is_graded_wrong(lessons: tuple[Seen, ...], verdict: str) -> None:
    graded = grade(REVERSAL, Observed(lessons, RUNS))
    assert graded.verdict == verdict, graded.findings


def test_a_held_replacement_of_a_released_lesson_is_right_and_counted_apart() -> None:
    """One run's reversal of a lesson agents already read waits, held, to replace it (the
    release rule): right, counted as waiting, not superseded; a held lesson that replaces
    some other lesson does not excuse the old one."""
    waiting = (_seen(1, "e1"), _seen(2, "e2", replaces=1), _seen(3, "e3"))
    graded = grade(REVERSAL, Observed(waiting, RUNS))
    assert (graded.verdict, graded.superseded, graded.waiting) == ("right", 0, 1)
    elsewhere = (_seen(1, "e1"), _seen(2, "e2", replaces=3), _seen(3, "e3"))
    assert grade(REVERSAL, Observed(elsewhere, RUNS)).verdict == "kept both"


def test_a_rule_spread_over_lessons_is_split_and_a_failed_event_is_reported() -> None:
    repeats = _case({
        "case": "repeats", "about": "one fact three times",
        "events": [_answer(e, "Open on Saturdays?", "No.") for e in ("e1", "e2", "e3")],
        "lessons": [{"rule": "r", "says": "closed", "events": ["e1", "e2", "e3"]}],
    }, "paraphrase")  # fmt: skip
    runs = {e: EventRun("reflected") for e in ("e1", "e2", "e3")}
    assert grade(repeats, Observed((_seen(1, "e1 e2"), _seen(2, "e3")), runs)).verdict == "split"
    assert grade(repeats, Observed((_seen(1, "e1 e2 e3"),), runs)).verdict == "right"
    failed = {**runs, "e3": EventRun("failed")}
    assert grade(repeats, Observed((_seen(1, "e1 e2"),), failed)).verdict != "right"
    assert set(VERDICTS) >= {grade(repeats, Observed((), runs)).verdict}


def test_a_slice_runs_through_the_offline_judge_and_wrong_ground_truth_is_reported_wrong(
    pg_admin: str,
) -> None:
    import quality

    sliced = [c for cls in CLASSES for c in [x for x in load("dev") if x.cls == cls][:2]]
    teaches = [_answer("e1", "Do you deliver to Iceland?", "Yes, in 6 to 9 days by air.")]
    controls = [
        _case({"case": "answer-right", "about": "an answer teaches its fact", "events": teaches,
               "lessons": [{"rule": "iceland", "says": "6-9 days", "events": ["e1"]}]}),
        # deliberately wrong: an owner's answer teaches nothing, a timeout teaches a rule
        _case({"case": "answer-wrong", "about": "wrong truth", "events": teaches, "lessons": [],
               "nothing": ["e1"]}),
        _case({"case": "timeout-wrong", "about": "wrong truth", "events": [_timeout("e1")],
               "lessons": [{"rule": "retry", "says": "?", "events": ["e1"]}]}, "transient"),
    ]  # fmt: skip
    run = quality.run_judge("offline", sliced + controls, embedding="none", admin_url=pg_admin)
    verdicts = {g.case.name: g.verdict for g in run.graded}
    assert verdicts["answer-right"] == "right"
    assert verdicts["answer-wrong"] == "noise"
    assert verdicts["timeout-wrong"] == "missing"
    assert len(run.graded) == len(sliced) + 3
    for graded in run.graded:
        assert graded.verdict in VERDICTS
        assert graded.calls >= 0 and graded.events == len(graded.case.events)
        assert not any(kind == "failed" for kind, _ in graded.findings), graded.findings
    assert "contradiction" in quality.table(run) and "multi_error" in quality.table(run)
    assert all(f.unit == "%" for f in quality.figures(run))
