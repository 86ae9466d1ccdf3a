"""A later task of the kind that hit an error finds its lesson with embeddings off (issue 24
point 5), on the embedded default (SQLite, offline/rules, ``drain`` in process).

Where one run releases a lesson (the tenant's gate 1), the words of a later run's task join
the lesson's cues when it keeps no meaning of its tasks (embeddings off): a later first message
told in that task's words finds the lesson. Where one run does not release a lesson (the
default gate), one run adds no cues to a released lesson (``tests/test_release_reads.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.lessons.hits import flush_hits
from digest.models import Lesson
from digest.pipeline import drain
from digest.tenants import set_tenant
from tests.conftest import _reset_process_state

AGENT = "travel-agent"
FIRST = "Please book me a room in a hotel near the harbour for next weekend."
LATER = "Hi! I'd like to know the sum of my voucher balances, please."
PROMPT = "Hello, could you tell me what my vouchers add up to?"


def _fail(tenant: str, task: str, contact: str, total: int) -> None:
    calls = [
        {"tool": "reserve_room", "args": {"hotel": "h-1"}, "ok": False,
         "error": f"Error: payment amount does not add up, total price is {total}, but paid 10"},
    ]  # fmt: skip
    digest.record_run(
        tenant, AGENT, task=task, tool_calls=calls, outcome="failure", contact_id=contact
    )
    drain()


@dataclass(frozen=True)
class _Seen:
    id: int
    support_count: int
    cues: list[str]
    has_task_meaning: bool


def _the_lesson(tenant: str) -> _Seen:
    with session_scope() as session:
        [lesson] = session.scalars(select(Lesson).where(Lesson.status == "active")).all()
        return _Seen(
            lesson.id, lesson.support_count, list(lesson.cues or []),
            lesson.cue_embedding is not None,
        )  # fmt: skip


def _shown(tenant: str, prompt: str) -> set[int]:
    block = digest.pitfalls(tenant, AGENT, prompt)
    flush_hits()
    return {int(found) for found in re.findall(r"\(#(\d+)\)", block)}


@pytest.fixture
def words_only(sqlite_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", "none")
    _reset_process_state()


def test_a_later_runs_task_words_find_a_released_lesson_when_one_run_releases(
    words_only: None, tenant: str
) -> None:
    set_tenant(tenant, frequency_gate=1, independent_spread_s=0)
    _fail(tenant, FIRST, "ann", 300)
    lesson = _the_lesson(tenant)
    assert not lesson.has_task_meaning and "voucher" not in " ".join(lesson.cues)
    assert lesson.id not in _shown(tenant, PROMPT)  # released, but told in other words
    _fail(tenant, LATER, "bob", 480)
    cited = _the_lesson(tenant)
    assert cited.id == lesson.id and cited.support_count == lesson.support_count + 1
    assert "voucher" in cited.cues and "harbour" in cited.cues
    # "vouchers" begins no word of the lesson's; the later task's words are its cues now
    assert lesson.id in _shown(tenant, PROMPT)


def test_under_a_gate_of_two_a_later_run_adds_no_words_to_a_released_lesson(
    words_only: None, tenant: str
) -> None:
    set_tenant(tenant, frequency_gate=2, independent_spread_s=0)
    _fail(tenant, FIRST, "ann", 300)
    _fail(tenant, FIRST, "bob", 310)
    released = _the_lesson(tenant)
    assert released.id in _shown(tenant, "book a hotel room near the harbour")
    _fail(tenant, LATER, "mallory", 480)
    cited = _the_lesson(tenant)
    assert cited.support_count == released.support_count + 1
    assert cited.cues == released.cues
    assert released.id not in _shown(tenant, PROMPT)


def test_with_an_embedder_a_later_run_adds_its_meaning_not_its_words(
    sqlite_env: str, monkeypatch: pytest.MonkeyPatch, tenant: str
) -> None:
    """The static table (the default): the later task reaches the lesson as its meaning
    (``digest.lessons.vectors.add_task_meaning``); its words stay out, as before."""
    monkeypatch.setenv("DIGEST_EMBEDDING_MODEL", "static")
    _reset_process_state()
    set_tenant(tenant, frequency_gate=1, independent_spread_s=0)
    _fail(tenant, FIRST, "ann", 300)
    lesson = _the_lesson(tenant)
    assert lesson.has_task_meaning
    _fail(tenant, LATER, "bob", 480)
    cited = _the_lesson(tenant)
    assert cited.support_count == lesson.support_count + 1 and cited.cues == lesson.cues
