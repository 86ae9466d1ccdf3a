"""The review page shows the edit-rate trend on the demo's data (issue 28 point 4): the demo's
four weeks of operators' review (``examples/edit_history.jsonl``) loaded into a tenant of the
served PostgreSQL database, then the agent's page and its report read as the owner."""

from __future__ import annotations

import re
from collections.abc import Callable

import httpx

from digest.cli.demo_history import load_edit_history
from digest.config import get_settings
from tests.service.conftest import Server, Tenant, review_login


def test_the_review_page_shows_the_demo_edit_rate_falling(
    server: Server, make_tenant: Callable[[], Tenant]
) -> None:
    owner = make_tenant()
    assert load_edit_history(get_settings(), tenant=owner.name) == 58
    with httpx.Client(base_url=server.url, timeout=20) as client:
        assert review_login(client, owner.owner_key).status_code in (200, 303)
        page = client.get("/review/agents/support-bot")
        assert page.status_code == 200, page.text
        shown = re.search(r'<p id="edit-rate">(.*?)</p>', page.text, re.S)
        assert shown, page.text[:3000]
        said = re.search(r"needed editing (\d+)% → (\d+)% over 4 weeks", shown.group(1))
        assert said, shown.group(1)
        assert int(said.group(1)) > int(said.group(2))
        report = client.get("/review/agents/support-bot/report")
        assert report.status_code == 200
        assert 'id="chart-edit-rate"' in report.text and said.group(0) in report.text
