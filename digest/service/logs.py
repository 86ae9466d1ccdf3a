"""What the HTTP service's access log may say: the method, path and status, never a query.

uvicorn's access log writes each request's path with its query string, and a ``pitfalls``
query carries the agent's prompt. ``QueryRedacted`` is a logging filter on that log which keeps
the path and replaces the query with ``?…``; ``access_log_config`` is uvicorn's logging
configuration with the filter on its access handler (``digest serve`` passes it to uvicorn, so
every server process, however many, uses it).
"""

from __future__ import annotations

import copy
import logging
from typing import Any

#: the position of the path in the arguments of uvicorn's access log record
_PATH_ARG = 2


class QueryRedacted(logging.Filter):
    """Keep the access log's path, drop its query string."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) > _PATH_ARG:
            full = args[_PATH_ARG]
            path, mark, _query = full.partition("?") if isinstance(full, str) else ("", "", "")
            if mark:
                record.args = (*args[:_PATH_ARG], f"{path}?…", *args[_PATH_ARG + 1 :])
        return True


def access_log_config() -> dict[str, Any]:
    """uvicorn's default logging configuration with ``QueryRedacted`` on the access handler."""
    from uvicorn.config import LOGGING_CONFIG

    config = copy.deepcopy(LOGGING_CONFIG)
    config.setdefault("filters", {})["query_redacted"] = {"()": QueryRedacted}
    config["handlers"]["access"].setdefault("filters", []).append("query_redacted")
    return config
