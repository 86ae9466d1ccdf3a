"""Commands on events and the loop they feed: capture, drain, requeue, demo, improve-now, sweep."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from digest.cli import progress, render, tables
from digest.cli.app import AgentOpt, JsonOpt, TenantOpt, app, regular_file
from digest.errors import DigestError

# digest.config (pydantic-settings) is imported by the commands that read settings, not here:
# `digest --help` and every command's `--help` read none, and load none of it.

DEMO_TENANT = "demo-shop"
DEMO_AGENT = "support-bot"
#: files smaller than this are captured without a progress bar
PROGRESS_FROM_BYTES = 64 * 1024


@app.command()
def capture(
    file: Annotated[
        Path, typer.Option("--file", "-f", help="JSON Lines file, one event per line.")
    ],
    as_json: JsonOpt = False,
) -> None:
    """Store events from a JSON Lines file; each bad line is reported with its field. A line
    whose idempotency_key was stored before is counted as already stored, not stored again."""
    report = _capture_with_progress(file, quiet=as_json)
    if as_json:
        render.json(
            {
                "stored": len(report.stored),
                "event_ids": report.stored,
                "already_stored": len(report.repeated),
                "already_stored_ids": report.repeated,
                "without_idempotency_key": report.unkeyed,
                "errors": [vars(e) for e in report.errors],
            }
        )
    else:
        for line_error in report.errors:
            render.rejected(str(line_error))
        again = f"; already stored {len(report.repeated)}" if report.repeated else ""
        render.say(
            f"stored {len(report.stored)} new event(s){again}; "
            f"rejected {len(report.errors)} line(s)"
        )
        if report.unkeyed:
            render.warn(
                f"{report.unkeyed} stored line(s) have no idempotency_key: capturing this file "
                "again would store them again and count their support twice"
            )
    if report.errors:
        raise typer.Exit(1)


def _capture_with_progress(file: Path, *, quiet: bool) -> Any:
    from digest.capture.batch import capture_file

    total = regular_file(file, "--file").stat().st_size
    with progress.byte_progress(
        "capturing", total, disable=quiet or total < PROGRESS_FROM_BYTES
    ) as advance:
        return capture_file(file, on_progress=advance)


@app.command()
def drain(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant.")] = None,
    agent: Annotated[str | None, typer.Option(help="Only this agent.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """Reflect pending events in this process (embedded mode: no broker, no worker). An agent
    whose reflection raises is reported and the others go on; exit 1 if any did."""
    from digest.agents import LEARNING_OFF_REASON
    from digest.config import get_settings
    from digest.model.seam import require_litellm
    from digest.pipeline import drain as drain_events

    require_litellm(get_settings(), "digest drain")  # before any event is claimed
    with progress.count_progress("reflecting", disable=as_json) as advance:
        results = drain_events(tenant=tenant, agent=agent, on_result=lambda _: advance())
    by_status = Counter(r.status for r in results)
    errors = [r for r in results if r.status == "error"]
    if as_json:
        render.json(
            {
                "processed": len(results),
                "by_status": dict(by_status),
                "errors": [{"event_id": r.event_id, "error": r.reason} for r in errors],
            }
        )
    else:
        for result in errors:
            render.error(f"event {result.event_id}: {result.reason}")
        summary = render.counts(dict(sorted(by_status.items())), "nothing")
        render.say(f"processed {len(results)} event(s): {summary}")
        off = sum(1 for r in results if r.status == "skipped" and r.reason == LEARNING_OFF_REASON)
        if off:
            render.say(
                f"{off} skipped because their agent's learning is off: stored, not reflected "
                "(`digest stats` names the agent; `digest agent set --learning on` turns it on)"
            )
        if by_status["waiting"]:
            render.say(
                f"{by_status['waiting']} event(s) wait after a model fault or for the "
                "tenant's daily budget (reasons and next attempts: `digest stats`); a drain "
                "after their next attempt tries them again"
            )
    if errors:
        raise typer.Exit(1)


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
    from digest.config import get_settings
    from digest.outbox.relay import REQUEUEABLE, requeue_events

    ids = requeue_events(tenant, agent, tuple(status or REQUEUEABLE))
    if as_json:
        render.json({"requeued": ids})
        return
    next_step = "run `digest drain`" if get_settings().embedded else "published to the workers"
    render.say(f"requeued {len(ids)} event(s); {next_step}" if ids else "nothing to requeue")


@app.command()
def demo(
    file: Annotated[
        Path | None, typer.Option(help="Events to load (default: the bundled examples).")
    ] = None,
) -> None:
    """Run the whole loop on the embedded default: SQLite, in-process worker, offline/rules."""
    from digest.cli.admin import shown_url, upgrade_schema
    from digest.config import get_settings, resource_dir
    from digest.lessons.service import list_lessons, skip_reasons
    from digest.pipeline import drain as drain_events
    from digest.pipeline import improve_now
    from digest.versions.queries import active_version

    settings = get_settings()
    # checked before anything is written: a bad --file must not leave a migrated database
    source = regular_file(file, "--file") if file else resource_dir("examples") / "events.jsonl"
    render.rule("lesson digest demo")
    render.say(
        f"database: {shown_url()}   model: {settings.model_for('reflect')}   "
        f"broker: {'none (in-process)' if settings.embedded else 'configured'}"
    )
    upgrade_schema()

    report = _capture_with_progress(source, quiet=False)
    render.say(f"1. captured {len(report.stored)} event(s) from {source.name}")
    for line_error in report.errors:
        render.rejected(str(line_error), indent="   ")
    if file is None:  # the bundled examples come with four weeks of operators' review
        from digest.cli.demo_history import history_file, load_edit_history

        reviewed = load_edit_history(settings)
        render.say(f"   and {reviewed} draft(s) operators reviewed over 4 weeks, from "
                   f"{history_file().name}")  # fmt: skip

    statuses: Counter[str] = Counter()
    errors: list[Any] = []
    with progress.event_progress("2. reflecting") as advance:

        def tick(result: Any) -> None:
            statuses[result.status] += 1
            if result.status == "error":
                errors.append(result)
            advance()

        drain_events(settings, on_result=tick)
    render.say(f"   {render.counts(dict(sorted(statuses.items())), 'nothing new')}")

    render.say(f"3. lessons learned by {DEMO_TENANT}/{DEMO_AGENT}:")
    learned = list_lessons(DEMO_TENANT, DEMO_AGENT, settings=settings)
    render.learned(learned)
    skipped = skip_reasons(DEMO_TENANT, DEMO_AGENT, settings)
    if skipped:
        render.say("   skipped (nothing to learn):")
        for reason, n in skipped.most_common():
            render.say(f"   - {n} × {reason}")
    if errors:
        # Composing now would wait for the claims those events hold: stop here, and say so.
        first = errors[0]
        render.error(
            f"{len(errors)} event(s) could not be reflected (event {first.event_id}: "
            f"{first.reason}); no learning document composed; `digest drain` lists each"
        )
        raise typer.Exit(1)

    result = improve_now(DEMO_TENANT, DEMO_AGENT, settings)
    version = active_version(DEMO_TENANT, DEMO_AGENT, settings)
    if version is None:
        render.say("4. no learning document yet")
    else:
        verb = "composed" if result.status == "created" else "unchanged:"
        render.say(f"4. learning document {verb} version {version.number} ({version.status})")
        render.say("   change summary:")
        for line in version.change_summary.splitlines():
            render.say(f"   | {line}")
        render.rule(f"version {version.number}")
        render.block(version.body_markdown)
    render.held_lessons(DEMO_TENANT, DEMO_AGENT)
    render.contact_lessons(learned)
    if file is None:
        from digest.cli.demo_history import edit_trend

        trend = edit_trend(DEMO_TENANT, DEMO_AGENT, settings)
        render.say(f"5. drafts operators reviewed: {trend}")
        render.say(f"   week by week: digest report --tenant {DEMO_TENANT} --agent {DEMO_AGENT}")
    if report.errors:
        raise typer.Exit(1)


@app.command("improve-now")
def improve_now_command(
    tenant: TenantOpt,
    agent: AgentOpt,
    wait: Annotated[
        bool | None,
        typer.Option(
            "--wait/--no-wait",
            help="With a broker: wait for the worker's result (default: wait when the output "
            "is a terminal, so a person sees what happened; a script gets the queued line).",
            show_default=False,
        ),
    ] = None,
    timeout: Annotated[
        float, typer.Option(min=0.0, max=86400.0, help="Seconds to wait with --wait.")
    ] = 300.0,
    as_json: JsonOpt = False,
) -> None:
    """Reflect the agent's pending events now, then compose a version (no threshold, no quiet
    period). Embedded mode runs it here; with a broker a worker runs it."""
    from tenacity import RetryError, Retrying, retry_if_result, stop_after_delay, wait_fixed

    from digest.config import get_settings
    from digest.pipeline import improve_now
    from digest.versions.queries import manual_compose_since
    from digest.versions.triggers import request_improve_now

    settings = get_settings()
    if settings.embedded:
        from digest.model.seam import require_litellm

        require_litellm(settings, "digest improve-now")  # before any event is claimed
        tables.compose_result(improve_now(tenant, agent, settings), as_json)
        if not as_json:
            render.held_lessons(tenant, agent)
        return
    with progress.unlogged("digest.publish"):  # its failure is this command's one line
        asked = request_improve_now(tenant, agent, settings)
    if asked is None:
        raise DigestError("the broker did not take the task; is Redis up? (nothing was changed)")
    if not (render.out.is_terminal if wait is None else wait):
        render.say(f"queued improve-now for {tenant}/{agent} (--wait to see what it does)")
        return
    if not as_json:
        render.note(f"waiting up to {timeout:.0f} s for a worker on queue {settings.queue!r}…")
    # The worker writes a manual compose run once it has composed (or found nothing new).
    waiting = Retrying(
        stop=stop_after_delay(timeout),
        wait=wait_fixed(0.5),
        retry=retry_if_result(lambda found: found is None),
    )
    try:
        result = waiting(manual_compose_since, tenant, agent, asked, settings)
    except RetryError:
        raise DigestError(
            f"no result after {timeout:.0f} s; is a worker running on queue {settings.queue!r}?"
        ) from None
    tables.compose_result(result, as_json)
    if not as_json:
        render.held_lessons(tenant, agent)


@app.command()
def sweep(as_json: JsonOpt = False) -> None:
    """Run the weekly sweep now: expire lessons, retire held lessons nothing corroborated in
    DIGEST_UNCONFIRMED_TTL_DAYS and lessons measured as harmful, prune versions, compose every
    due agent."""
    from digest.versions.triggers import sweep as run_sweep

    report = run_sweep()
    if as_json:
        render.json(vars(report))
    else:
        render.say(
            f"composed {len(report.composed)}, unchanged {len(report.unchanged)}, "
            f"expired {report.expired} lesson(s), retired {len(report.unconfirmed)} "
            f"unconfirmed and {len(report.retired)} harmful "
            f"lesson(s), pruned {report.pruned} version(s), "
            f"relayed {report.relayed} event(s)"
        )
