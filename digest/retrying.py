"""The one retry policy for storage steps that may simply be tried again (tenacity).

Model calls have their own policy in ``digest.model.seam`` (bounded, jittered, honouring
Retry-After). What is here is for writes that fail because the world moved under them: a
pooled connection that died with a server restart, a cached id that names a row deleted since,
lessons that changed while a version was composed. Such a step is tried again at once, a
bounded number of times, and only for the faults its caller names; the last error is raised
as it was (``reraise``), so callers translate it exactly as they would without a retry.

    for attempt in again(times=2, when=is_stale_connection, before=forget_agent_ids):
        with attempt:
            store(event)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from tenacity import (
    AsyncRetrying,
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
)


def _hook(before: Callable[[BaseException], None] | None) -> Callable[[RetryCallState], None]:
    def before_sleep(state: RetryCallState) -> None:
        if before is not None and state.outcome is not None:
            error = state.outcome.exception()
            if error is not None:
                before(error)

    return before_sleep


def again(
    *,
    times: int,
    when: Callable[[BaseException], bool],
    before: Callable[[BaseException], None] | None = None,
) -> Retrying:
    """Run a step up to ``times`` times in all, again at once while it raises an error that
    ``when`` accepts; ``before`` (given that error) runs before each new attempt."""
    return Retrying(
        stop=stop_after_attempt(times),
        retry=retry_if_exception(when),
        before_sleep=_hook(before),
        reraise=True,
    )


R = TypeVar("R")


def call_again(
    step: Callable[[], R],
    *,
    times: int,
    when: Callable[[BaseException], bool],
    before: Callable[[BaseException], None] | None = None,
) -> R:
    """``again``'s policy run as a plain loop: ``step()`` up to ``times`` times in all, again at
    once while it raises an error that ``when`` accepts, ``before`` first; the last error raised
    as it was. For the agent's hot path (capture), where building tenacity's machinery per
    call costs tens of microseconds for a retry that almost never happens."""
    for attempt in range(1, times + 1):
        try:
            return step()
        except Exception as exc:
            if attempt >= times or not when(exc):
                raise
            if before is not None:
                before(exc)
    raise AssertionError("unreachable: the last attempt returns or raises")


def again_async(
    *,
    times: int,
    when: Callable[[BaseException], bool],
    before: Callable[[BaseException], None] | None = None,
) -> AsyncRetrying:
    """``again`` for a coroutine: ``async for attempt in again_async(...)``."""
    return AsyncRetrying(
        stop=stop_after_attempt(times),
        retry=retry_if_exception(when),
        before_sleep=_hook(before),
        reraise=True,
    )
