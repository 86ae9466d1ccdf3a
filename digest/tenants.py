"""Tenants and agents: their keys, finding an agent by its keys, and per-tenant settings (apply
mode and the knobs of the version triggers).

Keys. A tenant or agent key is stored NFC-normalised, and a key that could pass for another is
never created: ``normal_key`` refuses control characters (C0, C1), invisible format characters
(zero-width space, joiners, U+2060, U+FEFF, bidi controls, …), line separators, any space but
U+0020, leading or trailing whitespace, an empty key, more than ``KEY_MAX`` characters, and a
key that mixes Latin letters with Cyrillic or Greek ones (``acme`` with a Cyrillic ``а``).
Every way a key comes in goes through here: capture validates with ``key_problem`` (an
``InvalidEvent`` naming ``tenant`` or ``agent``), other calls that create a tenant with
``normal_key`` (``InvalidArgument``), and lookups with ``tenant_named`` / ``agent_named``,
which normalise and never refuse, so a name stored before these rules still reads.

``tenants.settings`` holds overrides; anything not set there falls back to the process
settings (``DIGEST_THRESHOLD_SIGNALS``, ``DIGEST_QUIET_SECONDS``, ``DIGEST_FREQUENCY_GATE``,
``DIGEST_PROMOTION_CONTACTS``, ``DIGEST_INDEPENDENT_SPREAD_S``).
"""

from __future__ import annotations

import difflib
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import DigestError, InvalidArgument, InvalidEvent, NotFound
from digest.models import APPLY_MODES, Agent, ApiKey, Event, Tenant, utcnow

#: the keys a tenant may override, with their lower bounds
TENANT_KEYS = {
    "threshold_signals": 1,
    "quiet_seconds": 0,
    "frequency_gate": 1,
    "promotion_contacts": 2,
    "independent_spread_s": 0,
    "holdout_permille": 0,
}
#: keys with an upper bound of their own (else ``TENANT_VALUE_MAX``)
TENANT_KEY_MAX = {"holdout_permille": 500}
#: the upper bound of every tenant override (a count or seconds; 68 years of seconds)
TENANT_VALUE_MAX = 2**31 - 1

# --- keys -----------------------------------------------------------------------------------

#: the longest tenant or agent key (the columns hold 200 characters)
KEY_MAX = 200
#: scripts whose letters look alike: a key may use letters of one of them, not of two
_LOOKALIKE_SCRIPTS = ("LATIN", "CYRILLIC", "GREEK")
#: Unicode categories a key may not hold, with what to call them
_REFUSED = {
    "Cc": "a control character",
    "Cf": "an invisible formatting character",
    "Cs": "a lone surrogate",
    "Co": "a private-use character",
    "Zs": "a space other than U+0020",
    "Zl": "a line separator",
    "Zp": "a paragraph separator",
}


def key_problem(value: object) -> str | None:
    """What makes ``value`` unusable as a new tenant or agent key, as a phrase (``contains
    U+200B ZERO WIDTH SPACE, an invisible formatting character``), or ``None`` if it is a good
    key.
    ``value`` is judged in its NFC form, the form it would be stored in."""
    if not isinstance(value, str):
        return f"must be text, not {type(value).__name__}"
    key = unicodedata.normalize("NFC", value)
    if not key.strip():
        return "must not be empty or whitespace"
    if len(key) > KEY_MAX:
        return f"is {len(key)} characters long; at most {KEY_MAX}"
    scripts: set[str] = set()
    for char in key:
        category = unicodedata.category(char)
        kind = _REFUSED.get(category) if char != " " else None
        if kind is not None:
            return f"contains {_code_point(char)}, {kind}"
        if category.startswith("L"):
            script = unicodedata.name(char, "").partition(" ")[0]
            if script in _LOOKALIKE_SCRIPTS:
                scripts.add(script)
    if key != key.strip():
        return "must not start or end with whitespace"
    if len(scripts) > 1:
        mixed = " and ".join(s.title() for s in _LOOKALIKE_SCRIPTS if s in scripts)
        return f"mixes {mixed} letters (a look-alike of another key)"
    return None


def _code_point(char: str) -> str:
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" {name}" if name else "")


def normal_key(value: str, field: str) -> str:
    """``value`` as a tenant or agent key is stored (NFC), or ``InvalidArgument`` naming
    ``field`` (``tenant`` or ``agent``) when it is not a key anyone should create (see
    ``key_problem``)."""
    problem = key_problem(value)
    if problem is not None:
        raise InvalidArgument(f"{field} {value!r} is not a valid key: it {problem}")
    return unicodedata.normalize("NFC", value)


def lookup_key(value: str) -> str:
    """The stored form of a key being looked up: NFC, nothing refused (a name stored before the
    rules of ``key_problem`` must still be found)."""
    return unicodedata.normalize("NFC", value) if isinstance(value, str) else value


def tenant_named(name: str) -> ColumnElement[bool]:
    """The condition that selects the tenant whose key is ``name``."""
    return Tenant.name == lookup_key(name)


def agent_named(name: str) -> ColumnElement[bool]:
    """The condition that selects the agents whose key is ``name`` (join a tenant for one)."""
    return Agent.name == lookup_key(name)


def named(tenant: str | None, agent: str | None = None) -> list[ColumnElement[bool]]:
    """The conditions selecting the tenant and the agent given (none for one not given): a
    query joined to both narrows itself with ``.where(*named(tenant, agent))``."""
    found = [tenant_named(tenant)] if tenant is not None else []
    return found + ([agent_named(agent)] if agent is not None else [])


def unknown_key(
    field: str, name: str, where: str = "", *, known: Iterable[str] = (), hint: str = ""
) -> DigestError:
    """The error for a tenant or agent ``name`` that is not there: ``NotFound``, or
    ``InvalidArgument`` when ``name`` is not a valid key at all (a look-alike of the key meant,
    which a person should be told about rather than search for). With ``known`` (the names
    there are), it suggests the closest one (a typo: "did you mean 'acme'?"); ``hint`` says
    what to do otherwise."""
    problem = key_problem(name)
    if problem is not None:
        return InvalidArgument(f"{field} {name!r} is not a valid key: it {problem}")
    closest = closest_name(name, known)
    guess = f"; did you mean {closest!r}?" if closest else ""
    return NotFound(f"unknown {field} {name!r}{where}{guess}{hint}")


def closest_name(name: str, known: Iterable[str]) -> str | None:
    """The existing name ``name`` most likely mistypes (difflib's ratio ≥ 0.6), if any."""
    names = [x for x in known if x != name]
    found = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if found:
        return found[0]
    folded = {x.casefold(): x for x in names}
    return folded.get(name.casefold())


def tenant_names(session: Session) -> list[str]:
    return list(session.scalars(select(Tenant.name).order_by(Tenant.name)))


def agent_names(session: Session, tenant_id: int) -> list[str]:
    return list(session.scalars(select(Agent.name).where(Agent.tenant_id == tenant_id)))


def missing_tenant(session: Session, name: str) -> DigestError:
    """``unknown tenant 'acmee'; did you mean 'acme'?``, and how to create a new one: owner
    commands never create a tenant (a typo would make one); capture does, on first use."""
    hint = f" (a new tenant: `digest tenant create --tenant {name}`)"
    return unknown_key("tenant", name, known=tenant_names(session), hint=hint)


@dataclass(frozen=True)
class TenantPolicy:
    name: str
    learning_apply_mode: str
    threshold_signals: int
    quiet_seconds: int
    frequency_gate: int
    promotion_contacts: int
    independent_spread_s: int


def policy_for(tenant: Tenant, settings: Settings) -> TenantPolicy:
    own: dict[str, Any] = dict(tenant.settings or {})

    def value(key: str) -> int:
        raw = own.get(key)
        return (
            int(raw)
            if isinstance(raw, int) and not isinstance(raw, bool)
            else getattr(settings, key)
        )

    return TenantPolicy(
        name=tenant.name,
        learning_apply_mode=tenant.learning_apply_mode,
        threshold_signals=value("threshold_signals"),
        quiet_seconds=value("quiet_seconds"),
        frequency_gate=value("frequency_gate"),
        promotion_contacts=value("promotion_contacts"),
        independent_spread_s=value("independent_spread_s"),
    )


#: the largest daily budgets a tenant may set (beyond them a budget is no limit: leave it out)
DAILY_TOKENS_MAX = 10**15
DAILY_COST_MAX = 10**9


def budget_value(field: str, value: object) -> int | float:
    """A daily budget as stored (``daily_tokens``: a whole number of tokens; ``daily_cost_usd``:
    an amount in USD), or ``InvalidEvent`` naming ``field``. Text is read as a number (the
    command line passes it as typed)."""
    tokens = field == "daily_tokens"
    what = "a whole number of tokens" if tokens else "an amount in USD"
    top = DAILY_TOKENS_MAX if tokens else DAILY_COST_MAX
    number: int | float | None = None
    if isinstance(value, str):
        try:
            number = int(value.strip()) if tokens else float(value.strip())
        except ValueError:
            number = None
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number = value if not tokens or float(value).is_integer() else None
    if number is None or number != number:  # not a number, or NaN
        raise InvalidEvent(field, f"must be {what} above 0, got {value!r}")
    if not 0 < number <= top:
        raise InvalidEvent(field, f"must be {what} above 0 and at most {top:g}, got {value!r}")
    return int(number) if tokens else round(float(number), 6)


def configure_tenant(
    session: Session,
    name: str,
    *,
    learning_apply_mode: str | None = None,
    create: bool = True,
    **overrides: int | None,
) -> Tenant:
    """Set the tenant's apply mode and trigger overrides, creating it if needed (with
    ``create=False``, an unknown tenant is ``NotFound`` suggesting the closest name).

    Raises ``InvalidEvent`` naming the field for an unknown mode, key or out-of-range value,
    and ``InvalidArgument`` for a tenant key that may not be created (``normal_key``; an
    existing tenant is found by its stored name whatever it is).
    """
    if learning_apply_mode is not None and learning_apply_mode not in APPLY_MODES:
        raise InvalidEvent("learning_apply_mode", f"must be one of {', '.join(APPLY_MODES)}")
    for key, value in overrides.items():
        if key not in TENANT_KEYS:
            raise InvalidEvent(key, f"unknown tenant setting; one of {sorted(TENANT_KEYS)}")
        if value is not None and (
            not isinstance(value, int)
            or isinstance(value, bool)
            or not TENANT_KEYS[key] <= value <= TENANT_KEY_MAX.get(key, TENANT_VALUE_MAX)
        ):
            top = TENANT_KEY_MAX.get(key, TENANT_VALUE_MAX)
            raise InvalidEvent(key, f"must be an integer from {TENANT_KEYS[key]} to {top}")
    tenant = session.scalars(select(Tenant).where(tenant_named(name))).first()
    if tenant is None and not create:
        raise missing_tenant(session, name)
    if tenant is None:
        tenant = Tenant(
            name=normal_key(name, "tenant"),
            learning_apply_mode="auto",
            settings={},
            created_at=utcnow(),
        )
        session.add(tenant)
    if learning_apply_mode is not None:
        tenant.learning_apply_mode = learning_apply_mode
    merged = dict(tenant.settings or {})
    merged.update({k: v for k, v in overrides.items() if v is not None})
    tenant.settings = merged
    session.flush()
    return tenant


def find_agent(session: Session, tenant: str, agent: str) -> Agent:
    """The agent ``agent`` of tenant ``tenant``, or ``NotFound`` naming which one is unknown
    and the closest existing name (``InvalidArgument`` when that name is not a valid key: see
    ``unknown_key``)."""
    tenant_row = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
    if tenant_row is None:
        raise unknown_key("tenant", tenant, known=tenant_names(session))
    agent_row = session.scalars(
        select(Agent).where(Agent.tenant_id == tenant_row.id, agent_named(agent))
    ).first()
    if agent_row is None:
        known = agent_names(session, tenant_row.id)
        raise unknown_key("agent", agent, f" in tenant {tenant!r}", known=known)
    return agent_row


@dataclass(frozen=True)
class TenantSettings:
    """A tenant's apply mode and the trigger settings it overrides (the rest follow
    DIGEST_*)."""

    name: str
    learning_apply_mode: str
    overrides: dict[str, int]
    #: the daily model budget (None: no limit on that measure)
    daily_tokens: int | None = None
    daily_cost_usd: float | None = None


def _shown(row: Tenant) -> TenantSettings:
    return TenantSettings(
        row.name,
        row.learning_apply_mode,
        dict(row.settings or {}),
        row.daily_tokens,
        None if row.daily_cost_usd is None else float(row.daily_cost_usd),
    )


def set_tenant(
    tenant: str,
    *,
    learning_apply_mode: str | None = None,
    settings: Settings | None = None,
    create: bool = True,
    daily_tokens: object = None,
    daily_cost_usd: object = None,
    no_budget: bool = False,
    **overrides: int | None,
) -> TenantSettings:
    """Set a tenant's apply mode (``auto``, ``approval`` or ``staged``) and trigger overrides,
    creating the tenant if needed (``create=False``, as ``digest tenant set`` does: an unknown
    tenant is ``NotFound`` suggesting the closest name). ``InvalidEvent`` naming the field for
    a value it cannot use; ``InvalidArgument`` for a new tenant's key that is not valid
    (``normal_key``).

    ``daily_tokens`` / ``daily_cost_usd`` set the tenant's daily model budget (each measure
    alone, or both: a number, or its text); ``no_budget`` removes both (it cannot be combined
    with them). Every value is checked before anything is written."""
    settings = settings or get_settings()
    tokens = None if daily_tokens is None else budget_value("daily_tokens", daily_tokens)
    cost = None if daily_cost_usd is None else budget_value("daily_cost_usd", daily_cost_usd)
    if no_budget and (tokens is not None or cost is not None):
        field = "daily_tokens" if tokens is not None else "daily_cost_usd"
        raise InvalidEvent(field, "cannot be set together with no_budget (which removes it)")
    with session_scope(settings.database_url) as session:
        row = configure_tenant(
            session, tenant, learning_apply_mode=learning_apply_mode, create=create, **overrides
        )
        if no_budget:
            row.daily_tokens = row.daily_cost_usd = None
        if tokens is not None:
            row.daily_tokens = int(tokens)
        if cost is not None:
            row.daily_cost_usd = float(cost)
        session.flush()
        return _shown(row)


def create_tenant(tenant: str, settings: Settings | None = None) -> tuple[TenantSettings, bool]:
    """Create the tenant ``tenant`` (its key must be valid: ``normal_key``); also whether it
    was new (an existing one is left as it is)."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        existing = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
        row = existing or configure_tenant(session, tenant)
        return _shown(row), existing is None


@dataclass(frozen=True)
class TenantRow:
    """One tenant as ``digest tenant list`` shows it."""

    name: str
    learning_apply_mode: str
    overrides: dict[str, int]
    agents: int
    events: int
    keys: int
    daily_tokens: int | None = None
    daily_cost_usd: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "tenant": self.name,
            "apply_mode": self.learning_apply_mode,
            "overrides": self.overrides,
            "daily_tokens": self.daily_tokens,
            "daily_cost_usd": self.daily_cost_usd,
            "agents": self.agents,
            "events": self.events,
            "active_keys": self.keys,
        }


def list_tenants(settings: Settings | None = None) -> list[TenantRow]:
    """Every tenant by name, with its apply mode, overrides and how many agents, events and
    unrevoked API keys it has."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:

        def counts(column: Any, *where: Any) -> dict[int, int]:
            query = select(column, func.count()).where(*where).group_by(column)
            return {tenant_id: n for tenant_id, n in session.execute(query)}

        agents = counts(Agent.tenant_id)
        events = counts(Event.tenant_id)
        keys = counts(ApiKey.tenant_id, ApiKey.revoked_at.is_(None))
        return [
            TenantRow(
                row.name,
                row.learning_apply_mode,
                dict(row.settings or {}),
                agents.get(row.id, 0),
                events.get(row.id, 0),
                keys.get(row.id, 0),
                row.daily_tokens,
                None if row.daily_cost_usd is None else float(row.daily_cost_usd),
            )
            for row in session.scalars(select(Tenant).order_by(Tenant.name))
        ]


def require_existing(
    tenant: str,
    agent: str | None = None,
    *,
    new_agent: bool = False,
    settings: Settings | None = None,
) -> None:
    """``NotFound`` (suggesting the closest name) unless the tenant exists and, when ``agent``
    is given and ``new_agent`` is not, the agent does too: an owner command checks this
    before it writes anything, so a typo never makes a tenant or an agent."""
    settings = settings or get_settings()
    with session_scope(settings.database_url) as session:
        row = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
        if row is None:
            raise missing_tenant(session, tenant)
        if agent is None or new_agent:
            return
        found = session.scalar(
            select(Agent.id).where(Agent.tenant_id == row.id, agent_named(agent))
        )
        if found is None:
            known = agent_names(session, row.id)
            hint = " (for a new agent, add --new-agent)"
            raise unknown_key("agent", agent, f" in tenant {tenant!r}", known=known, hint=hint)
