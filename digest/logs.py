"""digest's structured loggers, and the structlog configuration of the processes it starts.

``get_logger(name)`` is what every module logs with: structlog's API (``log.info("event",
key=value)``) over a stdlib logger under ``digest`` (see ``digest._log``), so a host decides
where the records go and, if it configures nothing, nothing is printed. ``configure_logging``
is for the processes digest starts, the worker and the CLI: one root handler that renders
digest's records and everyone else's as JSON lines for services or readable lines for people.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO, cast

import structlog
from structlog.types import EventDict, Processor

from digest._log import stdlib_logger
from digest.redact import MASK, redact, secret_named


def redact_secrets(_logger: Any, _name: str, event_dict: EventDict) -> EventDict:
    """Secrets never reach logs: blank any field whose name says it holds one ("api_key",
    "db_password", "access_token", not "prompt_tokens": ``digest.redact.secret_named``), and mask
    credentials found inside every other value (``digest.redact``), nested ones included."""
    for key in list(event_dict):
        if secret_named(key):
            event_dict[key] = MASK
        else:
            event_dict[key] = _redact_value(event_dict[key])
    return event_dict


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {k: MASK if secret_named(str(k)) else _redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(_redact_value(v) for v in value)
    if isinstance(value, BaseException):
        return redact(f"{type(value).__name__}: {value}")
    return value


# --- digest's loggers --------------------------------------------------------------------------

#: Fields a stdlib record already carries, left out of its readable message.
_RECORD_FIELDS = frozenset({"event", "level", "timestamp", "exception"})
_STRUCTLOG_DIR = os.path.dirname(structlog.__file__) + os.sep


class EventMessage(dict[str, Any]):
    """A digest event as a stdlib record's message: a structlog ``ProcessorFormatter`` (the
    worker's, the CLI's or a host's) renders its fields; any other formatter gets one readable
    line, ``publish_failed task=digest.reflect_batch error=ConnectionError``."""

    def __str__(self) -> str:
        fields = " ".join(
            f"{key}={_readable(value)}" for key, value in self.items() if key not in _RECORD_FIELDS
        )
        line = f"{self.get('event')} {fields}".rstrip()
        exception = self.get("exception")
        return f"{line}\n{exception}" if exception else line


def _readable(value: Any) -> str:
    if isinstance(value, str) and value and value.isprintable() and " " not in value:
        return value
    return repr(value)


def _to_record(logger: Any, method_name: str, event_dict: EventDict) -> tuple[Any, ...]:
    """The last processor: hands the finished event to the stdlib logger as one record."""
    kwargs: dict[str, Any] = {
        "extra": {"_logger": logger, "_name": method_name},  # what ProcessorFormatter looks for
        "exc_info": False,  # the traceback is already in the event, formatted and redacted
    }
    # The record's caller is the line that logged, not structlog's frames in between (a
    # logger class with its own findCaller, as structlog's LoggerFactory installs, skips them).
    if type(logger).findCaller is logging.Logger.findCaller:
        frame: FrameType | None = sys._getframe(1)
        stacklevel = 0
        while frame is not None and frame.f_code.co_filename.startswith(_STRUCTLOG_DIR):
            frame, stacklevel = frame.f_back, stacklevel + 1
        kwargs["stacklevel"] = max(stacklevel, 1)
    return (EventMessage(event_dict),), kwargs


#: digest's processor chain. The level check comes first, so a disabled level costs nothing
#: more; redaction comes after the traceback is formatted, so a host's handlers never see a
#: secret either. ``capture_logs`` swaps the list's contents, which every logger shares.
_PROCESSORS: list[Processor] = [
    structlog.stdlib.filter_by_level,
    structlog.stdlib.PositionalArgumentsFormatter(),
    structlog.contextvars.merge_contextvars,
    structlog.processors.add_log_level,
    structlog.processors.TimeStamper(fmt="iso", utc=True),
    structlog.processors.format_exc_info,
    redact_secrets,
    _to_record,
]


def get_logger(name: str) -> structlog.stdlib.BoundLogger:
    """A structured logger over the stdlib logger ``name`` (``digest.<area>``).

    It reads none of structlog's global configuration: a host that uses structlog for itself
    changes nothing here, and digest changes nothing there. Fields given as keywords and those
    bound with ``structlog.contextvars`` reach the record's message.
    """
    return structlog.stdlib.BoundLogger(stdlib_logger(name), _PROCESSORS, {})


@contextmanager
def capture_logs() -> Iterator[list[EventDict]]:
    """Collect the events digest's loggers emit in the block, at every level, as dicts with
    their ``log_level`` (``structlog.testing.capture_logs``, for loggers structlog's global
    configuration does not reach). Nothing is emitted meanwhile."""
    capture = structlog.testing.LogCapture()
    saved = _PROCESSORS[:]
    _PROCESSORS[:] = [capture]
    try:
        yield capture.entries
    finally:
        _PROCESSORS[:] = saved


# --- the processes digest starts ---------------------------------------------------------------


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at write time, not at configure time: a host that
    swaps stderr (a test runner, a CLI runner, a daemon redirecting output) and closes the old
    one must never turn a log line into an exception in the caller."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _stdlib_logger_for(*args: Any) -> logging.Logger:
    # Not structlog's LoggerFactory: that one swaps the logger class of the whole process.
    return logging.getLogger(*args[:1])


def _redact_foreign(logger: Any, name: str, event_dict: EventDict) -> EventDict:
    """``redact_secrets`` for a record of anyone else's logger; digest's own events were
    redacted in their chain (``_PROCESSORS``), after their traceback was formatted."""
    record = event_dict.get("_record")
    if isinstance(getattr(record, "msg", None), EventMessage):
        return event_dict
    return redact_secrets(logger, name, event_dict)


def configure_logging(
    level: str = "INFO", *, json: bool = True, stream: TextIO | None = None
) -> None:
    """Send every record of this process (digest's, Celery's, libraries') to ``stream``, or to
    the current stderr, at ``level``: JSON lines, or readable lines when ``json`` is false. For
    the worker and the CLI only; a library configures nothing in its host."""
    stream = stream or cast(TextIO, _CurrentStderr())
    numeric = logging.getLevelName(level.upper())
    numeric = numeric if isinstance(numeric, int) else logging.INFO
    renderer: Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    # Anything else here that logs through structlog takes digest's path too: one handler.
    structlog.configure(
        processors=_PROCESSORS[:],
        wrapper_class=structlog.stdlib.BoundLogger,
        logger_factory=_stdlib_logger_for,
        cache_logger_on_first_use=False,
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                # Redaction runs last before rendering, so a formatted traceback is masked too.
                structlog.processors.format_exc_info,
                _redact_foreign,
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                renderer,
            ],
            # Records of stdlib loggers (Celery's, libraries', the capture path's) get what
            # digest's events carry already.
            foreign_pre_chain=[
                structlog.contextvars.merge_contextvars,
                structlog.processors.add_log_level,
                structlog.processors.TimeStamper(fmt="iso", utc=True),
                structlog.stdlib.add_logger_name,
            ],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)
    for noisy in ("LiteLLM", "litellm", "httpx", "openai"):
        logging.getLogger(noisy).setLevel(max(numeric, logging.WARNING))
