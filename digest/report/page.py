"""The report as one self-contained HTML page: ``render_html(report)``.

The page is ``page.html`` (a Jinja template beside this module) rendered with autoescaping on:
every text from events, lessons, tenants and agents is escaped, so a topic label such as
``<script>…`` is shown as those characters. The charts are PNG ``data:`` URIs and the style
sheet is inline: the file needs no network and no other file. (A page serving it under a
Content-Security-Policy must allow ``img-src data:`` and the inline ``<style>``.)
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from digest.lessons.effect.measure import LessonEffect
from digest.lessons.effect.verdict import Tally
from digest.report.charts import charts
from digest.report.contents import HELD_NOTE, Report, Topic

if TYPE_CHECKING:
    from jinja2 import Template

#: the page's charts (``digest.report.charts.charts``), in the order it shows them
CHARTS = ("runs", "topics", "edits", "effect", "edit_rate")
#: how each verdict reads
VERDICT_TEXT = {
    "harms": "harms",
    "helps": "helps",
    "unclear": "unclear",
    "insufficient": "too few runs",
}
#: what the sweep does about a lesson (``LessonEffect.action``)
ACTION_TEXT = {
    "retire": "the sweep retires it",
    "review": "yours to review: a person wrote it",
    None: "",
}


@lru_cache(maxsize=1)
def _template() -> Template:
    from jinja2 import Environment, StrictUndefined

    environment = Environment(autoescape=True, undefined=StrictUndefined)
    source = Path(__file__).with_name("page.html").read_text(encoding="utf-8")
    return environment.from_string(source)


def percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.0%}"


def interval_text(tally: Tally, confidence: float) -> str:
    if not tally.runs:
        return ""
    low, high = tally.interval(confidence)
    return f"({percent(low)}–{percent(high)})"


def _topic_view(topic: Topic) -> dict[str, Any]:
    lesson = topic.lesson
    view: dict[str, Any] = {
        "label": topic.label,
        "counts": topic.counts,
        "total": topic.total,
        "lesson": lesson,
        "why": topic.why_none,
        "verdict": None,
        "verdict_text": "",
        "effect_note": "",
    }
    if lesson is not None and lesson.verdict is not None:
        view["verdict"] = lesson.verdict
        view["verdict_text"] = VERDICT_TEXT.get(lesson.verdict, lesson.verdict)
        view["effect_note"] = (
            f"success {percent(lesson.success_rate)} in {lesson.applied_runs} runs with it, "
            f"{percent(lesson.baseline_rate)} without"
        )
    return view


def causal_text(effect: LessonEffect) -> str:
    """The randomized (causal) estimate in words: shown minus withheld, interval, verdict."""
    r = effect.randomized
    if r is None:
        return "no holdout turns"
    interval = r.interval
    diff = "-" if r.difference is None else f"{r.difference:+.0%}"
    span = "" if interval is None else f" ({interval[0]:+.0%} to {interval[1]:+.0%})"
    verdict = VERDICT_TEXT.get(r.verdict, r.verdict)
    return f"{diff}{span}, {r.shown.runs} turns shown, {r.withheld.runs} withheld: {verdict}"


def _effect_view(effect: LessonEffect) -> dict[str, Any]:
    return {
        "id": effect.lesson_id,
        "title": effect.title,
        "status": effect.status,
        "trust": effect.trust,
        "runs": effect.applied.runs,
        "rate": percent(effect.applied.rate),
        "interval": interval_text(effect.applied, effect.confidence),
        "base_runs": effect.baseline.runs,
        "base_rate": percent(effect.baseline.rate),
        "base_interval": interval_text(effect.baseline, effect.confidence),
        "verdict": effect.verdict,
        "verdict_text": VERDICT_TEXT.get(effect.verdict, effect.verdict),
        "causal": causal_text(effect),
        "decided_by": effect.decided_by,
        "action": ACTION_TEXT.get(effect.action, ""),
    }


def _charts(report: Report) -> dict[str, str | None]:
    """Every chart's data URI, None where the report has no data for it."""
    drawn = charts(report)
    return {name: drawn.get(name) for name in CHARTS}


def render_html(report: Report) -> str:
    """The report as a complete, self-contained HTML document (charts included)."""
    totals = {
        "runs": sum(w.success + w.failure + w.escalated for w in report.runs),
        "failure": sum(w.failure for w in report.runs),
        "escalated": sum(w.escalated for w in report.runs),
        "edits": report.edit_count,
        "harmful": sum(1 for effect in report.effects if effect.final_verdict == "harms"),
    }
    return _template().render(
        r=report,
        generated=f"{report.generated_at:%Y-%m-%d %H:%M}",
        weeks=[f"{start:%b %d}" for start in report.week_starts],
        totals=totals,
        topics=[_topic_view(topic) for topic in report.topics],
        edits=[_topic_view(edit) for edit in report.edits],
        effects=[_effect_view(effect) for effect in report.effects],
        charts=_charts(report),
        level=f"{report.effect_confidence:.0%}",
        min_runs=report.effect_min_runs,
        edit_weeks=[
            {
                "week": f"{w.start:%b %d}",
                "drafts": w.drafts,
                "edited": w.edited,
                "rejected": w.rejected,
                "rate": percent(w.rate),
                "changed": percent(w.changed),
            }
            for w in (report.edit_rate.weeks if report.edit_rate else [])
        ],
        held_note=HELD_NOTE if any(t.lesson and t.lesson.held for t in report.topics) else None,
    )
