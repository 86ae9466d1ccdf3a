"""The report's charts, drawn with matplotlib and returned as PNG ``data:`` URIs, so the page
is one self-contained file that works offline.

matplotlib is imported here only, when a page is rendered (its import costs half a second),
and used through ``Figure`` and the Agg canvas directly: no pyplot, no global figure state, no
display; safe in a server thread. Labels come from events (untrusted text): they are drawn
with mathtext off (a ``$`` is a dollar sign, never markup), control characters removed and cut
to a short length. A PNG carries no markup, so nothing in it can script the page.
"""

from __future__ import annotations

import base64
import io
import math
import re
import threading
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import TYPE_CHECKING, Any

from digest.lessons.effect.measure import LessonEffect
from digest.report.contents import Report, Topic

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: characters of a label drawn in a chart
CHART_LABEL_MAX = 48
#: rows a chart draws at most (the page's tables list the rest)
CHART_ROWS = 10
#: week labels a chart draws at most (more would run into each other)
WEEK_LABELS = 8
#: colour of each verdict (digest.lessons.effect.verdict.VERDICTS)
VERDICT_COLOURS = {
    "harms": "#c0392b",
    "unclear": "#7f8c8d",
    "helps": "#1e8449",
    "insufficient": "#b3b6b7",
}
OUTCOME_COLOURS = {"success": "#52be80", "failure": "#e74c3c", "escalated": "#f5b041"}
_DPI = 110
# C0 and C1 controls, and the bidi controls that reorder what is shown
_INVISIBLE = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def chart_label(text: str, limit: int = CHART_LABEL_MAX) -> str:
    """``text`` as one short line a chart can draw."""
    line = " ".join(_INVISIBLE.sub(" ", str(text)).split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


#: matplotlib's settings and Python's warning filters are process-wide: one chart at a time
_DRAWING = threading.Lock()


@contextmanager
def drawing() -> Iterator[None]:
    """matplotlib settings for drawing untrusted labels, quietly (a glyph the font lacks is
    drawn as a box, not reported as a warning), one chart at a time (a server renders pages
    in threads). Labels also say ``parse_math=False`` themselves."""
    import matplotlib

    with (
        _DRAWING,
        warnings.catch_warnings(),
        matplotlib.rc_context({"text.parse_math": False, "font.size": 9}),
    ):
        warnings.simplefilter("ignore")
        yield


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=_DPI, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def _png(figure: Figure) -> str:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=_DPI, metadata={"Software": None})
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def week_axis(axes: Any, starts: Sequence[datetime]) -> None:
    """The x axis of a week-by-week chart: a tick per week, titled "week starting", and its
    first day (``Mar 02``) under at most ``WEEK_LABELS`` of them (every second week, every
    fourth, …), so the labels never run into each other however many weeks are shown."""
    step = math.ceil(len(starts) / WEEK_LABELS) or 1
    axes.set_xticks(
        range(len(starts)),
        [f"{start:%b %d}" if n % step == 0 else "" for n, start in enumerate(starts)],
    )
    axes.set_xlabel("week starting" if step == 1 else f"week starting (every {step} weeks named)")


def runs_figure(report: Report) -> Figure | None:
    """Stacked bars: the agent's runs per week by outcome (draw inside ``drawing()``)."""
    if not any(week.success + week.failure + week.escalated for week in report.runs):
        return None
    figure = _figure(8.0, 3.0)
    axes = figure.add_subplot()
    positions = range(len(report.runs))
    bottom = [0] * len(report.runs)
    for outcome in ("success", "failure", "escalated"):
        values = [getattr(week, outcome) for week in report.runs]
        axes.bar(positions, values, bottom=bottom, label=outcome, color=OUTCOME_COLOURS[outcome])
        bottom = [b + v for b, v in zip(bottom, values, strict=True)]
    week_axis(axes, report.week_starts)
    axes.set_ylabel("runs")
    axes.set_title("Runs per week, by outcome", loc="left")
    axes.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    axes.spines[["top", "right"]].set_visible(False)
    return figure


def runs_chart(report: Report) -> str | None:
    """``runs_figure`` as a PNG data URI."""
    with drawing():
        figure = runs_figure(report)
        return _png(figure) if figure is not None else None


def topics_figure(
    topics: Sequence[Topic], starts: Sequence[datetime], title: str, colours: str = "Reds"
) -> Figure | None:
    """A heat map: one row per topic (most frequent on top), one column per week, each cell
    its count (draw inside ``drawing()``)."""
    rows = [topic for topic in topics if topic.total][:CHART_ROWS]
    if not rows:
        return None
    figure = _figure(9.0, 1.6 + 0.42 * len(rows))
    axes = figure.add_subplot()
    values = [topic.counts for topic in rows]
    highest = max(max(row) for row in values) or 1
    axes.imshow(values, cmap=colours, aspect="auto", vmin=0, vmax=highest)
    week_axis(axes, starts)
    axes.set_yticks(
        range(len(rows)),
        [chart_label(f"{i + 1}. {t.label}") for i, t in enumerate(rows)],
        parse_math=False,
    )
    axes.tick_params(length=0)
    for y, row in enumerate(values):
        for x, count in enumerate(row):
            if count:
                colour = "white" if count > highest * 0.6 else "black"
                axes.text(x, y, str(count), ha="center", va="center", color=colour)
    for spine in axes.spines.values():
        spine.set_visible(False)
    axes.set_title(title, loc="left")
    return figure


def topics_chart(
    topics: Sequence[Topic], starts: Sequence[datetime], title: str, colours: str = "Reds"
) -> str | None:
    """``topics_figure`` as a PNG data URI."""
    with drawing():
        figure = topics_figure(topics, starts, title, colours)
        return _png(figure) if figure is not None else None


def effect_chart(effects: Sequence[LessonEffect]) -> str | None:
    """Each lesson's success rate while applied (a dot and its interval, coloured by verdict)
    beside the agent's rate without it (a hollow diamond and its interval)."""
    rows = list(effects)[:CHART_ROWS]
    if not rows:
        return None
    with drawing():
        figure = _figure(9.0, 1.5 + 0.5 * len(rows))
        axes = figure.add_subplot()
        for y, effect in enumerate(rows):
            _effect_row(axes, y, effect)
        axes.set_yticks(
            range(len(rows)),
            [chart_label(f"#{e.lesson_id} {e.title}") for e in rows],
            parse_math=False,
        )
        axes.invert_yaxis()
        axes.set_xlim(0, 1)
        axes.xaxis.set_major_formatter(_percent())
        axes.set_xlabel("success rate (dot: runs with the lesson; diamond: runs without it)")
        axes.grid(axis="x", alpha=0.3)
        axes.spines[["top", "right"]].set_visible(False)
        handles = [_legend_dot(colour, verdict) for verdict, colour in VERDICT_COLOURS.items()]
        axes.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
        axes.set_title("Measured effect of lessons", loc="left")
        return _png(figure)


def _effect_row(axes: Any, y: int, effect: LessonEffect) -> None:
    colour = VERDICT_COLOURS.get(effect.verdict, "#7f8c8d")
    for tally, offset, marker, face in (
        (effect.baseline, 0.18, "D", "white"),
        (effect.applied, -0.05, "o", colour),
    ):
        if tally.rate is None:
            continue
        low, high = tally.interval(effect.confidence)
        axes.errorbar(
            [tally.rate], [y + offset],
            xerr=[[tally.rate - low], [high - tally.rate]],
            fmt=marker, color=colour if face != "white" else "#555555",
            markerfacecolor=face, capsize=3, markersize=6,
        )  # fmt: skip


def _percent() -> Any:
    from matplotlib.ticker import PercentFormatter

    return PercentFormatter(xmax=1.0)


def _legend_dot(colour: str, label: str) -> Any:
    from matplotlib.lines import Line2D

    return Line2D([], [], marker="o", linestyle="", color=colour, label=label)


def edit_rate_chart(report: Report) -> str | None:
    """Bars: the share of reviewed drafts operators edited or rejected, week by week, each
    labelled with how many drafts were reviewed."""
    rate = report.edit_rate
    if rate is None or not rate.drafts:
        return None
    with drawing():
        figure = _figure(8.0, 2.8)
        axes = figure.add_subplot()
        positions = range(len(rate.weeks))
        bars = axes.bar(positions, [week.rate or 0.0 for week in rate.weeks], color="#5d6d7e")
        for bar, week in zip(bars, rate.weeks, strict=True):
            if week.drafts and len(rate.weeks) <= 12:  # beyond that the bars speak alone
                axes.annotate(
                    f"{week.rate:.0%} of {week.drafts}",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center", va="bottom", fontsize=8,
                )  # fmt: skip
        week_axis(axes, [week.start for week in rate.weeks])
        axes.set_ylim(0, 1.15)
        axes.yaxis.set_major_formatter(_percent())
        axes.set_ylabel("drafts edited")
        axes.set_title(f"Drafts operators edited or rejected: {rate.sentence()}", loc="left")
        axes.spines[["top", "right"]].set_visible(False)
        return _png(figure)


def charts(report: Report) -> dict[str, str]:
    """Every chart the report has data for: ``runs``, ``topics``, ``edits``, ``effect``
    (name → PNG data URI)."""
    starts = report.week_starts
    drawn = {
        "runs": runs_chart(report),
        "topics": topics_chart(report.topics, starts, "Failed runs by topic, week by week"),
        "edits": topics_chart(
            report.edits, starts, "Operator edits by kind, week by week", colours="Blues"
        ),
        "effect": effect_chart(report.effects),
        "edit_rate": edit_rate_chart(report),
    }
    return {name: uri for name, uri in drawn.items() if uri is not None}
