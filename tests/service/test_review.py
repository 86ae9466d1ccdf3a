"""The review page over HTTP against a running server: who may sign in, what a session sees
(its own tenant only: another tenant's agent, lesson and version are 404 on every route, and
decisions on them change nothing), CSRF, logout and revocation, decisions written with who made
them, and pages that carry no script."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

import digest
from digest.apikeys import revoke_key
from digest.lessons.service import lesson_detail, list_lessons
from digest.versions.queries import list_versions
from tests.service.conftest import ReviewScene, Server, Tenant, csrf_in, review_login


@pytest.fixture()
def browser_like(server: Server) -> Iterator[httpx.Client]:
    """A client that keeps cookies and does not follow redirects (to see them)."""
    with httpx.Client(base_url=server.url, timeout=10) as http:
        yield http


def _statuses(tenant: str, agent: str) -> dict[int, str]:
    return {v.number: v.status for v in list_versions(tenant, agent)}


def test_only_an_owner_key_signs_in(browser_like: httpx.Client, review_scene: ReviewScene) -> None:
    tenant = review_scene.tenant
    first = browser_like.get("/review")
    assert first.status_code == 303 and first.headers["location"] == "/review/login?next=/review"
    for key, said in (
        (tenant.agent_key, "agent key"),
        ("dg_owner_" + "x" * 32, "unknown or revoked"),
        ("", "unknown or revoked"),
    ):
        refused = review_login(browser_like, key)
        assert refused.status_code == 401 and said in refused.text
        assert browser_like.get("/review").status_code == 303  # still not signed in
    signed_in = review_login(browser_like, tenant.owner_key)
    assert signed_in.status_code == 303 and signed_in.headers["location"] == "/review"
    cookie = signed_in.headers["set-cookie"]
    assert "httponly" in cookie.lower() and "samesite=strict" in cookie.lower()
    assert tenant.owner_key not in cookie
    page = browser_like.get("/review")
    assert page.status_code == 200 and review_scene.agent in page.text


def test_the_login_form_needs_its_own_token(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    key = review_scene.tenant.owner_key
    browser_like.get("/review/login")
    missing = browser_like.post("/review/login", data={"key": key})
    assert missing.status_code == 403
    wrong = browser_like.post("/review/login", data={"key": key, "csrf": "x" * 43})
    assert wrong.status_code == 403
    assert browser_like.get("/review").status_code == 303


def test_a_login_goes_back_to_a_review_page_only(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    key = review_scene.tenant.owner_key
    for asked, lands in (
        ("/review/agents/support-bot", "/review/agents/support-bot"),
        ("https://evil.example/", "/review"),
        ("//evil.example/review", "/review"),
    ):
        form = browser_like.get("/review/login", params={"next": asked})
        token = csrf_in(form.text)
        done = browser_like.post("/review/login", data={"csrf": token, "key": key, "next": asked})
        assert done.status_code == 303 and done.headers["location"] == lands


def _signed_in(client: httpx.Client, tenant: Tenant) -> str:
    """Sign ``client`` in as ``tenant``'s owner; returns the session's CSRF token."""
    assert review_login(client, tenant.owner_key).status_code == 303
    return csrf_in(client.get("/review").text)


def test_another_tenants_agents_lessons_and_versions_are_not_found(
    server: Server, review_scene: ReviewScene, make_tenant: Callable[[], Tenant]
) -> None:
    victim = review_scene
    intruder = make_tenant()
    # the intruder has an agent of the same name, with lessons and a version of its own
    from tests.conftest import manual_lesson

    own_lesson = manual_lesson(intruder.name, victim.agent, "own-rule: the intruder's own rule")
    with httpx.Client(base_url=server.url, timeout=10) as client:
        token = _signed_in(client, intruder)
        assert victim.agent in client.get("/review").text  # its own agent of that name
        secret_words = ("escalate-chargebacks", "refund-amount", "evil@attacker.io")
        other_agent = "only-in-victim"
        manual_lesson(victim.tenant.name, other_agent, "victim-only: a rule of the victim")
        [victim_lesson] = list_lessons(victim.tenant.name, victim.agent, "active")[:1]
        pages = [
            f"/review/agents/{other_agent}",
            f"/review/agents/{other_agent}/lessons",
            f"/review/agents/{other_agent}/report",
            f"/review/agents/{victim.agent}/lessons/{victim.quarantined_id}",
            f"/review/agents/{victim.agent}/lessons/{victim_lesson.id}",
            f"/review/agents/{victim.agent}/versions/2",
            f"/review/agents/{other_agent}/versions/1",
        ]
        for path in pages:
            answer = client.get(path)
            assert answer.status_code == 404, (path, answer.status_code)
            assert not any(word in answer.text for word in secret_words), path
        posts = [
            f"/review/agents/{victim.agent}/versions/2/approve",
            f"/review/agents/{victim.agent}/versions/2/reject",
            f"/review/agents/{victim.agent}/versions/1/rollback",
            f"/review/agents/{victim.agent}/lessons/{victim.quarantined_id}/release",
            f"/review/agents/{victim.agent}/lessons/{victim_lesson.id}/disable",
            f"/review/agents/{other_agent}/versions/1/rollback",
        ]
        for path in posts:
            answer = client.post(path, data={"csrf": token})
            assert answer.status_code == 404, (path, answer.status_code, answer.text[:300])
        # its own lesson is there (the 404s were about the tenant, not the routes)
        mine = client.get(f"/review/agents/{victim.agent}/lessons/{own_lesson}")
        assert mine.status_code == 200 and "own-rule" in mine.text
    assert _statuses(victim.tenant.name, victim.agent) == {1: "active", 2: "pending"}
    held = lesson_detail(victim.tenant.name, victim.agent, victim.quarantined_id)
    assert held.lesson.status == "quarantined"
    assert lesson_detail(victim.tenant.name, victim.agent, victim_lesson.id).lesson.status == (
        "active"
    )


def test_decisions_are_written_with_who_made_them(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    scene = review_scene
    token = _signed_in(browser_like, scene.tenant)
    base = f"/review/agents/{scene.agent}/versions"
    edited = "# Edited on the review page\n\n- **escalate-chargebacks**: ask a human first\n"
    approved = browser_like.post(f"{base}/2/approve", data={"csrf": token, "body": edited})
    assert approved.status_code == 303 and approved.headers["location"].endswith("/2?done=approved")
    rows = {v.number: v for v in list_versions(scene.tenant.name, scene.agent)}
    assert rows[2].status == "active" and rows[2].proposed_by == "operator"
    assert rows[2].body_markdown == edited
    assert re.fullmatch(r"Ann \(owner key dg_owner_[\w-]{8}\)", rows[2].approved_by or "")
    again = browser_like.post(f"{base}/2/approve", data={"csrf": token})
    assert again.status_code == 409 and "not pending" in again.text
    back = browser_like.post(f"{base}/1/rollback", data={"csrf": token})
    assert back.status_code == 303 and back.headers["location"].endswith("/3?done=rolled-back")
    learning = digest.current_learning(scene.tenant.name, scene.agent)
    assert learning is not None and learning.number == 3
    assert learning.body == rows[1].body_markdown
    assert "Ann (owner key" in (list_versions(scene.tenant.name, scene.agent)[0].approved_by or "")
    lesson = list_lessons(scene.tenant.name, scene.agent, "active")[0]
    off = browser_like.post(
        f"/review/agents/{scene.agent}/lessons/{lesson.id}/disable",
        data={"csrf": token, "reason": "wrong for EU orders"},
    )
    assert off.status_code == 303
    detail = lesson_detail(scene.tenant.name, scene.agent, lesson.id)
    assert detail.lesson.status == "disabled"
    assert "Ann (owner key" in (detail.history[-1].reason or "")
    assert "wrong for EU orders" in (detail.history[-1].reason or "")


def test_a_pending_version_shows_why_it_waits_and_its_replay(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    scene = review_scene
    _signed_in(browser_like, scene.tenant)
    page = browser_like.get(f"/review/agents/{scene.agent}/versions/2")
    assert page.status_code == 200
    held = re.search(r'id="hold-reason">(.*?)</p>', page.text, re.S)
    assert held is not None and "apply mode is approval" in held.group(1)
    replayed = read_version_replay(scene)
    table = re.search(r'<table class="replay" id="replay">(.*?)</table>', page.text, re.S)
    assert table is not None
    cells = re.findall(r"<td>(\d+)", table.group(1))
    assert cells[:2] == [str(replayed.current_lessons), str(replayed.proposed_lessons)]


def read_version_replay(scene: ReviewScene) -> Any:
    from digest.versions.queries import read_version

    report = read_version(scene.tenant.name, scene.agent, 2).replay
    assert report is not None, "compose stores a replay with every version"
    return report


def test_a_pending_version_is_rejected(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    scene = review_scene
    token = _signed_in(browser_like, scene.tenant)
    done = browser_like.post(
        f"/review/agents/{scene.agent}/versions/2/reject", data={"csrf": token}
    )
    assert done.status_code == 303
    assert _statuses(scene.tenant.name, scene.agent) == {1: "active", 2: "rejected"}
    page = browser_like.get(done.headers["location"])
    assert page.status_code == 200 and 'id="version-status">rejected<' in page.text
    assert "Ann (owner key" in page.text


def test_logout_and_revocation_end_a_session(server: Server, review_scene: ReviewScene) -> None:
    tenant = review_scene.tenant
    with httpx.Client(base_url=server.url, timeout=10) as first:
        token = _signed_in(first, tenant)
        out = first.post("/review/logout", data={"csrf": token})
        assert out.status_code == 303 and out.headers["location"] == "/review/login"
        assert first.get("/review").status_code == 303
    with httpx.Client(base_url=server.url, timeout=10) as second:
        token = _signed_in(second, tenant)
        prefix = tenant.owner_key[: len("dg_owner_") + 8]
        revoke_key(tenant.name, prefix)
        assert second.get("/review").status_code == 303  # back to the login page
        late = second.post(
            f"/review/agents/{review_scene.agent}/versions/2/approve", data={"csrf": token}
        )
        assert late.status_code == 401
    assert _statuses(tenant.name, review_scene.agent)[2] == "pending"


def test_pages_carry_no_script_and_escape_what_runs_wrote(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    from tests.conftest import manual_lesson

    scene = review_scene
    hostile = manual_lesson(
        scene.tenant.name, scene.agent, 'xss-probe: <script>alert(1)</script> "><img src=x>'
    )
    _signed_in(browser_like, scene.tenant)
    for path in (
        "/review",
        f"/review/agents/{scene.agent}",
        f"/review/agents/{scene.agent}/lessons",
        f"/review/agents/{scene.agent}/lessons/{hostile}",
        f"/review/agents/{scene.agent}/versions/2",
    ):
        page = browser_like.get(path)
        assert page.status_code == 200, path
        policy = page.headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src" not in policy
        assert page.headers["x-frame-options"] == "DENY"
        assert page.headers["cache-control"] == "no-store"
        assert "<script" not in page.text.lower(), path
    detail = browser_like.get(f"/review/agents/{scene.agent}/lessons/{hostile}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in detail.text
    assert "<img src=x>" not in detail.text


def test_bad_requests_get_a_clear_page_and_change_nothing(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    scene = review_scene
    token = _signed_in(browser_like, scene.tenant)
    target = f"/review/agents/{scene.agent}/versions/2/approve"
    as_json = browser_like.post(target, json={"csrf": token})
    assert as_json.status_code == 415
    huge = browser_like.post(target, data={"csrf": token, "body": "x" * 1_100_000})
    assert huge.status_code == 413
    unknown = browser_like.post(
        f"/review/agents/{scene.agent}/versions/2/promote", data={"csrf": token}
    )
    assert unknown.status_code == 404
    blank = browser_like.post(target, data={"csrf": token, "body": "   "})
    assert blank.status_code == 409 and "must not be empty" in blank.text
    filtered = browser_like.get(f"/review/agents/{scene.agent}/lessons", params={"status": "bogus"})
    assert filtered.status_code == 422 and "status:" in filtered.text
    assert _statuses(scene.tenant.name, scene.agent) == {1: "active", 2: "pending"}
    quarantined = browser_like.get(
        f"/review/agents/{scene.agent}/lessons", params={"status": "quarantined"}
    )
    assert quarantined.status_code == 200
    assert f'/lessons/{scene.quarantined_id}"' in quarantined.text
    untrusted = browser_like.get(
        f"/review/agents/{scene.agent}/lessons", params={"trust": "trusted"}
    )
    assert f'/lessons/{scene.quarantined_id}"' not in untrusted.text


def test_the_struggled_with_report_and_the_measured_effect_are_on_the_page(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    scene = review_scene
    for _ in range(3):
        digest.record_run(
            scene.tenant.name, scene.agent, task="refund order 1182", outcome="failure",
            error="ValidationError: field 'amount' is required",
        )  # fmt: skip
    _signed_in(browser_like, scene.tenant)
    agent_page = browser_like.get(f"/review/agents/{scene.agent}")
    assert f'href="/review/agents/{scene.agent}/report"' in agent_page.text
    report = browser_like.get(f"/review/agents/{scene.agent}/report", params={"weeks": 2})
    assert report.status_code == 200
    assert "<img" in report.text and 'src="data:image/png;base64,' in report.text
    assert "img-src data:" in report.headers["content-security-policy"]
    assert "<script" not in report.text.lower()
    bad = browser_like.get(f"/review/agents/{scene.agent}/report", params={"weeks": 99})
    assert bad.status_code == 422
    lesson = list_lessons(scene.tenant.name, scene.agent, "active")[0]
    page = browser_like.get(f"/review/agents/{scene.agent}/lessons/{lesson.id}")
    assert 'id="effect"' in page.text and "not applied in any counted run yet" in page.text


def test_held_lessons_say_how_far_they_came_and_are_released_by_a_person(
    browser_like: httpx.Client, review_scene: ReviewScene
) -> None:
    """Run text one contact reported waits (issue 25): the list and the lesson say so, and the
    owner releases one, then every other held lesson, each recorded with who did it."""
    from digest.pipeline import drain

    scene = review_scene
    for tool in ("book_courier", "ship_parcel", "print_label"):
        digest.record_run(
            scene.tenant.name, scene.agent, outcome="failure", contact_id="ann",
            task=f"Send order 7 with {tool}",
            tool_calls=[{"tool": tool, "ok": False, "error": "field 'carrier' is required"}],
        )  # fmt: skip
    drain()
    held = [x for x in list_lessons(scene.tenant.name, scene.agent, "active") if x.held]
    assert len(held) == 3, [(x.title, x.release) for x in held]
    token = _signed_in(browser_like, scene.tenant)
    listing = browser_like.get(f"/review/agents/{scene.agent}/lessons")
    assert "3 active lessons held" in listing.text and listing.text.count("held 1/2") == 3
    assert "<code>digest tenant set --gate N</code>" in listing.text  # what changes the wait
    agent_page = browser_like.get(f"/review/agents/{scene.agent}").text
    held_waits = re.search(r'id="held-waits">(.*?)</p>', agent_page, re.S)
    assert held_waits is not None and "3 lessons held</a>" in held_waits.group(1)
    assert "once 2 independent sources" in held_waits.group(1)
    assert 'id="next-version"' in agent_page and "digest improve-now" in agent_page
    first = held[0].id
    page = browser_like.get(f"/review/agents/{scene.agent}/lessons/{first}")
    shown = re.search(r'id="release-state">(.*?)</dd>', page.text, re.S)
    assert shown is not None and shown.group(1) == "no, held: 1 of 2 independent sources"
    one = browser_like.post(
        f"/review/agents/{scene.agent}/lessons/{first}/release",
        data={"csrf": token, "reason": "a real courier rule"},
    )
    assert one.status_code == 303 and one.headers["location"].endswith("?done=release")
    detail = lesson_detail(scene.tenant.name, scene.agent, first)
    assert detail.lesson.trust == "reviewed" and detail.lesson.held is None
    assert re.fullmatch(r"Ann \(owner key dg_owner_[\w-]{8}\)", detail.lesson.released_by or "")
    assert "a real courier rule" in (detail.history[-1].reason or "")
    every = browser_like.post(
        f"/review/agents/{scene.agent}/lessons/release-held", data={"csrf": token}
    )
    assert every.status_code == 303 and "released%202%20held" in every.headers["location"]
    assert not [x for x in list_lessons(scene.tenant.name, scene.agent, "active") if x.held]
    quarantined = lesson_detail(scene.tenant.name, scene.agent, scene.quarantined_id)
    assert quarantined.lesson.status == "quarantined"  # --all never lifts a quarantine
    forged = browser_like.post(
        f"/review/agents/{scene.agent}/lessons/release-held", data={"csrf": "not-the-token"}
    )
    assert forged.status_code == 403


def test_bad_settings_and_expiry_forms_change_nothing(
    browser_like: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    from digest.agents import agent_settings
    from tests.conftest import manual_lesson

    tenant = make_tenant()
    lesson_id = manual_lesson(tenant.name, "bot", "refunds: ask a manager above 200 EUR")
    token = _signed_in(browser_like, tenant)
    base = "/review/agents/bot"
    for form, needle in (
        ({"learning": "sometimes"}, "learning: on or off"),
        ({"learning": "off", "model": "gpt 4"}, "llm_model"),
    ):
        refused = browser_like.post(f"{base}/settings", data={"csrf": token, **form})
        assert refused.status_code == 422 and needle in refused.text, refused.text
    missing = browser_like.post(
        "/review/agents/bott/settings", data={"csrf": token, "learning": "off"}
    )
    assert missing.status_code == 404 and "did you mean" in missing.text
    no_token = browser_like.post(f"{base}/settings", data={"learning": "off"})
    assert no_token.status_code == 403
    for form, status in (
        ({"expires_on": "soon"}, 422),
        ({"expires_on": "2001-01-01"}, 422),
        ({}, 422),
    ):
        refused = browser_like.post(
            f"{base}/lessons/{lesson_id}/expire", data={"csrf": token, **form}
        )
        assert refused.status_code == status, refused.text
    settings = agent_settings(tenant.name, "bot")
    assert settings.enable_learning and settings.llm_model is None
    assert lesson_detail(tenant.name, "bot", lesson_id).expires_at is None


def test_the_next_version_sentence_says_who_composes_it(
    browser_like: httpx.Client, review_scene: ReviewScene, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a broker a worker composes a due version; with none (embedded mode) nothing does by
    itself, and the page names the commands that do."""
    import digest
    from digest.config import forget_settings
    from digest.db import session_scope
    from digest.pipeline import drain
    from digest.tenants import configure_tenant

    scene = review_scene
    with session_scope() as session:
        configure_tenant(session, scene.tenant.name, threshold_signals=1)
    digest.record_answer(
        scene.tenant.name, scene.agent, question="Weekend hours?", answer="Closed on Sundays."
    )
    drain()  # the owner's answer: a trusted lesson, one signal
    _signed_in(browser_like, scene.tenant)

    def sentence() -> str:
        agent_page = browser_like.get(f"/review/agents/{scene.agent}").text
        found = re.search(r'id="next-version">(.*?)</p>', agent_page, re.S)
        assert found is not None
        return " ".join(found.group(1).split())

    assert "Next version due" in sentence() and "a worker composes it" in sentence()
    # the same page from an app with no broker (in this process: the server's settings are
    # its own)
    from fastapi.testclient import TestClient

    from digest.service.app import create_app

    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    forget_settings()
    try:
        with TestClient(create_app(), follow_redirects=False) as local:
            _signed_in(local, scene.tenant)  # type: ignore[arg-type]
            page = local.get(f"/review/agents/{scene.agent}").text
    finally:
        monkeypatch.undo()
        forget_settings()
    found = re.search(r'id="next-version">(.*?)</p>', page, re.S)
    assert found is not None
    embedded = " ".join(found.group(1).split())
    assert "Next version due" in embedded and "a worker" not in embedded
    assert "with no broker nothing composes by itself" in embedded
    assert "<code>digest sweep</code> composes it" in embedded


def test_an_agent_with_learning_off_says_so_on_the_list_and_its_page(
    browser_like: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    """Off: the agents list says so, and the agent's page says what happens to what it
    captures (stored, skipped: how many) instead of how far the next version is."""
    from digest.pipeline import drain
    from tests.conftest import manual_lesson

    tenant = make_tenant()
    manual_lesson(tenant.name, "bot", "refunds: ask a manager above 200 EUR")
    token = _signed_in(browser_like, tenant)
    turned = browser_like.post(
        "/review/agents/bot/settings", data={"csrf": token, "learning": "off"}
    )
    assert turned.status_code == 303, turned.text
    digest.record_run(
        tenant.name, "bot", task="Ship order 9", outcome="failure",
        tool_calls=[{"tool": "book_courier", "ok": False, "error": "NoSlot: courier full"}],
    )  # fmt: skip
    drain(tenant=tenant.name)
    listed = browser_like.get("/review").text
    row = re.search(r'href="/review/agents/bot">bot</a></td>\s*<td>(.*?)</td>', listed, re.S)
    assert row is not None and "off" in row.group(1), listed
    page = browser_like.get("/review/agents/bot").text
    state = re.search(r'id="learning-state">(.*?)</dd>', page, re.S)
    assert state is not None and "(1 so far; they stay skipped)" in state.group(1)
    assert 'id="next-version"' not in page
    said = re.search(r'id="learning-off">(.*?)</p>', page, re.S)
    assert said is not None and "stored but skipped, not reflected" in said.group(1)
    assert "digest agent set --learning on" in said.group(1)
    assert "No version yet: with learning off none is composed by itself" in page


def test_a_lessons_page_says_how_far_it_has_faded(
    browser_like: httpx.Client, make_tenant: Callable[[], Tenant]
) -> None:
    from datetime import UTC, datetime, timedelta

    from digest.db import session_scope
    from digest.models import Lesson
    from tests.conftest import manual_lesson

    tenant = make_tenant()
    lesson_id = manual_lesson(tenant.name, "bot", "refunds: ask a manager above 200 EUR")
    with session_scope() as session:
        row = session.get(Lesson, lesson_id)
        assert row is not None
        row.last_seen_at = datetime.now(UTC) - timedelta(days=90, hours=1)
    _signed_in(browser_like, tenant)
    page = browser_like.get(f"/review/agents/bot/lessons/{lesson_id}").text
    seen = re.search(r'id="last-seen">(.*?)</dd>', page, re.S)
    assert seen is not None, page
    said = " ".join(seen.group(1).split())
    assert "ranked at 50% of its relevance (it halves per 90 days unused" in said, said
