"""The statistics a lesson's verdict rests on, pure: run tallies (``Tally``), the Wilson score
interval of a success rate (``wilson_interval``), and the verdict on a lesson's runs against
its baseline (``judge_effect``: ``harms``, ``helps``, ``unclear`` or ``insufficient``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

#: verdicts, worst first (the order ``digest lesson effect`` lists them in)
VERDICTS = ("harms", "unclear", "helps", "insufficient")


def z_score(confidence: float) -> float:
    """The two-sided normal quantile of ``confidence`` (0.95 → 1.96)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, not {confidence}")
    return NormalDist().inv_cdf(0.5 + confidence / 2)


def wilson_interval(successes: int, runs: int, confidence: float = 0.95) -> tuple[float, float]:
    """The Wilson score interval of a success rate: ``successes`` of ``runs`` at
    ``confidence``. No runs: ``(0.0, 1.0)``, nothing is known."""
    if runs < 0 or not 0 <= successes <= max(runs, 0):
        raise ValueError(f"need 0 <= successes <= runs, got {successes} of {runs}")
    if runs == 0:
        return 0.0, 1.0
    z = z_score(confidence)
    p = successes / runs
    z2 = z * z
    denominator = 1 + z2 / runs
    centre = (p + z2 / (2 * runs)) / denominator
    half = z * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs)) / denominator
    # The bounds are exact at the ends (no float noise: 0 of 10 starts at 0, not 3e-17).
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == runs else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class Tally:
    """Runs that ended ``success`` or ``failure``."""

    successes: int = 0
    failures: int = 0

    @property
    def runs(self) -> int:
        return self.successes + self.failures

    @property
    def rate(self) -> float | None:
        """The success rate, or None with no runs."""
        return self.successes / self.runs if self.runs else None

    @property
    def failure_rate(self) -> float | None:
        return self.failures / self.runs if self.runs else None

    def interval(self, confidence: float) -> tuple[float, float]:
        return wilson_interval(self.successes, self.runs, confidence)

    def __sub__(self, other: Tally) -> Tally:
        return Tally(self.successes - other.successes, self.failures - other.failures)


def judge_effect(applied: Tally, baseline: Tally, *, min_runs: int, confidence: float) -> str:
    """The verdict (one of ``VERDICTS``) on a lesson applied in ``applied`` runs, against the
    ``baseline`` runs without it: ``insufficient`` while either has fewer than ``min_runs``
    runs; then ``harms`` / ``helps`` when the intervals do not overlap, else ``unclear``."""
    if applied.runs < min_runs or baseline.runs < min_runs:
        return "insufficient"
    low, high = applied.interval(confidence)
    base_low, base_high = baseline.interval(confidence)
    if high < base_low:
        return "harms"
    if low > base_high:
        return "helps"
    return "unclear"
