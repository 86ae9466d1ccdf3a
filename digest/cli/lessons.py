"""``digest lesson …`` (list, search, show, add, delete, disable, enable, expire, reset,
compact, effect)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import Annotated

import typer

from digest.cli import progress, render
from digest.cli.app import ID_MAX, AgentOpt, JsonOpt, TenantOpt, id_argument, lesson_app
from digest.errors import InvalidArgument

LessonIdArg = Annotated[int, id_argument("Lesson id (see `digest lesson list`).")]
ReasonOpt = Annotated[
    str | None, typer.Option("--reason", help="Why (recorded in the lesson's history).")
]
WhoOpt = Annotated[
    str | None, typer.Option("--by", help="Who does it (recorded in the lesson's history).")
]


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
    from digest.lessons.service import list_lessons

    render.lessons(list_lessons(tenant, agent, status), as_json, "no lessons")


@lesson_app.command("search")
def lesson_search(
    tenant: TenantOpt,
    agent: AgentOpt,
    query: Annotated[str, typer.Argument(help="Text to find (case-insensitive).")],
    as_json: JsonOpt = False,
) -> None:
    """Lessons whose title, situation, mistake or correction contains QUERY."""
    from digest.lessons.service import search_lessons

    render.lessons(search_lessons(tenant, agent, query), as_json, f"no lesson matches {query!r}")


@lesson_app.command("show")
def lesson_show(
    tenant: TenantOpt, agent: AgentOpt, lesson_id: LessonIdArg, as_json: JsonOpt = False
) -> None:
    """One lesson with its evidence and history."""
    from digest.lessons.service import lesson_detail
    from digest.retrieve import ranking_weight

    detail = lesson_detail(tenant, agent, lesson_id)
    data = detail.to_json()
    data["ranking_weight"] = round(ranking_weight(detail.lesson.last_seen_at), 4)
    if as_json:
        render.json(data)
    else:
        render.lesson(data)


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
    new_agent: Annotated[
        bool,
        typer.Option(
            "--new-agent", help="The agent may be new: create it (the tenant must exist)."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Add a lesson by hand (no model call). The tenant must exist, and the agent too unless
    --new-agent (a typo never makes one). A lesson the agent already has, word for word, gets
    one more support instead of a copy."""
    from digest.capture.api import lesson_for_event, record_lesson
    from digest.errors import DigestError
    from digest.lessons.service import lesson_detail
    from digest.tenants import normal_key, require_existing

    if new_agent:  # a key no lesson could be stored under is refused before anything is made
        agent = normal_key(agent, "agent")
    require_existing(tenant, agent, new_agent=new_agent)
    event_id = record_lesson(tenant, agent, text)
    lesson_id = lesson_for_event(tenant, agent, event_id)
    if lesson_id is None:  # record_lesson writes its lesson before it returns
        raise DigestError(f"event {event_id} was stored but cites no lesson")
    data = lesson_detail(tenant, agent, lesson_id).to_json()
    added = data["evidence"][0]["event_id"] == event_id
    if as_json:
        render.json({**data, "event_id": event_id, "added": added})
    elif added:
        render.say(f"added lesson {lesson_id}: {data['title']} (event {event_id})")
    else:
        render.say(
            f"lesson {lesson_id} already says this: {data['title']} "
            f"(support {data['support_count']}, event {event_id})"
        )


def _set_status(
    tenant: str,
    agent: str,
    lesson_id: int,
    status: str,
    reason: str | None,
    by: str | None,
    as_json: bool,
) -> None:
    from digest.lessons.service import set_lesson_status

    change = set_lesson_status(tenant, agent, lesson_id, status, reason, by)
    if as_json:
        render.json(change.to_json())
    elif change.changed:
        render.say(f"lesson {change.lesson_id} {change.before} → {change.after}: {change.title}")
    else:
        render.say(f"lesson {change.lesson_id} is already {change.after}; nothing changed")


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


@lesson_app.command("release")
def lesson_release(
    tenant: TenantOpt,
    agent: AgentOpt,
    by: Annotated[str, typer.Option("--by", help="Who reviewed it (recorded in its history).")],
    lesson_id: Annotated[
        list[int] | None,
        typer.Argument(
            min=1,
            max=ID_MAX,
            show_default=False,
            help="Ids of held or quarantined lessons (see `digest lesson list`).",
        ),
    ] = None,
    every_held: Annotated[
        bool, typer.Option("--all", help="Every held lesson of the agent (never quarantined).")
    ] = False,
    reason: ReasonOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Let the agent read lessons you reviewed: held ones (run text that independent sources
    have not corroborated yet) or quarantined ones (`lesson show` says why each waits)."""
    from digest.lessons.service import release_lessons

    done = release_lessons(
        tenant, agent, lesson_id or [], every_held=every_held, by=by, reason=reason
    )
    if as_json:
        render.json([row.to_json() for row in done])
        return
    if not done:
        render.say("no held lesson: nothing to release")
    for row in done:
        if row.changed:
            render.say(f"lesson {row.lesson_id} {row.before} → released: {row.title}")
        else:
            render.say(f"lesson {row.lesson_id} is already released; nothing changed")


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
    from digest.lessons.service import reset_lessons, resettable_count

    # Counted in a transaction of its own: no lock is held while a person reads the prompt.
    count = resettable_count(tenant, agent)
    if count and not yes:
        # abort=True: "no", or end of input with no terminal, exits 1 before anything changes.
        typer.confirm(
            render.clean(f"Soft-delete all {count} lesson(s) of {tenant}/{agent}?"),
            abort=True,
            err=True,
        )
    deleted = reset_lessons(tenant, agent, reason, by) if count else 0
    if as_json:
        render.json({"deleted": deleted})
    else:
        render.say(f"deleted {deleted} lesson(s) of {tenant}/{agent}")


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

    report = compact(tenant, agent, max_lessons=max_lessons)
    if as_json:
        render.json(vars(report))
        return
    render.say(
        f"merged {len(report.merged)}, superseded {len(report.superseded)}, "
        f"capped {len(report.capped)}; {report.kept} active lesson(s) remain "
        f"({report.llm_calls} model call(s))"
    )


@lesson_app.command("similar")
def lesson_similar(
    tenant: TenantOpt,
    agent: AgentOpt,
    text: Annotated[str, typer.Argument(help="The lesson, question or error to look for.")],
    k: Annotated[int, typer.Option("--k", help="How many neighbours (1-50).")] = 5,
    as_kind: Annotated[
        str,
        typer.Option(
            "--as",
            help="What TEXT is, for its fingerprint: lesson ('signature: body'), question "
            "(an owner's question) or error (a tool's error; with --tool).",
        ),
    ] = "lesson",
    tool: Annotated[
        str | None, typer.Option("--tool", help="The tool whose error TEXT is (--as error).")
    ] = None,
    mode: Annotated[
        str, typer.Option("--mode", help="hybrid (default), lexical or semantic.")
    ] = "hybrid",
    as_json: JsonOpt = False,
) -> None:
    """Is this already known? The active lessons reconciliation would see for TEXT, with
    their relevance, identity and whether their fingerprint is TEXT's."""
    from digest.lessons.identity import similar_lessons

    key, found = similar_lessons(tenant, agent, text, k=k, as_kind=as_kind, tool=tool, mode=mode)
    if as_json:
        render.json({"fingerprint": key, "neighbours": [s.to_json() for s in found]})
    else:
        render.similar(key, found)


@lesson_app.command("effect")
def lesson_effect(tenant: TenantOpt, agent: AgentOpt, as_json: JsonOpt = False) -> None:
    """The measured effect of each lesson the agent's runs applied: success with it and
    without it, with intervals, and a verdict (harms, helps, unclear, too few runs). Only
    outcomes count. The weekly sweep disables active lessons measured as harmful, except
    those a person wrote or reviewed (listed here as yours to review)."""
    from digest.cli.report import effect_table
    from digest.lessons.effect.measure import effect_report

    report = effect_report(tenant, agent)
    if as_json:
        render.json(report.to_json())
    else:
        effect_table(report)


@lesson_app.command("reindex")
def lesson_reindex(
    tenant: Annotated[
        str | None, typer.Option("--tenant", help="Only this tenant (default: all).")
    ] = None,
    agent: Annotated[
        str | None, typer.Option("--agent", help="Only this agent (needs --tenant).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Store the embedding of every active lesson under the configured model
    (DIGEST_EMBEDDING_MODEL) and backfill missing fingerprints. Safe to run again."""
    from digest.lessons.identity import reindex_lessons

    with progress.count_progress("reindexing", disable=as_json, unit="lesson(s)") as advance:
        report = reindex_lessons(tenant, agent, on_lessons=advance)
    if as_json:
        render.json(report.to_json())
    else:
        render.say(
            f"{report.lessons} active lesson(s) of {report.agents} agent(s): "
            f"{report.embedded} embedded with {report.model or 'no model (none)'}, "
            f"{report.fingerprinted} fingerprinted"
        )


#: ``--in`` units: a duration as a whole number of hours, days or weeks
_UNITS = {"h": 3600, "d": 86400, "w": 7 * 86400}


def expiry_moment(within: str | None, at: str | None, never: bool) -> datetime | None:
    """The moment ``lesson expire`` asks for: ``--in 30d`` (hours ``h``, days ``d``, weeks
    ``w``) from now, ``--at`` a date (midnight UTC) or an ISO time (UTC unless it says
    otherwise), or ``None`` for ``--never``. ``InvalidArgument`` naming the option."""
    given = [name for name, value in (("--in", within), ("--at", at), ("--never", never)) if value]
    if len(given) != 1:
        raise InvalidArgument(
            "give one of --in DURATION (30d, 12h, 2w), --at DATE or --never"
            + (f", not {' and '.join(given)}" if given else "")
        )
    if never:
        return None
    if within is not None:
        found = re.fullmatch(r"\s*(\d{1,6})\s*([hdw])\s*", within.lower())
        if found is None or int(found.group(1)) == 0:
            raise InvalidArgument(f"--in: {within!r}; a whole number of h, d or w (e.g. 30d)")
        seconds = int(found.group(1)) * _UNITS[found.group(2)]
        return datetime.now(UTC).replace(microsecond=0) + timedelta(seconds=seconds)
    assert at is not None
    try:
        moment = datetime.fromisoformat(at.strip())
    except ValueError:
        raise InvalidArgument(
            f"--at: {at!r} is not a date (2027-01-31) or an ISO time (2027-01-31T09:00+01:00)"
        ) from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@lesson_app.command("expire")
def lesson_expire(
    tenant: TenantOpt,
    agent: AgentOpt,
    lesson_id: LessonIdArg,
    within: Annotated[
        str | None, typer.Option("--in", help="Expire after this long: 30d, 12h or 2w.")
    ] = None,
    at: Annotated[
        str | None,
        typer.Option("--at", help="Expire at this date (midnight UTC) or ISO time."),
    ] = None,
    never: Annotated[bool, typer.Option("--never", help="Never expire.")] = False,
    reason: ReasonOpt = None,
    by: WhoOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Set when a lesson leaves the bank, or --never. From then no agent reads it and the
    relay's beat task (or digest sweep) disables it and composes without it (its history says
    so)."""
    from digest.errors import OwnerInputError
    from digest.lessons.service import set_lesson_expiry

    moment = expiry_moment(within, at, never)
    try:
        change = set_lesson_expiry(tenant, agent, lesson_id, moment, reason, by)
    except OwnerInputError as exc:  # the option as the person typed it, not the column
        option = "--in" if within is not None else "--at"
        raise OwnerInputError(str(exc).replace("expires_at:", f"{option}:", 1)) from None
    if as_json:
        render.json(change.to_json())
        return
    after = "never expires"
    if change.after is not None:
        after = f"expires {change.after.isoformat(timespec='seconds')}"
    if change.changed:
        render.say(f"lesson {change.lesson_id} {after}: {change.title}")
    else:
        render.say(f"lesson {change.lesson_id} already {after}; nothing changed")
