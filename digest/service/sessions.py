"""Signed-in owners of the review page: log in with an owner key, a session cookie, CSRF tokens.

Logging in checks an owner key (``digest.apikeys.authenticate``; an agent key is refused) and
stores a new session whose random token goes to the browser in an ``HttpOnly``,
``SameSite=Strict`` cookie; only the token's sha256 is kept (``review_sessions``). Every page
looks the session up again, joined to its key, so revoking the owner key ends its sessions at
the next request, and a session expires after ``DIGEST_REVIEW_SESSION_HOURS``. Sessions live
in the database, so any process behind a load balancer serves any request.

CSRF: every form carries a token derived from the session's secret token (an HMAC of it), so
a page of another site cannot know it; a POST without the right one is refused. The login form,
which has no session yet, carries a random token that must match a cookie of its own (double
submit).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import SQLAlchemyError

from digest.apikeys import KeyHolder, hash_secret
from digest.config import get_settings
from digest.db import read_scope, session_scope
from digest.errors import DatabaseUnavailable
from digest.models import ApiKey, ReviewSession, Tenant, utcnow
from digest.redact import driver_line

SESSION_COOKIE = "digest_review"
LOGIN_COOKIE = "digest_review_login"
#: random bytes of a session token and of a login CSRF token
TOKEN_BYTES = 32


@dataclass(frozen=True)
class Owner:
    """Who a review session speaks for: an owner key of one tenant."""

    session_id: int
    token: str
    key_id: int
    tenant_id: int
    tenant: str
    prefix: str
    label: str | None

    @property
    def who(self) -> str:
        """How decisions made in this session are signed (the key's label and prefix)."""
        key = f"owner key {self.prefix}"
        return f"{self.label} ({key})" if self.label else key

    @property
    def csrf(self) -> str:
        return csrf_for(self.token)


def csrf_for(token: str) -> str:
    """The CSRF token of the session whose secret is ``token``."""
    return hmac.new(token.encode(), b"digest-review-csrf", hashlib.sha256).hexdigest()


def same_token(expected: str, given: str | None) -> bool:
    return given is not None and hmac.compare_digest(expected.encode(), given.encode())


def new_login_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def _unavailable(exc: SQLAlchemyError, doing: str) -> DatabaseUnavailable:
    return DatabaseUnavailable(f"{doing}: {driver_line(exc)}")


def open_session(holder: KeyHolder) -> str:
    """A new session for the owner key ``holder``; returns the token for the cookie."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = utcnow()
    hours = get_settings().review_session_hours
    try:
        with session_scope() as session:
            # Sessions past their time go when someone logs in; nothing else needs a sweep.
            session.execute(delete(ReviewSession).where(ReviewSession.expires_at <= now))
            session.add(
                ReviewSession(
                    key_id=holder.key_id,
                    token_hash=hash_secret(token),
                    created_at=now,
                    expires_at=now + timedelta(hours=hours),
                )
            )
    except SQLAlchemyError as exc:
        raise _unavailable(exc, "the session could not be stored") from exc
    return token


def find_owner(token: str | None) -> Owner | None:
    """The owner signed in with ``token``, or None (no, unknown or expired session, or its key
    revoked). ``DatabaseUnavailable`` when the database cannot answer."""
    if not token or len(token) > 200:
        return None
    try:
        with read_scope() as session:
            row = session.execute(
                select(
                    ReviewSession.id, ApiKey.id, ApiKey.tenant_id, Tenant.name, ApiKey.prefix,
                    ApiKey.label,
                )
                .join(ApiKey, ApiKey.id == ReviewSession.key_id)
                .join(Tenant, Tenant.id == ApiKey.tenant_id)
                .where(
                    ReviewSession.token_hash == hash_secret(token),
                    ReviewSession.expires_at > utcnow(),
                    ApiKey.revoked_at.is_(None),
                    ApiKey.kind == "owner",
                )
            ).first()  # fmt: skip
    except SQLAlchemyError as exc:
        raise _unavailable(exc, "the session could not be checked") from exc
    if row is None:
        return None
    session_id, key_id, tenant_id, tenant, prefix, label = row
    return Owner(session_id, token, key_id, tenant_id, tenant, prefix, label)


def close_session(owner: Owner) -> None:
    """Log out: the session's row goes, so its cookie opens nothing any more."""
    try:
        with session_scope() as session:
            session.execute(delete(ReviewSession).where(ReviewSession.id == owner.session_id))
    except SQLAlchemyError as exc:
        raise _unavailable(exc, "the session could not be closed") from exc
