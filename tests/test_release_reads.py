"""The release rule at every read an agent makes (issue 25 point 1), on PostgreSQL with a real
worker reflecting the runs (offline/rules): ``pitfalls`` (sync and ``digest.aio``),
``examples`` and the learning document with its summary (``current_learning``).

- one untrusted run changes none of them, though its lesson is learned and counted;
- the same failure from independent contacts reaching the gate is released and read;
- a person's release is read at once, and so is an owner's answer;
- one untrusted run that rewrites (UPDATE) or supersedes (DELETE) a released lesson changes
  none of them either: its change is held as a lesson that replaces the old one once it is
  released itself (corroborated by another contact, or by a person). These run in process on
  PostgreSQL (``drain``) with a scripted model that makes the change: a worker process cannot
  be scripted.
"""

from __future__ import annotations

import asyncio
import json
from html import escape
from typing import Any

import pytest

import digest
import digest.aio
from digest.lessons.service import list_lessons, release_lessons
from digest.model.offline import CANDIDATES_BLOCK, EXISTING_BLOCK
from digest.model.scripted import Messages, event_of, rules, scripted_model, step_of
from digest.pipeline import drain, improve_now
from tests.conftest import WorkerProcess, use_model, wait_for_event

AGENT = "bot"
PROMPT = "Book a courier for order 7 with the right carrier code"
ERROR = "ValidationError: field 'carrier_code' is required"


def fail(
    tenant: str, contact: str, tool: str = "book_courier", task: str = "Book a courier for order 7"
) -> int:
    """One failed run from ``contact``, reflected by the worker."""
    event_id = digest.record_run(
        tenant, AGENT, task=task, outcome="failure",
        tool_calls=[{"tool": tool, "args": {"order": 7}, "ok": False, "error": ERROR}],
        contact_id=contact,
    )  # fmt: skip
    wait_for_event(event_id, {"reflected"})
    return event_id


def reads(tenant: str) -> dict[str, Any]:
    """Everything the agent reads for the prompt: pitfalls (sync and async), examples, and the
    active document with its summary."""
    learning = digest.current_learning(tenant, AGENT)
    return {
        "pitfalls": digest.pitfalls(tenant, AGENT, PROMPT, k=5),
        "aio_pitfalls": asyncio.run(digest.aio.pitfalls(tenant, AGENT, PROMPT, k=5)),
        "examples": [
            (e.event_id, e.draft, e.final) for e in digest.examples(tenant, AGENT, PROMPT)
        ],
        "document": None if learning is None else (learning.number, learning.body),
        "summary": None if learning is None else learning.summary,
    }


def the_run_lesson(tenant: str, tool: str = "book_courier") -> Any:
    [row] = [x for x in list_lessons(tenant, AGENT) if f"`{tool}`" in x.correction]
    return row


def test_one_untrusted_run_changes_nothing_an_agent_reads(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    digest.record_lesson(tenant, AGENT, "Couriers: book couriers before 14:00 only")
    edit = digest.record_edit(
        tenant, AGENT, context="courier booking", original="Your courier is booked.",
        final="Your courier is booked for tomorrow before 14:00; the carrier emails a link.",
    )  # fmt: skip
    wait_for_event(edit, {"reflected"})
    improve_now(tenant, AGENT)
    before = reads(tenant)
    # what the agent reads before: the owner's rule, the edit as an example, a document
    assert "book couriers before 14:00" in before["pitfalls"]
    assert before["aio_pitfalls"] == before["pitfalls"]
    assert [e[0] for e in before["examples"]] == [edit]
    assert before["document"] is not None and "14:00" in before["document"][1]
    assert "14:00" in before["summary"]

    fail(tenant, contact="mallory")
    improve_now(tenant, AGENT)
    after = reads(tenant)
    assert after == before
    assert "book_courier" not in after["pitfalls"] + after["document"][1] + after["summary"]
    # learned and counted, and the owner sees why it waits
    held = the_run_lesson(tenant)
    assert held.status == "active" and held.support_count == 1
    assert (held.release, held.held) == ("held 1/2", "held: 1 of 2 independent sources")


def test_independent_contacts_reaching_the_gate_release_the_lesson(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    fail(tenant, contact="ann")
    fail(tenant, contact="ann")  # the same contact again is no second source
    assert "book_courier" not in digest.pitfalls(tenant, AGENT, PROMPT)
    assert the_run_lesson(tenant).held == "held: 1 of 2 independent sources"
    fail(tenant, contact="bob")
    block = digest.pitfalls(tenant, AGENT, PROMPT)
    assert "`book_courier`" in block
    assert "`book_courier`" in asyncio.run(digest.aio.pitfalls(tenant, AGENT, PROMPT))
    released = the_run_lesson(tenant)
    assert (released.release, released.independent_sources) == ("released", 2)
    improve_now(tenant, AGENT)
    learning = digest.current_learning(tenant, AGENT)
    assert learning is not None and "`book_courier`" in learning.body


def test_one_untrusted_run_adds_no_cues_to_a_released_lesson(
    shared_worker: WorkerProcess, tenant: str
) -> None:
    """A NOOP that cites a released lesson counts, but its task's words do not become the
    lesson's cues: they would choose the prompts it surfaces for, from one run."""
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import Lesson

    fail(tenant, contact="ann")
    fail(tenant, contact="bob")
    lesson = the_run_lesson(tenant)
    assert lesson.release == "released"
    with session_scope() as session:
        cues_before = list(session.scalar(select(Lesson.cues).where(Lesson.id == lesson.id)))
    task = "Zanzibar lighthouse kayak rental quote for marmalade festival"
    before = digest.pitfalls(tenant, AGENT, task, k=5)
    fail(tenant, contact="mallory", task=task)
    cited = the_run_lesson(tenant)
    assert cited.id == lesson.id and cited.support_count == lesson.support_count + 1
    with session_scope() as session:
        cues_after = list(session.scalar(select(Lesson.cues).where(Lesson.id == lesson.id)))
    assert cues_after == cues_before and "zanzibar" not in " ".join(cues_after).casefold()
    assert digest.pitfalls(tenant, AGENT, task, k=5) == before


def test_a_persons_release_is_read_at_once(shared_worker: WorkerProcess, tenant: str) -> None:
    fail(tenant, contact="ann")
    assert digest.pitfalls(tenant, AGENT, PROMPT) == ""
    [done] = release_lessons(tenant, AGENT, [the_run_lesson(tenant).id], by="ann")
    assert done.changed
    assert "`book_courier`" in digest.pitfalls(tenant, AGENT, PROMPT)
    improve_now(tenant, AGENT)
    learning = digest.current_learning(tenant, AGENT)
    assert learning is not None and "`book_courier`" in learning.body


def test_an_owners_answer_is_read_at_once(shared_worker: WorkerProcess, tenant: str) -> None:
    answer = digest.record_answer(
        tenant, AGENT, question="When do couriers pick up parcels?",
        answer="Couriers pick up parcels at 16:00 on weekdays.",
    )  # fmt: skip
    wait_for_event(answer, {"reflected"})
    assert "16:00" in digest.pitfalls(tenant, AGENT, "When will the courier pick up my parcel?")


#: the correction an untrusted run's change puts in place of the released lesson's
CHANGED_ERROR = "ValidationError: field 'carrier_code' was removed, use 'carrier_id'"
NEW_SITUATION = "Calling the `book_courier` tool to book a courier for an order"
NEW_CORRECTION = (
    "The carrier code field was replaced: pass `carrier_id` DHL-X instead of `carrier_code`. "
    f"Observed: `book_courier` failed with «{CHANGED_ERROR}»."
)
CHANGER = "Book a courier for order 8"


def changing_model(op: str, old: dict[str, str]) -> Any:
    """A model that, for the run whose task is ``CHANGER``, draws ``NEW_*`` and applies them
    with ``op`` (UPDATE or DELETE) to the lesson whose correction is ``old["correction"]``;
    once a lesson with the new words exists, it says the run supports that one (NOOP). The
    rest as offline/rules."""

    def changer(messages: Messages) -> bool:
        event = event_of(messages) or {}
        return (event.get("payload") or {}).get("task") == CHANGER

    def handler(messages: Messages) -> str:
        step = step_of(messages)
        text = "\n".join(str(m.get("content") or "") for m in messages if m["role"] == "user")
        if step == "reflect" and changer(messages):
            situation, correction = NEW_SITUATION, NEW_CORRECTION
            return (
                f"<lesson>\n<situation>{escape(situation, quote=False)}</situation>\n"
                "<mistake>The run used the wrong carrier.</mistake>\n"
                f"<correction>{escape(correction, quote=False)}</correction>\n"
                "<tags>book_courier</tags>\n</lesson>"
            )
        existing, candidates = EXISTING_BLOCK.search(text), CANDIDATES_BLOCK.search(text)
        if step != "reconcile" or existing is None or candidates is None:
            return rules(messages)
        shown = json.loads(existing.group(1))
        [candidate] = json.loads(candidates.group(1))
        if "DHL-X" not in str(candidate):
            return rules(messages)
        held = [x for x in shown if "DHL-X" in str(x.get("correction"))]
        before = [x for x in shown if x.get("correction") == old["correction"]]
        if held:
            answer = {"op": "NOOP", "candidate": candidate["candidate"], "id": held[0]["id"]}
        else:
            lesson = {"situation": NEW_SITUATION, "correction": NEW_CORRECTION, "tags": []}
            answer = {"op": op, "candidate": candidate["candidate"], "id": before[0]["id"],
                      "lesson": lesson, "reason": "the carrier changed"}  # fmt: skip
        return json.dumps({"operations": [{"reason": "scripted", **answer}]})

    return handler


def change(tenant: str, contact: str) -> None:
    digest.record_run(
        tenant, AGENT, task=CHANGER, outcome="failure", contact_id=contact,
        tool_calls=[
            {"tool": "book_courier", "args": {"order": 8}, "ok": False, "error": CHANGED_ERROR}
        ],
    )  # fmt: skip
    drain(tenant=tenant)


@pytest.mark.parametrize("op", ["UPDATE", "DELETE"])
def test_one_untrusted_change_to_a_released_lesson_waits_for_the_release_rule(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch, op: str
) -> None:
    words: dict[str, str] = {}
    with scripted_model(changing_model(op, words)) as model:
        use_model(monkeypatch, model.name)
        for contact in ("ann", "bob"):
            digest.record_run(
                tenant, AGENT, task="Book a courier for order 7", outcome="failure",
                tool_calls=[{"tool": "book_courier", "args": {"order": 7}, "ok": False,
                             "error": ERROR}],
                contact_id=contact,
            )  # fmt: skip
            drain(tenant=tenant)
        edit = digest.record_edit(
            tenant, AGENT, context="courier booking", original="Your courier is booked.",
            final="Your courier is booked for tomorrow before 14:00; the carrier emails a link.",
        )  # fmt: skip
        improve_now(tenant, AGENT)
        before = reads(tenant)
        old = the_run_lesson(tenant)
        words.update(situation=old.situation, correction=old.correction)
        assert old.release == "released"
        assert "`book_courier`" in before["pitfalls"] and "`book_courier`" in before["document"][1]
        assert [e[0] for e in before["examples"]] == [edit]

        change(tenant, contact="mallory")
        improve_now(tenant, AGENT)
        assert reads(tenant) == before  # pitfalls, examples, the document and its summary
        assert "DHL-X" not in str(reads(tenant))
        # the change is learned and held: the owner sees what it would replace
        rows = {row.id: row for row in list_lessons(tenant, AGENT)}
        [held] = [row for row in rows.values() if "DHL-X" in row.correction]
        assert rows[old.id].status == "active" and rows[old.id].correction == old.correction
        assert held.held == (
            f"held: 1 of 2 independent sources; once released it replaces lesson {old.id}, "
            "which agents read until then"
        )
        if op == "UPDATE":  # corroborated by another contact: released, and it replaces
            change(tenant, contact="carol")
        else:  # released by a person
            release_lessons(tenant, AGENT, [held.id], by="ann")
        rows = {row.id: row for row in list_lessons(tenant, AGENT)}
        assert (rows[held.id].release, rows[old.id].status) == ("released", "superseded")
        block = digest.pitfalls(tenant, AGENT, PROMPT, k=5)
        assert f"(#{held.id})" in block and f"(#{old.id})" not in block
