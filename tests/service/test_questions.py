"""The agent asks its owner over HTTP, the owner answers in the review page (a real headless
Chromium), and a real worker merges paraphrases and makes the answer a lesson (issue 28): ten
threads asking paraphrases at once (most of which the words alone do not join: the worker's
judge does, ``digest.questions.merge``) make one question with count 10; the answer closes it
for all ten; the next ask in any of their words is ``known``, from the answer on its way or
from the lesson. Another tenant's question is 404; the other kind of key is 403; bad input is
422 naming the field."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx

from tests.browser import screenshot_path
from tests.conftest import WorkerProcess, wait_until
from tests.service.conftest import Server, Tenant, spawn_server

#: ten ways to ask one question (``tests/questions/data/tuning.json``'s weekend group, but for
#: "Can I get an appointment on a Saturday or Sunday?", whose names the rules keep apart, and
#: one more wording)
PARAPHRASES = [
    "Do you take weekend appointments?",
    "Do you see clients over the weekend?",
    "Is it possible to book a slot on a weekend?",
    "Are you open for bookings at weekends?",
    "Can I schedule a visit for the weekend?",
    "Do you work weekends?",
    "Any chance of a weekend booking?",
    "Are weekend visits possible?",
    "Do you have availability on weekends?",
    "Can I book an appointment on the weekend?",
]


def _ask(server: Server, owner: Tenant, thread: int) -> dict[str, object]:
    with httpx.Client(base_url=server.url, timeout=20) as http:
        answer = http.post(
            "/v1/agents/front-desk/ask",
            json={"question": PARAPHRASES[thread], "thread_id": f"thread-{thread}",
                  "context": f"customer {thread} wants to come by"},
            headers=owner.auth(),
        )  # fmt: skip
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def test_ten_threads_ask_one_question_and_the_owners_answer_in_the_review_page_closes_it(
    server: Server,
    client: httpx.Client,
    make_tenant: Callable[[], Tenant],
    start_worker: Callable[..., WorkerProcess],
    page: object,
) -> None:
    from playwright.sync_api import Page, expect

    owner = make_tenant()
    worker = start_worker()
    with ThreadPoolExecutor(max_workers=10) as pool:
        asked = list(pool.map(lambda i: _ask(server, owner, i), range(10)))
    assert {a["status"] for a in asked} == {"asked"}

    def merged() -> list[dict[str, object]] | None:
        queue = client.get("/v1/questions", headers=owner.auth("owner"))
        assert queue.status_code == 200, queue.text
        found = list(queue.json())
        return found if len(found) == 1 and found[0]["count"] == 10 else None

    [question] = wait_until(merged, timeout=90, what="the worker merging ten paraphrases")
    assert (question["count"], question["threads"], question["status"]) == (10, 10, "open")
    assert question["id"] == min(int(str(a["question_id"])) for a in asked)

    # another tenant sees nothing of it; an agent key does not read the queue
    stranger = make_tenant()
    qid = question["id"]
    assert client.get(f"/v1/questions/{qid}", headers=stranger.auth("owner")).status_code == 404
    refused = client.post(
        f"/v1/questions/{qid}/answer", json={"answer": "No.", "by": "eve"},
        headers=stranger.auth("owner"),
    )  # fmt: skip
    assert refused.status_code == 404
    assert client.get("/v1/questions", headers=stranger.auth("owner")).json() == []
    assert client.get("/v1/questions", headers=owner.auth()).status_code == 403
    empty = client.post("/v1/agents/front-desk/ask", json={"question": ""}, headers=owner.auth())
    assert empty.status_code == 422 and "question" in empty.text

    # the owner answers in the review page
    assert isinstance(page, Page)
    page.goto("/review/login")
    page.fill("#key", owner.owner_key)
    page.click("button[type=submit]")
    page.goto("/review/agents/front-desk")
    page.click("#questions")
    card = page.locator(f"#question-{qid}")
    expect(card.locator("h2")).to_contain_text("Asked 10 times in 10 conversations")
    # the words of whichever thread asked first, as a quotation
    assert card.locator("blockquote").inner_text().strip() == question["text"]
    assert question["text"] in PARAPHRASES
    # the paraphrases merged into it are shown in their own words, as quotations
    card.locator("details summary").click()
    asked_as = card.locator(".asked-as")
    expect(asked_as.first).to_be_visible()
    assert asked_as.count() >= 1
    assert any(w in asked_as.first.inner_text() for w in PARAPHRASES)
    page.screenshot(path=str(screenshot_path("review-questions")), full_page=True)
    card.locator("textarea").fill("Yes: Saturdays from 9 to 13, by appointment.")
    card.locator(f"#answer-button-{qid}").click()
    expect(page.locator(".note")).to_contain_text(f"question {qid} answered")
    expect(page.locator("#no-questions")).to_be_visible()

    closed = client.get(f"/v1/questions/{qid}", headers=owner.auth("owner")).json()
    assert (closed["status"], closed["count"], closed["threads"]) == ("answered", 10, 10)
    assert closed["closed_by"] and "Ann" in closed["closed_by"]

    # known, in every one of the ten wordings (those merged into it too): from the answer on
    # its way to the worker, or from the trusted lesson once the worker reflected it
    other = client.post(
        "/v1/agents/front-desk/ask", json={"question": "Do you ship to Norway?"},
        headers=owner.auth(),
    ).json()  # fmt: skip
    assert other["status"] == "asked", other  # another subject: another question
    for thread in range(10):
        known = _ask(server, owner, thread)
        assert known["status"] == "known", PARAPHRASES[thread]
        # the queue's answer (this question), or the lesson made of it
        assert known["question_id"] == qid or known["lesson_id"] is not None, known
        assert "Saturdays from 9 to 13" in str(known["answer"])

    def from_the_lesson() -> dict[str, object] | None:
        found = _ask(server, owner, 7)
        return found if found["lesson_id"] is not None else None

    learned = wait_until(from_the_lesson, timeout=120, what="the answer reflected into a lesson")
    assert learned["status"] == "known"
    assert "Saturdays from 9 to 13" in str(learned["answer"])
    assert worker.proc.poll() is None


def test_over_http_limited_never_loses_a_question_a_worker_merges_the_held_paraphrase(
    server_env: dict[str, str],
    make_tenant: Callable[[], Tenant],
    start_worker: Callable[..., WorkerProcess],
    tmp_path: Path,
) -> None:
    """A server whose agents may open one question a day: the second question is ``limited``
    (held, its id given); the worker finds it a paraphrase of the open one and merges it, so
    the owner's queue holds one question asked twice, from both threads."""
    limited_server = spawn_server(
        {**server_env, "DIGEST_ASK_AGENT_DAILY": "1"}, tmp_path / "server.log"
    )
    try:
        owner = make_tenant()
        start_worker()
        first, held = (_ask(limited_server, owner, thread) for thread in (0, 1))
        assert (first["status"], held["status"]) == ("asked", "limited")
        assert held["question_id"] and held["question_id"] != first["question_id"]
        assert held["frees_at"] is not None
        with httpx.Client(base_url=limited_server.url, timeout=20) as client:

            def merged() -> list[Any] | None:
                found = client.get("/v1/questions", headers=owner.auth("owner")).json()
                return found if len(found) == 1 and found[0]["count"] == 2 else None

            [question] = wait_until(merged, timeout=90, what="the held paraphrase merged")
            assert (question["id"], question["threads"]) == (first["question_id"], 2)
            gone = client.get(
                f"/v1/questions/{held['question_id']}", headers=owner.auth("owner")
            ).json()
            assert (gone["status"], gone["duplicate_of"]) == ("merged", first["question_id"])
    finally:
        limited_server.stop()
