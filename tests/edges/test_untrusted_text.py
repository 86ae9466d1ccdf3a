"""Untrusted text is printed literally (issue 14, point 7).

Tenant and agent names, lesson text and what a run reported (a task, a tool's error) reach the
terminal through ``digest/cli/render.py`` only: rich markup is shown as the characters it is
(``[/]`` cannot crash a command, ``[red]x[/]`` is not red), terminal escape sequences, other
control characters and bidi overrides are removed, and ``--json`` keeps the data exactly (JSON
escapes the control characters). Every command that prints such text is run end to end here,
in process, on a bank captured through the Python API (``digest.record_*``); names stored
before the key rules (with an escape sequence in them) are still printed safely.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

import digest
from digest.cli import render
from digest.db import session_scope
from digest.models import Agent, Lesson, Tenant
from tests.cli.conftest import forget_process_state, invoke, one_error

#: valid keys that are rich markup
TENANT, AGENT = "shop[/]", "bot [red]x[/]"
WHO = ["--tenant", TENANT, "--agent", AGENT]
#: what a hostile or careless run can put in text: markup, an emoji code, a screen clear, an
#: OSC hyperlink, an 8-bit CSI, a carriage return that would overwrite the line, a bidi override
NASTY = (
    "[/] [red]x[/] [link=http://evil]y[/link] :smile: \x1b[2J\x1b]8;;http://evil\x07z"
    "\x1b]8;;\x07 \x9b31m \u202eevil\u202c"
)
#: and a carriage return, which would overwrite the line (a run's text may hold one)
RUN_NASTY = f"{NASTY} \rover"
#: what a terminal must never receive from data
RAW = ("\x1b", "\x9b", "\r", "\u202e", "\u202c", "\x07")
MANUAL_TITLE = "refunds [red]x[/] \x1b[2J"
#: names stored before the key rules: an escape sequence, a bidi override
OLD_TENANT, OLD_AGENT = "old\x1b[31m-shop", "old\u202e-bot"
OLD_WHO = ["--tenant", OLD_TENANT, "--agent", OLD_AGENT]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A bank made once: two manual lessons and a reflected run lesson, all full of NASTY, two
    versions (so there is a diff), and a tenant and agent whose names were stored before the
    key rules, with an escape sequence and a bidi override in them."""
    from digest.migrate import upgrade
    from digest.pipeline import drain, improve_now

    path = tmp_path_factory.mktemp("untrusted") / "template.db"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{path}")
        patch.delenv("DIGEST_BROKER_URL", raising=False)
        patch.delenv("DIGEST_LLM_API_BASE", raising=False)
        patch.setenv("DIGEST_LLM_MODEL", "offline/rules")
        forget_process_state()
        upgrade()
        digest.record_lesson(TENANT, AGENT, f"{MANUAL_TITLE}: always confirm {NASTY}")
        assert improve_now(TENANT, AGENT).status == "created"
        digest.record_run(
            TENANT,
            AGENT,
            task=f"refund order 7 {RUN_NASTY}",
            outcome="failure",
            error=f"refund failed {RUN_NASTY}",
            tool_calls=[
                {"tool": "issue_refund", "ok": False, "error": f"ValidationError {RUN_NASTY}"}
            ],
        )
        drain()
        digest.record_lesson(TENANT, AGENT, f"shipping {NASTY}: ship the same day {NASTY}")
        assert improve_now(TENANT, AGENT).status == "created"
        digest.record_lesson("old-shop", "old-bot", "greetings: greet the customer by name")
        with session_scope() as session:  # as if stored before the key rules existed
            session.execute(update(Tenant).where(Tenant.name == "old-shop").values(name=OLD_TENANT))
            session.execute(update(Agent).where(Agent.name == "old-bot").values(name=OLD_AGENT))
        forget_process_state()
    return path


@pytest.fixture()
def bank(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """A copy of the template for this test; the ids of the manual and the run lesson."""
    target = tmp_path / "digest.db"
    source, copy = sqlite3.connect(template), sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{target}")
    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    monkeypatch.delenv("DIGEST_LLM_API_BASE", raising=False)
    monkeypatch.setenv("DIGEST_LLM_MODEL", "offline/rules")
    # tables wide enough to show whole names, whatever terminal the test run has
    monkeypatch.setattr(render.out, "_width", 300)
    monkeypatch.setattr(render.out, "_height", 50)
    forget_process_state()
    with session_scope() as session:
        manual = session.scalar(select(Lesson.id).where(Lesson.title == MANUAL_TITLE))
        run = session.scalar(
            select(Lesson.id)
            .where(Lesson.source == "run_outcome", Lesson.status != "quarantined")
            .order_by(Lesson.id)
            .limit(1)
        )
    assert manual is not None and run is not None
    return {"manual": manual, "run": run}


def printed_literally(result: Any, *shown: str) -> str:
    """The command succeeded, printed nothing raw, and shows each of ``shown`` as it is."""
    assert "Traceback" not in result.output, result.output
    assert result.exit_code == 0, result.output
    for raw in RAW:
        assert raw not in result.output, (raw, result.output)
    for text in shown:
        assert text in result.output, (text, result.output)
    return str(result.output)


#: commands that print names or lesson and run text, with what they must show literally
SHOWING: dict[str, tuple[list[str], tuple[str, ...]]] = {
    "version list": (["version", "list", *WHO], ("Added",)),
    "version show": (["version", "show", *WHO, "1"], ("[red]x[/]", AGENT)),
    "version show 2": (["version", "show", *WHO, "2"], ("shipping [/] [red]x[/]",)),
    "version diff": (["version", "diff", *WHO, "1", "2"], ("+- **shipping [/] [red]x[/]",)),
    "stats": (["stats"], ("shop[",)),
    "stats of the agent": (["stats", *WHO], ("shop",)),
    "lesson list": (["lesson", "list", *WHO], ("refunds [red]x[/]", "shipping [/] [red]x[/]")),
    "lesson list --status": (["lesson", "list", *WHO, "--status", "active"], ("refunds",)),
    "lesson show (manual)": (["lesson", "show", *WHO, "{manual}"], ("[/] [red]x[/]", ":smile:")),
    "lesson show (run)": (["lesson", "show", *WHO, "{run}"], ("issue_refund", "(red)x(/)")),
    "lesson search": (["lesson", "search", *WHO, "refund"], ("refunds",)),
    "lesson similar": (["lesson", "similar", *WHO, "refund the order"], ("relevance",)),
    "lesson disable": (["lesson", "disable", *WHO, "{manual}"], ("[red]x[/]",)),
    "lesson delete": (["lesson", "delete", *WHO, "{manual}", "--reason", NASTY], ("[red]x[/]",)),
    "lesson compact": (["lesson", "compact", *WHO], ("active lesson(s) remain",)),
    "lesson reset": (["lesson", "reset", *WHO, "--yes"], (f"of {TENANT}/{AGENT}",)),
    "improve-now": (["improve-now", *WHO], ("no change",)),
    "drain": (["drain", "--tenant", TENANT], ("processed 0 event(s)",)),
    "requeue": (["requeue", *WHO], ("nothing to requeue",)),
    "tenant set": (
        ["tenant", "set", "--tenant", TENANT, "--gate", "2"],
        (f"tenant {TENANT!r}: apply mode auto",),
    ),
    "lesson add": (["lesson", "add", *WHO, f"new [b]x[/b] {NASTY}: do {NASTY}"], ("[b]x[/b]",)),
    "export": (["export", *WHO, "--out", "{out}"], ("wrote 3 lesson(s)",)),
    "old names in stats": (["stats"], ("old-sh", "old-bot")),
    "old names in lesson list": (["lesson", "list", *OLD_WHO], ("greetings",)),
    "old names in reset": (["lesson", "reset", *OLD_WHO, "--yes"], ("old-shop/old-bot",)),
}


@pytest.mark.parametrize("case", SHOWING.values(), ids=SHOWING.keys())
def test_the_command_prints_untrusted_text_literally(
    case: tuple[list[str], tuple[str, ...]], bank: dict[str, int], tmp_path: Path
) -> None:
    args, shown = case
    values = {**{k: str(v) for k, v in bank.items()}, "out": str(tmp_path / "out")}
    result = invoke("--verbose", *(arg.format(**values) for arg in args))
    printed_literally(result, *shown)


JSON_COMMANDS = {
    "lesson show": ["lesson", "show", *WHO, "{manual}", "--json"],
    "lesson list": ["lesson", "list", *WHO, "--json"],
    "version show": ["version", "show", *WHO, "1", "--json"],
    "stats": ["stats", "--json"],
    "improve-now": ["improve-now", *WHO, "--json"],
}


@pytest.mark.parametrize("args", JSON_COMMANDS.values(), ids=JSON_COMMANDS.keys())
def test_json_keeps_the_data_exactly_and_sends_nothing_raw(
    args: list[str], bank: dict[str, int]
) -> None:
    result = invoke(*(arg.format(**{k: str(v) for k, v in bank.items()}) for arg in args))
    printed_literally(result)
    data = json.loads(result.stdout)
    assert data is not None


def test_json_of_a_lesson_holds_its_text_as_stored(bank: dict[str, int]) -> None:
    result = invoke("lesson", "show", *WHO, str(bank["manual"]), "--json")
    data = printed_literally(result)
    lesson = json.loads(data)
    assert lesson["title"] == MANUAL_TITLE  # escape sequence and all: the data is not changed
    assert NASTY in lesson["correction"]


def test_json_of_stats_names_old_tenants_as_stored(bank: dict[str, int]) -> None:
    rows = json.loads(printed_literally(invoke("stats", "--json")))
    assert {(row["tenant"], row["agent"]) for row in rows} >= {
        (TENANT, AGENT),
        (OLD_TENANT, OLD_AGENT),
    }


def test_a_version_made_from_markup_names_is_written_and_listed(bank: dict[str, int]) -> None:
    """The issue's crash: a name holding ``[/]`` made improve-now fail after it wrote the
    version, and version list fail for that agent from then on."""
    digest.record_lesson(TENANT, AGENT, "shipping [/]: ship [bold]today[/bold]")
    forget_process_state()
    created = printed_literally(invoke("improve-now", *WHO), "version 3 (active)")
    assert "[/]" in created
    listed = printed_literally(invoke("version", "list", *WHO))
    assert listed.count("active") == 1 and "3" in listed


def test_the_reset_prompt_prints_names_literally(bank: dict[str, int]) -> None:
    from typer.testing import CliRunner

    from digest.cli import app

    forget_process_state()
    result = CliRunner().invoke(app, ["lesson", "reset", *OLD_WHO], input="n\n")
    assert result.exit_code == 1  # declined: nothing deleted
    assert "of old-shop/old-bot?" in result.output
    for raw in RAW:
        assert raw not in result.output
    with session_scope() as session:
        assert session.scalar(select(Lesson.status).where(Lesson.title == "greetings")) == "active"


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("[/]", "unknown tenant '[/]'"),
        ("[red]x[/]", "unknown tenant '[red]x[/]'"),
        ("x\x1b[2J", "tenant 'x\\x1b[2J' is not a valid key"),
        ("x\u202eevil", "tenant 'x\\u202eevil' is not a valid key"),
        ("x\x9b31m", "tenant 'x\\x9b31m' is not a valid key"),
        (":smile:[bold]", "unknown tenant ':smile:[bold]'"),
    ],
    ids=["close-tag", "markup", "ansi", "bidi", "c1-csi", "emoji-code"],
)
def test_an_error_naming_untrusted_text_is_one_literal_line(
    name: str, said: str, bank: dict[str, int]
) -> None:
    result = invoke("lesson", "list", "--tenant", name, "--agent", "x")
    one_error(result, said)
    assert all(raw not in result.output for raw in RAW)
