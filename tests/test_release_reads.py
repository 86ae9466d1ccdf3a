"""The release rule at every read an agent makes (issue 25 point 1), on PostgreSQL with a real
worker reflecting the runs (offline/rules): ``pitfalls`` (sync and ``digest.aio``),
``examples`` and the learning document with its summary (``current_learning``).

- one untrusted run changes none of them, though its lesson is learned and counted;
- the same failure from independent contacts reaching the gate is released and read;
- a person's release is read at once, and so is an owner's answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

import digest
import digest.aio
from digest.lessons.service import list_lessons, release_lessons
from digest.pipeline import improve_now
from tests.conftest import WorkerProcess, wait_for_event

AGENT = "bot"
PROMPT = "Book a courier for order 7 with the right carrier code"
ERROR = "ValidationError: field 'carrier_code' is required"


def fail(tenant: str, contact: str, tool: str = "book_courier") -> int:
    """One failed run from ``contact``, reflected by the worker."""
    event_id = digest.record_run(
        tenant, AGENT, task="Book a courier for order 7", outcome="failure",
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
