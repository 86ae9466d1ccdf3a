"""Fleet-wide limits per model: calls in flight at once and calls per window, kept in Redis.

Every worker process of a deployment shares the broker's Redis, so a burst of events across
the fleet cannot stampede one provider: before each remote model call the caller takes a
**slot** (``DIGEST_LLM_MAX_CONCURRENCY`` per model) and a **ticket** in the rate window
(``DIGEST_LLM_RPM`` calls per ``DIGEST_LLM_RATE_WINDOW_S``). Both are sorted sets updated by
one Lua script, atomically:

- ``digest:llm:<model>:slots``: lease id → expiry time. A slot is released after the call; a
  worker killed mid-call leaves a lease that expires after the call's timeout plus a margin,
  so a crash never leaks capacity for longer than one call could have taken.
- ``digest:llm:<model>:calls``: call id → until when it counts: a running call counts, an
  ended one until a window after its end. A sliding window, so no minute boundary lets two
  windows' worth of calls through back to back, and conservative: however late a request
  reaches the provider, no window the provider measures holds more than the limit.

A caller waits (polling, jittered) up to ``DIGEST_LLM_SLOT_WAIT_S``; past that the call is a
transient fault (``LLMTransientError``), and the event is put back as waiting like after a
429. Without a broker (the embedded mode: one process) the same limits are kept in process.
If Redis cannot be reached the call goes ahead unlimited: the limiter protects the provider,
it must not stop the work. Clients and in-process limits are a piece of the process's runtime.
"""

from __future__ import annotations

import random
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from digest.config import Settings
from digest.errors import LLMTransientError
from digest.logs import get_logger
from digest.runtime import runtime

if TYPE_CHECKING:
    from redis import Redis

log = get_logger("digest.model")

#: a lease outlives its call's timeout by this much before another caller may take it
LEASE_MARGIN_S = 30.0

# KEYS: slots, calls. ARGV: now, lease id, max concurrency, lease expiry, rpm, window.
# Returns 0 when the slot and the ticket were taken, else seconds to wait before trying again.
# A call's ticket is scored with its lease expiry while it runs and with its end time once it
# has ended (``_END``): it counts in the window from its start until one window after its end,
# so however late a request reaches the provider, no window the provider measures holds more
# than ``rpm`` of them.
_ACQUIRE = """
local now = tonumber(ARGV[1])
local concurrency = tonumber(ARGV[3])
local rpm = tonumber(ARGV[5])
local window = tonumber(ARGV[6])
if concurrency > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
  if redis.call('ZCARD', KEYS[1]) >= concurrency then
    return '0.05'
  end
end
if rpm > 0 then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - window)
  if redis.call('ZCARD', KEYS[2]) >= rpm then
    local oldest = redis.call('ZRANGE', KEYS[2], 0, 0, 'WITHSCORES')
    return tostring(math.max(0.05, math.min(window, tonumber(oldest[2]) + window - now)))
  end
  redis.call('ZADD', KEYS[2], tonumber(ARGV[4]), ARGV[2])
  redis.call('EXPIRE', KEYS[2], math.ceil(tonumber(ARGV[4]) - now + window) + 60)
end
if concurrency > 0 then
  redis.call('ZADD', KEYS[1], tonumber(ARGV[4]), ARGV[2])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[4]) - now) + 60)
end
return 0
"""

# KEYS: slots, calls. ARGV: now, lease id. The call ended: free its slot, date its ticket.
_END = """
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', tonumber(ARGV[1]), ARGV[2])
return 0
"""


class _Limits:
    """This process's Redis clients and scripts of the limiter, and its in-process limits."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.clients: dict[str, Redis] = {}
        self.scripts: dict[tuple[str, str], Any] = {}
        self.local: dict[str, _LocalLimit] = {}


def limited(settings: Settings) -> bool:
    return settings.llm_max_concurrency > 0 or settings.llm_rpm > 0


@contextmanager
def model_slot(model: str, settings: Settings, *, deadline: float | None = None) -> Iterator[None]:
    """Hold one of the model's fleet-wide slots (and a ticket in its rate window) for the
    duration of one call. Raises ``LLMTransientError`` if none came free within
    ``DIGEST_LLM_SLOT_WAIT_S`` (or before ``deadline``, a ``time.monotonic()`` value)."""
    if not limited(settings):
        yield
        return
    lease = uuid.uuid4().hex
    give_up = time.monotonic() + settings.llm_slot_wait_s
    if deadline is not None:
        give_up = min(give_up, deadline)
    limit = _limit_for(model, settings)
    while True:
        wait = limit.try_take(lease)
        if wait <= 0:
            break
        left = give_up - time.monotonic()
        if left <= 0:
            raise LLMTransientError(
                f"no model slot for {model!r} within {settings.llm_slot_wait_s:g} s "
                f"(fleet limits DIGEST_LLM_MAX_CONCURRENCY={settings.llm_max_concurrency}, "
                f"DIGEST_LLM_RPM={settings.llm_rpm})",
                retry_after=wait,
            )
        time.sleep(min(left, wait, 1.0) * random.uniform(0.8, 1.2))
    try:
        yield
    finally:
        limit.give_back(lease)


class _Limit:
    def try_take(self, lease: str) -> float:
        raise NotImplementedError

    def give_back(self, lease: str) -> None:
        raise NotImplementedError


class _RedisLimit(_Limit):
    def __init__(self, model: str, settings: Settings) -> None:
        self.settings = settings
        self.keys = [f"digest:llm:{model}:slots", f"digest:llm:{model}:calls"]
        assert settings.broker_url
        self.url = settings.broker_url

    def try_take(self, lease: str) -> float:
        s = self.settings
        now = time.time()
        try:
            answer = _script(self.url, _ACQUIRE)(
                keys=self.keys,
                args=[
                    now,
                    lease,
                    s.llm_max_concurrency,
                    now + s.llm_timeout_s + LEASE_MARGIN_S,
                    s.llm_rpm,
                    s.llm_rate_window_s,
                ],
            )
        except Exception as exc:  # the limiter must never stop the work
            log.warning("llm_limit_unavailable", error=f"{type(exc).__name__}: {exc}")
            return 0.0
        return float(answer)

    def give_back(self, lease: str) -> None:
        try:
            _script(self.url, _END)(keys=self.keys, args=[time.time(), lease])
        except Exception as exc:  # the lease expires on its own
            log.warning("llm_slot_not_released", error=f"{type(exc).__name__}: {exc}")


class _LocalLimit(_Limit):
    """The same limits within one process (the embedded mode has no Redis)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.lock = threading.Lock()
        self.in_flight: set[str] = set()
        #: lease → until when its ticket counts (running: forever; ended: end + window)
        self.tickets: dict[str, float] = {}

    def try_take(self, lease: str) -> float:
        s = self.settings
        with self.lock:
            if s.llm_max_concurrency > 0 and len(self.in_flight) >= s.llm_max_concurrency:
                return 0.05
            now = time.monotonic()
            if s.llm_rpm > 0:
                self.tickets = {k: t for k, t in self.tickets.items() if t > now}
                if len(self.tickets) >= s.llm_rpm:
                    return max(0.05, min(s.llm_rate_window_s, min(self.tickets.values()) - now))
                self.tickets[lease] = float("inf")
            self.in_flight.add(lease)
            return 0.0

    def give_back(self, lease: str) -> None:
        with self.lock:
            self.in_flight.discard(lease)
            if lease in self.tickets:
                self.tickets[lease] = time.monotonic() + self.settings.llm_rate_window_s


def _limit_for(model: str, settings: Settings) -> _Limit:
    if settings.broker_url:
        return _RedisLimit(model, settings)
    key = f"{model}|{settings.llm_max_concurrency}|{settings.llm_rpm}|{settings.llm_rate_window_s}"
    limits = runtime().piece(_Limits)
    with limits.lock:
        limit = limits.local.get(key)
        if limit is None:
            limit = limits.local[key] = _LocalLimit(settings)
        return limit


def _script(url: str, source: str) -> Any:
    limits = runtime().piece(_Limits)
    with limits.lock:
        script = limits.scripts.get((url, source))
        if script is None:
            client = limits.clients.get(url)
            if client is None:
                from redis import Redis

                client = limits.clients[url] = Redis.from_url(
                    url, socket_timeout=2.0, socket_connect_timeout=2.0
                )
            script = limits.scripts[(url, source)] = client.register_script(source)
        return script
