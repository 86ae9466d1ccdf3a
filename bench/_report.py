"""The shape every benchmark reports in, so ``bench/run_all.py`` can write bench/RESULTS.md.

Each benchmark module exposes ``measure(scale: float = 1.0) -> list[Figure]``. ``scale``
shrinks or grows the workload (1.0 = the sizes the issue names; CI smoke runs use less).
A figure is always reported against a floor measured in the same run on the same machine,
so the numbers travel between machines as ratios.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Figure:
    bench: str  # e.g. "capture latency"
    name: str  # e.g. "record_run p99"
    value: float
    unit: str  # "ms", "s", "events/s", "MB", "calls/event", ...
    floor_name: str = ""  # what the floor is, e.g. "INSERT+COMMIT+LPUSH p99"
    floor: float | None = None  # same unit as value; None when the figure has no floor
    target: str = ""  # human-readable target, e.g. "p99 <= 2x floor"
    met: bool | None = None  # None when the figure is a report without a target
    note: str = ""

    @property
    def ratio(self) -> float | None:
        if self.floor is None or self.floor == 0:
            return None
        return self.value / self.floor
