"""Randomized holdouts (issue 29): the keyed draw, Newcombe's interval, and the acceptance
simulation: an agent with one helpful and one harmful lesson over scripted turns through
``pitfalls`` + ``record_run`` + the exposure writer on PostgreSQL; the randomized estimate
finds both, the observational figure stands beside it, and the sweep retires the harmful one.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator

import pytest
from sqlalchemy import func, select

import digest
import digest.aio as digest_aio
from digest.db import session_scope
from digest.lessons.effect.measure import effect_report
from digest.lessons.effect.randomized import Randomized, newcombe_interval
from digest.lessons.effect.retire import retire_for_agent
from digest.lessons.effect.verdict import Tally
from digest.lessons.holdout import draw, flush_exposures, share_for, withhold
from digest.models import HoldoutExposure, Lesson
from digest.pipeline import drain
from digest.report.page import causal_text
from digest.tenants import set_tenant
from tests.cli.conftest import forget_process_state, ok
from tests.conftest import agent_id_of, lessons_for_event

AGENT = "bot"


# --- the draw and the interval (pure) --------------------------------------------------------


def test_the_draw_is_reproducible_and_uniform() -> None:
    assert draw(1, "turn-7", 42) == draw(1, "turn-7", 42)
    assert draw(1, "turn-7", 42) != draw(1, "turn-8", 42)
    assert draw(1, "turn-7", 42) != draw(1, "turn-7", 43)
    values = [draw(3, f"t{i}", 9) for i in range(20_000)]
    assert all(0 <= v < 1 for v in values)
    for share in (0.1, 0.5):
        got = sum(v < share for v in values) / len(values)
        assert abs(got - share) < 0.015, (share, got)


def test_tenant_share_overrides_the_default() -> None:
    assert share_for({}, 0.1) == 0.1
    assert share_for({"holdout_permille": 0}, 0.1) == 0.0
    assert share_for({"holdout_permille": 250}, 0.1) == 0.25
    assert share_for({"holdout_permille": 900}, 0.1) == 0.1  # beyond the most a share may be
    assert share_for({"holdout_permille": True}, 0.1) == 0.1  # not a number of thousandths


def test_no_turn_id_or_no_share_withholds_nothing() -> None:
    class Row:
        def __init__(self, i: int, trust: str = "untrusted") -> None:
            self.id, self.trust = i, trust

    rows = [Row(i) for i in range(50)]
    assert withhold("sqlite://", 1, None, rows, share=0.5, exclude_trusted=False) == rows
    assert withhold("sqlite://", 1, "t", rows, share=0.0, exclude_trusted=False) == rows
    trusted = [Row(i, "trusted") for i in range(50)]
    assert withhold("sqlite://", 1, "t", trusted, share=0.5, exclude_trusted=True) == trusted


def test_newcombe_interval_matches_the_published_example() -> None:
    # Newcombe (1998), Statistics in Medicine 17:873, example (a): 56/70 - 48/80, method 10
    low, high = newcombe_interval(Tally(56, 14), Tally(48, 32), 0.95) or (0, 0)
    assert (low, high) == pytest.approx((0.0524, 0.3339), abs=5e-4)
    assert newcombe_interval(Tally(), Tally(3, 3), 0.95) is None


def test_randomized_verdicts_need_the_minimum_turns() -> None:
    few = Randomized(Tally(0, 20), Tally(20, 0), 0.95, min_turns=30)
    assert few.verdict == "insufficient"
    assert Randomized(Tally(0, 40), Tally(40, 0), 0.95, 30).verdict == "harms"
    assert Randomized(Tally(40, 0), Tally(0, 40), 0.95, 30).verdict == "helps"
    assert Randomized(Tally(20, 20), Tally(21, 19), 0.95, 30).verdict == "unclear"


# --- the acceptance simulation ----------------------------------------------------------------


@pytest.fixture()
def embedded_pg(services_env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The test PostgreSQL with no broker (captured events wait; nothing reaches a worker)."""
    from digest.outbox.publish import reset_publisher

    monkeypatch.delenv("DIGEST_BROKER_URL")
    monkeypatch.setenv("DIGEST_HOLDOUT_MIN_TURNS", "30")
    forget_process_state()
    reset_publisher()
    yield services_env["DIGEST_DATABASE_URL"]
    forget_process_state()


def _tool_lesson(tenant: str, tool: str) -> int:
    event_id = digest.record_run(
        tenant, AGENT, task=f"use {tool}", outcome="failure",
        tool_calls=[{"tool": tool, "ok": False, "error": f"{tool}: field 'amount' is required"}],
    )  # fmt: skip
    drain(tenant=tenant, agent=AGENT)
    found = lessons_for_event(event_id)
    assert len(found) == 1 and found[0].trust == "untrusted", found
    return int(found[0].id)


#: turns of the simulation ("a few thousand", issue 29): intervals of about +-0.045 at half withheld
TURNS = 2000
PROMPT = "use issue_refund then ship_parcel: the amount is required"


def test_randomized_holdout_finds_the_helpful_and_the_harmful_lesson(
    embedded_pg: str, tenant: str
) -> None:
    helpful, harmful = _tool_lesson(tenant, "issue_refund"), _tool_lesson(tenant, "ship_parcel")
    # released to the agent at one source; half the turns withhold each lesson (the most a
    # share may be: the test stays cheap)
    set_tenant(tenant, frequency_gate=1, holdout_permille=500, create=False)
    rng = random.Random(29)
    shown_counts = {helpful: 0, harmful: 0}
    for i in range(TURNS):
        turn = f"turn-{i}"
        block = digest.pitfalls(tenant, AGENT, PROMPT, k=3, turn_id=turn)
        shown = {int(n) for n in re.findall(r"\(#(\d+)\)", block)}
        assert shown <= {helpful, harmful}, block
        for lesson_id in shown:
            shown_counts[lesson_id] += 1
        # the scripted agent: the helpful lesson lifts success, the harmful one sinks it
        p = 0.5 + 0.3 * (helpful in shown) - 0.3 * (harmful in shown)
        outcome = "success" if rng.random() < p else "failure"
        digest.record_run(
            tenant, AGENT, task="a turn", outcome=outcome,
            applied_lesson_ids=sorted(shown), turn_id=turn,
        )  # fmt: skip
    # a retry of a turn shows the same thing, and records nothing twice
    assert digest.pitfalls(tenant, AGENT, PROMPT, k=3, turn_id="turn-5") == digest.pitfalls(
        tenant, AGENT, PROMPT, k=3, turn_id="turn-5"
    )
    # without a turn id nothing is withheld
    assert {int(n) for n in re.findall(r"\(#(\d+)\)", digest.pitfalls(tenant, AGENT, PROMPT))} == {
        helpful,
        harmful,
    }
    # the asyncio API draws the same
    assert asyncio.run(
        digest_aio.pitfalls(tenant, AGENT, PROMPT, k=3, turn_id="turn-7")
    ) == digest.pitfalls(tenant, AGENT, PROMPT, k=3, turn_id="turn-7")
    assert flush_exposures()
    with session_scope() as session:
        rows = session.scalar(select(func.count()).select_from(HoldoutExposure))
        mine = session.execute(
            select(HoldoutExposure.lesson_id, func.count())
            .where(HoldoutExposure.agent_id == agent_id_of(tenant, AGENT))
            .group_by(HoldoutExposure.lesson_id)
        ).all()
    assert rows and dict(mine) == {helpful: TURNS, harmful: TURNS}
    for lesson_id, count in shown_counts.items():  # roughly half shown
        assert 0.43 * TURNS < count < 0.57 * TURNS, (lesson_id, count)

    report = effect_report(tenant, AGENT)
    by_id = {e.lesson_id: e for e in report.lessons}
    good, bad = by_id[helpful], by_id[harmful]
    assert good.randomized is not None and bad.randomized is not None
    assert good.randomized.shown.runs + good.randomized.withheld.runs == TURNS
    good_low, good_high = good.randomized.interval or (0, 0)
    bad_low, bad_high = bad.randomized.interval or (0, 0)
    assert 0 < good_low < good_high, good.randomized.evidence()
    assert bad_low < bad_high < 0, bad.randomized.evidence()
    assert abs((good.randomized.difference or 0) - 0.3) < 0.15  # about 3.5 standard errors
    assert abs((bad.randomized.difference or 0) + 0.3) < 0.15
    assert (good.randomized.verdict, bad.randomized.verdict) == ("helps", "harms")
    assert (good.decided_by, bad.decided_by) == ("randomized", "randomized")
    # the observational figure is there beside it
    assert good.applied.runs == shown_counts[helpful] and good.baseline.runs > 0
    assert "randomized (causal)" in bad.evidence()
    assert good.to_json()["randomized"]["causal"] is True
    assert (good.action, bad.action) == (None, "retire")

    # both figures, each saying what it is, in the CLI and on the report page
    table = ok("lesson", "effect", "--tenant", tenant, "--agent", AGENT)
    assert "randomized (causal)" in table and "observed (not causal)" in table
    assert causal_text(bad).endswith("withheld: harms") and causal_text(good).startswith("+")
    data = json.loads(ok("lesson", "effect", "--tenant", tenant, "--agent", AGENT, "--json"))
    flagged = {row["lesson_id"]: row for row in data["lessons"]}
    assert flagged[harmful]["randomized"]["verdict"] == "harms"
    assert flagged[harmful]["decided_by"] == "randomized"

    retired = retire_for_agent(agent_id_of(tenant, AGENT))
    assert [e.lesson_id for e in retired] == [harmful]
    with session_scope() as session:
        assert session.get(Lesson, harmful).status == "disabled"  # type: ignore[union-attr]
        assert session.get(Lesson, helpful).status == "active"  # type: ignore[union-attr]
        reason = session.get(Lesson, harmful).status_reason  # type: ignore[union-attr]
    assert "randomized holdout" in (reason or "")


def test_share_zero_turns_it_off(embedded_pg: str, tenant: str) -> None:
    lesson = _tool_lesson(tenant, "issue_refund")
    set_tenant(tenant, frequency_gate=1, holdout_permille=0, create=False)
    for i in range(40):
        assert f"(#{lesson})" in digest.pitfalls(tenant, AGENT, PROMPT, turn_id=f"t{i}")
    assert flush_exposures()
    with session_scope() as session:
        count = session.scalar(
            select(func.count())
            .select_from(HoldoutExposure)
            .where(HoldoutExposure.lesson_id == lesson)
        )
    assert count == 0


def test_the_randomized_verdict_decides_and_a_persons_lesson_is_only_flagged() -> None:
    from datetime import UTC, datetime

    from digest.lessons.effect.measure import LessonEffect

    def effect(trust: str, randomized: Randomized | None) -> LessonEffect:
        return LessonEffect(
            lesson_id=1, title="t", status="active", trust=trust, fingerprint=None,
            since=datetime(2026, 1, 1, tzinfo=UTC), applied=Tally(40, 10),
            baseline=Tally(20, 30), confidence=0.95, min_runs=10, verdict="helps",
            randomized=randomized,
        )  # fmt: skip

    harms = Randomized(Tally(10, 40), Tally(40, 10), 0.95, 30)
    few = Randomized(Tally(1, 4), Tally(4, 1), 0.95, 30)
    # observed "helps" (confounded), randomized "harms": the causal figure decides
    assert (effect("untrusted", harms).final_verdict, effect("untrusted", harms).action) == (
        "harms",
        "retire",
    )
    assert effect("trusted", harms).action == "review"  # flagged, never retired
    assert effect("reviewed", harms).action == "review"
    # too few holdout turns: the observed verdict stands
    assert effect("untrusted", few).decided_by == "observational"
    assert effect("untrusted", few).final_verdict == "helps"
    assert effect("untrusted", None).action is None
