"""``digest report --html``, opened in a real headless Chromium (issue 16's acceptance): the
page's charts load and are drawn, the topics are on it, the hostile text from a run's error
stays text, and nothing is fetched from the network; at 1280 and 800 pixels nothing is wider
than the window. The screenshots are kept in test-artifacts/report-1280.png and
report-800.png (``scripts/screenshots`` copies the first to docs/images/report.png).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from PIL import Image

from tests.browser import chromium, shoot_widths
from tests.cli.conftest import invoke
from tests.report.conftest import AGENT, HOSTILE, scripted_stream

CHARTS = ["chart-runs", "chart-topics", "chart-edit-rate", "chart-edits", "chart-effect"]


def _colours(png: bytes) -> int:
    """How many distinct colours a screenshot holds (a blank or broken image has one or two)."""
    with Image.open(io.BytesIO(png)) as image:
        return len(image.convert("RGB").getcolors(maxcolors=1 << 24) or [])


def test_the_report_page_draws_its_charts(embedded_pg: str, tenant: str, tmp_path: Path) -> None:
    stream = scripted_stream(tenant)
    page_file = tmp_path / "report.html"
    result = invoke("report", "--tenant", tenant, "--agent", AGENT, "--html", str(page_file))
    assert result.exit_code == 0, result.output

    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1200, "height": 900})
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.goto(page_file.as_uri(), wait_until="load")

        charts: list[dict[str, Any]] = page.eval_on_selector_all(
            "img.chart",
            """images => images.map(image => ({
                id: image.id, complete: image.complete, width: image.naturalWidth,
                height: image.naturalHeight, shown: image.getBoundingClientRect().width}))""",
        )
        assert [chart["id"] for chart in charts] == CHARTS
        for chart in charts:
            assert chart["complete"], chart
            assert chart["width"] > 400 and chart["height"] > 150, chart  # decoded, not broken
            assert chart["shown"] > 400, chart  # and laid out on the page
        for chart_id in CHARTS:
            drawn = page.locator(f"#{chart_id}").screenshot()
            assert _colours(drawn) > 20, chart_id  # bars, cells, dots: not a blank image

        text = page.inner_text("body")
        for topic in (
            "issue_refund: validationerror: field <q> is required for order <id>",
            "validate_address: postcode <id> does not match the city",
            f"run error: carrier api timed out {HOSTILE}",
            "failed without reporting an error",
            "removes a promise, removes exclamation marks",
            "removes a greeting",
        ):
            assert topic in text, topic
        assert f"#{stream.refund} " in text and "no lesson yet" in text
        assert "harms" in text and "the sweep retires it" in text
        # the run's error was shown, never run; and the page needed nothing from a network
        assert page.evaluate("typeof window.pwned") == "undefined"
        assert page.locator("script").count() == 0
        assert all(url.startswith(("file:", "data:")) for url in requests), requests

        assert "A held lesson reaches agents" in text  # what its held lessons wait for

        # at 1280 and at 800 pixels: nothing wider than the window, and the charts scale down
        shots = shoot_widths(page, "report")
        shown = page.eval_on_selector_all("img.chart", "i => i.map(e => e.clientWidth)")
        assert all(400 < width <= 1280 for width in shown), shown
    for shot in shots.values():
        assert shot.stat().st_size > 50_000
