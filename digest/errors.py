"""The one exception tree of lesson digest. Every error it raises on purpose is one of these.

::

    DigestError
     ├── ConfigError            a DIGEST_* setting (or the worker's configuration) is invalid
     ├── MissingExtra           what was asked for needs an extra that is not installed
     ├── InvalidEvent           bad input to a capture call; names the field, nothing written
     │    └── IdempotencyConflict   a key this agent already used for an event with other content
     ├── InvalidArgument        bad input to any other call (a search, a threshold, a file)
     │    ├── OwnerInputError       an argument an owner command cannot use
     │    └── LessonFileError       a LESSON.md file that cannot be imported
     ├── DatabaseUnavailable    the database could not answer (unreachable, schema missing)
     │    └── CaptureUnavailable    it could not take the event (it was not stored)
     ├── NotFound               an unknown tenant, agent, event, lesson or version
     ├── StateError             the row's state does not allow the change; nothing was written
     │    ├── LessonStateError      e.g. enabling a deleted lesson
     │    ├── VersionStateError     e.g. approving a version that is already active
     │    └── CompactConflict       the lessons changed while compaction was deciding
     ├── LLMError               the model step failed (permanent: bad request, auth, …)
     │    ├── LLMTransientError     rate limit, 5xx, timeout, connection: worth retrying
     │    ├── LLMOutputError        the answer broke the output contract: retried, then failed
     │    ├── OfflineRulesError     offline/rules found nothing it can judge (a model's 400)
     │    └── BudgetExhausted       the tenant's daily model budget is spent: the event waits
     └── EmbeddingError         no vector for a text (provider refused, answer not one per text)
          ├── EmbeddingFileError       the local model or vocabulary is not the pinned file
          └── EmbeddingTransientError  rate limit, 5xx, timeout, connection: retried, then failed

Callers catch what they can act on: an agent's hot path catches ``InvalidEvent`` (a bug in the
caller) and ``CaptureUnavailable`` (storage is down); a broker outage never raises at all.
The command line prints any ``DigestError`` as one sentence and exits with its ``exit_code``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any


class DigestError(Exception):
    """Base class of every error lesson digest raises on purpose."""

    #: the command line's exit status for this error
    exit_code = 2


class ConfigError(DigestError):
    """A setting is invalid. ``field`` names the setting (``DIGEST_…``)."""

    def __init__(self, field: str, message: str) -> None:
        self.field = field
        self.message = message
        super().__init__(f"invalid setting {field}: {message}")


class MissingExtra(DigestError):
    """What was asked for needs a part of lesson digest that this installation lacks (an
    extra: ``pip install 'lesson-digest[EXTRA]'``). ``extra`` names it, ``needed_by`` says
    what needs it."""

    def __init__(self, needed_by: str, extra: str, what: str) -> None:
        self.needed_by = needed_by
        self.extra = extra
        super().__init__(f"{needed_by} needs {what}: pip install 'lesson-digest[{extra}]'")


class InvalidEvent(DigestError, ValueError):
    """A capture call got input it cannot store. ``field`` names the first offending field."""

    def __init__(self, field: str, message: str, errors: Sequence[dict[str, Any]] = ()) -> None:
        self.field = field
        self.message = message
        self.errors = list(errors) or [{"field": field, "message": message}]
        super().__init__(f"invalid event: {field}: {message}")


class IdempotencyConflict(InvalidEvent):
    """An idempotency key this agent already used for an event with other content."""

    def __init__(self, key: str, event_id: int) -> None:
        self.key, self.event_id = key, event_id
        super().__init__(
            "idempotency_key",
            f"{key!r} was already used by this agent for event {event_id} with other content; "
            "use a new key for a new event",
        )


class InvalidArgument(DigestError, ValueError):
    """An argument that cannot be used (outside capture, which raises ``InvalidEvent``)."""


class OwnerInputError(InvalidArgument):
    """An argument an owner command cannot use (an unknown status, an empty search)."""


class LessonFileError(InvalidArgument):
    """A LESSON.md file that cannot be imported (bad front matter, too large, outside the
    folder)."""


class DatabaseUnavailable(DigestError):
    """The database could not answer (unreachable, schema missing, a bad URL)."""


class CaptureUnavailable(DatabaseUnavailable):
    """The event could not be stored (database unreachable, schema missing, …)."""


class NotFound(DigestError, LookupError):
    """An unknown tenant, agent, event, lesson or version."""


class StateError(DigestError):
    """The row's current state does not allow the change; nothing was written."""


class LessonStateError(StateError):
    """The lesson's status does not allow the change (e.g. enabling a deleted lesson)."""


class VersionStateError(StateError):
    """The version is not in a state that allows this (e.g. approving an active version)."""


class CompactConflict(StateError):
    """The agent's lessons changed while compaction was deciding; nothing was written."""


class LLMError(DigestError):
    """The model step failed."""


class LLMTransientError(LLMError):
    """A failure worth retrying: rate limit, server error, timeout, connection reset.
    ``retry_after`` is the provider's Retry-After in seconds, when it sent one."""

    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class LLMOutputError(LLMError):
    """The model answered, but not in the output contract of its step."""


class OfflineRulesError(LLMError):
    """The request carries no block the offline rules understand (a real model's 400): not
    retried."""


class BudgetExhausted(LLMError):
    """The tenant's daily model budget (``digest tenant set --daily-tokens/--daily-cost``) is
    spent: no call was made. Not a fault: the event waits until ``resume_at`` (the next
    budget day, UTC). ``measure`` is ``token`` or ``cost``."""

    def __init__(self, tenant: str, measure: str, resume_at: datetime) -> None:
        self.tenant, self.measure, self.resume_at = tenant, measure, resume_at
        super().__init__(
            f"daily {measure} budget of tenant {tenant!r} spent; resumes at "
            f"{resume_at.strftime('%Y-%m-%d %H:%M UTC')}"
        )


class EmbeddingError(DigestError):
    """No vector for a text: the embedding step failed (permanent: bad request, auth, an
    answer that is not one vector per text)."""


class EmbeddingFileError(EmbeddingError):
    """The local embedding model or its vocabulary is missing, or is not the file whose sha256
    the code pins: vectors from another file would not be comparable with the stored ones."""


class EmbeddingTransientError(EmbeddingError):
    """A failure worth retrying (rate limit, server error, timeout, connection), still failing
    after the bounded attempts."""


def is_time_limit(exc: BaseException) -> bool:
    """Is ``exc`` the worker's soft time limit? Celery's exception, recognised by name: digest
    does not import Celery."""
    return type(exc).__name__ == "SoftTimeLimitExceeded"
