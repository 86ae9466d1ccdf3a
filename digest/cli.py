"""The ``digest`` command line (DESIGN §9). Listings have ``--json`` for scripts.

Exit codes: 0 success, 1 some input was rejected (``capture``), 2 an error that stopped the
command (unknown tenant or agent, database unavailable, file missing).
"""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from digest.config import get_settings, resource_dir
from digest.errors import CaptureUnavailable, DigestError
from digest.logs import configure_logging

app = typer.Typer(
    help="lesson digest: turn what happened to your agents into versioned lessons.",
    no_args_is_help=True,
    add_completion=False,
)
db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
app.add_typer(db_app, name="db")

out = Console()
# Error lines stay one line whatever the terminal width: scripts grep them.
err = Console(stderr=True, soft_wrap=True)

DEMO_TENANT = "demo-shop"
DEMO_AGENT = "support-bot"

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


@app.callback()
def _main(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show info logs.")] = False,
) -> None:
    settings = get_settings()
    level = "INFO" if verbose else "WARNING"
    configure_logging(level, json=False if sys.stderr.isatty() else settings.log_json)


def _fail(message: str, code: int = 2) -> typer.Exit:
    err.print(f"[red]error:[/red] {message}", highlight=False)
    return typer.Exit(code)


@db_app.command("upgrade")
def db_upgrade(
    revision: Annotated[str, typer.Argument(help="Target revision.")] = "head",
) -> None:
    """Apply the Alembic migrations to DIGEST_DATABASE_URL (Postgres or SQLite)."""
    from digest.migrate import upgrade

    try:
        upgrade(revision=revision)
    except Exception as exc:  # alembic and drivers raise many types; report one line
        raise _fail(f"migration failed: {type(exc).__name__}: {exc}") from exc
    out.print(f"database at {_shown_url()} is at revision {revision}")


def _shown_url() -> str:
    from digest.config import _redact_url

    return _redact_url(get_settings().database_url)


@app.command()
def capture(
    file: Annotated[
        Path, typer.Option("--file", "-f", help="JSON Lines file, one event per line.")
    ],
    as_json: JsonOpt = False,
) -> None:
    """Store events from a JSON Lines file; each bad line is reported with its field."""
    report = _capture_with_progress(file, quiet=as_json)
    if as_json:
        out.print_json(
            data={
                "stored": len(report.stored),
                "event_ids": report.stored,
                "errors": [vars(e) for e in report.errors],
            }
        )
    else:
        for line_error in report.errors:
            err.print(f"[red]rejected[/red] {line_error}", highlight=False)
        out.print(f"stored {len(report.stored)} event(s); rejected {len(report.errors)} line(s)")
    if report.errors:
        raise typer.Exit(1)


def _capture_with_progress(file: Path, *, quiet: bool) -> Any:
    from digest.batch import capture_file

    if not file.is_file():
        raise _fail(f"no such file: {file}")
    total = file.stat().st_size
    try:
        with Progress(
            TextColumn("capturing"),
            BarColumn(),
            DownloadColumn(),
            TimeElapsedColumn(),
            console=err,
            disable=quiet or total < 64 * 1024,
            transient=True,
        ) as progress:
            task = progress.add_task("capture", total=total)
            return capture_file(file, on_progress=lambda n: progress.advance(task, n))
    except CaptureUnavailable as exc:
        raise _fail(str(exc)) from exc


@app.command()
def drain(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    agent: Annotated[str | None, typer.Option(help="Only this agent.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Reflect pending events in this process (embedded mode: no broker, no worker)."""
    from digest.relay import drain as drain_events

    try:
        results = drain_events(tenant=tenant, agent=agent)
    except DigestError as exc:
        raise _fail(str(exc)) from exc
    counts = Counter(r.status for r in results)
    if as_json:
        out.print_json(data={"processed": len(results), "by_status": dict(counts)})
    else:
        summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items())) or "nothing"
        out.print(f"processed {len(results)} event(s): {summary}")


@app.command()
def demo(
    file: Annotated[
        Path | None, typer.Option(help="Events to load (default: the bundled examples).")
    ] = None,
) -> None:
    """Run the whole loop on the embedded default: SQLite, in-process worker, offline/rules."""
    from digest.lessons import list_lessons
    from digest.migrate import upgrade
    from digest.relay import drain as drain_events

    settings = get_settings()
    source = file or resource_dir("examples") / "events.jsonl"
    out.rule("lesson digest demo")
    out.print(
        f"database: {_shown_url()}   model: {settings.model_for('reflect')}   "
        f"broker: {'none (in-process)' if settings.embedded else 'configured'}"
    )
    try:
        upgrade()
    except Exception as exc:
        raise _fail(f"migration failed: {type(exc).__name__}: {exc}") from exc

    report = _capture_with_progress(source, quiet=False)
    out.print(f"1. captured {len(report.stored)} event(s) from {source.name}")
    for line_error in report.errors:
        err.print(f"   [red]rejected[/red] {line_error}", highlight=False)

    statuses: Counter[str] = Counter()
    with Progress(
        TextColumn("2. reflecting"),
        BarColumn(),
        TextColumn("{task.completed} event(s)"),
        console=out,
        transient=False,
    ) as progress:
        task = progress.add_task("reflect", total=None)

        def tick(result: Any) -> None:
            statuses[result.status] += 1
            progress.advance(task)

        drain_events(settings, on_result=tick)
        progress.update(task, total=progress.tasks[0].completed)
    summary = ", ".join(f"{n} {s}" for s, n in sorted(statuses.items())) or "nothing new"
    out.print(f"   {summary}")

    from digest.db import session_scope

    with session_scope() as session:
        lessons = list_lessons(session, DEMO_TENANT, DEMO_AGENT)
        skipped = _skip_reasons(session)
    out.print(f"3. lessons learned by {DEMO_TENANT}/{DEMO_AGENT}:")
    table = Table(show_lines=False)
    table.add_column("#", justify="right")
    table.add_column("lesson", ratio=1)
    table.add_column("learned from")
    table.add_column("evidence", justify="right")
    for row in sorted(lessons, key=lambda r: r.id):
        status = "" if row.status == "active" else f" [yellow]({row.status})[/yellow]"
        table.add_row(str(row.id), row.title + status, row.source, str(row.evidence_count))
    out.print(table)
    if skipped:
        out.print("   skipped (nothing to learn):")
        for reason, n in skipped.most_common():
            out.print(f"   - {n} × {reason}", highlight=False)
    if report.errors:
        raise typer.Exit(1)


def _skip_reasons(session: Any) -> Counter[str]:
    from sqlalchemy import select

    from digest.lessons import find_agent
    from digest.models import Event

    agent = find_agent(session, DEMO_TENANT, DEMO_AGENT)
    reasons = session.scalars(
        select(Event.skip_reason).where(Event.agent_id == agent.id, Event.status == "skipped")
    )
    return Counter(str(r) for r in reasons)


def main() -> None:
    try:
        app()
    except DigestError as exc:  # a typed error that escaped a command: one line, exit 2
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise SystemExit(2) from exc


if __name__ == "__main__":
    main()
