"""lesson digest: production AI agents learn from what happened to them.

The capture API is what an agent imports on its hot path; it stores one event and returns in
about a millisecond, and never imports litellm or Celery::

    import digest

    digest.record_run("acme", "support-bot", task="refund order 1182", outcome="failure",
                      tool_calls=[{"tool": "refund", "args": {"order": "1182"},
                                   "ok": False, "error": "amount is required"}])
    digest.record_edit("acme", "support-bot", original=draft, final=sent_text)
    digest.record_answer("acme", "support-bot", question="Do we ship to Norway?",
                         answer="Yes, from the Oslo warehouse, 3-5 days.")
    event_id = digest.record_lesson("acme", "support-bot", "refunds: confirm the amount first")
    lesson_id = digest.lesson_for_event("acme", "support-bot", event_id)

Every ``record_*`` returns the id of the event it stored (the same id again for a repeated
``idempotency_key`` with the same content). An agent on an event loop imports ``digest.aio``:
the same calls as coroutines that never block the loop.
"""

from __future__ import annotations

import importlib

# Not ``typing.TYPE_CHECKING``: importing typing would double what ``import digest`` costs.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from digest.capture.api import (
        lesson_for_event,
        record_answer,
        record_edit,
        record_lesson,
        record_run,
    )
    from digest.errors import (
        CaptureUnavailable,
        ConfigError,
        DatabaseUnavailable,
        DigestError,
        IdempotencyConflict,
        InvalidArgument,
        InvalidEvent,
        LLMError,
        LLMOutputError,
        LLMTransientError,
        NotFound,
    )
    from digest.fewshot import Example, examples
    from digest.loops import LoopDetector
    from digest.questions.ask import Asked, ask
    from digest.retrieve import CurrentLearning, current_learning, pitfalls

#: public name → the module that defines it. ``import digest`` loads none of them: each is
#: imported on first access (PEP 562), so an agent pays only for what it calls.
_SOURCES = {
    "lesson_for_event": "digest.capture.api",
    "record_answer": "digest.capture.api",
    "record_edit": "digest.capture.api",
    "record_lesson": "digest.capture.api",
    "record_run": "digest.capture.api",
    "CaptureUnavailable": "digest.errors",
    "ConfigError": "digest.errors",
    "DatabaseUnavailable": "digest.errors",
    "DigestError": "digest.errors",
    "IdempotencyConflict": "digest.errors",
    "InvalidArgument": "digest.errors",
    "InvalidEvent": "digest.errors",
    "LLMError": "digest.errors",
    "LLMOutputError": "digest.errors",
    "LLMTransientError": "digest.errors",
    "NotFound": "digest.errors",
    "CurrentLearning": "digest.retrieve",
    "Example": "digest.fewshot",
    "examples": "digest.fewshot",
    "LoopDetector": "digest.loops",
    "Asked": "digest.questions.ask",
    "ask": "digest.questions.ask",
    "current_learning": "digest.retrieve",
    "pitfalls": "digest.retrieve",
}

__all__ = [
    "Asked",
    "CaptureUnavailable",
    "ConfigError",
    "CurrentLearning",
    "DatabaseUnavailable",
    "DigestError",
    "Example",
    "IdempotencyConflict",
    "InvalidArgument",
    "InvalidEvent",
    "LLMError",
    "LLMOutputError",
    "LLMTransientError",
    "LoopDetector",
    "NotFound",
    "ask",
    "current_learning",
    "examples",
    "lesson_for_event",
    "pitfalls",
    "record_answer",
    "record_edit",
    "record_lesson",
    "record_run",
]


def __getattr__(name: str) -> Any:
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module 'digest' has no attribute {name!r}")
    value = getattr(importlib.import_module(source), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
