"""``bench/throughput.py``'s RSS figures net of the kept indexes: each sample's RSS less what
the active lessons counted with it must hold. Pure arithmetic on given samples, never timed."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path[:0] = [str(BENCH)]

import throughput  # noqa: E402

KB = throughput.KEPT_KB_PER_LESSON


Samples = list[tuple[float, int, list[float]]]


def _run(extra_mb_per_1k: float) -> tuple[Samples, list[tuple[int, int]]]:
    """31 samples, 0 to 30,000 events: 400 active lessons more per 1,000 events, RSS growing by
    exactly their kept bytes plus ``extra_mb_per_1k``; two children, the larger one read."""
    samples, lessons = [], []
    for i in range(31):
        done, active = 1000 * i, 400 * i
        rss = 130 + active * KB / 1024 + extra_mb_per_1k * i
        samples.append((float(i), done, [rss - 5, rss]))
        lessons.append((done, active))
    return samples, lessons


def test_a_worker_growing_by_its_bank_alone_is_flat_net_of_the_kept_indexes() -> None:
    samples, lessons = _run(0.0)
    raw = throughput.rss_figures(samples, 2, "worker RSS")
    assert next(f for f in raw if f.name == "RSS slope").value == pytest.approx(400 * KB / 1024)
    whole, third = throughput.net_slope_figures(samples, lessons)
    assert whole.value == pytest.approx(0.0, abs=1e-9)
    assert third.value == pytest.approx(0.0, abs=1e-9)
    assert third.met is True


def test_growth_beside_the_bank_is_not_netted_away() -> None:
    samples, lessons = _run(0.3)
    whole, third = throughput.net_slope_figures(samples, lessons)
    assert whole.value == pytest.approx(0.3)
    assert third.value == pytest.approx(0.3)
    assert third.met is False


def test_samples_and_lesson_counts_must_pair_up() -> None:
    samples, lessons = _run(0.0)
    with pytest.raises(ValueError, match="31 RSS samples but 30 lesson counts"):
        throughput.net_of_kept(samples, lessons[:-1])
