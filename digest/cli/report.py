"""``digest report`` (what an agent struggled with) and the tables of it and of ``digest lesson
effect`` (the measured effect of lessons), printed literally like everything in ``render``."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table
from rich.text import Text

from digest.cli import render
from digest.cli.app import AgentOpt, JsonOpt, TenantOpt, app

if TYPE_CHECKING:
    from digest.lessons.effect.measure import EffectReport, LessonEffect
    from digest.lessons.effect.verdict import Tally
    from digest.report import Report
    from digest.report.contents import Topic

#: how each verdict reads, and its colour on a terminal
_VERDICTS = {
    "harms": ("harms", "bold red"),
    "helps": ("helps", "green"),
    "unclear": ("unclear", ""),
    "insufficient": ("too few runs", "dim"),
}
_ACTIONS = {"retire": "the sweep retires it", "review": "yours to review (a person's)"}


@app.command("report")
def report_command(
    tenant: TenantOpt,
    agent: AgentOpt,
    weeks: Annotated[
        int, typer.Option("--weeks", min=1, max=52, help="How many weeks, ending now (1-52).")
    ] = 4,
    html: Annotated[
        Path | None,
        typer.Option(
            "--html", help="Write the report as a self-contained HTML page with charts to FILE."
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """What the agent struggled with, week by week: the topics it failed on most, whether a
    lesson exists for each and its measured effect, and the edits operators keep making."""
    from digest.report import build_report, render_html

    if html is not None:
        from digest.extras import require

        require("report", "digest report --html")
    report = build_report(tenant, agent, weeks)
    if html is not None:
        write_page(html, render_html(report))
    if as_json:
        render.json(report.to_json())
    elif html is not None:
        render.say(
            f"wrote {html}: {len(report.topics)} topic(s), {len(report.edits)} kind(s) of edit, "
            f"{len(report.effects)} measured lesson(s) over {weeks} week(s)"
        )
    else:
        report_tables(report)


def write_page(path: Path, page: str) -> None:
    """Write ``page`` to ``path`` whole or not at all: a file beside it, then renamed over it
    (a reader never sees half a page, and a FIFO there is replaced, never opened)."""
    from digest.errors import InvalidArgument

    if path.is_dir():
        raise InvalidArgument(f"--html: {path} is a folder, not a file")
    if not path.parent.is_dir():
        raise InvalidArgument(f"--html: no such folder: {path.parent}")
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    try:
        partial.write_text(page, encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)


# --- tables ------------------------------------------------------------------------------------


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def _rate(tally: Tally, confidence: float) -> str:
    """``14% of 14 runs (4-40%)``: the success rate, the runs and the interval."""
    if not tally.runs:
        return "no runs"
    low, high = tally.interval(confidence)
    return f"{_percent(tally.rate)} of {tally.runs} ({_percent(low)}-{_percent(high)})"


def _verdict(verdict: str | None) -> Text:
    if verdict is None:
        return Text("not measured", style="dim")
    words, style = _VERDICTS.get(verdict, (verdict, ""))
    return Text(words, style=style)


def _table(*columns: str, right: tuple[str, ...] = (), title: str | None = None) -> Table:
    table = Table(title=title, title_justify="left")
    for column in columns:
        table.add_column(column, justify="right" if column in right else "left")
    return table


def _cells(*values: object) -> list[Text]:
    return [value if isinstance(value, Text) else Text(render.clean(value)) for value in values]


def effect_rows(effects: list[LessonEffect], title: str | None = None) -> Table:
    """One row per lesson: its success rate with it and without it (of how many runs, and
    the interval), the verdict and what the sweep does about it."""
    table = _table(
        "id", "lesson", "status", "with it", "without it", "observed (not causal)",
        "randomized (causal)", "what happens",
        right=("id", "with it", "without it"), title=title,
    )  # fmt: skip
    table.columns[1].ratio = 1
    for effect in effects:
        cells = _cells(
            effect.lesson_id, effect.title, f"{effect.status}, {effect.trust}",
            _rate(effect.applied, effect.confidence), _rate(effect.baseline, effect.confidence),
            _verdict(effect.verdict), _causal(effect), _ACTIONS.get(effect.action or "", ""),
        )  # fmt: skip
        table.add_row(*cells)
    return table


def _causal(effect: LessonEffect) -> Text:
    """The randomized estimate: shown minus withheld success, its interval and verdict."""
    r = effect.randomized
    if r is None:
        return Text("no holdout turns", style="dim")
    interval = r.interval
    diff = "-" if r.difference is None else f"{r.difference:+.0%}"
    span = "" if interval is None else f" [{interval[0]:+.0%}, {interval[1]:+.0%}]"
    words, style = _VERDICTS.get(r.verdict, (r.verdict, ""))
    return Text(f"{diff}{span} {r.shown.runs}/{r.withheld.runs} turns: {words}", style=style)


def _method(confidence: float, min_runs: int, window: str) -> str:
    return (
        f"{window}; success rates with {confidence:.0%} Wilson intervals; a verdict needs "
        f"{min_runs} runs with the lesson and {min_runs} without it. The observed figure "
        "compares runs the lesson was offered in with the others (confounded: a lesson is "
        "offered when a task looks like its failure); the randomized one compares holdout "
        "turns shown vs withheld at random (causal, Newcombe interval) and decides when it "
        "has enough turns"
    )


def effect_table(report: EffectReport) -> None:
    """``lesson effect``: one row per lesson applied in a counted run, worst verdict first."""
    since = f"{report.window_start:%Y-%m-%d}" if report.window_start else None
    if not report.lessons:
        render.say(
            f"no run named a lesson it applied ({report.runs.runs} run(s) counted, "
            f"{'since ' + since if since else 'all time'})"
        )
        return
    render.out.print(effect_rows(report.lessons))
    render.say(
        f"{report.runs.runs} run(s) of {report.tenant}/{report.agent}, "
        f"success {_percent(report.runs.rate)}; "
        + _method(
            report.confidence, report.min_runs, f"runs since {since}" if since else "all runs"
        )
    )


def weeks_fit(weeks: list[str], effect: bool) -> bool:
    """Whether a topic table has room for a column per week beside the topic and its lesson
    (else it shows the total only: the runs table and ``--html`` have the weeks)."""
    return render.out.width >= 60 + 9 * len(weeks) + (14 if effect else 0)


def _topic_rows(topics: list[Topic], weeks: list[str], title: str, effect: bool) -> Table:
    what = "topic" if effect else "the edit"
    shown = weeks if weeks_fit(weeks, effect) else []
    columns = ["#", what, *shown, "total", "lesson"] + (["effect"] if effect else [])
    table = _table(*columns, right=("#", *shown, "total"), title=title)
    table.columns[1].ratio = 1
    for number, topic in enumerate(topics, start=1):
        lesson = topic.lesson
        named = f"#{lesson.id} {lesson.title} ({lesson.status})" if lesson else "no lesson yet"
        if topic.why_none:
            named += f" ({topic.why_none})"
        if lesson and lesson.held:
            named += f" ({lesson.held}, no agent reads it yet)"
        counts = topic.counts if shown else []
        cells: list[object] = [number, topic.label, *counts, topic.total, named]
        if effect:
            cells.append(_verdict(lesson.verdict) if lesson else Text(""))
        table.add_row(*_cells(*cells))
    return table


def report_tables(report: Report) -> None:
    """``report``: runs per week, then the failure topics, the edits and the lessons'
    measured effect, each a table."""
    weeks = [f"{start:%b %d}" for start in report.week_starts]
    render.say(
        f"What {report.agent} ({report.tenant}) struggled with: the {report.weeks} week(s) to "
        f"{report.generated_at:%Y-%m-%d %H:%M} UTC"
    )
    outcomes = ("success", "failure", "escalated")
    runs = _table("week of", *outcomes, right=outcomes)
    for label, week in zip(weeks, report.runs, strict=True):
        runs.add_row(*_cells(label, week.success, week.failure, week.escalated))
    render.out.print(runs)
    if report.budget_wait:
        render.warn(report.budget_wait)
    if report.topics:
        render.out.print(_topic_rows(report.topics, weeks, "what it failed on", effect=True))
        rarer = report.topics_found - len(report.topics)
        if rarer > 0:
            render.say(f"and {rarer} rarer topic(s)")
        if not weeks_fit(weeks, True):
            render.say("(a wider terminal, --json or --html shows the topics week by week)")
        if any(topic.lesson and topic.lesson.held for topic in report.topics):
            from digest.report.contents import HELD_NOTE

            render.say(HELD_NOTE)
    else:
        render.say("no failed runs in these weeks")
    if report.edit_rate is not None:
        render.say(f"drafts: {report.edit_rate.sentence()}")
        if report.edit_rate.drafts:
            heads = ("drafts", "edited", "rejected", "needed editing")
            edited = _table("week of", *heads, right=heads)
            for label, w in zip(weeks, report.edit_rate.weeks, strict=True):
                rate = "-" if w.rate is None else f"{w.rate:.0%}"
                edited.add_row(*_cells(label, w.drafts, w.edited, w.rejected, rate))
            render.out.print(edited)
    if report.edits:
        render.out.print(_topic_rows(report.edits, weeks, "edits operators keep making", False))
    else:
        render.say("no operator edits in these weeks")
    if report.effects:
        render.out.print(effect_rows(report.effects, title="measured effect of lessons"))
        days = report.effect_window_days
        window = f"runs of the last {days} days" if days else "all runs"
        render.say(_method(report.effect_confidence, report.effect_min_runs, window))
