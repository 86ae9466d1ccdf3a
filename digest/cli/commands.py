"""The ``digest`` command line (DESIGN §9). Listings have ``--json`` for scripts.

Exit codes: 0 success, 1 some input was rejected (``capture``), 2 an error that stopped the
command (unknown tenant or agent, database unavailable, file missing).
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
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
version_app = typer.Typer(help="Learning document versions of one agent.", no_args_is_help=True)
app.add_typer(version_app, name="version")
tenant_app = typer.Typer(help="Tenant settings.", no_args_is_help=True)
app.add_typer(tenant_app, name="tenant")
lesson_app = typer.Typer(help="The lessons of one agent, for their owner.", no_args_is_help=True)
app.add_typer(lesson_app, name="lesson")

out = Console()
# Error lines stay one line whatever the terminal width: scripts grep them.
err = Console(stderr=True, soft_wrap=True)

DEMO_TENANT = "demo-shop"
DEMO_AGENT = "support-bot"

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
TenantOpt = Annotated[str, typer.Option("--tenant", help="Tenant key.")]
AgentOpt = Annotated[str, typer.Option("--agent", help="Agent key.")]
ByOpt = Annotated[str, typer.Option("--by", help="Who decides (recorded on the version).")]
LessonIdArg = Annotated[int, typer.Argument(help="Lesson id (see `digest lesson list`).")]
ReasonOpt = Annotated[
    str | None, typer.Option("--reason", help="Why (recorded in the lesson's history).")
]
WhoOpt = Annotated[
    str | None, typer.Option("--by", help="Who does it (recorded in the lesson's history).")
]


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
    from digest.capture.batch import capture_file

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
    from digest.pipeline import drain as drain_events

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
def requeue(
    tenant: TenantOpt,
    agent: Annotated[str | None, typer.Option(help="Only this agent.")] = None,
    status: Annotated[
        list[str] | None,
        typer.Option(help="Which terminal status to requeue: failed, dead (default: both)."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Put failed or dead events back to pending once their cause is fixed."""
    from sqlalchemy.exc import SQLAlchemyError

    from digest.outbox.relay import REQUEUEABLE, requeue_events

    try:
        ids = requeue_events(tenant, agent, tuple(status or REQUEUEABLE))
    except DigestError as exc:
        raise _fail(str(exc)) from exc
    except SQLAlchemyError as exc:
        raise _database_failure(exc) from exc
    if as_json:
        out.print_json(data={"requeued": ids})
        return
    next_step = "run `digest drain`" if get_settings().embedded else "published to the workers"
    out.print(f"requeued {len(ids)} event(s); {next_step}" if ids else "nothing to requeue")


@app.command()
def demo(
    file: Annotated[
        Path | None, typer.Option(help="Events to load (default: the bundled examples).")
    ] = None,
) -> None:
    """Run the whole loop on the embedded default: SQLite, in-process worker, offline/rules."""
    from digest.lessons.owner import list_lessons_for
    from digest.migrate import upgrade
    from digest.pipeline import drain as drain_events

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
        lessons = list_lessons_for(session, DEMO_TENANT, DEMO_AGENT)
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

    from digest.pipeline import improve_now

    result = improve_now(DEMO_TENANT, DEMO_AGENT, settings)
    with session_scope() as session:
        version = _active_version(session, DEMO_TENANT, DEMO_AGENT)
    if version is None:
        out.print("4. no learning document yet")
    else:
        verb = "composed" if result.status == "created" else "unchanged:"
        out.print(f"4. learning document {verb} version {version.number} ({version.status})")
        out.print("   change summary:")
        for line in version.change_summary.splitlines():
            out.print(f"   | {line}", highlight=False)
        out.rule(f"version {version.number}")
        out.print(version.body_markdown, highlight=False, markup=False)
    if report.errors:
        raise typer.Exit(1)


def _skip_reasons(session: Any) -> Counter[str]:
    from sqlalchemy import select

    from digest.models import Event
    from digest.tenants import find_agent

    agent = find_agent(session, DEMO_TENANT, DEMO_AGENT)
    reasons = session.scalars(
        select(Event.skip_reason).where(Event.agent_id == agent.id, Event.status == "skipped")
    )
    return Counter(str(r) for r in reasons)


def _active_version(session: Any, tenant: str, agent: str) -> Any:
    from digest.models import LearningVersion
    from digest.tenants import find_agent

    agent_row = find_agent(session, tenant, agent)
    if agent_row.current_version_id is None:
        return None
    return session.get(LearningVersion, agent_row.current_version_id)


def _version_dict(version: Any) -> dict[str, Any]:
    return {
        "number": version.number,
        "status": version.status,
        "trigger": version.trigger,
        "proposed_by": version.proposed_by,
        "created_at": version.created_at.isoformat() if version.created_at else None,
        "approved_by": version.approved_by,
        "change_summary": version.change_summary,
        "folded_lesson_ids": list(version.folded_lesson_ids or []),
        "supporting_event_ids": list(version.supporting_event_ids or []),
        "llm_calls": version.llm_calls,
        "prompt_tokens": version.prompt_tokens,
        "completion_tokens": version.completion_tokens,
        "cost_usd": version.cost_usd,
    }


def _print_result(result: Any, as_json: bool) -> None:
    if as_json:
        out.print_json(data=vars(result))
    elif result.status == "created":
        out.print(f"version {result.number} ({result.version_status})", highlight=False)
        for line in (result.change_summary or "").splitlines():
            out.print(f"  {line}", highlight=False)
    else:
        out.print("no change")


@app.command("improve-now")
def improve_now_command(
    tenant: TenantOpt,
    agent: AgentOpt,
    wait: Annotated[
        bool, typer.Option(help="With a broker: wait for the worker's result.")
    ] = False,
    timeout: Annotated[float, typer.Option(help="Seconds to wait with --wait.")] = 300.0,
    as_json: JsonOpt = False,
) -> None:
    """Reflect the agent's pending events now, then compose a version (no threshold, no quiet
    period). Embedded mode runs it here; with a broker a worker runs it."""
    import time

    from digest.db import session_scope
    from digest.outbox.publish import TASK_IMPROVE_NOW, publish_task
    from digest.pipeline import improve_now
    from digest.tenants import find_agent
    from digest.versions.compose import ComposeResult

    settings = get_settings()
    try:
        if settings.embedded:
            _print_result(improve_now(tenant, agent, settings), as_json)
            return
        with session_scope() as session:
            agent_id = find_agent(session, tenant, agent).id
    except DigestError as exc:
        raise _fail(str(exc)) from exc
    from digest.models import DigestRun, LearningVersion, utcnow

    asked = utcnow()
    if not publish_task(TASK_IMPROVE_NOW, [tenant, agent], settings):
        raise _fail("the broker did not take the task; is Redis up? (nothing was changed)")
    if not wait:
        out.print(f"queued improve-now for {tenant}/{agent}")
        return
    from sqlalchemy import select

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with session_scope() as session:
            run = session.scalars(
                select(DigestRun)
                .where(
                    DigestRun.agent_id == agent_id,
                    DigestRun.kind == "compose",
                    DigestRun.trigger == "manual",
                    DigestRun.started_at >= asked,
                )
                .order_by(DigestRun.id.desc())
            ).first()
            if run is not None:
                version = session.get(LearningVersion, run.version_id) if run.version_id else None
                if version is None:
                    _print_result(ComposeResult("no_change"), as_json)
                else:
                    _print_result(
                        ComposeResult(
                            "created", version.id, version.number, version.status,
                            version.change_summary,
                        ),
                        as_json,
                    )  # fmt: skip
                return
        time.sleep(0.5)
    raise _fail(
        f"no result after {timeout:.0f} s; is a worker running on queue {settings.queue!r}?"
    )


@app.command()
def sweep(as_json: JsonOpt = False) -> None:
    """Run the weekly sweep now: expire lessons, prune versions, compose every due agent."""
    from digest.versions.triggers import sweep as run_sweep

    report = run_sweep()
    if as_json:
        out.print_json(data=vars(report))
    else:
        out.print(
            f"composed {len(report.composed)}, unchanged {len(report.unchanged)}, "
            f"expired {report.expired} lesson(s), pruned {report.pruned} version(s), "
            f"relayed {report.relayed} event(s)"
        )


@version_app.command("list")
def version_list(tenant: TenantOpt, agent: AgentOpt, as_json: JsonOpt = False) -> None:
    """The agent's versions, newest first."""
    from sqlalchemy import select

    from digest.db import session_scope
    from digest.models import LearningVersion
    from digest.tenants import find_agent

    with session_scope() as session:
        agent_row = _or_fail(lambda: find_agent(session, tenant, agent))
        versions = session.scalars(
            select(LearningVersion)
            .where(LearningVersion.agent_id == agent_row.id)
            .order_by(LearningVersion.number.desc())
        ).all()
        rows = [_version_dict(v) for v in versions]
    if as_json:
        out.print_json(data=rows)
        return
    table = Table()
    for column in ("#", "status", "trigger", "by", "created", "change summary"):
        table.add_column(column)
    for row in rows:
        table.add_row(
            str(row["number"]), row["status"], row["trigger"], row["proposed_by"],
            (row["created_at"] or "")[:19], (row["change_summary"] or "").splitlines()[0],
        )  # fmt: skip
    out.print(table)


def _or_fail(action: Any) -> Any:
    try:
        return action()
    except DigestError as exc:
        raise _fail(str(exc)) from exc


def _get_version(session: Any, tenant: str, agent: str, number: int) -> Any:
    from digest.versions.decisions import get_version

    return get_version(session, tenant, agent, number)


@version_app.command("show")
def version_show(
    tenant: TenantOpt,
    agent: AgentOpt,
    number: Annotated[int, typer.Argument(help="Version number.")],
    as_json: JsonOpt = False,
) -> None:
    """One version: its body, change summary and provenance."""
    from digest.db import session_scope

    with session_scope() as session:
        version = _or_fail(lambda: _get_version(session, tenant, agent, number))
        data = {**_version_dict(version), "body_markdown": version.body_markdown}
    if as_json:
        out.print_json(data=data)
        return
    out.print(f"version {data['number']} ({data['status']}, {data['trigger']})", highlight=False)
    out.print(data["change_summary"], highlight=False, markup=False)
    out.rule()
    out.print(data["body_markdown"], highlight=False, markup=False)


@version_app.command("diff")
def version_diff(
    tenant: TenantOpt,
    agent: AgentOpt,
    old: Annotated[int, typer.Argument(help="Older version number.")],
    new: Annotated[int, typer.Argument(help="Newer version number.")],
) -> None:
    """Unified diff of two versions' bodies."""
    import difflib

    from digest.db import session_scope

    with session_scope() as session:
        a = _or_fail(lambda: _get_version(session, tenant, agent, old)).body_markdown
        b = _or_fail(lambda: _get_version(session, tenant, agent, new)).body_markdown
    diff = difflib.unified_diff(
        a.splitlines(keepends=True), b.splitlines(keepends=True), f"v{old}", f"v{new}"
    )
    sys.stdout.write("".join(diff))


@version_app.command("approve")
def version_approve(
    tenant: TenantOpt,
    agent: AgentOpt,
    number: Annotated[int, typer.Argument(help="The pending version.")],
    by: ByOpt,
    body_file: Annotated[
        Path | None, typer.Option("--body-file", help="Approve an edited body instead.")
    ] = None,
) -> None:
    """Activate a pending version (optionally with an edited body)."""
    from digest.versions.decisions import approve

    body = body_file.read_text(encoding="utf-8") if body_file else None
    version = _or_fail(lambda: approve(tenant, agent, number, by=by, body=body))
    out.print(f"version {version.number} is active ({version.proposed_by})")


@version_app.command("reject")
def version_reject(
    tenant: TenantOpt,
    agent: AgentOpt,
    number: Annotated[int, typer.Argument(help="The pending version.")],
    by: ByOpt,
) -> None:
    """Reject a pending version; its lessons stay for the next compose."""
    from digest.versions.decisions import reject

    version = _or_fail(lambda: reject(tenant, agent, number, by=by))
    out.print(f"version {version.number} is rejected")


@version_app.command("rollback")
def version_rollback(
    tenant: TenantOpt,
    agent: AgentOpt,
    number: Annotated[int, typer.Argument(help="The version whose body to restore.")],
    by: ByOpt,
) -> None:
    """Append a new active version with the body of an earlier one."""
    from digest.versions.decisions import rollback

    version = _or_fail(lambda: rollback(tenant, agent, number, by=by))
    out.print(f"version {version.number} is active (body of version {number})")


@tenant_app.command("set")
def tenant_set(
    tenant: TenantOpt,
    apply_mode: Annotated[
        str | None, typer.Option("--apply-mode", help="auto or approval.")
    ] = None,
    threshold: Annotated[
        int | None, typer.Option(help="Undigested signals that trigger a compose.")
    ] = None,
    quiet: Annotated[int | None, typer.Option(help="Quiet seconds before that compose.")] = None,
    gate: Annotated[
        int | None, typer.Option(help="Support a lesson needs to enter the document.")
    ] = None,
    promotion: Annotated[
        int | None, typer.Option(help="Distinct contacts that promote a contact's lesson.")
    ] = None,
) -> None:
    """Set a tenant's apply mode and trigger overrides (creates the tenant if needed)."""
    from digest.db import session_scope
    from digest.tenants import configure_tenant

    with session_scope() as session:
        row = _or_fail(
            lambda: configure_tenant(
                session, tenant, learning_apply_mode=apply_mode,
                threshold_signals=threshold, quiet_seconds=quiet, frequency_gate=gate,
                promotion_contacts=promotion,
            )
        )  # fmt: skip
        out.print(f"{row.name}: {row.learning_apply_mode}, {row.settings}", highlight=False)


# --- lesson: what an owner does to one agent's lessons (domain logic in digest.owner) -------


@contextmanager
def _owner_session() -> Iterator[Any]:
    """A session for the owner commands: a typed error or a database fault (schema missing,
    server down) becomes one line and exit 2, after the transaction rolled back."""
    from sqlalchemy.exc import SQLAlchemyError

    from digest.db import session_scope

    try:
        with session_scope() as session:
            yield session
    except DigestError as exc:
        raise _fail(str(exc)) from exc
    except SQLAlchemyError as exc:
        raise _database_failure(exc) from exc


def _database_failure(exc: Exception) -> typer.Exit:
    """A database fault (schema missing, server down) as one line and exit 2."""
    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    message = lines[0] if lines else type(exc).__name__
    missing = "no such table" in message or "does not exist" in message
    hint = " (schema missing: run `digest db upgrade`)" if missing else ""
    return _fail(f"database error: {message}{hint}")


def _when(value: str | None) -> str:
    return (value or "")[:19].replace("T", " ")


def _lesson_table(rows: list[Any]) -> Table:
    # People's text goes in as Text: a title with "[b]" in it is not rich markup.
    from rich.text import Text

    table = Table()
    table.add_column("id", justify="right")
    table.add_column("title", ratio=1)
    for column in ("status", "source"):
        table.add_column(column)
    for column in ("support", "success/failure", "hits"):
        table.add_column(column, justify="right")
    table.add_column("last seen")
    for row in rows:
        table.add_row(
            str(row.id), Text(row.title), row.status, row.source, str(row.support_count),
            f"{row.success_count}/{row.failure_count}", str(row.hit_count),
            _when(row.to_json()["last_seen_at"]),
        )  # fmt: skip
    return table


def _print_lessons(rows: list[Any], as_json: bool, empty: str) -> None:
    if as_json:
        out.print_json(data=[row.to_json() for row in rows])
    elif rows:
        out.print(_lesson_table(rows))
    else:
        out.print(empty)


@lesson_app.command("list")
def lesson_list(
    tenant: TenantOpt,
    agent: AgentOpt,
    status: Annotated[
        str | None,
        typer.Option(help="Only this status: active, disabled, superseded, deleted, quarantined."),
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The agent's lessons, most recently consulted first."""
    from digest.lessons.owner import list_lessons_for

    with _owner_session() as session:
        rows = list_lessons_for(session, tenant, agent, status)
    _print_lessons(rows, as_json, "no lessons")


@lesson_app.command("search")
def lesson_search(
    tenant: TenantOpt,
    agent: AgentOpt,
    query: Annotated[str, typer.Argument(help="Text to find (case-insensitive).")],
    as_json: JsonOpt = False,
) -> None:
    """Lessons whose title, situation, mistake or correction contains QUERY."""
    from digest.lessons.owner import search_lessons

    with _owner_session() as session:
        rows = search_lessons(session, tenant, agent, query)
    _print_lessons(rows, as_json, f"no lesson matches {query!r}")


@lesson_app.command("show")
def lesson_show(
    tenant: TenantOpt, agent: AgentOpt, lesson_id: LessonIdArg, as_json: JsonOpt = False
) -> None:
    """One lesson with its evidence and history."""
    from rich.text import Text

    from digest.lessons.owner import lesson_detail

    with _owner_session() as session:
        detail = lesson_detail(session, tenant, agent, lesson_id)
    data = detail.to_json()
    if as_json:
        out.print_json(data=data)
        return
    out.print(f"lesson {data['id']}: {data['title']}", highlight=False, markup=False)
    status = data["status"] + (f" ({data['status_reason']})" if data["status_reason"] else "")
    if data["superseded_by_id"] is not None:
        status += f", superseded by lesson {data['superseded_by_id']}"
    facts = [
        ("status", status),
        ("source", f"{data['source']}, outcome {data['outcome']}, scope {data['scope']}"),
        (
            "counts",
            f"support {data['support_count']}, success {data['success_count']}, "
            f"failure {data['failure_count']}, hits {data['hit_count']}, "
            f"confidence {data['confidence']}",
        ),
        ("tags", ", ".join(data["tags"]) or "-"),
        ("last seen", _when(data["last_seen_at"]) or "never"),
        ("situation", data["situation"]),
        ("mistake", data["mistake"] or "-"),
        ("correction", data["correction"]),
    ]
    for name, value in facts:
        out.print(f"{name:>10}: {value}", highlight=False, markup=False)
    evidence = Table(title="evidence", title_justify="left")
    for column in ("event", "kind", "note", "created"):
        evidence.add_column(column)
    for row in data["evidence"]:
        evidence.add_row(
            str(row["event_id"]), row["kind"], Text(row["note"]), _when(row["created_at"])
        )
    out.print(evidence)
    history = Table(title="history", title_justify="left")
    for column in ("at", "op", "reason", "event", "model"):
        history.add_column(column)
    for row in data["history"]:
        history.add_row(
            _when(row["at"]), row["op"], Text(row["reason"] or ""),
            str(row["event_id"] or ""), row["model"] or "",
        )  # fmt: skip
    out.print(history)


@lesson_app.command("add")
def lesson_add(
    tenant: TenantOpt,
    agent: AgentOpt,
    text: Annotated[
        str,
        typer.Argument(
            help="'signature: lesson text', or a signature line followed by body lines."
        ),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Add a lesson by hand (no model call). Creates the tenant and agent on first use."""
    from digest.capture.api import record_lesson
    from digest.lessons.owner import lesson_detail

    lesson_id = _or_fail(lambda: record_lesson(tenant, agent, text))
    with _owner_session() as session:
        data = lesson_detail(session, tenant, agent, lesson_id).to_json()
    if as_json:
        out.print_json(data=data)
    else:
        out.print(f"added lesson {lesson_id}: {data['title']}", highlight=False, markup=False)


def _set_status(
    tenant: str,
    agent: str,
    lesson_id: int,
    status: str,
    reason: str | None,
    by: str | None,
    as_json: bool,
) -> None:
    from digest.lessons.owner import set_lesson_status

    with _owner_session() as session:
        change = set_lesson_status(session, tenant, agent, lesson_id, status, reason, by)
    if as_json:
        out.print_json(data=change.to_json())
    elif change.changed:
        out.print(
            f"lesson {change.lesson_id} {change.before} → {change.after}: {change.title}",
            highlight=False,
            markup=False,
        )
    else:
        out.print(f"lesson {change.lesson_id} is already {change.after}; nothing changed")


@lesson_app.command("delete")
def lesson_delete(
    tenant: TenantOpt,
    agent: AgentOpt,
    lesson_id: LessonIdArg,
    reason: ReasonOpt = None,
    by: WhoOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Soft-delete a lesson (kept, with its history; never offered again)."""
    _set_status(tenant, agent, lesson_id, "deleted", reason, by, as_json)


@lesson_app.command("disable")
def lesson_disable(
    tenant: TenantOpt,
    agent: AgentOpt,
    lesson_id: LessonIdArg,
    reason: ReasonOpt = None,
    by: WhoOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Take an active lesson out of use until it is enabled again."""
    _set_status(tenant, agent, lesson_id, "disabled", reason, by, as_json)


@lesson_app.command("enable")
def lesson_enable(
    tenant: TenantOpt,
    agent: AgentOpt,
    lesson_id: LessonIdArg,
    reason: ReasonOpt = None,
    by: WhoOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Put a disabled lesson back in use (deleted, superseded and quarantined ones stay out)."""
    _set_status(tenant, agent, lesson_id, "active", reason, by, as_json)


@lesson_app.command("reset")
def lesson_reset(
    tenant: TenantOpt,
    agent: AgentOpt,
    yes: Annotated[bool, typer.Option("--yes", "-y", help="Do not ask for confirmation.")] = False,
    reason: ReasonOpt = None,
    by: WhoOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Soft-delete every lesson of the agent (asks first unless --yes)."""
    from digest.lessons.owner import reset_lessons, resettable_count

    # Count in its own transaction: no database lock is held while a person reads the prompt.
    with _owner_session() as session:
        count = resettable_count(session, tenant, agent)
    if count and not yes:
        # abort=True: "no", or end of input with no terminal, exits 1 before anything changes.
        typer.confirm(
            f"Soft-delete all {count} lesson(s) of {tenant}/{agent}?", abort=True, err=True
        )
    deleted = 0
    if count:
        with _owner_session() as session:
            deleted = reset_lessons(session, tenant, agent, reason, by)
    if as_json:
        out.print_json(data={"deleted": deleted})
    else:
        out.print(f"deleted {deleted} lesson(s) of {tenant}/{agent}", highlight=False, markup=False)


# --- stats -----------------------------------------------------------------------------------


def _counts(counts: dict[str, int]) -> str:
    return ", ".join(f"{n} {status}" for status, n in counts.items() if n) or "-"


@app.command()
def stats(
    tenant: Annotated[str | None, typer.Option("--tenant", help="Only this tenant.")] = None,
    agent: Annotated[str | None, typer.Option("--agent", help="Only this agent.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Per agent: events and lessons by status, skip rate, LLM calls, tokens, cost, version."""
    from rich.text import Text

    from digest.lessons.stats import agent_stats

    with _owner_session() as session:
        rows = agent_stats(session, tenant, agent)
    if as_json:
        out.print_json(data=[row.to_json() for row in rows])
        return
    if not rows:
        out.print("no agents")
        return
    table = Table()
    for column in ("tenant", "agent", "events", "skip rate", "lessons"):
        table.add_column(column)
    for column in ("LLM calls", "tokens in/out", "cost USD", "version"):
        table.add_column(column, justify="right")
    for row in rows:
        table.add_row(
            Text(row.tenant), Text(row.agent), _counts(row.events), f"{row.skip_rate:.0%}",
            _counts(row.lessons), str(row.llm_calls),
            f"{row.prompt_tokens}/{row.completion_tokens}", f"{row.cost_usd:.4f}",
            str(row.active_version) if row.active_version is not None else "-",
        )  # fmt: skip
    out.print(table)


@lesson_app.command("compact")
def lesson_compact(
    tenant: TenantOpt,
    agent: AgentOpt,
    max_lessons: Annotated[
        int | None, typer.Option("--max", help="Then disable the weakest beyond this many.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Merge near-duplicate lessons through reconciliation, then cap their number."""
    from digest.reflect.compact import compact

    report = _or_fail(lambda: compact(tenant, agent, max_lessons=max_lessons))
    if as_json:
        out.print_json(data=vars(report))
        return
    out.print(
        f"merged {len(report.merged)}, superseded {len(report.superseded)}, "
        f"capped {len(report.capped)}; {report.kept} active lesson(s) remain "
        f"({report.llm_calls} model call(s))"
    )


@app.command("export")
def export_command(
    tenant: TenantOpt,
    agent: AgentOpt,
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write into.")],
    as_json: JsonOpt = False,
) -> None:
    """Write the agent's active lessons as AIP-11 LESSON.md files plus _index.md."""
    from digest.interop import export_lessons

    paths = _or_fail(lambda: export_lessons(tenant, agent, out_dir))
    if as_json:
        out.print_json(data={"files": [str(p) for p in paths]})
    else:
        out.print(f"wrote {len(paths) - 1} lesson(s) and _index.md to {out_dir}", highlight=False)


@app.command("import")
def import_command(
    directory: Annotated[Path, typer.Argument(help="Folder with LESSON.md files.")],
    tenant: TenantOpt,
    agent: AgentOpt,
    as_json: JsonOpt = False,
) -> None:
    """Import AIP-11 LESSON.md files through reconciliation (counts in files are ignored).
    Bad files are reported one per line; exit 1 if any failed."""
    from digest.errors import LessonFileError
    from digest.interop import import_lessons

    try:
        report = import_lessons(tenant, agent, directory)
    except (LessonFileError, DigestError) as exc:
        raise _fail(str(exc)) from exc
    if as_json:
        out.print_json(
            data={
                "imported": [{"file": f, "result": r} for f, r in report.imported],
                "errors": [{"file": f, "error": e} for f, e in report.errors],
            }
        )
    else:
        for file, error in report.errors:
            err.print(f"[red]rejected[/red] {file}: {error}", highlight=False)
        new = sum(1 for _, result in report.imported if result == "imported")
        out.print(
            f"imported {new}, already there {len(report.imported) - new}, "
            f"rejected {len(report.errors)}"
        )
    if report.errors:
        raise typer.Exit(1)


def main() -> None:
    try:
        app()
    except DigestError as exc:  # a typed error that escaped a command: one line, exit 2
        err.print(f"[red]error:[/red] {exc}", highlight=False)
        raise SystemExit(2) from exc


if __name__ == "__main__":
    main()
