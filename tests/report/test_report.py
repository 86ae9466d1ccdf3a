"""digest.report: what an agent struggled with, week by week (issue 16), on PostgreSQL.

The data (``build_report``: topics by fingerprint, their lessons and measured effect, the edits
operators keep making), the page (``render_html``: self-contained, every event text escaped)
and ``digest report`` in the terminal and as JSON. The page in a real browser is
tests/report/test_browser.py.
"""

from __future__ import annotations

import html
import json
import re
from datetime import timedelta
from pathlib import Path

import pytest

import digest
from digest.errors import InvalidArgument, NotFound
from digest.lessons.effect.verdict import Tally
from digest.report import Report, build_report, render_html
from digest.report.labels import edit_label
from tests.cli.conftest import invoke, ok, one_error
from tests.report.conftest import AGENT, EXPECTED, HOSTILE, scripted_stream


def _row_cell(out: str, fragment: str, column: int) -> str:
    """One cell of the printed table row whose first line holds ``fragment``, with the lines
    the table wrapped it over joined (a wider id or a longer title wraps the cell elsewhere)."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if fragment in line)
    parts = [lines[start].split("│")[column].strip()]
    for line in lines[start + 1 :]:
        cells = line.split("│")
        if len(cells) <= column or cells[1].strip():  # the table's end, or the next row
            break
        parts.append(cells[column].strip())
    return " ".join(part for part in parts if part)


def _topic(report: Report, fragment: str) -> object:
    found = [topic for topic in report.topics if fragment in topic.label]
    assert len(found) == 1, [topic.label for topic in report.topics]
    return found[0]


def test_the_weeks_topics_lessons_and_edits(embedded_pg: str, tenant: str) -> None:
    stream = scripted_stream(tenant)
    report = build_report(tenant, AGENT, 4)

    assert [week.success for week in report.runs] == EXPECTED["success"]
    assert [week.failure for week in report.runs] == EXPECTED["failure"]
    assert [week.escalated for week in report.runs] == EXPECTED["escalated"]

    # most failures first; a topic is a fingerprint, whatever the order number in the error
    assert [topic.counts for topic in report.topics] == [
        EXPECTED["refund"], EXPECTED["address"], EXPECTED["timeout"], EXPECTED["other"],
    ]  # fmt: skip
    refund, address, timeout, other = report.topics
    assert refund.kind == "tool" and refund.key.startswith("tool:")
    assert refund.label.startswith("issue_refund: validationerror: field")
    assert address.label.startswith("validate_address: postcode <id> does not match")
    assert timeout.kind == "run" and timeout.label.startswith("run error: carrier api timed out")
    assert timeout.label == f"run error: carrier api timed out {HOSTILE}"  # data, as it came
    assert (other.key, other.label) == ("other", "failed without reporting an error")
    assert report.topics_found == 4

    # each topic's lesson, and its measured effect (outcomes since it was learned)
    assert refund.lesson is not None and refund.lesson.id == stream.refund
    assert (refund.lesson.verdict, refund.lesson.applied_runs) == ("harms", 15)
    assert refund.lesson.success_rate == pytest.approx(4 / 15)
    assert refund.lesson.baseline_rate == pytest.approx(44 / 52)
    assert address.lesson is not None and address.lesson.id == stream.address
    assert (address.lesson.verdict, address.lesson.applied_runs) == ("unclear", 16)
    assert timeout.lesson is None and other.lesson is None

    by_id = {effect.lesson_id: effect for effect in report.effects}
    assert by_id[stream.refund].applied == Tally(4, 11)
    assert by_id[stream.refund].baseline == Tally(44, 8)
    assert by_id[stream.address].applied == Tally(12, 4)
    assert report.effects[0].lesson_id == stream.refund  # worst first

    # edits operators keep making, with the lesson that teaches each (if any)
    assert [(edit.label, edit.counts) for edit in report.edits] == [
        ("removes a promise, removes exclamation marks", EXPECTED["promise_edits"]),
        ("removes a greeting", EXPECTED["greeting_edits"]),
    ]
    assert report.edits[0].lesson is not None and report.edits[0].lesson.id == stream.promise
    assert report.edits[1].lesson is None
    assert report.edit_count == 8

    # the JSON form holds the same
    data = report.to_json()
    assert data["topics"][0]["counts"] == EXPECTED["refund"]
    assert data["topics"][0]["lesson"]["verdict"] == "harms"
    assert data["effects"][0]["lesson_id"] == stream.refund
    json.dumps(data)  # and is JSON


def test_fewer_weeks_see_less(embedded_pg: str, tenant: str) -> None:
    scripted_stream(tenant)
    report = build_report(tenant, AGENT, 2)
    assert [week.failure for week in report.runs] == EXPECTED["failure"][2:]
    assert [topic.counts for topic in report.topics[:2]] == [[3, 5], [1, 2]]
    assert report.week_starts[1] - report.week_starts[0] == timedelta(days=7)
    assert report.generated_at - report.week_starts[0] == timedelta(days=14)


def test_the_page_is_self_contained_and_escapes_event_text(embedded_pg: str, tenant: str) -> None:
    scripted_stream(tenant)
    page = render_html(build_report(tenant, AGENT, 4))
    assert page.startswith("<!doctype html>")
    # the hostile error is on the page as text, never as markup
    assert html.escape(HOSTILE) in page
    assert "<script" not in page.lower() and "<img src=x" not in page
    # four charts, each an embedded PNG; nothing fetched from anywhere
    charts = re.findall(
        r'<img class="chart" id="(chart-\w+)"[^>]* src="data:image/png;base64,', page
    )
    assert charts == ["chart-runs", "chart-topics", "chart-edits", "chart-effect"]
    assert not re.search(r'(?:src|href)="(?:https?:)?//', page)


def test_an_agent_with_nothing_yet(embedded_pg: str, tenant: str) -> None:
    digest.record_lesson(tenant, AGENT, "refunds: confirm the amount first")
    report = build_report(tenant, AGENT)
    assert report.topics == [] and report.edits == [] and report.effects == []
    page = render_html(report)
    assert "No failed runs in these weeks." in page and "<img" not in page


def test_unknown_names_and_bad_weeks(embedded_pg: str, tenant: str) -> None:
    digest.record_lesson(tenant, AGENT, "refunds: confirm the amount first")
    with pytest.raises(NotFound, match="nobody"):
        build_report(tenant, "nobody")
    for weeks in (0, 53, -1):
        with pytest.raises(InvalidArgument, match="weeks"):
            build_report(tenant, AGENT, weeks)


@pytest.mark.parametrize(
    ("original", "final", "label"),
    [
        (
            "We guarantee delivery today!",
            "Delivery takes 2 days.",
            "removes a promise, removes exclamation marks",
        ),
        ("Hi Ann, the parcel left.", "The parcel left.", "removes a greeting, shortens the reply"),
        ("Your parcel ships Monday.", None, "rejects the draft"),
        ("Hey Ann, it is covered.", "Dear Ann, it is covered.", "greets with “Dear”"),
        (
            "Hi, the blender is covered.",
            "Dear Mr Osei, the blender is covered.",
            "greets with “Dear”, adds the customer's name",
        ),
        ("pls resend ur receipt, ty", "Please resend your receipt.", "removes chat shorthand"),
        (
            "We are so very sorry for the trouble, we truly apologise, this should never happen.",
            "Sorry for the trouble.",
            "shortens the apology, shortens the reply",
        ),
        (
            "Use carrier DHL for order 4412",
            "Use carrier UPS for order 4412",
            "rewrites “DHL” as “UPS”",
        ),
    ],
)
def test_edit_labels(original: str, final: str | None, label: str) -> None:
    assert edit_label(original, final) == label


# --- digest report ---------------------------------------------------------------------------


def test_report_command_prints_tables_and_json(embedded_pg: str, tenant: str) -> None:
    stream = scripted_stream(tenant)
    out = ok("report", "--tenant", tenant, "--agent", AGENT)
    assert "What support-bot" in out and "what it failed on" in out
    refund_row = next(line for line in out.splitlines() if "issue_refund" in line)
    cells = [cell.strip() for cell in refund_row.split("│")]
    assert cells[3:8] == ["1", "2", "3", "5", "11"]
    assert f"#{stream.refund}" in refund_row and "harms" in refund_row
    timeout_row = next(line for line in out.splitlines() if "carrier api" in line)
    assert "no lesson yet" in timeout_row
    assert "<script>window.pwned=true</script><img src=x" in out  # literally, as text
    assert "removes a promise" in out and "measured effect of lessons" in out
    # the stream's runs name no contact or thread: one source, so its run lessons are held,
    # and the report says what releases them
    assert "(held: 1 of 2 independent sources" in _row_cell(out, "issue_refund", 8)
    flat = " ".join(out.split())
    assert "A held lesson reaches agents once enough independent sources" in flat
    assert "digest lesson release ID --by WHO" in flat and "DIGEST_FREQUENCY_GATE" in flat
    # at 80 columns the topic tables keep their totals and lessons, not a squeezed week each
    narrow = ok("report", "--tenant", tenant, "--agent", AGENT, columns="80")
    topics_header = next(line for line in narrow.splitlines() if "┃ topic" in line)
    assert [h.strip() for h in topics_header.strip("┃").split("┃")] == [
        "#", "topic", "total", "lesson", "effect",
    ]  # fmt: skip
    assert max(len(line) for line in narrow.splitlines()) <= 80
    assert "(a wider terminal, --json or --html shows the topics week by week)" in narrow

    data = json.loads(ok("report", "--tenant", tenant, "--agent", AGENT, "--weeks", "2", "--json"))
    assert data["weeks"] == 2 and data["topics"][0]["counts"] == [3, 5]
    # a topic with no lesson says why: the stream's last timeouts were never drained
    timeout = next(t for t in data["topics"] if "carrier api" in t["label"])
    assert timeout["lesson"] is None and timeout["why_no_lesson"] == "3 not reflected yet"
    assert data["topics"][0]["why_no_lesson"] is None  # the refund topic has its lesson


def test_a_topic_without_a_lesson_says_why_from_its_events() -> None:
    from digest.report.contents import Topic

    def why(**statuses: int) -> str:
        return Topic("tool:x", "tool", "x", [1], None, statuses).why_none

    assert why(pending=1, waiting=2, processing=1) == "4 not reflected yet"
    assert why(skipped=2) == "the judge found nothing to learn in 2"
    assert why(failed=1, dead=1, reflected=3) == (
        "2 could not be reflected (`digest stats` says why); 3 reflected without a lesson kept"
    )
    assert why() == ""


def test_report_command_writes_the_page(embedded_pg: str, tenant: str, tmp_path: Path) -> None:
    scripted_stream(tenant)
    page = tmp_path / "report.html"
    result = invoke("report", "--tenant", tenant, "--agent", AGENT, "--html", str(page))
    assert result.exit_code == 0, result.output
    assert f"wrote{page}:4topic(s)" in "".join(result.stdout.split())  # wrapped at 80 columns
    html = page.read_text(encoding="utf-8")
    assert html.count('class="chart"') == 5
    assert '<p class="note" id="held-note">A held lesson reaches agents' in html
    assert list(page.parent.iterdir()) == [page]  # no partial file left behind
    one_error(
        invoke("report", "--tenant", tenant, "--agent", AGENT, "--html", str(tmp_path)),
        "is a folder",
    )
    missing = tmp_path / "no" / "such" / "report.html"
    one_error(
        invoke("report", "--tenant", tenant, "--agent", AGENT, "--html", str(missing)),
        "no such folder",
    )
    assert not missing.parent.exists()
    one_error(invoke("report", "--tenant", tenant, "--agent", "nobody"), "unknown agent")
    one_error(invoke("report", "--tenant", tenant, "--agent", AGENT, "--weeks", "0"), "--weeks")


def test_charts_draw_any_label_as_plain_text() -> None:
    """Labels are event text: a ``$`` (mathtext's markup), a broken TeX command, escape
    sequences and scripts a font lacks are drawn as they are, and never stop the page."""
    from datetime import UTC, datetime

    from digest.report.charts import chart_label, topics_chart
    from digest.report.contents import Topic

    label = "price $x^{\\frac{1 is $ wrong \x1b[31m 漢字 \u202e txt"
    assert chart_label(label) == "price $x^{\\frac{1 is $ wrong [31m 漢字 txt"
    assert len(chart_label("x" * 500)) == 48
    starts = [datetime(2026, 3, 2, tzinfo=UTC), datetime(2026, 3, 9, tzinfo=UTC)]
    uri = topics_chart([Topic("k", "tool", label, [1, 2], None)], starts, "topics")
    assert uri is not None and uri.startswith("data:image/png;base64,")
    assert topics_chart([], starts, "topics") is None


def test_topics_without_a_lesson_of_their_fingerprint_find_the_lesson_they_taught(
    embedded_pg: str, tenant: str
) -> None:
    """A failed run that reported no error is known by the lesson it is evidence of; a
    failure whose fingerprint no lesson has, by the lesson most of its runs cite."""
    from digest.db import session_scope
    from digest.models import LessonEvidence
    from tests.conftest import manual_lesson

    quiet = manual_lesson(tenant, AGENT, "silent-failures: check the order status page")
    tools = manual_lesson(tenant, AGENT, "label-printer: restart the label printer")
    silent = [digest.record_run(tenant, AGENT, task="t", outcome="failure") for _ in range(3)]
    call = {"tool": "print_label", "ok": False, "error": "printer offline"}
    printed = [
        digest.record_run(tenant, AGENT, task="t", outcome="failure", tool_calls=[call])
        for _ in range(2)
    ]
    with session_scope() as session:
        for event_id in silent:
            session.add(LessonEvidence(lesson_id=quiet, event_id=event_id, note="cited"))
        session.add(LessonEvidence(lesson_id=tools, event_id=printed[0], note="cited"))
    report = build_report(tenant, AGENT, 1)
    first, second = report.topics
    assert (first.key, first.kind, first.counts) == (f"lesson:{quiet}", "lesson", [3])
    assert first.label.startswith("taught: ")
    assert first.lesson is not None and first.lesson.id == quiet
    assert second.label == "print_label: printer offline" and second.counts == [2]
    assert second.lesson is not None and second.lesson.id == tools
