"""``digest agent …`` (list, show, set): an agent's learning switch, instructions and model."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from digest.cli import render, tables
from digest.cli.app import AgentOpt, JsonOpt, TenantOpt, agent_app
from digest.errors import InvalidArgument


@agent_app.command("list")
def agent_list(tenant: TenantOpt, as_json: JsonOpt = False) -> None:
    """The tenant's agents: learning on or off, model, instructions, lessons, version."""
    from digest.agents import list_agents

    rows = list_agents(tenant)
    if as_json:
        render.json([row.to_json() for row in rows])
    elif rows:
        tables.agents(rows)
    else:
        render.say(f"tenant {tenant!r} has no agents yet (capture creates one on first use)")


@agent_app.command("show")
def agent_show(tenant: TenantOpt, agent: AgentOpt, as_json: JsonOpt = False) -> None:
    """One agent's settings and what it holds."""
    from digest.agents import agent_settings

    row = agent_settings(tenant, agent)
    if as_json:
        render.json(row.to_json())
    else:
        tables.agent(row)


def _switch(value: str | None) -> bool | None:
    if value is None:
        return None
    word = value.strip().lower()
    if word in ("on", "true", "yes"):
        return True
    if word in ("off", "false", "no"):
        return False
    raise InvalidArgument(f"--learning: {value!r}; on or off")


@agent_app.command("set")
def agent_set(
    tenant: TenantOpt,
    agent: AgentOpt,
    learning: Annotated[
        str | None,
        typer.Option(
            "--learning",
            help="on or off. Off: the agent's events are still captured but skipped, not "
            "reflected (they stay skipped), and no version is composed for it by itself; "
            "lessons you add still count, and improve-now still composes.",
        ),
    ] = None,
    instructions: Annotated[
        str | None,
        typer.Option(
            "--instructions", help="Text the agent's reflection reads (what to learn, or not)."
        ),
    ] = None,
    no_instructions: Annotated[
        bool, typer.Option("--no-instructions", help="Remove the agent's instructions.")
    ] = False,
    model: Annotated[
        str | None,
        typer.Option(
            "--model", help="Model string for every step of this agent (e.g. openai/gpt-4o)."
        ),
    ] = None,
    default_model: Annotated[
        bool,
        typer.Option("--default-model", help="Back to the DIGEST_LLM_* models."),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Change an existing agent's settings (what is not given stays as it is). An unknown
    tenant or agent is an error: capture creates agents, owner commands never do."""
    from digest.agents import KEEP, set_agent

    if instructions is not None and no_instructions:
        raise InvalidArgument("--instructions and --no-instructions: give one of them")
    if model is not None and default_model:
        raise InvalidArgument("--model and --default-model: give one of them")
    changes: dict[str, Any] = {
        "enable_learning": _switch(learning),
        "learning_instructions": None if no_instructions else instructions or KEEP,
        "llm_model": None if default_model else model or KEEP,
    }
    if instructions == "":
        changes["learning_instructions"] = ""
    if model == "":
        changes["llm_model"] = ""
    if (
        changes["enable_learning"] is None
        and changes["learning_instructions"] is KEEP
        and changes["llm_model"] is KEEP
    ):
        raise InvalidArgument(
            "nothing to set: give --learning on|off, --instructions TEXT or --no-instructions, "
            "--model NAME or --default-model"
        )
    try:
        row = set_agent(tenant, agent, **changes)
    except InvalidArgument as exc:  # the option as the person typed it, not the column
        raise InvalidArgument(_as_option(str(exc))) from None
    if as_json:
        render.json(row.to_json())
        return
    words = {"enable_learning": "learning", "learning_instructions": "instructions"}
    changed = [words.get(name, "model") for name in row.changed]
    done = f"changed {', '.join(changed)}" if changed else "nothing changed (already so)"
    render.say(f"agent {row.agent!r} of tenant {row.tenant!r}: {done}")
    tables.agent(row)


#: ``agent set``'s option for each agent setting
AGENT_OPTIONS = {
    "enable_learning": "--learning",
    "learning_instructions": "--instructions",
    "llm_model": "--model",
}


def _as_option(message: str) -> str:
    field, found, rest = message.partition(": ")
    option = AGENT_OPTIONS.get(field)
    return f"{option} ({field}): {rest}" if found and option else message
