"""Forget a person (issue 29 point 2): erase a contact's events, or one event, and everything
derived from them, keeping only a hashed audit row (``forgotten``).

What is erased, in one transaction:

- the events themselves (payload, contact, thread), their citations (``lesson_evidence``),
  their cached judgements, replay probes, the holdout exposures of their runs' turns (a turn
  id is the agent's and may name the person), and the event's mark on ``digest_runs`` (the run row
  stays for the cost figures, without its event and error) and ``lesson_history``;
- with ``--contact``, the contact's asks of owner questions; a question nobody else asked goes,
  one others asked too keeps their words; an owner's answer to a question only they asked
  stays, without their question's words (in its event and the lessons citing it);
- a lesson every citation of which was forgotten (or a contact-scoped lesson of the contact)
  is retired: status ``deleted``, its text replaced by ``[forgotten]``, its history snapshots
  too. A lesson with other evidence loses the citations; its support, independent sources and
  cues are recounted from what is left;
- the quotations: every string of 12 or more characters of the forgotten payloads, the contact
  and thread ids, and the retired lessons' words (as stored and as a version renders them)
  are replaced by ``[forgotten]`` wherever derived text keeps them: the remaining lessons and
  their history, every learning version's body, change summary, hold reason and replay report
  (whose per-event rows for the forgotten events go).

Afterwards an agent whose active (or pending) version folded a retired lesson gets a new
version composed (``compose_version``), its change summary saying why. The review pages render
from the database, so they change with it; exports written before must be written again.
"""

from __future__ import annotations

from sqlalchemy import select

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import InvalidArgument
from digest.forget.derived import RECOMPOSED_NOTE, recompose
from digest.forget.erase import erase
from digest.forget.quotes import MARK
from digest.forget.result import EXPORT_NOTE, ForgetResult, subject_hash
from digest.logs import get_logger
from digest.models import Forgotten, Tenant, utcnow
from digest.tenants import missing_tenant, tenant_named

__all__ = [
    "EXPORT_NOTE",
    "MARK",
    "RECOMPOSED_NOTE",
    "ForgetResult",
    "forget",
    "subject_hash",
]

log = get_logger("digest.forget")


def forget(
    tenant: str,
    *,
    contact: str | None = None,
    event_id: int | None = None,
    by: str | None = None,
    settings: Settings | None = None,
) -> ForgetResult:
    """Erase the tenant's events of ``contact`` (or the one event ``event_id``) and what was
    derived from them; see the module's docstring. ``NotFound`` (suggesting the closest name)
    for an unknown tenant; ``InvalidArgument`` unless exactly one of contact and event is given.
    Nothing found is a result with no counts (and no audit row)."""
    if (contact is None) == (event_id is None):
        raise InvalidArgument("forget: give exactly one of contact and event")
    if contact is not None and not contact.strip():
        raise InvalidArgument("contact: must not be empty")
    settings = settings or get_settings()
    kind, value = ("contact", contact) if contact is not None else ("event", str(event_id))
    result = ForgetResult(kind, subject_hash(kind, str(value)))
    with session_scope(settings.database_url) as session:
        found = session.scalars(select(Tenant).where(tenant_named(tenant))).first()
        if found is None:
            raise missing_tenant(session, tenant)
        to_compose = erase(session, found, contact, event_id, result)
        if not result.nothing:
            audit = Forgotten(
                tenant_id=found.id, kind=kind, subject_hash=result.subject_hash,
                counts=dict(result.counts), by=by, at=utcnow(),
            )  # fmt: skip
            session.add(audit)
            session.flush()
            result.audit_id = audit.id
    for agent_id in to_compose:
        result.composed_versions += recompose(agent_id, len(result.retired_lessons), settings)
    log.info(
        "forgotten", tenant=tenant, kind=kind, subject_hash=result.subject_hash,
        counts=result.counts, by=by,
    )  # fmt: skip
    return result
