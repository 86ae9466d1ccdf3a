"""The asyncio API: ``digest``'s capture and retrieval for an agent that runs on an event loop.

Every function has the sync one's arguments, defaults, validation, idempotency, return value
and errors (``InvalidEvent`` naming the field, ``IdempotencyConflict``, ``CaptureUnavailable``,
``DatabaseUnavailable``), and none blocks the event loop::

    import digest.aio

    event_id = await digest.aio.record_run("acme", "support-bot", task="refund order 1182",
                                           outcome="failure")
    block = await digest.aio.pitfalls("acme", "support-bot", prompt)

How each one waits:

- ``record_run``, ``record_edit``, ``record_answer`` on PostgreSQL: one ``INSERT`` on
  SQLAlchemy's asyncio engine and a ``redis.asyncio`` publish (``digest.capture.aio``,
  ``digest.outbox.aio``), sharing validation, row building and the message with the sync path.
- ``record_lesson``, and every capture on SQLite (whose driver is synchronous), run the sync
  capture in a worker thread (``asyncio.to_thread``).
- ``pitfalls``, ``examples`` and ``current_learning`` run the sync functions in a worker
  thread: their reads are few and the ranking (and the screen, for ``examples``) is CPU work
  on indexes kept in the process, shared with the sync API. ``pitfalls`` and ``examples`` stay
  best effort (``""`` and ``[]`` on any fault).

Connections are kept per event loop; ``await digest.aio.aclose()`` before the loop ends closes
them (optional: they are dropped with the loop otherwise). Nothing here imports litellm.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from digest.capture import aio as _capture
from digest.capture.api import _as_list, _given
from digest.outbox import aio as _publish

if TYPE_CHECKING:
    from digest.fewshot import Example
    from digest.questions.ask import Asked
    from digest.retrieve import CurrentLearning

__all__ = [
    "aclose",
    "current_learning",
    "examples",
    "pitfalls",
    "record_answer",
    "record_edit",
    "record_lesson",
    "record_run",
]


async def record_run(
    tenant: str,
    agent: str,
    *,
    task: str,
    outcome: str,
    error: str | None = None,
    tool_calls: Sequence[dict[str, Any]] | None = None,
    attempt_summary: str | None = None,
    applied_lesson_ids: Sequence[int] | None = None,
    idempotency_key: str | None = None,
    thread_id: str | None = None,
    contact_id: str | None = None,
    turn_id: str | None = None,
) -> int:
    """``digest.record_run``, awaited. Returns the event id."""
    return await _capture.capture_event(
        "run_outcome",
        _given(
            tenant=tenant,
            agent=agent,
            task=task,
            outcome=outcome,
            error=error,
            tool_calls=_as_list(tool_calls),
            attempt_summary=attempt_summary,
            applied_lesson_ids=_as_list(applied_lesson_ids),
            idempotency_key=idempotency_key,
            thread_id=thread_id,
            contact_id=contact_id,
            turn_id=turn_id,
        ),
    )


async def record_edit(
    tenant: str,
    agent: str,
    *,
    original: str,
    final: str | None,
    context: str | None = None,
    idempotency_key: str | None = None,
    thread_id: str | None = None,
    contact_id: str | None = None,
) -> int:
    """``digest.record_edit``, awaited. Returns the event id."""
    return await _capture.capture_event(
        "operator_edit",
        {
            **_given(
                tenant=tenant,
                agent=agent,
                original=original,
                context=context,
                idempotency_key=idempotency_key,
                thread_id=thread_id,
                contact_id=contact_id,
            ),
            "final": final,
        },
    )


async def record_answer(
    tenant: str,
    agent: str,
    *,
    question: str,
    answer: str,
    context: str | None = None,
    idempotency_key: str | None = None,
    thread_id: str | None = None,
    contact_id: str | None = None,
) -> int:
    """``digest.record_answer``, awaited. Returns the event id."""
    return await _capture.capture_event(
        "owner_answer",
        _given(
            tenant=tenant,
            agent=agent,
            question=question,
            answer=answer,
            context=context,
            idempotency_key=idempotency_key,
            thread_id=thread_id,
            contact_id=contact_id,
        ),
    )


async def record_lesson(
    tenant: str,
    agent: str,
    text: str,
    *,
    idempotency_key: str | None = None,
    thread_id: str | None = None,
    contact_id: str | None = None,
) -> int:
    """``digest.record_lesson``, awaited. Returns the event id."""
    return await _capture.capture_event(
        "manual_lesson",
        _given(
            tenant=tenant,
            agent=agent,
            text=text,
            idempotency_key=idempotency_key,
            thread_id=thread_id,
            contact_id=contact_id,
        ),
    )


async def pitfalls(
    tenant: str,
    agent: str,
    prompt: str,
    k: int = 3,
    *,
    style: str = "block",
    contact_id: str | None = None,
    turn_id: str | None = None,
) -> str:
    """``digest.pitfalls``, awaited: the same block, ``""`` on any fault. The sync function
    runs in a worker thread (its reads are synchronous and its ranking is CPU work)."""
    try:
        return await asyncio.to_thread(
            _sync_pitfalls,
            tenant,
            agent,
            prompt,
            k,
            style=style,
            contact_id=contact_id,
            turn_id=turn_id,
        )
    except Exception:  # the thread could not run (interpreter shutting down): best effort
        return ""


async def examples(
    tenant: str,
    agent: str,
    prompt: str,
    k: int = 2,
    *,
    contact_id: str | None = None,
    turn_id: str | None = None,
) -> list[Example]:
    """``digest.examples``, awaited: the same examples, ``[]`` on any fault. The sync function
    runs in a worker thread (its reads are synchronous; its ranking and screen are CPU work)."""
    try:
        return await asyncio.to_thread(
            _sync_examples, tenant, agent, prompt, k, contact_id=contact_id, turn_id=turn_id
        )
    except Exception:  # the thread could not run (interpreter shutting down): best effort
        return []


async def current_learning(tenant: str, agent: str) -> CurrentLearning | None:
    """``digest.current_learning``, awaited: the active version or None; raises
    ``DatabaseUnavailable`` when the database cannot answer. Runs in a worker thread."""
    return await asyncio.to_thread(_sync_current_learning, tenant, agent)


async def ask(
    tenant: str,
    agent: str,
    question: str,
    *,
    contact_id: str | None = None,
    thread_id: str | None = None,
    context: str | None = None,
) -> Asked:
    """``digest.ask``, awaited: ``known``, ``asked`` or ``limited``, with the same errors. Runs
    in a worker thread (a few statements in one transaction)."""
    from digest.questions.ask import ask as sync_ask

    return await asyncio.to_thread(
        sync_ask, tenant, agent, question,
        contact_id=contact_id, thread_id=thread_id, context=context,
    )  # fmt: skip


async def aclose() -> None:
    """Close the connections this event loop opened (database and broker)."""
    await _capture.close_pools()
    await _publish.close_clients()


# digest.retrieve and digest.fewshot are imported in the worker thread, on first use: never
# on the loop.


def _sync_pitfalls(
    tenant: str,
    agent: str,
    prompt: str,
    k: int,
    *,
    style: str,
    contact_id: str | None,
    turn_id: str | None = None,
) -> str:
    from digest.retrieve import pitfalls as sync_pitfalls

    return sync_pitfalls(
        tenant, agent, prompt, k, style=style, contact_id=contact_id, turn_id=turn_id
    )


def _sync_examples(
    tenant: str, agent: str, prompt: str, k: int, *, contact_id: str | None, turn_id: str | None
) -> list[Example]:
    from digest.fewshot import examples as sync_examples

    return sync_examples(tenant, agent, prompt, k, contact_id=contact_id, turn_id=turn_id)


def _sync_current_learning(tenant: str, agent: str) -> CurrentLearning | None:
    from digest.retrieve import current_learning as sync_current_learning

    return sync_current_learning(tenant, agent)
