"""structlog configuration: JSON lines for services, readable lines for people."""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog
from structlog.types import EventDict

_SECRET_KEYS = ("password", "api_key", "secret", "token", "authorization")


def redact_secrets(_logger: Any, _name: str, event_dict: EventDict) -> EventDict:
    """Secrets never reach logs: blank any field whose name says it holds one."""
    for key in list(event_dict):
        if any(marker in key.lower() for marker in _SECRET_KEYS):
            event_dict[key] = "***"
    return event_dict


def configure_logging(
    level: str = "INFO", *, json: bool = True, stream: TextIO | None = None
) -> None:
    stream = stream or sys.stderr
    numeric = logging.getLevelName(level.upper())
    numeric = numeric if isinstance(numeric, int) else logging.INFO
    shared: list[structlog.types.Processor] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        redact_secrets,
    ]
    renderer: structlog.types.Processor = (
        structlog.processors.JSONRenderer() if json else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )
    # Celery's and libraries' stdlib logs go to the same stream, as JSON too.
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
            foreign_pre_chain=[*shared, structlog.stdlib.add_logger_name],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric)
    for noisy in ("LiteLLM", "litellm", "httpx", "openai"):
        logging.getLogger(noisy).setLevel(max(numeric, logging.WARNING))
