"""What the reflect pipeline embeds (issue 27 point 3): each new lesson text once, an event's
candidates together, and never again in another worker process, which reads the vector stored
with the lesson.

The static table embeds; a spy on its ``embed`` records every list of texts it is given (the
behaviour is unchanged). "Another worker process" is this process with everything it keeps
forgotten (``digest.runtime``), as a forked worker child starts."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.identity.embedding import STATIC_MODEL, StaticEmbedder
from digest.lessons.vectors import vector_key
from digest.models import Lesson
from digest.pipeline import drain
from digest.text import lesson_text
from tests.conftest import _reset_process_state

AGENT = "bot"
TOOLS = ["issue_refund", "lookup_order", "send_email", "create_ticket", "update_address"]
FIELDS = ["amount", "currency", "order_id", "postcode", "recipient"]


def _failures(tenant: str, start: int, stop: int) -> None:
    """Distinct tool failures, each a lesson of its own."""
    for i in range(start, stop):
        tool, field = TOOLS[i % len(TOOLS)], FIELDS[i // len(TOOLS) % len(FIELDS)]
        digest.record_run(
            tenant, AGENT, task=f"help customer {i} with their {tool} request",
            outcome="failure",
            tool_calls=[{"tool": tool, "args": {}, "ok": False, "error": f"{field} is required"}],
        )  # fmt: skip


def _lesson_texts(tenant_lessons_before: set[int] | None = None) -> dict[int, str]:
    """The active lessons' texts by id (those not in ``tenant_lessons_before``); each stores
    the vector of its text as it is now."""
    with session_scope() as session:
        rows = session.execute(
            select(Lesson.id, Lesson.situation, Lesson.correction, Lesson.embedding_key).where(
                Lesson.status == "active"
            )
        ).all()
    for row in rows:
        assert row.embedding_key == vector_key(
            STATIC_MODEL, lesson_text(row.situation, row.correction)
        )
    return {
        row.id: lesson_text(row.situation, row.correction)
        for row in rows
        if tenant_lessons_before is None or row.id not in tenant_lessons_before
    }


def test_each_new_lesson_text_is_embedded_once_and_never_by_another_worker(
    sqlite_env: str, tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[list[str]] = []
    real = StaticEmbedder.embed

    def spy(self: StaticEmbedder, texts: Sequence[str]) -> list[np.ndarray]:
        calls.append(list(texts))
        return real(self, texts)

    monkeypatch.setattr(StaticEmbedder, "embed", spy)
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", "static")  # the suite's default is none
    _reset_process_state()
    _failures(tenant, 0, 8)
    # the owner's answer, then the same answer saying more: the lesson's words are updated
    digest.record_answer(tenant, AGENT, question="Do we ship to Norway?", answer="Yes, from Oslo.")
    digest.record_answer(
        tenant, AGENT, question="Do we ship to Norway?",
        answer="Yes, from Oslo, within three working days.",
    )  # fmt: skip
    drain()
    first = _lesson_texts()
    assert [t for t in first.values() if "three working days" in t], first
    assert len(first) >= 4, first
    embedded = Counter(text for call in calls for text in call)
    assert {text: embedded[text] for text in first.values()} == dict.fromkeys(first.values(), 1)

    # Another worker process: the lessons' vectors come from their rows, none is computed.
    calls.clear()
    _reset_process_state()
    _failures(tenant, 8, 14)
    drain()
    later = _lesson_texts(set(first))
    assert later, "the second stream adds lessons"
    embedded = Counter(text for call in calls for text in call)
    assert not [text for text in first.values() if embedded[text]], calls
    assert {text: embedded[text] for text in later.values()} == dict.fromkeys(later.values(), 1)
