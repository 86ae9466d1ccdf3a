"""One reflect core: the embedded default and a real worker with a remote model decide the same.

The same scripted stream (tool failures, two operator edits of one diff shape that teach two
content rules, an edit that puts another figure in place of one of them, owner answers, exact
repeats and a repeat with other ids, one error of two sibling tools, an API change that
reverses a lesson (reported by two contacts: one run's change to a lesson agents read waits
for the release rule), a reversed owner answer, a transient fault, a manual lesson) goes
through ``digest drain`` + ``digest improve-now`` with ``offline/rules`` in this process (one
held transaction per batch), and through a real Celery worker whose model is remote: an
OpenAI-compatible server on 127.0.0.1 that answers what ``offline/rules`` answers
(``tests.fake_llm.OfflineOverHTTP``), so every event is judged with no transaction open and
written in its own. The operations per event, the lessons and their history, and the
versions must come out the same: the model call is the only thing the two paths do apart.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select
from typer.testing import CliRunner

import digest
from digest.cli import app
from digest.config import get_settings
from digest.db import session_scope
from digest.models import DigestRun, Event, LearningVersion, Lesson, LessonHistory
from digest.outbox import publish
from digest.tenants import find_agent
from tests.conftest import _reset_process_state, llm_env, spawn_worker, wait_until
from tests.fake_llm import OfflineOverHTTP

AGENT = "bot"
DONE = {"reflected", "skipped", "failed", "dead"}


def _stream(tenant: str) -> list[int]:
    """Capture the scripted stream for ``tenant``; the event ids in capture order."""

    def refund(order: str, contact: str) -> int:
        return digest.record_run(
            tenant, AGENT, task=f"Refund order {order} for the customer", outcome="failure",
            tool_calls=[{"tool": "issue_refund", "args": {"order": order}, "ok": False,
                         "error": "ValidationError: field 'amount' is required"}],
            contact_id=contact,
        )  # fmt: skip

    ids = [
        refund("1182", "c1"),
        refund("2291", "c2"),  # the same failure with other ids
        digest.record_edit(
            tenant,
            AGENT,
            contact_id="c3",
            original="Hi!!! We will refund you tomorrow for sure!!! 😀",
            final="Hello. Refunds take five business days to reach your account.",
        ),
        digest.record_edit(  # the same diff shape, another content rule: its own lesson
            tenant,
            AGENT,
            contact_id="c5",
            original="Hi!!! Your parcel will be there today for sure!!! 😀",
            final="Hello. Parcels leave our Oslo warehouse on weekdays.",
        ),
        digest.record_edit(  # another figure in place of the refund rule's: it reverses it
            tenant,
            AGENT,
            contact_id="c7",
            original="Thanks for waiting. Refunds take five business days to reach your account.",
            final="Thanks for waiting. Refunds take up to ten business days to reach your account.",
        ),
        digest.record_answer(
            tenant,
            AGENT,
            question="Do you take weekend appointments?",
            answer="No, we are open on weekdays only.",
        ),
        digest.record_run(
            tenant,
            AGENT,
            task="Where is order 77?",
            outcome="failure",
            tool_calls=[
                {
                    "tool": "lookup_order",
                    "args": {"id": 77},
                    "ok": False,
                    "error": "PermissionError: token lacks scope orders:read",
                }
            ],
        ),
        refund("1182", "c1"),  # an exact repeat of the first run
        digest.record_run(
            tenant,
            AGENT,
            task="Add Ada Lim as a contact",
            outcome="failure",
            tool_calls=[
                {
                    "tool": "crm_create_contact",
                    "args": {"properties": {"name": "Ada Lim", "shoe_size": "38"}},
                    "ok": False,
                    "error": 'Property "shoe_size" does not exist',
                }
            ],
        ),
        digest.record_run(  # the same error of a sibling tool (another action): its support
            tenant,
            AGENT,
            task="Update contact 4471's hat size",
            outcome="failure",
            tool_calls=[
                {
                    "tool": "crm_update_contact",
                    "args": {"id": 4471, "properties": {"hat_size": "M"}},
                    "ok": False,
                    "error": 'Property "hat_size" does not exist',
                }
            ],
        ),
        digest.record_run(  # the API changed: the first failure's lesson is reversed
            tenant,
            AGENT,
            task="Refund order 3310 for the customer",
            outcome="failure",
            tool_calls=[
                {
                    "tool": "issue_refund",
                    "args": {"order": "3310", "amount": 20},
                    "ok": False,
                    "error": "ValidationError: field 'amount' is no longer accepted; "
                    "send 'amount_cents' instead",
                }
            ],
            contact_id="c4",
        ),
        digest.record_run(  # a second contact reports it: released, it replaces the old lesson
            tenant,
            AGENT,
            task="Refund order 3311 for the customer",
            outcome="failure",
            tool_calls=[
                {
                    "tool": "issue_refund",
                    "args": {"order": "3311", "amount": 20},
                    "ok": False,
                    "error": "ValidationError: field 'amount' is no longer accepted; "
                    "send 'amount_cents' instead",
                }
            ],
            contact_id="c6",
        ),
        digest.record_answer(  # the owner reverses the answer
            tenant,
            AGENT,
            question="Do you take weekend appointments?",
            answer="Yes: on Saturdays from 9 to 12, since March.",
        ),
        digest.record_run(
            tenant,
            AGENT,
            task="Refund order 5",
            outcome="failure",
            error="TimeoutError: upstream timed out after 30 s",
        ),
        digest.record_lesson(
            tenant, AGENT, "invoices: Always attach the invoice PDF when confirming a refund"
        ),
        digest.record_answer(  # the reversed answer, once more word for word
            tenant,
            AGENT,
            question="Do you take weekend appointments?",
            answer="Yes: on Saturdays from 9 to 12, since March.",
        ),
    ]
    return ids


def _outcome(tenant: str, ids: list[int]) -> dict[str, Any]:
    """What reflection and compose left for ``tenant``, with database ids replaced by their
    position (events in capture order, lessons in creation order) and the tenant's name by T."""
    with session_scope() as session:
        agent_id = find_agent(session, tenant, AGENT).id
        position = {event_id: n for n, event_id in enumerate(ids)}
        statuses = [
            session.scalar(select(Event.status).where(Event.id == event_id)) for event_id in ids
        ]
        lessons = list(
            session.scalars(select(Lesson).where(Lesson.agent_id == agent_id).order_by(Lesson.id))
        )
        number = {lesson.id: n for n, lesson in enumerate(lessons)}
        runs = session.execute(
            select(DigestRun).where(DigestRun.agent_id == agent_id, DigestRun.kind == "reflect")
        ).scalars()
        operations = sorted(
            (position[run.event_id], run.n_add, run.n_update, run.n_delete, run.n_noop, run.n_skip)
            for run in runs
            if run.event_id is not None
        )
        history = [
            (number[row.lesson_id], row.op, position.get(row.event_id or -1))
            for row in session.scalars(
                select(LessonHistory)
                .where(LessonHistory.agent_id == agent_id)
                .order_by(LessonHistory.id)
            )
        ]
        versions = [
            (
                v.number,
                v.status,
                v.trigger,
                v.body_markdown.replace(tenant, "T"),
                v.change_summary.replace(tenant, "T"),
                sorted(number[i] for i in v.folded_lesson_ids),
                sorted(position[i] for i in v.supporting_event_ids if i in position),
            )
            for v in session.scalars(
                select(LearningVersion)
                .where(LearningVersion.agent_id == agent_id)
                .order_by(LearningVersion.number)
            )
        ]
        return {
            "statuses": statuses,
            "operations": operations,
            "lessons": [
                (
                    lesson.status,
                    lesson.scope,
                    lesson.title,
                    lesson.situation,
                    lesson.mistake,
                    lesson.correction,
                    list(lesson.tags or []),
                    lesson.source,
                    lesson.trust,
                    lesson.support_count,
                    number.get(lesson.superseded_by_id or -1),
                )
                for lesson in lessons
            ],
            "history": history,
            "versions": versions,
        }


@pytest.fixture()
def offline_http() -> Iterator[OfflineOverHTTP]:
    server = OfflineOverHTTP().start()
    yield server
    server.stop()


def test_drain_with_offline_rules_and_a_worker_with_a_remote_model_decide_the_same(
    services_env: dict[str, str],
    pg_url: str,
    redis_url: str,
    offline_http: OfflineOverHTTP,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Compose only when asked (improve-now), so both paths publish the same versions.
    monkeypatch.setenv("DIGEST_THRESHOLD_SIGNALS", "1000")

    # The embedded default: no broker, offline/rules, `digest drain` then `digest improve-now`.
    embedded = f"one-core-a-{uuid.uuid4().hex[:8]}"
    monkeypatch.delenv("DIGEST_BROKER_URL")
    _reset_process_state()
    embedded_ids = _stream(embedded)
    cli = CliRunner()
    drained = cli.invoke(app, ["drain", "--tenant", embedded])
    assert drained.exit_code == 0, drained.output
    improved = cli.invoke(app, ["improve-now", "--tenant", embedded, "--agent", AGENT])
    assert improved.exit_code == 0, improved.output

    # A real worker whose model is remote (litellm over HTTP), on a queue of its own.
    remote = f"one-core-b-{uuid.uuid4().hex[:8]}"
    queue = f"one-core-{uuid.uuid4().hex[:8]}"
    env = {
        **llm_env(pg_url, redis_url, queue, offline_http.api_base),
        "DIGEST_LLM_MODEL": "openai/offline-rules-over-http",
        "DIGEST_THRESHOLD_SIGNALS": "1000",
    }
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    _reset_process_state()
    remote_ids = _stream(remote)
    worker = spawn_worker(env, tmp_path / "worker.log", concurrency=1)
    try:

        def all_done() -> bool:
            with session_scope() as session:
                found = session.scalars(select(Event.status).where(Event.id.in_(remote_ids)))
                return all(status in DONE for status in found)

        wait_until(all_done, timeout=90, what="the worker reflected the stream")
        assert publish.publish_task(publish.TASK_IMPROVE_NOW, [remote, AGENT], get_settings())

        def composed() -> bool:
            with session_scope() as session:
                agent_id = find_agent(session, remote, AGENT).id
                return any(
                    session.scalars(
                        select(DigestRun.id).where(
                            DigestRun.agent_id == agent_id, DigestRun.kind == "compose"
                        )
                    )
                )

        wait_until(composed, timeout=60, what="the worker composed a version")
    finally:
        worker.stop()

    a, b = _outcome(embedded, embedded_ids), _outcome(remote, remote_ids)
    assert offline_http.requests > 0  # the remote path really asked the model over HTTP
    # The stream is worth comparing: it learned, repeated, reversed, skipped and published.
    assert a["statuses"].count("reflected") >= 7 and "skipped" in a["statuses"]
    assert any(op == "NOOP" for _, op, _ in a["history"])
    # the reversed API, the refund rule's figure replaced and the reversed owner answer: each
    # old lesson is superseded by the new one, which stays
    superseded = [lesson for lesson in a["lessons"] if lesson[0] == "superseded"]
    assert sorted(lesson[7] for lesson in superseded) == [
        "operator_edit", "owner_answer", "run_outcome",
    ]  # fmt: skip
    for lesson in superseded:
        assert lesson[-1] is not None and a["lessons"][lesson[-1]][0] == "active", a["lessons"]
    assert sum(op == "DELETE" for _, op, _ in a["history"]) == 3, a["history"]
    # the edits: three content rules (the refund rule's and the one replacing it), and one
    # promise and one tone rule supported by the two edits of one shape
    taught = [lesson for lesson in a["lessons"] if "operator-edit" in lesson[6]]
    contents = [lesson for lesson in taught if "content" in lesson[6]]
    assert len(contents) == 3 and all(lesson[9] == 1 for lesson in contents), taught
    assert [lesson[5] for lesson in contents if lesson[0] == "superseded"] == [
        "Say «Refunds take five business days to reach your account» in replies like this."
    ]
    assert sorted(lesson[9] for lesson in taught if "content" not in lesson[6]) == [2, 2]
    assert a["versions"], "the embedded path published no version"
    # one error of two sibling tools (create and update of one resource): one lesson, whose
    # second run is its support
    schema = [lesson for lesson in a["lessons"] if "`crm_create_contact`" in lesson[5]]
    assert [lesson[9] for lesson in schema] == [2], schema
    assert not [lesson for lesson in a["lessons"] if "`crm_update_contact`" in lesson[5]]
    for part in ("statuses", "operations", "lessons", "history", "versions"):
        assert a[part] == b[part], part
