"""What an agent struggled with (issue 16): ``digest report`` and the review page's report.

``build_report(tenant, agent, weeks=4, settings=None)`` reads the rows into a ``Report`` (a
frozen dataclass with ``to_json()``); ``render_html(report)`` draws it as one self-contained
HTML page with charts. The terminal table is ``digest.cli.report``.
"""

from digest.report.build import build_report
from digest.report.contents import Report
from digest.report.page import render_html

__all__ = ["Report", "build_report", "render_html"]
