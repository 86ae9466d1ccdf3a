"""Commands that look after the installation: db upgrade, tenant create|list|set, stats, export,
import."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from digest.cli import progress, render, tables
from digest.cli.app import AgentOpt, JsonOpt, TenantOpt, app, db_app, tenant_app
from digest.errors import DigestError, InvalidArgument


def shown_url() -> str:
    """DIGEST_DATABASE_URL with its password masked."""
    from digest.config import get_settings
    from digest.redact import redact

    return redact(get_settings().database_url)


def upgrade_schema(revision: str = "head") -> None:
    """Run the migrations up to ``revision``; a failure becomes one ``DigestError`` sentence."""
    from digest.cli.app import sqlite_file
    from digest.config import get_settings
    from digest.migrate import upgrade
    from digest.redact import redact

    path = sqlite_file(get_settings().database_url)
    if path is not None and not path.parent.is_dir():
        raise DigestError(
            f"cannot make the database {path}: the folder {path.parent} does not exist "
            "(create it, or point DIGEST_DATABASE_URL elsewhere)"
        )
    try:
        upgrade(revision=revision)
    except DigestError:
        raise
    except Exception as exc:  # alembic and the drivers raise many types; report the first line
        lines = str(exc).strip().splitlines()
        detail = redact(lines[0]) if lines else ""
        raise DigestError(f"migration failed: {type(exc).__name__}: {detail}") from exc


@db_app.command("upgrade")
def db_upgrade(
    revision: Annotated[str, typer.Argument(help="Target revision.")] = "head",
) -> None:
    """Apply the Alembic migrations to DIGEST_DATABASE_URL (Postgres or SQLite)."""
    upgrade_schema(revision)
    render.say(f"database at {shown_url()} is at revision {revision}")


@tenant_app.command("set")
def tenant_set(
    tenant: TenantOpt,
    apply_mode: Annotated[
        str | None,
        typer.Option(
            "--apply-mode",
            help="auto, approval, or staged (only versions that change or retire a trusted "
            "lesson wait for a person).",
        ),
    ] = None,
    threshold: Annotated[
        int | None, typer.Option(help="Undigested signals that trigger a compose.")
    ] = None,
    quiet: Annotated[int | None, typer.Option(help="Quiet seconds before that compose.")] = None,
    gate: Annotated[
        int | None,
        typer.Option(
            help="Independent sources (distinct contacts, else threads) an untrusted lesson "
            "needs before an agent reads it."
        ),
    ] = None,
    promotion: Annotated[
        int | None, typer.Option(help="Distinct contacts that promote a contact's lesson.")
    ] = None,
    spread: Annotated[
        int | None,
        typer.Option(help="Seconds an untrusted lesson's sources must span to count apart."),
    ] = None,
    holdout_share: Annotated[
        float | None,
        typer.Option(
            "--holdout-share",
            min=0.0,
            max=0.5,
            help="Share of turns (0-0.5) on which each eligible lesson is withheld to measure "
            "its causal effect; 0 turns holdouts off (default DIGEST_HOLDOUT_SHARE).",
        ),
    ] = None,
    daily_tokens: Annotated[
        str | None,
        typer.Option(
            "--daily-tokens",
            help="Daily budget of model tokens (a whole number above 0), kept fleet-wide; "
            "over it, events wait for the next UTC day.",
        ),
    ] = None,
    daily_cost: Annotated[
        str | None,
        typer.Option(
            "--daily-cost",
            help="Daily budget of model cost in USD (above 0), priced by litellm's cost map.",
        ),
    ] = None,
    no_budget: Annotated[
        bool, typer.Option("--no-budget", help="Remove the tenant's daily budget.")
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Set an existing tenant's apply mode, trigger overrides and daily model budget (a new
    tenant: `digest tenant create`)."""
    from digest.errors import InvalidEvent
    from digest.tenants import set_tenant

    try:
        row = set_tenant(
            tenant, learning_apply_mode=apply_mode, threshold_signals=threshold,
            quiet_seconds=quiet, frequency_gate=gate, promotion_contacts=promotion,
            independent_spread_s=spread, create=False,
            holdout_permille=None if holdout_share is None else round(holdout_share * 1000),
            daily_tokens=daily_tokens, daily_cost_usd=daily_cost, no_budget=no_budget,
        )  # fmt: skip
    except InvalidEvent as exc:  # the setting as the person typed it, not the column
        option = TENANT_OPTIONS.get(exc.field, exc.field)
        raise InvalidArgument(f"{option} ({exc.field}): {exc.message}") from None
    if as_json:
        render.json(_tenant_json(row))
        return
    render.say(f"tenant {row.name!r}: apply mode {tenant_settings_line(row)}")


def _tenant_json(row: Any, **more: Any) -> dict[str, Any]:
    return {
        "tenant": row.name, "learning_apply_mode": row.learning_apply_mode,
        "overrides": dict(row.overrides), "daily_tokens": row.daily_tokens,
        "daily_cost_usd": row.daily_cost_usd, **more,
    }  # fmt: skip


#: ``digest tenant set``'s option for each tenant setting
TENANT_OPTIONS = {
    "learning_apply_mode": "--apply-mode",
    "threshold_signals": "--threshold",
    "quiet_seconds": "--quiet",
    "frequency_gate": "--gate",
    "promotion_contacts": "--promotion",
    "independent_spread_s": "--spread",
    "holdout_permille": "--holdout-share (thousandths)",
    "daily_tokens": "--daily-tokens",
    "daily_cost_usd": "--daily-cost",
}


def tenant_settings_line(row: Any) -> str:
    """``approval; --gate 2, --spread 0``: the apply mode and the settings overridden."""
    own = ", ".join(f"{TENANT_OPTIONS.get(k, k)} {v}" for k, v in sorted(row.overrides.items()))
    own = own or "no overrides (DIGEST_* apply)"
    budget = row.daily_tokens is not None or row.daily_cost_usd is not None
    return f"{row.learning_apply_mode}; {own}" + (f"; {budget_words(row)}" if budget else "")


def budget_words(row: Any) -> str:
    """``budget 50,000 tokens and $2 a day``, or ``no daily budget``."""
    parts = []
    if row.daily_tokens is not None:
        parts.append(f"{row.daily_tokens:,} tokens")
    if row.daily_cost_usd is not None:
        parts.append(f"${row.daily_cost_usd:g}")
    return f"budget {' and '.join(parts)} a day" if parts else "no daily budget"


@tenant_app.command("create")
def tenant_create(tenant: TenantOpt, as_json: JsonOpt = False) -> None:
    """Create a tenant (capture creates one on first use; owner commands never do)."""
    from digest.tenants import create_tenant

    row, created = create_tenant(tenant)
    if as_json:
        render.json(_tenant_json(row, created=created))
        return
    render.say(f"{'created' if created else 'already there:'} tenant {row.name!r}")


@tenant_app.command("list")
def tenant_list(as_json: JsonOpt = False) -> None:
    """Every tenant: apply mode, overrides, agents, events and unrevoked API keys."""
    from digest.tenants import list_tenants

    rows = list_tenants()
    if as_json:
        render.json([row.to_json() for row in rows])
    elif rows:
        tables.tenants(rows, tenant_settings_line)
    else:
        render.say("no tenants (capture creates one on first use, or `digest tenant create`)")


@app.command()
def stats(
    tenant: Annotated[str | None, typer.Option("--tenant", help="Only this tenant.")] = None,
    agent: Annotated[str | None, typer.Option("--agent", help="Only this agent.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Per agent: events and lessons by status, skip rate, LLM calls, tokens, cost, version;
    per tenant: the day's spend against its daily model budget."""
    from digest.lessons.service import agent_stats, relay_warning

    rows = agent_stats(tenant, agent)
    warning = relay_warning()
    if as_json:
        render.json([row.to_json() for row in rows])
    elif rows:
        tables.agent_stats(rows)
        budget_lines(rows)
    else:
        render.say("no agents")
    if warning:
        render.warn(warning)


def budget_lines(rows: list[Any]) -> None:
    """Each tenant's budget day once, then each agent's share of it and its waiting events."""
    told: set[str] = set()
    for row in rows:
        day = row.tenant_budget
        if day is not None and row.tenant not in told:
            told.add(row.tenant)
            render.say(f"{row.tenant}: {budget_sentence(day)}")
        if row.today_tokens or row.budget_waiting:
            waits = f"; {row.budget_waiting} event(s) wait for the budget" * bool(
                row.budget_waiting
            )
            render.say(
                f"{row.tenant}/{row.agent}: {row.today_tokens:,} tokens, "
                f"${row.today_cost_usd:.4f} on provider models today (UTC){waits}"
            )


def budget_sentence(day: dict[str, Any]) -> str:
    from digest.lessons.budgets import TenantBudget

    fields = {k: v for k, v in day.items() if k != "spent"}
    return TenantBudget(**fields).sentence()


@app.command("export")
def export_command(
    tenant: TenantOpt,
    agent: AgentOpt,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write into.")],
    as_json: JsonOpt = False,
) -> None:
    """Write the agent's active lessons as AIP-11 LESSON.md files plus _index.md. Exporting
    again into the same folder mirrors the bank: the files an earlier export wrote for lessons
    no longer active are removed (unless changed by hand since); other files are left alone."""
    from digest.interop import export_lessons

    report = export_lessons(tenant, agent, out_dir)
    if as_json:
        render.json(
            {
                "files": [str(p) for p in report.written],
                "removed": [str(p) for p in report.removed],
                "kept": [str(p) for p in report.kept],
            }
        )
        return
    for path in report.kept:
        render.warn(f"kept {path}: its lesson is no longer active, but the file was changed")
    removed = f"; removed {len(report.removed)} no longer active" if report.removed else ""
    render.say(f"wrote {len(report.written) - 1} lesson(s) and _index.md to {out_dir}{removed}")


@app.command("import")
def import_command(
    directory: Annotated[Path, typer.Argument(help="Folder with LESSON.md files.")],
    tenant: TenantOpt,
    agent: AgentOpt,
    trusted: Annotated[
        bool,
        typer.Option(
            "--trusted",
            help="The files are the owner's own rules: import them as trusted (default: "
            "untrusted, screened like run text and shown as observations).",
        ),
    ] = False,
    new_agent: Annotated[
        bool,
        typer.Option(
            "--new-agent", help="The agent may be new: create it (the tenant must exist)."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Import AIP-11 LESSON.md files through reconciliation (counts in files are ignored).
    Untrusted unless --trusted. The tenant must exist, and the agent too unless --new-agent.
    Bad files are reported one per line; exit 1 if any failed."""
    from digest.interop import import_lessons
    from digest.tenants import normal_key, require_existing

    # one sentence for a key no lesson could be stored under, rather than one per file
    tenant, agent = normal_key(tenant, "tenant"), normal_key(agent, "agent")
    require_existing(tenant, agent, new_agent=new_agent)  # a typo never makes a tenant
    with progress.count_progress("importing", disable=as_json, unit="file(s)") as advance:
        report = import_lessons(tenant, agent, directory, trusted=trusted, on_file=advance)
    if as_json:
        render.json(
            {
                "imported": [{"file": f, "result": r} for f, r in report.imported],
                "errors": [{"file": f, "error": e} for f, e in report.errors],
            }
        )
    else:
        for file, error in report.errors:
            render.rejected(f"{file}: {error}")
        new = sum(1 for _, result in report.imported if result == "imported")
        render.say(
            f"imported {new}, already there {len(report.imported) - new}, "
            f"rejected {len(report.errors)}"
        )
    if report.errors:
        raise typer.Exit(1)
