"""``digest question ask|list|show|answer|dismiss``: the questions agents ask their owner."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from digest.cli import render, tables
from digest.cli.app import AgentOpt, JsonOpt, TenantOpt, app, id_argument

question_app = typer.Typer(
    rich_markup_mode=None,
    help="Questions agents asked their owner: the queue, answers and dismissals.",
    no_args_is_help=True,
)
app.add_typer(question_app, name="question")

ByOpt = Annotated[str, typer.Option("--by", help="Who decides (shown in the question's record).")]


def _line(row: Any) -> str:
    flagged = f"  [flagged: {row.flagged}]" if row.flagged else ""
    return (
        f"question {row.id} ({row.agent}, {row.status}, asked {row.count}×): «{row.text}»{flagged}"
    )


@question_app.command("ask")
def question_ask(
    tenant: TenantOpt,
    agent: AgentOpt,
    question: Annotated[str, typer.Argument(help="The question, as the agent would ask it.")],
    thread: Annotated[str | None, typer.Option("--thread", help="The thread it came from.")] = None,
    contact: Annotated[
        str | None, typer.Option("--contact", help="The contact it came from.")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """Ask as the agent would (digest.ask): known (the owner answered it), asked (in the queue)
    or limited (the question budget is spent; kept, opens later)."""
    from digest.questions.ask import ask

    found = ask(tenant, agent, question, thread_id=thread, contact_id=contact)
    if as_json:
        render.json(found.to_json())
    elif found.status == "known":
        source = f"lesson {found.lesson_id}" if found.lesson_id else f"question {found.question_id}"
        render.say(f"known ({source}): {found.answer}")
    elif found.status == "asked":
        render.say(f"asked: question {found.question_id}, asked {found.count}× so far")
    else:
        frees = render.when(found.frees_at.isoformat()) if found.frees_at else "never while 0"
        render.say(
            f"limited: question {found.question_id} is kept and opens when the question budget "
            f"frees ({frees} UTC; DIGEST_ASK_AGENT_DAILY, DIGEST_ASK_TENANT_DAILY)"
        )


@question_app.command("list")
def question_list(
    tenant: TenantOpt,
    agent: Annotated[str | None, typer.Option("--agent", help="Only this agent's.")] = None,
    status: Annotated[
        str,
        typer.Option(
            "--status", help="open (default), held, answered, dismissed, expired, merged or all."
        ),
    ] = "open",
    as_json: JsonOpt = False,
) -> None:
    """The queue, most asked first, with the threads each question came from."""
    from digest.questions.queue import list_questions

    rows = list_questions(tenant, agent=agent, status=status)
    if as_json:
        render.json([r.to_json() for r in rows])
        return
    if not rows:
        render.say(f"no {'' if status == 'all' else status + ' '}questions in tenant {tenant!r}")
        return
    tables.questions(rows)


@question_app.command("show")
def question_show(
    tenant: TenantOpt,
    question_id: int = id_argument("The question's id."),
    as_json: JsonOpt = False,
) -> None:
    """One question: its text, every thread it came from (latest five asks), its answer."""
    from digest.questions.queue import get_question

    row = get_question(tenant, question_id)
    if as_json:
        render.json(row.to_json())
        return
    tables.question(row)


@question_app.command("answer")
def question_answer(
    tenant: TenantOpt,
    by: ByOpt,
    question_id: int = id_argument("The question's id."),
    answer: str = typer.Argument(..., help="The owner's answer: it becomes a trusted lesson."),
    as_json: JsonOpt = False,
) -> None:
    """Answer a question: an owner answer (a trusted lesson once the worker reflects it), and
    the question closed for every thread that asked it."""
    from digest.questions.queue import answer_question

    row = answer_question(tenant, question_id, answer, by=by)
    if as_json:
        render.json(row.to_json())
        return
    render.say(
        f"question {row.id} answered by {row.closed_by} for {row.count} asks "
        f"(event {row.answer_event_id}); the worker makes it a lesson"
    )


@question_app.command("dismiss")
def question_dismiss(
    tenant: TenantOpt,
    by: ByOpt,
    reason: Annotated[str, typer.Option("--reason", help="Why it needs no answer.")],
    question_id: int = id_argument("The question's id."),
    as_json: JsonOpt = False,
) -> None:
    """Set a question aside with a reason: it leaves the queue and nothing is learned."""
    from digest.questions.queue import dismiss_question

    row = dismiss_question(tenant, question_id, reason, by=by)
    if as_json:
        render.json(row.to_json())
        return
    render.say(f"question {row.id} dismissed by {row.closed_by}: {row.reason}")


__all__ = ["question_app"]
