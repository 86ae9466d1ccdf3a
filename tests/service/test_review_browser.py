"""The owner's review page in a real headless Chromium (Debian's, driven by Playwright) against
a running ``digest serve``: log in with an owner key, open a pending version, see its diff,
approve it and see the agent's active version change; release a quarantined lesson; a POST
without the CSRF token is refused. Screenshots are kept in ``test-artifacts/``."""

from __future__ import annotations

import digest
from digest.agents import agent_settings
from digest.lessons.service import lesson_detail
from digest.versions.queries import list_versions
from tests.browser import screenshot_path, shoot_widths
from tests.service.conftest import ReviewScene


def test_an_owner_approves_a_pending_version_after_reading_its_diff(
    page: object, review_scene: ReviewScene
) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    scene = review_scene
    assert digest.current_learning(scene.tenant.name, scene.agent).number == 1

    page.goto("/review")
    assert page.url.endswith("/review/login?next=/review")
    page.fill("#key", scene.tenant.owner_key)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Agents")
    expect(page.locator("header .who")).to_contain_text(scene.tenant.name)
    # every page the owner reads, at 1280 and 800 pixels: nothing wider than the window
    shoot_widths(page, "review-agents")

    page.click(f"text={scene.agent}")
    # what the agent waits for, where the owner looks
    expect(page.locator("#next-version")).to_contain_text("digest tenant set --threshold N")
    shoot_widths(page, "review-agent")
    pending = page.locator("tr.status-pending a").first
    expect(pending).to_have_text("v2")
    pending.click()
    expect(page.locator("#version-status")).to_have_text("pending")
    added = page.locator("#diff .add")
    expect(added.filter(has_text="escalate-chargebacks")).to_have_count(1)
    expect(page.locator("#diff .head").first).to_contain_text("v1")
    page.screenshot(path=str(screenshot_path("review-pending-version-diff")), full_page=True)
    # README's picture, at 1280 and 800 pixels: nothing wider than the window at either
    shoot_widths(page, "review-version")
    expect(page.locator("#approve")).to_be_visible()

    page.click("#approve")
    expect(page.locator(".note")).to_contain_text("approved")
    expect(page.locator("#version-status")).to_have_text("active")
    expect(page.locator("#active-version")).to_contain_text("v2")
    page.screenshot(path=str(screenshot_path("review-approved")), full_page=True)

    learning = digest.current_learning(scene.tenant.name, scene.agent)
    assert learning is not None and learning.number == 2
    assert "escalate-chargebacks" in learning.body
    [v2] = [v for v in list_versions(scene.tenant.name, scene.agent) if v.number == 2]
    assert v2.approved_by is not None and "Ann (owner key dg_owner_" in v2.approved_by


def test_an_owner_releases_a_quarantined_lesson(page: object, review_scene: ReviewScene) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    scene = review_scene
    page.goto(f"/review/agents/{scene.agent}/lessons?status=quarantined")
    page.fill("#key", scene.tenant.owner_key)
    page.click("button[type=submit]")
    # back on the page asked for, filtered to the quarantined lesson
    expect(page.locator("h1")).to_have_text(f"Lessons of {scene.agent}")
    expect(page.locator("select[name=status]")).to_have_value("quarantined")
    row = page.locator("tr.status-quarantined")
    expect(row).to_have_count(1)
    expect(page.locator("tbody tr")).to_have_count(1)
    shoot_widths(page, "review-lessons")  # the lesson table at 800 pixels too
    row.locator("a").first.click()
    expect(page.locator("#lesson-status")).to_have_text("quarantined")
    expect(page.locator(".reason").first).to_contain_text("injection screen")
    page.fill("#release-reason", "read the evidence; the order id rule is real")
    shoot_widths(page, "review-quarantined-lesson")
    page.click("#release")
    expect(page.locator("#lesson-status")).to_have_text("active")
    page.screenshot(path=str(screenshot_path("review-released")), full_page=True)

    detail = lesson_detail(scene.tenant.name, scene.agent, scene.quarantined_id)
    assert detail.lesson.status == "active" and detail.lesson.trust == "reviewed"
    assert "Ann (owner key dg_owner_" in (detail.history[-1].reason or "")

    # its expiry: a date, then never again
    expect(page.locator("#expiry")).to_have_text("never")
    page.fill("#expires-on", "2031-05-01")
    page.click("#set-expiry")
    expect(page.locator("#expiry")).to_have_text("2031-05-01 00:00 UTC")
    detail = lesson_detail(scene.tenant.name, scene.agent, scene.quarantined_id)
    assert detail.expires_at is not None and detail.expires_at.year == 2031
    assert (detail.history[-1].reason or "").startswith("expiry set to 2031-05-01")
    page.click("#never-expire")
    expect(page.locator("#expiry")).to_have_text("never")
    assert lesson_detail(scene.tenant.name, scene.agent, scene.quarantined_id).expires_at is None

    # the agent's settings, on its page
    page.goto(f"/review/agents/{scene.agent}")
    expect(page.locator("#learning-state")).to_have_text("on")
    page.select_option("#learning", "off")
    page.fill("#instructions", "Learn only about refunds.")
    page.click("#save-settings")
    expect(page.locator(".note")).to_contain_text("changed learning, instructions")
    expect(page.locator("#learning-state")).to_contain_text("off")
    expect(page.locator("#instructions-state")).to_have_text("Learn only about refunds.")
    page.screenshot(path=str(screenshot_path("review-agent-settings")), full_page=True)
    settings = agent_settings(scene.tenant.name, scene.agent)
    assert not settings.enable_learning
    assert settings.learning_instructions == "Learn only about refunds."


def test_a_post_without_the_csrf_token_is_refused(page: object, review_scene: ReviewScene) -> None:
    from playwright.sync_api import Page, expect

    assert isinstance(page, Page)
    scene = review_scene
    page.goto("/review/login")
    page.fill("#key", scene.tenant.owner_key)
    page.click("button[type=submit]")
    expect(page.locator("h1")).to_have_text("Agents")
    target = f"/review/agents/{scene.agent}/versions/2/approve"
    # the browser's own session cookie goes with these requests; only the token is missing
    for form in ({}, {"csrf": "0" * 64}):
        refused = page.request.post(target, form=form)
        assert refused.status == 403, refused.text()
        assert "CSRF" in refused.text()
    # a page of another site posting with the right token is refused by its Origin
    page.goto(f"/review/agents/{scene.agent}/versions/2")
    token = page.locator("input[name=csrf]").first.get_attribute("value")
    assert token
    forged = page.request.post(
        target, form={"csrf": token}, headers={"Origin": "http://evil.example"}
    )
    assert forged.status == 403
    page.goto(f"/review/agents/{scene.agent}/versions/2")
    expect(page.locator("#version-status")).to_have_text("pending")
    learning = digest.current_learning(scene.tenant.name, scene.agent)
    assert learning is not None and learning.number == 1
    # the same browser with the token does it: the refusals were about the token
    done = page.request.post(target, form={"csrf": token})
    assert done.ok
    learning = digest.current_learning(scene.tenant.name, scene.agent)
    assert learning is not None and learning.number == 2
