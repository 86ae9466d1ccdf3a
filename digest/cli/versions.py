"""``digest version list|show|diff|replay|approve|reject|rollback``: an agent's learning
versions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from digest.cli import render, tables
from digest.cli.app import AgentOpt, JsonOpt, TenantOpt, id_argument, read_text_file, version_app

ByOpt = Annotated[str, typer.Option("--by", help="Who decides (recorded on the version).")]


@version_app.command("list")
def version_list(tenant: TenantOpt, agent: AgentOpt, as_json: JsonOpt = False) -> None:
    """The agent's versions, newest first."""
    from digest.versions.queries import list_versions

    rows = [version.to_json() for version in list_versions(tenant, agent)]
    if as_json:
        render.json(rows)
        return
    if rows:
        tables.versions(rows)
    else:
        render.say(f"no version yet for {tenant}/{agent}")
    render.held_lessons(tenant, agent)
    render.next_version(tenant, agent)


@version_app.command("show")
def version_show(
    tenant: TenantOpt,
    agent: AgentOpt,
    number: Annotated[int, id_argument("Version number.")],
    as_json: JsonOpt = False,
) -> None:
    """One version: its body, change summary and provenance."""
    from digest.versions.queries import read_version

    version = read_version(tenant, agent, number)
    if as_json:
        render.json(version.to_json(body=True))
        return
    render.say(f"version {version.number} ({version.status}, {version.trigger})")
    if version.hold_reason:
        waits = "waits" if version.status == "pending" else "waited"
        render.say(f"it {waits} for a person: {version.hold_reason}")
    render.block(version.change_summary)
    if version.replay is not None:
        render.rule("replay")
        tables.replay(version.replay.to_json(), proposed=f"v{version.number} (this)")
    render.rule()
    render.block(version.body_markdown)


#: what ``version replay`` says a compose now would do
_OUTCOMES = {
    "no_change": "write no new version (the active or a pending version has this document)",
    "activate": "activate the new version",
    "hold": "keep the new version pending for a person",
}


@version_app.command("replay")
def version_replay(
    tenant: TenantOpt,
    agent: AgentOpt,
    events: Annotated[
        int | None,
        typer.Argument(
            min=1,
            max=10_000,
            help="How many recent failed or edited events to replay (default: "
            "DIGEST_REPLAY_EVENTS).",
        ),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Replay the agent's recent failed or edited events against its active version and
    against what a compose would propose now, side by side, and say what that compose would
    do. Writes nothing and calls no model."""
    from digest.versions.preview import preview_compose

    preview = preview_compose(tenant, agent, events)
    if as_json:
        render.json(preview.to_json())
        return
    tables.replay(preview.report.to_json(), proposed="proposed now")
    if preview.unchanged:
        render.say(f"a compose now would write no new version: {preview.unchanged}")
    else:
        render.say(f"a compose now would {_OUTCOMES[preview.outcome]} ({preview.mode} mode)")
    for reason in preview.reasons:
        render.say(f"  {reason}")


@version_app.command("diff")
def version_diff(
    tenant: TenantOpt,
    agent: AgentOpt,
    old: Annotated[int, id_argument("Older version number.")],
    new: Annotated[int, id_argument("Newer version number.")],
) -> None:
    """Unified diff of two versions' bodies (says so when they are the same)."""
    from digest.versions.queries import diff_versions

    diff = diff_versions(tenant, agent, old, new)
    if diff.strip():
        render.plain(diff)
    elif old == new:
        render.say(f"version {old} compared with itself: no difference")
    else:
        render.say(f"versions {old} and {new} have the same body")


def _decided(version: Any) -> dict[str, Any]:
    """What ``approve``, ``reject`` and ``rollback`` print with ``--json``: the version as it
    is now."""
    return {
        "number": version.number, "status": version.status, "trigger": version.trigger,
        "approved_by": version.approved_by,
        "approved_at": version.approved_at.isoformat() if version.approved_at else None,
    }  # fmt: skip


@version_app.command("approve")
def version_approve(
    tenant: TenantOpt,
    agent: AgentOpt,
    number: Annotated[int, id_argument("The pending version.")],
    by: ByOpt,
    body_file: Annotated[
        Path | None, typer.Option("--body-file", help="Approve an edited body instead.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Activate a pending version (optionally with an edited body)."""
    from digest.versions.decisions import approve

    body = read_text_file(body_file, "--body-file") if body_file else None
    version = approve(tenant, agent, number, by=by, body=body)
    if as_json:
        render.json(_decided(version))
        return
    edited = ", with the body you edited" if body is not None else ""
    render.say(f"version {version.number} is active: approved by {by}{edited}")


@version_app.command("reject")
def version_reject(
    tenant: TenantOpt,
    agent: AgentOpt,
    number: Annotated[int, id_argument("The pending version.")],
    by: ByOpt,
    as_json: JsonOpt = False,
) -> None:
    """Reject a pending version; its lessons stay for the next compose."""
    from digest.versions.decisions import reject

    version = reject(tenant, agent, number, by=by)
    if as_json:
        render.json(_decided(version))
        return
    render.say(f"version {version.number} is rejected")


@version_app.command("rollback")
def version_rollback(
    tenant: TenantOpt,
    agent: AgentOpt,
    number: Annotated[int, id_argument("The version whose body to restore.")],
    by: ByOpt,
    as_json: JsonOpt = False,
) -> None:
    """Append a new active version with the body of an earlier one."""
    from digest.versions.decisions import rollback

    version = rollback(tenant, agent, number, by=by)
    if as_json:
        render.json(_decided(version))
        return
    render.say(f"version {version.number} is active (body of version {number})")
