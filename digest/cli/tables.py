"""The command line's tables of versions, replays, API keys, tenants, questions and agents
and the per-agent stats (the sentences and tables of lessons are in ``digest.cli.render``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from digest.cli.render import (
    WIDE,
    _row,
    _table,
    counts,
    held_sentence,
    json,
    learning_off_sentence,
    out,
    say,
    threshold_sentence,
    warn,
    when,
)

# --- stats ------------------------------------------------------------------------------------


def _model_use(row: Any) -> tuple[str, str]:
    """``stats``: a provider's model calls (tokens, cost), and the offline rules' calls apart
    (they cost nothing and reach no provider)."""
    paid = (
        f"{row.llm_calls} ({row.prompt_tokens}/{row.completion_tokens} tokens, "
        f"{row.cost_usd:.4f} USD)"
        if row.llm_calls
        else "none"
    )
    free = (
        f"{row.offline_calls} ({row.offline_prompt_tokens}/{row.offline_completion_tokens} "
        "tokens, free)"
        if row.offline_calls
        else "none"
    )
    return paid, free


def agent_stats(rows: list[Any]) -> None:
    """``stats``: one row per ``AgentStats`` (one block per agent on a narrow terminal), then
    what each agent waits for."""
    if out.width >= WIDE:
        numbers = ("LLM calls", "tokens in/out", "cost USD", "offline calls", "version")
        table = _table(("tenant", "agent", "events", "skip rate", "lessons", *numbers), numbers)
        for row in rows:
            _row(
                table, row.tenant, row.agent, counts(row.events), f"{row.skip_rate:.0%}",
                counts(row.lessons), row.llm_calls,
                f"{row.prompt_tokens}/{row.completion_tokens}", f"{row.cost_usd:.4f}",
                f"{row.offline_calls} (free)" if row.offline_calls else 0,
                row.active_version if row.active_version is not None else "-",
            )  # fmt: skip
        out.print(table)
    else:
        for row in rows:
            paid, free = _model_use(row)
            version = row.active_version if row.active_version is not None else "none yet"
            say(f"{row.tenant}/{row.agent}")
            for name, value in (
                ("events", f"{counts(row.events)}; skip rate {row.skip_rate:.0%}"),
                ("lessons", counts(row.lessons, "none")),
                ("LLM calls", paid),
                ("offline", f"{free}: offline/rules, no provider"),
                ("version", version),
            ):
                say(f"  {name:>9}: {value}")
    for row in rows:
        for wait in row.waiting:
            say(
                f"{row.tenant}/{row.agent}: event {wait['event_id']} is waiting, next attempt "
                f"{(wait['next_attempt_at'] or '')[:19]}Z: {wait['reason']}"
            )
        hidden = row.events.get("waiting", 0) - len(row.waiting)
        if hidden > 0:
            say(f"{row.tenant}/{row.agent}: and {hidden} more waiting event(s)")
        if row.held:
            say(f"{row.tenant}/{row.agent}: {held_sentence(row.held, row.gate, row.spread_s)}")
        if row.edit_rate and row.edit_rate["drafts"]:
            say(f"{row.tenant}/{row.agent}: drafts {row.edit_rate['summary']}")
        if not row.enable_learning:
            say(f"{row.tenant}/{row.agent}: {learning_off_sentence(row)}")
        elif row.threshold:
            say(f"{row.tenant}/{row.agent}: {threshold_sentence(row.signals, row.threshold)}")


# --- versions ---------------------------------------------------------------------------------


def versions(rows: list[dict[str, Any]]) -> None:
    """``version list``: ``VersionSummary.to_json()`` rows, newest first; on a narrow terminal
    without the trigger, and each change summary's first line cut at a phrase."""
    from digest.model.contracts import cut_at_phrase

    wide = out.width >= WIDE
    columns = ("#", "status", "trigger", "by", "created", "change summary")
    table = _table(columns if wide else tuple(c for c in columns if c != "trigger"), ("#",))
    table.columns[-1].ratio = 1
    for row in rows:
        summary = (row["change_summary"] or "").splitlines()
        # who decided, when a person did (approved or rejected it); else who proposed it
        by = row["proposed_by"]
        if row.get("approved_by"):
            act = {"rejected": "rejected"}.get(row["status"], "approved")
            act = "rolled back" if row["trigger"] == "rollback" else act
            by = f"{row['approved_by']} ({act})"
        first = summary[0] if summary else ""
        cells: list[object] = [row["number"], row["status"]]
        if wide:
            cells.append(row["trigger"])
        else:
            first = cut_at_phrase(first, 90)
        cells += [by, when(row["created_at"]), first]
        _row(table, *cells)
    out.print(table)
    if not wide:
        say("(`digest version show N` shows a whole change summary; --json lists every field)")


def replay(data: dict[str, Any], proposed: str = "proposed") -> None:
    """A replay (``ReplayReport.to_json()``): the two versions' coverage side by side, then
    the events they cover differently."""
    events = data["events"]
    current = f"v{data['current_number']} (active)" if data["current_number"] else "no version"

    def share(n: int) -> str:
        return f"{n} ({n / events:.0%})" if events else str(n)

    say(
        f"replay of {events} recent failed or edited event(s), {data['since_current']} since "
        f"the active version; top {data['k']} lessons per event; {data['ms']:.0f} ms"
    )
    table = _table(("", current, proposed), right=(current, proposed))
    _row(table, "lessons", data["current_lessons"], data["proposed_lessons"])
    _row(
        table, "covered (surfaced)", share(data["current_covered"]), share(data["proposed_covered"])
    )
    _row(table, "in the document", share(data["current_folded"]), share(data["proposed_folded"]))
    out.print(table)
    withdrawn = data.get("withdrawn") or 0
    apart = f" ({withdrawn} lesson(s) the sweep withdrew count as gone)" if withdrawn else ""
    say(f"gained {data['gained']}, lost {data['lost']}{apart}")
    rows = [e for e in data.get("per_event") or () if e["current"] != e["proposed"]]
    if not rows:
        return
    table = _table(("event", "kind", "new", current, proposed, "probe"), right=("event",))
    for e in rows:
        _row(
            table, e["event_id"], e["kind"], "yes" if e["since_current"] else "",
            _coverage(e["current"], e["current_lesson"]),
            _coverage(e["proposed"], e["proposed_lesson"]), e["probe"],
        )  # fmt: skip
    out.print(table)
    alike = len(data.get("per_event") or ()) - len(rows)
    if alike:
        say(f"{alike} event(s) covered alike are not listed (--json lists every event)")


def _coverage(status: str, lesson: int | None) -> str:
    return f"{status} #{lesson}" if lesson is not None else status


def compose_result(result: Any, as_json: bool) -> None:
    """What one compose did (a ``ComposeResult``): the new version, or ``no change``."""
    if as_json:
        json(vars(result))
    elif result.status == "created":
        say(f"version {result.number} ({result.version_status})")
        for line in (result.change_summary or "").splitlines():
            say(f"  {line}")
        if getattr(result, "hold_reason", None):
            say(f"it waits for a person: {result.hold_reason}")
    else:
        reason = getattr(result, "reason", None)
        say(f"no change: {reason}" if reason else "no change")
    if as_json:
        return
    waiting, in_flight = result.waiting, result.in_flight
    if waiting:
        say(
            f"{waiting} event(s) wait to be tried again after a model fault or for the "
            "tenant's daily budget (see `digest stats`); they are not in this version"
        )
    if in_flight:
        say(f"{in_flight} event(s) were still being reflected by a worker; not included")


# --- API keys ---------------------------------------------------------------------------------


def api_keys(rows: list[dict[str, Any]]) -> None:
    """``tenant key list``: what may be shown of each key (never a secret)."""
    table = _table(("id", "prefix", "kind", "label", "created", "revoked"), right=("id",))
    for row in rows:
        _row(
            table, row["id"], row["prefix"], row["kind"], row["label"] or "",
            when(row["created_at"]), when(row["revoked_at"]),
        )  # fmt: skip
    out.print(table)


def tenants(rows: list[Any], settings_line: Callable[[Any], str]) -> None:
    """``tenant list``: each tenant's settings and how much it holds."""
    table = _table(
        ("tenant", "settings", "agents", "events", "keys"), right=("agents", "events", "keys")
    )
    for row in rows:
        _row(table, row.name, settings_line(row), row.agents, row.events, row.keys)
    out.print(table)


# --- questions --------------------------------------------------------------------------------


def questions(rows: list[Any]) -> None:
    """``question list``: the queue, most asked first. A question is the agent's (often a
    user's) words: a quotation, flagged when it reads as an instruction."""
    table = _table(("id", "agent", "asked", "threads", "status", "question"),
                   right=("id", "asked", "threads"))  # fmt: skip
    for row in rows:
        text = f"«{row.text}»" + (f" [flagged: {row.flagged}]" if row.flagged else "")
        _row(table, row.id, row.agent, row.count, row.threads, row.status, text)
    out.print(table)


def question(row: Any) -> None:
    """``question show``: one question with the threads it came from and how it ended."""
    say(f"question {row.id} of agent {row.agent!r}: {row.status}, asked {row.count}× "
        f"from {row.threads} threads")  # fmt: skip
    say(f"  «{row.text}»")
    if row.flagged:
        warn(f"the screen reads it as an instruction ({row.flagged}): it is only a quotation")
    if row.answer:
        say(f"  answered by {row.closed_by} at {when(row.closed_at.isoformat())}: {row.answer}")
    elif row.reason:
        say(f"  {row.status} at {when(row.closed_at.isoformat() if row.closed_at else None)}: "
            f"{row.reason}")  # fmt: skip
    for ask in row.asks:
        parts = (ask.thread_id and f"thread {ask.thread_id}",
                 ask.contact_id and f"contact {ask.contact_id}")  # fmt: skip
        where = ", ".join(x for x in parts if x)
        context = f": {ask.context}" if ask.context else ""
        say(f"  - {when(ask.asked_at.isoformat())} {where or 'no thread'}{context}")


# --- agents -----------------------------------------------------------------------------------


def _model_words(row: Any) -> str:
    return row.llm_model or f"default ({row.model_in_use})"


def agents(rows: list[Any]) -> None:
    """``agent list``: each agent's settings, lessons and version."""
    table = _table(
        ("agent", "learning", "model", "instructions", "lessons", "version"),
        right=("lessons", "version"),
    )
    for row in rows:
        said = row.learning_instructions or "-"
        _row(
            table, row.agent, "on" if row.enable_learning else "off", row.llm_model or "default",
            said if len(said) <= 40 else said[:39] + "…", row.active_lessons,
            row.current_version or "-",
        )  # fmt: skip
    out.print(table)


def agent(row: Any) -> None:
    """``agent show`` and ``agent set``: one agent's settings."""
    learning = "on" if row.enable_learning else "off (events are captured, not reflected)"
    facts = [
        ("tenant", row.tenant),
        ("agent", row.agent),
        ("learning", learning),
        ("model", _model_words(row)),
        ("instructions", row.learning_instructions or "none"),
        ("lessons", f"{row.active_lessons} active"),
        ("version", row.current_version or "none yet"),
    ]
    for name, value in facts:
        say(f"{name:>12}: {value}")
