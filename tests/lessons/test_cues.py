"""digest.lessons.cues: the telling words of a run's task, kept for retrieval only (issue 24
point 5), and how the lessons a run teaches or supports gather them."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.lessons.cues import MAX_CUES, event_cues, merged, telling_words
from digest.models import Lesson, LessonHistory
from digest.pipeline import drain

AGENT = "bot"


@pytest.mark.parametrize(
    ("task", "words"),
    [
        (
            "Hi there! I received my order of hiking boots last week, but the boots are too "
            "small. Can I exchange them for a size 10?",
            # the sentence that asks first (digest.lessons.request)
            ["exchange", "size", "received", "order", "hiking", "boots", "small"],
        ),
        # a name, an e-mail address, an order number and a zip code are not what the task is
        (
            "Hi, I'm Yusuf Rossi from 19122 (yusuf@example.com). I want to return my Bluetooth "
            "speaker, order #W2378156.",
            ["return", "speaker", "order"],
        ),
        # German capitalises its nouns: there a capital is not a name
        (
            "Hallo, ich möchte meine Bestellung stornieren, die Lieferung dauert zu lange.",
            ["bestellung", "stornieren", "lieferung", "dauert", "lange"],
        ),
        ("Hola, quiero devolver las zapatillas que compré.", ["devolver", "zapatillas", "compré"]),
        ("", []),
    ],
)
def test_the_telling_words_of_a_task(task: str, words: list[str]) -> None:
    assert telling_words(task) == words


def test_only_runs_give_cues_and_a_lesson_keeps_at_most_so_many() -> None:
    assert event_cues("run_outcome", {"task": "cancel the yoga mat order"}) == [
        "cancel", "yoga", "order",
    ]  # fmt: skip
    assert event_cues("owner_answer", {"question": "Do you ship to Norway?"}) == []
    assert event_cues("run_outcome", None) == []
    assert merged(["a1", "b2"], ["b2", "c3"]) == ["a1", "b2", "c3"]
    many = [f"w{i}" for i in range(2 * MAX_CUES)]
    assert merged(many[:10], many) == many[:MAX_CUES]


def _run(tenant: str, task: str, error: str, contact: str) -> int:
    return digest.record_run(
        tenant, AGENT, task=task, outcome="failure", contact_id=contact,
        tool_calls=[{"tool": "get_order_details", "args": {"order_id": "W1"}, "ok": False,
                     "error": error}],
    )  # fmt: skip


def _lessons(tenant: str) -> list[Any]:
    with session_scope() as session:
        return list(session.scalars(select(Lesson).order_by(Lesson.id)))


def test_a_lesson_gathers_the_words_of_every_task_that_supports_it(
    sqlite_env: str, tenant: str
) -> None:
    """The same failure met in an exchange and in a refund is found from either kind of task;
    its text, tags and history never carry the users' words."""
    _run(tenant, "I want to exchange my hiking boots for a bigger size", "order 12 not found", "a")
    _run(tenant, "The mug I ordered arrived broken, refund please", "order 9 not found", "b")
    drain()
    [lesson] = _lessons(tenant)
    assert lesson.support_count == 2
    assert lesson.cues == [
        "exchange", "hiking", "boots", "bigger", "size", "ordered", "arrived", "broken", "refund",
    ]  # fmt: skip
    for text in (lesson.title, lesson.situation, lesson.correction, lesson.mistake, lesson.tags):
        assert "hiking" not in str(text) and "broken" not in str(text)
    with session_scope() as session:
        history = session.scalars(select(LessonHistory.after)).all()
    assert history and all("hiking" not in str(after) for after in history)
    assert "[KNOWN PITFALLS" in digest.pitfalls(tenant, AGENT, "can I exchange these boots?")
    assert "[KNOWN PITFALLS" in digest.pitfalls(tenant, AGENT, "my plate arrived broken")
    assert digest.pitfalls(tenant, AGENT, "what are your opening hours?") == ""


def test_with_an_embedding_model_a_task_in_other_words_finds_the_lesson(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What the tasks meant is kept as well (one vector per kind of task): a later task that
    shares no word with them still finds the lesson; the vectors are never text."""
    from digest.lessons.vectors import TASK_SLOTS, cue_vectors
    from tests.conftest import _reset_process_state

    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", "local")
    _reset_process_state()
    _run(tenant, "The mug I ordered arrived broken, refund please", "order 9 not found", "a")
    _run(tenant, "My vase was shattered in the parcel, I want a refund", "order 4 not found", "b")
    _run(tenant, "Please book a table for four on Friday evening", "order 7 not found", "c")
    drain()
    with session_scope() as session:
        lesson_id, stored, key = session.execute(
            select(Lesson.id, Lesson.cue_embedding, Lesson.cue_embedding_key)
        ).one()
    vectors = cue_vectors(stored, key, "local/all-MiniLM-L6-v2-int8", 384)
    assert vectors is not None and 2 <= len(vectors) <= TASK_SLOTS  # refunds, and a booking
    prompt = "My cup was cracked on delivery, I want my money back"  # no keyword in common
    assert f"(#{lesson_id})" in digest.pitfalls(tenant, AGENT, prompt)
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", "none")
    _reset_process_state()
    assert digest.pitfalls(tenant, AGENT, prompt) == ""  # words alone: nothing in common
