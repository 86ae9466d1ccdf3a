"""``digest tenant key create|list|revoke``: the tenant's API keys for the HTTP service."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from digest.cli import render, tables
from digest.cli.app import JsonOpt, TenantOpt, tenant_app

key_app = typer.Typer(
    rich_markup_mode=None,
    help="API keys of one tenant, for the HTTP service.",
    no_args_is_help=True,
)
tenant_app.add_typer(key_app, name="key")


def _shown(info: Any) -> dict[str, Any]:
    return {
        "id": info.id,
        "tenant": info.tenant,
        "kind": info.kind,
        "prefix": info.prefix,
        "label": info.label,
        "created_at": info.created_at.isoformat(),
        "revoked_at": None if info.revoked_at is None else info.revoked_at.isoformat(),
    }


@key_app.command("create")
def key_create(
    tenant: TenantOpt,
    kind: Annotated[
        str, typer.Option("--kind", help="agent (capture and read) or owner (review).")
    ] = "agent",
    label: Annotated[str | None, typer.Option("--label", help="What the key is for.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Create a key for an existing tenant and print it once: only its hash is kept."""
    from digest.apikeys import create_key

    new = create_key(tenant, kind, label, create=False)
    if as_json:
        render.json({**_shown(new.info), "key": new.secret})
        return
    render.say(new.secret)
    render.warn(
        f"{new.info.kind} key {new.info.prefix} for tenant {new.info.tenant!r}: "
        "store it now, it is not shown again"
    )


@key_app.command("list")
def key_list(tenant: TenantOpt, as_json: JsonOpt = False) -> None:
    """List the tenant's keys (prefix, kind, label, created, revoked), never their secrets."""
    from digest.apikeys import list_keys

    rows = [_shown(info) for info in list_keys(tenant)]
    if as_json:
        render.json(rows)
    elif rows:
        tables.api_keys(rows)
    else:
        render.say(f"tenant {tenant!r} has no API keys")


@key_app.command("revoke")
def key_revoke(
    tenant: TenantOpt,
    which: Annotated[str, typer.Argument(help="The key's prefix (dg_agent_…) or its id.")],
    as_json: JsonOpt = False,
) -> None:
    """Revoke a key: requests with it get 401 from then on. Revoking twice is harmless."""
    from digest.apikeys import revoke_key

    info = revoke_key(tenant, which)
    if as_json:
        render.json(_shown(info))
        return
    render.say(
        f"key {info.prefix} (id {info.id}) of tenant {info.tenant!r} revoked at "
        f"{render.when(info.revoked_at.isoformat() if info.revoked_at else None)}"
    )
