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
    digest.record_lesson("acme", "support-bot", "refunds: always confirm the amount first")
"""

from digest.capture import record_answer, record_edit, record_lesson, record_run
from digest.errors import (
    CaptureUnavailable,
    DigestError,
    InvalidEvent,
    LLMError,
    LLMOutputError,
    LLMTransientError,
    NotFound,
)
from digest.retrieve import CurrentLearning, LoopDetector, current_learning, pitfalls

__all__ = [
    "CaptureUnavailable",
    "CurrentLearning",
    "DigestError",
    "InvalidEvent",
    "LLMError",
    "LLMOutputError",
    "LLMTransientError",
    "LoopDetector",
    "NotFound",
    "current_learning",
    "pitfalls",
    "record_answer",
    "record_edit",
    "record_lesson",
    "record_run",
]
