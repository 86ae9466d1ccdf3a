"""structlog configuration: JSON lines for services, readable lines for people."""

from __future__ import annotations

import logging
import re
import sys
from typing import Any, TextIO, cast

import structlog
from structlog.types import EventDict

from digest.redact import MASK, redact

# A field holds a secret when a whole word of its name says so: "api_key", "db_password",
# "access_token", but not "prompt_tokens" (a count we want to see).
_SECRET_KEY = re.compile(
    r"(?:^|[_\-.])(password|passwd|secret|token|authorization|api[_-]?key|apikey|credentials?)"
    r"(?:$|[_\-.])",
    re.I,
)


def redact_secrets(_logger: Any, _name: str, event_dict: EventDict) -> EventDict:
    """Secrets never reach logs: blank any field whose name says it holds one, and mask
    credentials found inside every other value (``digest.redact``), nested ones included."""
    for key in list(event_dict):
        if _SECRET_KEY.search(key):
            event_dict[key] = MASK
        else:
            event_dict[key] = _redact_value(event_dict[key])
    return event_dict


def _redact_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {
            k: MASK if _SECRET_KEY.search(str(k)) else _redact_value(v) for k, v in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(_redact_value(v) for v in value)
    if isinstance(value, BaseException):
        return redact(f"{type(value).__name__}: {value}")
    return value


class _CurrentStderr:
    """Writes to whatever ``sys.stderr`` is at write time, not at configure time: a host that
    swaps stderr (a test runner, a CLI runner, a daemon redirecting output) and closes the old
    one must never turn a log line into an exception in the caller."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(
    level: str = "INFO", *, json: bool = True, stream: TextIO | None = None
) -> None:
    stream = stream or cast(TextIO, _CurrentStderr())
    numeric = logging.getLevelName(level.upper())
    numeric = numeric if isinstance(numeric, int) else logging.INFO
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        # Redaction runs last before rendering, so a formatted traceback is masked too.
        processors=[*shared, structlog.processors.format_exc_info, redact_secrets, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )
    # Celery's and libraries' stdlib logs go to the same stream, as JSON too.
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[
                structlog.stdlib.ProcessorFormatter.remove_processors_meta,
                structlog.processors.format_exc_info,
                redact_secrets,
                renderer,
            ],
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)
    for noisy in ("LiteLLM", "litellm", "httpx", "openai"):
        logging.getLogger(noisy).setLevel(max(numeric, logging.WARNING))
