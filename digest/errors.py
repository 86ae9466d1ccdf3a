"""The one exception tree of lesson digest.

::

    DigestError
     ├── InvalidEvent          bad input to a capture call; names the field, nothing written
     ├── CaptureUnavailable    the database could not take the event (it was not stored)
     ├── NotFound              an unknown tenant, agent, event or lesson
     └── LLMError              the model step failed
          ├── LLMTransientError    rate limit, 5xx, timeout, connection: worth retrying
          └── LLMOutputError       the answer broke the output contract: retried, then failed

Callers catch what they can act on: an agent's hot path catches ``InvalidEvent`` (a bug in the
caller) and ``CaptureUnavailable`` (storage is down); a broker outage never raises at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


class DigestError(Exception):
    """Base class of every error lesson digest raises on purpose."""


class InvalidEvent(DigestError, ValueError):
    """A capture call got input it cannot store. ``field`` names the first offending field."""

    def __init__(self, field: str, message: str, errors: Sequence[dict[str, Any]] = ()) -> None:
        self.field = field
        self.message = message
        self.errors = list(errors) or [{"field": field, "message": message}]
        super().__init__(f"invalid event: {field}: {message}")


class CaptureUnavailable(DigestError):
    """The event could not be stored (database unreachable, schema missing, …)."""


class NotFound(DigestError, LookupError):
    """An unknown tenant, agent, event or lesson."""


class LLMError(DigestError):
    """The model step failed."""


class LLMTransientError(LLMError):
    """A failure worth retrying: rate limit, server error, timeout, connection reset."""


class LLMOutputError(LLMError):
    """The model answered, but not in the output contract of its step."""


def is_time_limit(exc: BaseException) -> bool:
    """Is ``exc`` the worker's soft time limit? Celery's exception, recognised by name: digest
    does not import Celery."""
    return type(exc).__name__ == "SoftTimeLimitExceeded"
