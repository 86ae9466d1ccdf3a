"""The report's week-by-week charts keep their labels apart (issue 26: they overlapped at
``--weeks 8``): at any number of weeks up to a year, no two x-axis labels of the runs chart or
the topic heat map overlap. Drawn in process from a made-up report; no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from digest.report.charts import drawing, runs_figure, topics_figure
from digest.report.contents import Report, Topic, WeekRuns


def made_up(weeks: int) -> Report:
    first = datetime(2026, 1, 5, tzinfo=UTC)
    runs = [
        WeekRuns(first + timedelta(weeks=n), success=10 + n, failure=n % 4, escalated=n % 2)
        for n in range(weeks)
    ]
    topics = [
        Topic(f"tool:t{i}", "tool", f"issue_refund fails with error number {i}",
              [(n + i) % 5 for n in range(weeks)], None)
        for i in range(3)
    ]  # fmt: skip
    return Report("t", "a", weeks, first + timedelta(weeks=weeks), runs, topics, 3, [], 0, 0)


def overlaps(figure: Any) -> list[tuple[str, str]]:
    """Pairs of neighbouring x tick labels whose drawn boxes intersect."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    [axes] = figure.axes[:1]
    labels = [label for label in axes.get_xticklabels() if label.get_text()]
    boxes = [label.get_window_extent(renderer) for label in labels]
    assert len(boxes) >= 1
    return [
        (labels[i].get_text(), labels[i + 1].get_text())
        for i in range(len(boxes) - 1)
        if boxes[i].overlaps(boxes[i + 1])
    ]


@pytest.mark.parametrize("weeks", [8, 12, 52])
def test_week_labels_never_overlap(weeks: int) -> None:
    report = made_up(weeks)
    with drawing():
        runs = runs_figure(report)
        topics = topics_figure(report.topics, report.week_starts, "topics")
        assert runs is not None and topics is not None
        assert overlaps(runs) == [] and overlaps(topics) == []
        labels = [label.get_text() for label in runs.axes[0].get_xticklabels()]
    named = [label for label in labels if label]
    assert len(labels) == weeks and labels[0] == "Jan 05" and 4 <= len(named) <= 8
    if weeks <= 8:
        assert len(named) == weeks  # every week named
