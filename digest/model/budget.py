"""Daily model budgets per tenant, kept fleet-wide in Redis (issue 29, part 3: the ledger).

A tenant may have a daily budget of model tokens and/or of cost (USD). Before a remote model
call the caller **reserves** an estimate that bounds the call (prompt tokens plus the reply's
``max_tokens``; its cost at the model's price); after it, it **settles** with the usage the
provider reported, giving back the unused part. Both are one Lua script each on one Redis
hash per tenant and budget day (``digest:budget:<tenant>:<day>``), so they are atomic across
every worker of the fleet.

Admission rule: a reservation is granted while ``spent + reserved`` is below the limit. At the
moment of a grant the committed amount is below the limit, and afterwards it is below the
limit plus that one estimate; as each call's real usage is at most its estimate, the fleet
together never spends more than the limit plus one call's worth, however many workers race.

A reservation carries the longest its call can run (``hold_s``: the call's timeout and a
margin): a worker killed mid-call never settles, and once that time has passed a reservation
that would be refused gives such reservations back first, so a crash holds budget for one
call's timeout at most, not for the rest of the day.

A refused reservation is not a failure: the caller puts the event back as waiting until
:func:`resume_at` (the start of the next budget day, UTC). Cost is counted in micro-dollars
so the ledger holds integers only. The clock is a parameter (``now``) so tests can move it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from redis import Redis

MICRO = 1_000_000

# KEYS: the day's hash. ARGV: reservation id, tokens, micro-dollars, token limit (0: none),
# cost limit in micro-dollars (0: none), ttl seconds, now and the reservation's expiry (unix
# seconds; expiry 0: none). Returns 1 when granted, 0 when refused. Before refusing, it gives
# back reservations past their expiry: their call cannot still be running (its worker died
# mid-call), so what they held must not stay held for the rest of the day.
_RESERVE = """
local h = KEYS[1]
local tl = tonumber(ARGV[4])
local cl = tonumber(ARGV[5])
local function full()
  local st = tonumber(redis.call('HGET', h, 'spent_tokens') or '0')
  local rt = tonumber(redis.call('HGET', h, 'reserved_tokens') or '0')
  local sc = tonumber(redis.call('HGET', h, 'spent_micro') or '0')
  local rc = tonumber(redis.call('HGET', h, 'reserved_micro') or '0')
  return (tl > 0 and st + rt >= tl) or (cl > 0 and sc + rc >= cl)
end
if full() then
  local now = tonumber(ARGV[7])
  local all = redis.call('HGETALL', h)
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) == 'r:' then
      local tok, mic, exp = string.match(all[i + 1], '^(%d+) (%d+) ?(%d*)')
      if exp ~= '' and tonumber(exp) > 0 and tonumber(exp) < now then
        redis.call('HINCRBY', h, 'reserved_tokens', 0 - tonumber(tok))
        redis.call('HINCRBY', h, 'reserved_micro', 0 - tonumber(mic))
        redis.call('HDEL', h, all[i])
      end
    end
  end
  if full() then return 0 end
end
redis.call('HINCRBY', h, 'reserved_tokens', tonumber(ARGV[2]))
redis.call('HINCRBY', h, 'reserved_micro', tonumber(ARGV[3]))
redis.call('HSET', h, 'r:' .. ARGV[1], ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. ARGV[8])
redis.call('EXPIRE', h, tonumber(ARGV[6]))
return 1
"""

# KEYS: the day's hash. ARGV: reservation id, real tokens, real micro-dollars.
# Returns 1 when the reservation was found and settled, 0 when it was unknown (settled twice).
_SETTLE = """
local h = KEYS[1]
local r = redis.call('HGET', h, 'r:' .. ARGV[1])
if not r then return 0 end
local tok, mic = string.match(r, '^(%d+) (%d+)')
redis.call('HINCRBY', h, 'reserved_tokens', 0 - tonumber(tok))
redis.call('HINCRBY', h, 'reserved_micro', 0 - tonumber(mic))
redis.call('HDEL', h, 'r:' .. ARGV[1])
redis.call('HINCRBY', h, 'spent_tokens', tonumber(ARGV[2]))
redis.call('HINCRBY', h, 'spent_micro', tonumber(ARGV[3]))
return 1
"""


@dataclass(frozen=True)
class Limits:
    """A tenant's daily budget; ``None`` means no limit on that measure."""

    daily_tokens: int | None = None
    daily_cost_usd: float | None = None

    def __post_init__(self) -> None:
        if self.daily_tokens is not None and self.daily_tokens <= 0:
            raise BudgetError(
                "daily_tokens", f"must be a positive integer, got {self.daily_tokens}"
            )
        if self.daily_cost_usd is not None and not self.daily_cost_usd > 0:
            raise BudgetError(
                "daily_cost_usd", f"must be a positive amount, got {self.daily_cost_usd}"
            )

    @property
    def any(self) -> bool:
        return self.daily_tokens is not None or self.daily_cost_usd is not None


class BudgetError(ValueError):
    """A budget value that cannot be stored; ``field`` names the setting."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field


@dataclass(frozen=True)
class Spend:
    tokens: int
    cost_usd: float
    reserved_tokens: int
    reserved_cost_usd: float


def budget_day(now: datetime) -> str:
    """The budget day ``now`` falls in (UTC), as ``YYYY-MM-DD``."""
    return now.astimezone(UTC).date().isoformat()


def resume_at(now: datetime) -> datetime:
    """When a tenant refused today may spend again: the start of the next UTC day."""
    day = now.astimezone(UTC).date() + timedelta(days=1)
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def _key(tenant: str, day: str) -> str:
    return f"digest:budget:{tenant}:{day}"


class Ledger:
    """The fleet-wide ledger of one Redis database."""

    def __init__(self, client: Redis) -> None:
        self.client = client
        self._reserve: Any = client.register_script(_RESERVE)
        self._settle: Any = client.register_script(_SETTLE)

    def reserve(
        self,
        tenant: str,
        reservation: str,
        *,
        tokens: int,
        cost_usd: float,
        limits: Limits,
        now: datetime,
        hold_s: float | None = None,
    ) -> bool:
        """Reserve an estimate for one call; ``False`` when the day's budget is used up.
        ``hold_s``: the longest the call can run (its timeout and a margin); a reservation
        still open after that belongs to a dead worker and is given back (None: held until
        settled)."""
        granted = self._reserve(
            keys=[_key(tenant, budget_day(now))],
            args=[
                reservation,
                max(0, int(tokens)),
                max(0, round(cost_usd * MICRO)),
                limits.daily_tokens or 0,
                round((limits.daily_cost_usd or 0) * MICRO),
                3 * 86400,
                int(now.timestamp()),
                0 if hold_s is None else int(now.timestamp() + hold_s) + 1,
            ],
        )
        return bool(int(granted))

    def settle(
        self, tenant: str, reservation: str, *, tokens: int, cost_usd: float, now: datetime
    ) -> bool:
        """Replace a reservation by the real usage; ``False`` if it was already settled.

        ``now`` must be the time the reservation was made (its budget day), so a call that
        straddles midnight is charged to the day that admitted it.
        """
        done = self._settle(
            keys=[_key(tenant, budget_day(now))],
            args=[reservation, max(0, int(tokens)), max(0, round(cost_usd * MICRO))],
        )
        return bool(int(done))

    def spend(self, tenant: str, now: datetime) -> Spend:
        raw = self.client.hgetall(_key(tenant, budget_day(now)))
        got = {
            k.decode() if isinstance(k, bytes) else k: int(v)
            for k, v in raw.items()
            if not (k.decode() if isinstance(k, bytes) else k).startswith("r:")
        }
        return Spend(
            tokens=got.get("spent_tokens", 0),
            cost_usd=got.get("spent_micro", 0) / MICRO,
            reserved_tokens=got.get("reserved_tokens", 0),
            reserved_cost_usd=got.get("reserved_micro", 0) / MICRO,
        )
