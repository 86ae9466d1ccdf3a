"""Per-tenant API keys for the HTTP service (issue 15): create, list, revoke, authenticate.

A key is ``dg_<kind>_<32 url-safe random characters>``; it is shown once, when it is created,
and only its sha256 is stored. Its ``prefix`` (the kind and the first 8 random characters)
names it in lists and on revocation and is no secret. Two kinds:

- ``agent`` keys capture events and read an agent's pitfalls and learning;
- ``owner`` keys read the same and are meant for review and decisions (issue 15, point 4);
  the service refuses them for capture (403), so a key pasted into an agent's configuration
  is never one that can approve what that agent learned.

A key belongs to one tenant and every request made with it is scoped to that tenant. Nothing
here logs a secret; a revoked key stays listed with the time it was revoked.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import or_, select
from sqlalchemy.exc import SQLAlchemyError

from digest.db import read_scope, session_scope
from digest.errors import DatabaseUnavailable, InvalidArgument, NotFound
from digest.models import API_KEY_KINDS, ApiKey, Tenant, as_utc, utcnow
from digest.redact import driver_line
from digest.tenants import configure_tenant, tenant_named, tenant_names, unknown_key

#: random characters after ``dg_<kind>_``: 24 random bytes, url-safe base64
SECRET_BYTES = 24
#: random characters of a key kept in its prefix
PREFIX_RANDOM = 8
LABEL_MAX = 200


@dataclass(frozen=True)
class KeyInfo:
    """What may be shown of a key: never its secret."""

    id: int
    tenant: str
    kind: str
    prefix: str
    label: str | None
    created_at: datetime
    revoked_at: datetime | None


@dataclass(frozen=True)
class NewKey:
    """A key just created: ``secret`` is shown this once and never again."""

    secret: str
    info: KeyInfo


@dataclass(frozen=True)
class KeyHolder:
    """Who a request's key speaks for: the tenant (its id and stored name) and the kind."""

    key_id: int
    tenant_id: int
    tenant: str
    kind: str


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def _info(row: ApiKey, tenant: str) -> KeyInfo:
    return KeyInfo(
        id=row.id,
        tenant=tenant,
        kind=row.kind,
        prefix=row.prefix,
        label=row.label,
        created_at=as_utc(row.created_at),
        revoked_at=None if row.revoked_at is None else as_utc(row.revoked_at),
    )


def create_key(
    tenant: str, kind: str = "agent", label: str | None = None, *, create: bool = True
) -> NewKey:
    """A new key of ``kind`` for ``tenant``, created if needed (with ``create=False``, as
    ``digest tenant key create`` does, an unknown tenant is ``NotFound`` suggesting the
    closest name)."""
    if kind not in API_KEY_KINDS:
        raise InvalidArgument(f"key kind {kind!r} is not one of {list(API_KEY_KINDS)}")
    if label is not None and (len(label) > LABEL_MAX or "\x00" in label):
        raise InvalidArgument(f"a key's label is at most {LABEL_MAX} characters, no NUL byte")
    random_part = secrets.token_urlsafe(SECRET_BYTES)
    secret = f"dg_{kind}_{random_part}"
    with session_scope() as session:
        row = configure_tenant(session, tenant, create=create)
        key = ApiKey(
            tenant_id=row.id,
            kind=kind,
            prefix=f"dg_{kind}_{random_part[:PREFIX_RANDOM]}",
            key_hash=hash_secret(secret),
            label=label,
            created_at=utcnow(),
        )
        session.add(key)
        session.flush()
        return NewKey(secret, _info(key, row.name))


def list_keys(tenant: str) -> list[KeyInfo]:
    """Every key of ``tenant``, revoked ones too, oldest first; ``NotFound`` for no tenant."""
    with read_scope() as session:
        row = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
        if row is None:
            raise unknown_key("tenant", tenant, known=tenant_names(session))
        keys = session.scalars(select(ApiKey).where(ApiKey.tenant_id == row.id).order_by(ApiKey.id))
        return [_info(key, row.name) for key in keys]


def revoke_key(tenant: str, which: str) -> KeyInfo:
    """Revoke the key of ``tenant`` named by its prefix or its id. Revoking a revoked key
    changes nothing (it keeps the time it was first revoked). ``NotFound`` when the tenant
    has no such key; ``InvalidArgument`` when a prefix names more than one."""
    with session_scope() as session:
        row = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
        if row is None:
            raise unknown_key("tenant", tenant, known=tenant_names(session))
        wanted = ApiKey.prefix == which
        if which.isdigit() and int(which) < 2**63:
            wanted = or_(wanted, ApiKey.id == int(which))
        found = list(
            session.scalars(
                select(ApiKey).where(ApiKey.tenant_id == row.id, wanted).with_for_update()
            )
        )
        if not found:
            raise NotFound(f"tenant {row.name!r} has no key {which!r}")
        if len(found) > 1:
            raise InvalidArgument(f"{which!r} names {len(found)} keys; give the key's id")
        key = found[0]
        if key.revoked_at is None:
            key.revoked_at = utcnow()
            session.flush()
        return _info(key, row.name)


def authenticate(secret: str) -> KeyHolder | None:
    """The holder of the unrevoked key ``secret``, or None. Looked up by its sha256 on every
    call (no cache), so a revocation holds from the next request on.
    ``DatabaseUnavailable`` when the database cannot answer."""
    if not secret.startswith("dg_") or len(secret) > 200:
        return None
    try:
        with read_scope() as session:
            found = session.execute(
                select(ApiKey.id, ApiKey.tenant_id, ApiKey.kind, Tenant.name)
                .join(Tenant, Tenant.id == ApiKey.tenant_id)
                .where(ApiKey.key_hash == hash_secret(secret), ApiKey.revoked_at.is_(None))
            ).first()
    except SQLAlchemyError as exc:
        detail = driver_line(exc)
        raise DatabaseUnavailable(f"the API key could not be checked: {detail}") from exc
    if found is None:
        return None
    return KeyHolder(key_id=found.id, tenant_id=found.tenant_id, tenant=found.name, kind=found.kind)
