"""``digest forget``: erase a person's data (a contact's events, or one event) and what was
learned only from it (``digest.forget``)."""

from __future__ import annotations

from typing import Annotated

import typer

from digest.cli import render
from digest.cli.app import ID_MAX, JsonOpt, TenantOpt, app


@app.command("forget")
def forget_command(
    tenant: TenantOpt,
    contact: Annotated[
        str | None, typer.Option("--contact", help="Erase every event of this contact.")
    ] = None,
    event: Annotated[
        int | None, typer.Option("--event", min=1, max=ID_MAX, help="Erase this one event.")
    ] = None,
    by: Annotated[
        str | None, typer.Option("--by", help="Who asked (kept in the audit row).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Erase a contact's events (or one event), their payloads and every quotation of them:
    lesson evidence, history snapshots, cached judgements, questions they asked, learning
    versions. A lesson learned only from them is retired with its text removed; a version
    that folded one is recomposed. Only a hashed audit row is kept. Nothing to forget: says
    so and exits 0."""
    from digest.errors import InvalidArgument
    from digest.forget import forget

    if (contact is None) == (event is None):
        raise InvalidArgument("give exactly one of --contact and --event")
    done = forget(tenant, contact=contact, event_id=event, by=by)
    if as_json:
        render.json(done.to_json())
        return
    what = "contact" if contact is not None else f"event {event}"
    if done.nothing:
        render.say(f"nothing to forget: no data of that {what} in tenant {tenant!r}")
        return
    erased = ", ".join(f"{table} {n}" for table, n in done.counts.items() if n)
    render.say(f"forgot the {what} in tenant {tenant!r}: {erased}")
    if done.composed_versions:
        listed = ", ".join(str(v) for v in done.composed_versions)
        render.say(f"recomposed: version id(s) {listed}")
    render.say(f"audit row {done.audit_id} (sha256 {done.subject_hash[:12]}…); {EXPORT_LINE}")


#: exports are files digest does not track
EXPORT_LINE = "exports written before this still hold it: run `digest export` again"
