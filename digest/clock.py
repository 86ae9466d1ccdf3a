"""lesson digest's clock: the system's UTC time, moved by ``DIGEST_CLOCK_OFFSET_S``.

Every time lesson digest reads (``digest.models.utcnow``: timestamps, when a waiting event is
due, the budget day of ``digest.model.budget``) comes from here, so one setting moves them all
together: a test or a drill sets one day ahead and it is "tomorrow" for the budgets and for
the events that wait for them. Production leaves it at 0.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from digest.config import get_settings


def now() -> datetime:
    """Now, in UTC, on lesson digest's clock."""
    offset = get_settings().clock_offset_s
    moment = datetime.now(UTC)
    return moment + timedelta(seconds=offset) if offset else moment
