"""digest.lessons.effect: a lesson's measured effect, from outcomes only.

The statistics first (pure: Wilson intervals against published values, the verdict and its
minimum-runs rule, the one-pass count with each lesson's own baseline), then the query on
PostgreSQL and on the embedded SQLite, and ``digest lesson effect``. The sweep retiring harmful
lessons is tests/versions/test_sweep_effect.py.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

import digest
from digest.config import Settings
from digest.errors import NotFound
from digest.lessons.effect.measure import Run, effect_report, measure
from digest.lessons.effect.verdict import Tally, judge_effect, wilson_interval, z_score
from digest.models import Lesson
from digest.pipeline import drain
from tests.cli.conftest import forget_process_state, invoke, ok, one_error
from tests.conftest import lessons_for_event, manual_lesson

AGENT = "bot"
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)

# --- Wilson intervals ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("successes", "runs", "confidence", "low", "high"),
    [
        # published values (Wilson 1927; e.g. Newcombe 1998, Table I; R binom::binom.wilson)
        (81, 263, 0.95, 0.2553, 0.3662),
        (15, 148, 0.95, 0.0624, 0.1605),
        (0, 20, 0.95, 0.0, 0.1611),
        (1, 29, 0.95, 0.0061, 0.1718),
        (8, 10, 0.95, 0.4902, 0.9433),
        (50, 100, 0.95, 0.4038, 0.5962),
        (10, 10, 0.95, 0.7225, 1.0),
        (50, 100, 0.99, 0.3753, 0.6247),
    ],
)
def test_wilson_interval_matches_published_values(
    successes: int, runs: int, confidence: float, low: float, high: float
) -> None:
    got = wilson_interval(successes, runs, confidence)
    assert got == pytest.approx((low, high), abs=5e-5)


def test_wilson_interval_edges() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)  # nothing known
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0  # exact ends
    assert z_score(0.95) == pytest.approx(1.959964, abs=1e-6)
    # more runs at the same rate: a narrower interval around it
    few, many = wilson_interval(2, 10), wilson_interval(200, 1000)
    assert few[0] < many[0] < 0.2 < many[1] < few[1]
    for bad in ((-1, 10), (11, 10), (1, -1)):
        with pytest.raises(ValueError):
            wilson_interval(*bad)
    with pytest.raises(ValueError):
        z_score(1.0)


# --- the verdict -------------------------------------------------------------------------------


def test_a_handful_of_runs_is_never_judged() -> None:
    """Three runs, all failed, against an agent that nearly always succeeds: wholly below on
    the intervals, and still no verdict while fewer than min_runs runs applied it."""
    applied, baseline = Tally(0, 3), Tally(95, 5)
    assert applied.interval(0.95)[1] < baseline.interval(0.95)[0]
    assert judge_effect(applied, baseline, min_runs=10, confidence=0.95) == "insufficient"
    assert judge_effect(applied, baseline, min_runs=3, confidence=0.95) == "harms"
    # ... and a baseline of a handful of runs decides nothing either
    assert judge_effect(Tally(0, 30), Tally(3, 0), min_runs=10, confidence=0.95) == "insufficient"


@pytest.mark.parametrize(
    ("applied", "baseline", "verdict"),
    [
        (Tally(2, 12), Tally(24, 6), "harms"),  # 14% (4-40%) vs 80% (63-90%)
        (Tally(28, 2), Tally(15, 15), "helps"),  # 93% (79-98%) vs 50% (33-67%)
        (Tally(6, 6), Tally(20, 10), "unclear"),  # 50% vs 67%: the intervals overlap
        (Tally(5, 7), Tally(45, 15), "unclear"),  # 42% (19-68%) vs 75% (63-84%): they touch
        (Tally(10, 0), Tally(50, 50), "helps"),
    ],
)
def test_verdicts(applied: Tally, baseline: Tally, verdict: str) -> None:
    assert judge_effect(applied, baseline, min_runs=10, confidence=0.95) == verdict


def test_a_higher_confidence_asks_for_a_wider_gap() -> None:
    applied, baseline = Tally(4, 8), Tally(40, 10)  # 33% (14-61%) vs 80% (67-89%)
    assert judge_effect(applied, baseline, min_runs=10, confidence=0.95) == "harms"
    assert judge_effect(applied, baseline, min_runs=10, confidence=0.999) == "unclear"


# --- counting: one pass, each lesson against the runs without it since it exists ---------------


def _lesson(lesson_id: int, created: datetime, trust: str = "untrusted") -> Lesson:
    return Lesson(
        id=lesson_id, title=f"lesson {lesson_id}", status="active", trust=trust,
        fingerprint=None, created_at=created,
    )  # fmt: skip


def _runs(spec: list[tuple[int, bool, tuple[int, ...]]]) -> list[Run]:
    """(minutes after T0, success, applied lesson ids) → runs in time order."""
    return [Run(T0 + timedelta(minutes=m), ok, frozenset(ids)) for m, ok, ids in spec]


def test_each_lesson_is_measured_against_the_runs_without_it_since_it_exists() -> None:
    settings = Settings(effect_min_runs=5)
    early = _lesson(1, T0)
    late = _lesson(2, T0 + timedelta(minutes=100))
    spec = [(m, True, ()) for m in range(0, 50)]  # 50 successes before lesson 2 exists
    spec += [(m, m % 10 != 0, ()) for m in range(100, 120)]  # 18 of 20 after it
    spec += [(m, False, (1, 2)) for m in range(120, 123)]  # both applied: 3 failures
    spec += [(m, False, (2,)) for m in range(123, 126)]  # lesson 2 alone: 3 more
    spec += [(130, True, (1,)), (131, False, (99,))]  # an unknown id is ignored
    total, effects = measure(_runs(spec), [early, late], None, settings)
    assert total == Tally(69, 9)
    by_id = {e.lesson_id: e for e in effects}
    assert by_id[1].applied == Tally(1, 3)
    assert by_id[1].baseline == Tally(68, 6)  # every other run since T0
    assert by_id[2].applied == Tally(0, 6)
    assert by_id[2].baseline == Tally(19, 3)  # only the other runs since it was created
    assert by_id[2].since == T0 + timedelta(minutes=100)
    # lesson 2: 0% (0-39%) against 86% (67-95%); lesson 1: four runs, below the minimum
    assert (by_id[2].verdict, by_id[1].verdict) == ("harms", "insufficient")
    assert [e.lesson_id for e in effects] == [2, 1]  # worst first


def test_a_person_putting_a_lesson_back_in_use_starts_its_count_afresh() -> None:
    settings = Settings(effect_min_runs=5)
    lesson = _lesson(1, T0)
    spec = [(m, False, (1,)) for m in range(0, 20)] + [(m, True, ()) for m in range(20, 60)]
    spec += [(m, True, (1,)) for m in range(60, 63)]
    _, before = measure(_runs(spec), [lesson], None, settings)
    assert before[0].applied == Tally(3, 20) and before[0].verdict == "harms"
    enabled = {1: T0 + timedelta(minutes=59, seconds=30)}
    _, after = measure(_runs(spec), [lesson], None, settings, enabled)
    assert after[0].applied == Tally(3, 0) and after[0].baseline == Tally(0, 0)
    assert after[0].verdict == "insufficient"


def test_the_window_leaves_old_runs_out() -> None:
    settings = Settings(effect_min_runs=5)
    lesson = _lesson(1, T0)
    spec = [(m, False, (1,)) for m in range(0, 20)] + [(m, True, (1,)) for m in range(30, 40)]
    _, effects = measure(
        (run for run in _runs(spec) if run.at >= T0 + timedelta(minutes=25)),
        [lesson],
        T0 + timedelta(minutes=25),
        settings,
    )
    assert effects[0].applied == Tally(10, 0)
    assert effects[0].since == T0 + timedelta(minutes=25)


def test_trusted_lessons_are_flagged_not_retired() -> None:
    settings = Settings()
    spec = [(m, True, ()) for m in range(0, 40)] + [(m, False, (1, 2, 3)) for m in range(40, 55)]
    lessons = [_lesson(1, T0), _lesson(2, T0, trust="trusted"), _lesson(3, T0, trust="reviewed")]
    _, effects = measure(_runs(spec), lessons, None, settings)
    assert {e.lesson_id: (e.verdict, e.action) for e in effects} == {
        1: ("harms", "retire"),
        2: ("harms", "review"),
        3: ("harms", "review"),
    }
    evidence = next(e for e in effects if e.lesson_id == 1).evidence()
    assert evidence == (
        "applied in 15 runs since 2026-03-02: 0 succeeded, 15 failed (success 0%, 95% interval "
        "0%-20%); without it 40 runs: 40 succeeded, 0 failed (success 100%, 91%-100%); "
        "verdict harms"
    )


# --- the query, on PostgreSQL and SQLite --------------------------------------------------------


@pytest.fixture()
def embedded_pg(services_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The test PostgreSQL with no broker: captured events wait for ``drain``, and nothing is
    queued for workers other tests start."""
    from digest.outbox.publish import reset_publisher

    monkeypatch.delenv("DIGEST_BROKER_URL")
    forget_process_state()
    reset_publisher()
    yield services_env["DIGEST_DATABASE_URL"]
    forget_process_state()


def _tool_lesson(tenant: str, tool: str) -> int:
    """An untrusted lesson distilled (by offline/rules) from one failing run of ``tool``."""
    event_id = digest.record_run(
        tenant, AGENT, task=f"use {tool}", outcome="failure",
        tool_calls=[{"tool": tool, "ok": False, "error": f"{tool}: field 'amount' is required"}],
    )  # fmt: skip
    drain(tenant=tenant, agent=AGENT)
    found = lessons_for_event(event_id)
    assert len(found) == 1 and found[0].trust == "untrusted", found
    return int(found[0].id)


def _run(tenant: str, outcome: str, *applied: int, agent: str = AGENT) -> None:
    digest.record_run(tenant, agent, task="a task", outcome=outcome, applied_lesson_ids=applied)


def _stream(tenant: str, lesson_id: int, other_id: int) -> None:
    for i in range(30):  # the agent's baseline: 24 of 30 succeed
        _run(tenant, "failure" if i % 5 == 0 else "success")
    for i in range(14):  # with the lesson: 2 of 14
        _run(tenant, "success" if i < 2 else "failure", lesson_id)
    for _ in range(3):  # the other lesson: three runs, all failed
        _run(tenant, "failure", other_id)
    # escalations count on neither side; another agent's runs are not this agent's
    _run(tenant, "escalated", lesson_id)
    _run(tenant, "success", lesson_id, agent="other-bot")


def _check_report(tenant: str, harmful: int, few: int) -> None:
    report = effect_report(tenant, AGENT)
    assert report.runs == Tally(26, 23)  # 30 + 14 + 3, and the two runs that taught the lessons
    by_id = {e.lesson_id: e for e in report.lessons}
    assert set(by_id) == {harmful, few}
    assert by_id[harmful].applied == Tally(2, 12)
    # the run that taught it came before it existed: not in its baseline (the other's is)
    assert by_id[harmful].baseline == Tally(24, 10)
    assert (by_id[harmful].verdict, by_id[harmful].action) == ("harms", "retire")
    assert by_id[few].applied == Tally(0, 3)
    assert (by_id[few].verdict, by_id[few].action) == ("insufficient", None)
    assert report.lessons[0].lesson_id == harmful  # worst first


def test_effect_report_on_postgres(embedded_pg: str, tenant: str) -> None:
    harmful, few = _tool_lesson(tenant, "issue_refund"), _tool_lesson(tenant, "ship_parcel")
    _stream(tenant, harmful, few)
    _check_report(tenant, harmful, few)


def test_effect_report_on_sqlite(sqlite_env: str, tenant: str) -> None:
    harmful, few = _tool_lesson(tenant, "issue_refund"), _tool_lesson(tenant, "ship_parcel")
    _stream(tenant, harmful, few)
    _check_report(tenant, harmful, few)


def test_effect_report_names_what_is_unknown(sqlite_env: str, tenant: str) -> None:
    manual_lesson(tenant, AGENT, "refunds: confirm the amount first")
    with pytest.raises(NotFound, match="nobody"):
        effect_report(tenant, "nobody")
    empty = effect_report(tenant, AGENT)
    assert empty.lessons == [] and empty.runs == Tally()


# --- digest lesson effect -------------------------------------------------------------------------


def test_lesson_effect_command(embedded_pg: str, tenant: str) -> None:
    harmful, few = _tool_lesson(tenant, "issue_refund"), _tool_lesson(tenant, "ship_parcel")
    _stream(tenant, harmful, few)
    result = invoke("lesson", "effect", "--tenant", tenant, "--agent", AGENT, "--json")
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = json.loads(result.stdout)
    first = data["lessons"][0]
    assert (first["lesson_id"], first["verdict"], first["action"]) == (harmful, "harms", "retire")
    assert first["applied"] == {
        "runs": 14, "successes": 2, "failures": 12, "success_rate": 0.1429,
        "failure_rate": 0.8571, "interval": [0.0401, 0.3994],
    }  # fmt: skip
    assert first["baseline"]["runs"] == 34 and data["min_runs"] == 10
    table = ok("lesson", "effect", "--tenant", tenant, "--agent", AGENT)
    rows = {line.split("│")[1].strip(): line for line in table.splitlines() if "│" in line}
    assert "14% of 14 (4%-40%)" in rows[str(harmful)] and "harms" in rows[str(harmful)]
    assert "the sweep retires it" in rows[str(harmful)]
    assert "0% of 3" in rows[str(few)] and "too few runs" in rows[str(few)]
    one_error(invoke("lesson", "effect", "--tenant", tenant, "--agent", "nobody"), "nobody")
