"""``bench/throughput.py``'s RSS figures net of the kept indexes (``bench/_rss_verdict.py``):
each sample's RSS less what the active lessons counted with it must hold, and the verdict read
after warm-up (a child's bounded memories full, the first compose round done). Pure arithmetic
on given samples, never timed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path[:0] = [str(BENCH)]

import _rss_verdict as verdict  # noqa: E402
import throughput  # noqa: E402
from _report import Figure  # noqa: E402

KB = verdict.KEPT_KB_PER_LESSON


Samples = list[tuple[float, int, list[float]]]


Composes = list[tuple[int, int]]


def _run(
    extra_mb_per_1k: float, events: int = 30_000, composed_at: int = 15_000, step_mb: float = 0.0
) -> tuple[Samples, list[tuple[int, int]], Composes]:
    """A sample each 1,000 events: 400 active lessons more per 1,000 events, RSS growing by
    exactly their kept bytes plus ``extra_mb_per_1k``, plus ``step_mb`` once, just before
    every agent's first compose has finished at ``composed_at`` (the replay's memories
    filling); two children, the larger one read."""
    samples, lessons, composes = [], [], []
    for i in range(events // 1000 + 1):
        done, active = 1000 * i, 400 * i
        rss = 130 + active * KB / 1024 + extra_mb_per_1k * i
        rss += step_mb if done >= composed_at - 1000 else 0.0
        samples.append((float(i), done, [rss - 5, rss]))
        lessons.append((done, active))
        composes.append((done, verdict.AGENTS if done >= composed_at else 0))
    return samples, lessons, composes


def _verdict(run: tuple[Samples, list[tuple[int, int]], Composes]) -> Figure:
    _, after = verdict.net_slope_figures(*run, children=2)
    assert after.name == "RSS slope after warm-up, net of the kept indexes"
    return after


def test_a_worker_growing_by_its_bank_alone_is_flat_net_of_the_kept_indexes() -> None:
    samples, lessons, composes = _run(0.0)
    raw = throughput.rss_figures(samples, 2, "worker RSS")
    assert next(f for f in raw if f.name == "RSS slope").value == pytest.approx(400 * KB / 1024)
    whole, after = verdict.net_slope_figures(samples, lessons, composes, children=2)
    assert whole.value == pytest.approx(0.0, abs=1e-9)
    assert after.value == pytest.approx(0.0, abs=1e-9)
    assert after.met is True
    assert "from 15,000 to 30,000 events" in after.note


def test_growth_beside_the_bank_is_not_netted_away() -> None:
    samples, lessons, composes = _run(0.3)
    whole, after = verdict.net_slope_figures(samples, lessons, composes, children=2)
    assert whole.value == pytest.approx(0.3)
    assert after.value == pytest.approx(0.3)
    assert after.met is False


def test_the_first_compose_rounds_step_is_warm_up_and_the_window_starts_after_it() -> None:
    after = _verdict(_run(0.0, composed_at=15_000, step_mb=3.0))
    assert after.met is True
    assert after.value == pytest.approx(0.0, abs=1e-9)
    # the same step read in a window that holds it is a trend: the window must exclude it
    samples, lessons, composes = _run(0.0, composed_at=15_000, step_mb=3.0)
    early = [(done, verdict.AGENTS) for done, _ in composes]
    assert _verdict((samples, lessons, early)).met is False


def test_a_run_too_short_past_warm_up_gives_no_verdict() -> None:
    # 10,000 events, prefork 2: a child's 5,000th event is the run's end
    after = _verdict(_run(0.0, events=10_000, composed_at=8_000))
    assert after.met is None
    assert after.note.startswith("no verdict (nan: no window): warm-up ends at 10,000")
    # a long run whose first compose round was under way at its end: no verdict either
    samples, lessons, _ = _run(0.0, events=30_000)
    under_way = [(done, 5 if done >= 29_000 else 0) for done, _ in lessons]
    never = _verdict((samples, lessons, under_way))
    assert never.met is None
    assert "warm-up ends at never (the first compose round under way at the end" in never.note


def test_a_run_with_no_compose_warms_up_by_its_memories_alone() -> None:
    samples, lessons, _ = _run(0.3, events=30_000)
    after = _verdict((samples, lessons, [(done, 0) for done, _ in lessons]))
    assert "from 10,000 to 30,000 events" in after.note and "no compose ran" in after.note
    assert after.value == pytest.approx(0.3) and after.met is False


def test_samples_and_lesson_counts_must_pair_up() -> None:
    samples, lessons, _ = _run(0.0)
    with pytest.raises(ValueError, match="31 RSS samples but 30 lesson counts"):
        verdict.net_of_kept(samples, lessons[:-1])


def _measured(extra_mb_per_1k: float) -> tuple[Samples, list[tuple[int, int]], Composes, list]:
    """``_run``'s samples, but the kept indexes growing faster than the constant says (their
    near words): each child's RSS holds exactly what it reports keeping, plus the extra."""
    samples, lessons, composes = _run(0.0)
    kept, measured = [], []
    for (t, done, _), (_, active) in zip(samples, lessons, strict=True):
        mb = [0.0, active * 2 * KB / 1024, active * 2 * KB / 1024]  # main process keeps none
        rss = [60.0, 125 + mb[1] + extra_mb_per_1k * done / 1000, 130 + mb[2]]
        rss[2] += extra_mb_per_1k * done / 1000
        measured.append((t, done, rss))
        kept.append(mb)
    return measured, lessons, composes, kept


def test_measured_kept_bytes_net_the_bank_exactly_where_the_constant_would_not() -> None:
    samples, lessons, composes, kept = _measured(0.0)
    whole, after = verdict.net_slope_figures(samples, lessons, composes, 2, kept)
    assert after.value == pytest.approx(0.0, abs=1e-9) and after.met is True
    assert "measured with each sample" in whole.note
    # the same run netted by the constant: the indexes' growth beyond it reads as a trend
    _, estimated = verdict.net_slope_figures(samples, lessons, composes, 2)
    assert estimated.value == pytest.approx(400 * KB / 1024) and estimated.met is False
    # growth beside the measured bank is still a trend
    samples, lessons, composes, kept = _measured(0.3)
    _, after = verdict.net_slope_figures(samples, lessons, composes, 2, kept)
    assert after.value == pytest.approx(0.3) and after.met is False


def test_kept_bytes_samples_must_pair_up_with_the_rss_samples() -> None:
    samples, lessons, _, kept = _measured(0.0)
    with pytest.raises(ValueError, match="31 RSS samples but 30 kept-bytes samples"):
        verdict.net_of_kept(samples, lessons, kept[:-1])


# --- compose rounds at fixed event marks (bench/_pipeline.py) ----------------------------------


def test_compose_rounds_are_asked_at_every_mark_below_the_streams_end() -> None:
    import _pipeline

    assert _pipeline.compose_marks(30_000, 5_000) == [5_000, 10_000, 15_000, 20_000, 25_000]
    assert _pipeline.compose_marks(10_000, 5_000) == [5_000]
    assert _pipeline.compose_marks(10_000, 0) == []  # the threshold path: the bench asks none
    assert _pipeline.NO_THRESHOLD_ENV["DIGEST_THRESHOLD_SIGNALS"] == str(2**31 - 1)


def test_a_compose_round_asks_one_manual_compose_of_each_agent_of_the_tenant(
    own_database: str, services_env: dict[str, str], tenant: str
) -> None:
    import base64
    import json

    import _pipeline
    import psycopg
    import redis

    import digest

    for agent in ("first", "second"):
        digest.record_answer(tenant, agent, question="Open on Sunday?", answer="No.")
    digest.record_answer(f"{tenant}-other", "third", question="Open on Sunday?", answer="No.")
    broker = redis.Redis.from_url(services_env["DIGEST_BROKER_URL"])
    broker.delete(services_env["DIGEST_QUEUE"])  # the reflect tasks capture published
    url = own_database.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(url) as conn:
        ours = [
            int(r[0])
            for r in conn.execute(
                "SELECT a.id FROM agents a JOIN tenants t ON t.id = a.tenant_id"
                " WHERE t.name = %s ORDER BY a.id",
                (tenant,),
            )
        ]
    assert len(ours) == 2

    assert _pipeline.ask_composes(url, tenant) == 2

    sent = [json.loads(m) for m in broker.lrange(services_env["DIGEST_QUEUE"], 0, -1)]
    assert {m["headers"]["task"] for m in sent} == {"digest.compose_version"}
    asked = sorted(json.loads(base64.b64decode(m["body"]))[0] for m in sent)
    assert asked == [[agent_id, "manual"] for agent_id in ours]  # the other tenant's: none


# --- warm-up until the bounded memories stop filling (bench/_kept_bytes.py's held MB) ---------


def _filling(
    extra_mb_per_1k: float, filled_at: int = 20_000, events: int = 40_000
) -> tuple[Samples, list[tuple[int, int]], Composes, list[list[float]], list[list[float]]]:
    """``_measured``'s shape: each child's RSS is its kept indexes, its bounded memories
    (filling by 0.5 MB per 1,000 events until ``filled_at``, then full) and
    ``extra_mb_per_1k``; every agent composed by 6,000 events."""
    samples, lessons, composes, kept, held = [], [], [], [], []
    for i in range(events // 1000 + 1):
        done = 1000 * i
        bank = 0.6 * i
        memories = 0.5 * min(done, filled_at) / 1000
        rss = 130 + bank + memories + extra_mb_per_1k * i
        samples.append((float(i), done, [60.0, rss - 1, rss]))
        lessons.append((done, 400 * i))
        composes.append((done, verdict.AGENTS if done >= 6_000 else 0))
        kept.append([0.0, bank, bank])
        held.append([0.0, memories, memories])
    return samples, lessons, composes, kept, held


def test_the_window_starts_when_the_bounded_memories_stop_filling() -> None:
    samples, lessons, composes, kept, held = _filling(0.0)
    # read from a child's 5,000th event, the memories' fill is a trend of 0.5 MB per 1,000
    _, assumed = verdict.net_slope_figures(samples, lessons, composes, 2, kept)
    assert assumed.met is False and "from 10,000 to 40,000 events" in assumed.note
    _, after = verdict.net_slope_figures(samples, lessons, composes, 2, kept, held)
    assert after.value == pytest.approx(0.0, abs=1e-9) and after.met is True
    assert after.note.startswith("from 20,000 to 40,000 events")
    assert "the bounded memories stopped filling (bounded memories 10.0 -> 10.0 MB" in after.note
    assert f"from 10,000 (not waiting for them) {assumed.value:.2f}" in after.note


def test_growth_after_the_memories_are_full_is_still_a_trend() -> None:
    samples, lessons, composes, kept, held = _filling(0.15)
    _, after = verdict.net_slope_figures(samples, lessons, composes, 2, kept, held)
    assert after.note.startswith("from 20,000 to 40,000 events")
    assert after.value == pytest.approx(0.15) and after.met is False


def test_memories_still_filling_late_leave_no_verdict() -> None:
    samples, lessons, composes, kept, held = _filling(0.0, filled_at=35_000)
    _, after = verdict.net_slope_figures(samples, lessons, composes, 2, kept, held)
    assert after.met is None
    assert after.note.startswith("no verdict (nan: no window): warm-up ends at 35,000")


def test_memories_filled_allows_a_quarter_mb_left_and_lru_drops() -> None:
    samples = [(float(i), 1000 * i, [100.0, 100.0]) for i in range(6)]
    # the first child gains 0.2 MB after 2,000 (within FILL_LEFT_MB), the second drops 1 MB
    # (an LRU trimmed) then gains 0.6 MB after 3,000 events
    held = [[1.0, 5.0], [2.0, 5.0], [3.0, 5.0], [3.1, 4.0], [3.2, 4.6], [3.2, 4.6]]
    assert verdict.memories_filled(samples, held) == (
        4_000,
        "bounded memories 4.6 -> 4.6 MB from there",
    )
    assert verdict.memories_filled(samples, [[0.0, 0.0]] * 6) is None  # none reported
    with pytest.raises(ValueError, match="6 RSS samples but 5 bounded-memory samples"):
        verdict.memories_filled(samples, held[:-1])
