"""What the command-line tests share: ``digest`` run in this process (typer's CliRunner on
``digest.cli.app``, with a fresh process's state), or as a real subprocess (``python -m
digest.cli``) where the process boundary is what a test is about, and a bank of lessons to run
it on."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import traceback
from collections.abc import Iterator
from contextlib import chdir
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.models import Agent, Lesson
from tests.conftest import ROOT, _reset_process_state, manual_lesson

if TYPE_CHECKING:
    from typer.testing import Result

AGENT = "support-bot"
OTHER_AGENT = "sales-bot"

REFUND_RUN: dict[str, Any] = {
    "task": "Refund the damaged mug from order 41655",
    "outcome": "failure",
    "tool_calls": [
        {
            "tool": "issue_refund",
            "args": {"order_id": "41655"},
            "ok": False,
            "error": "ValidationError: field 'amount' is required",
        }
    ],
}
TRANSIENT_RUN: dict[str, Any] = {
    "task": "Where is order 7?",
    "outcome": "failure",
    "error": "upstream timeout after 30s",
    "tool_calls": [{"tool": "track_shipment", "ok": False, "error": "upstream timeout"}],
}


def run_digest(
    *args: str,
    env: dict[str, str] | None = None,
    cwd: Path | None = None,
    stdin: str | None = None,
    columns: str | None = "200",
) -> subprocess.CompletedProcess[str]:
    """``python -m digest.cli ARGS`` as a real subprocess, with this process's environment plus
    ``env``: for tests about the process itself (nothing but one line on stderr, whatever the
    interpreter prints at start and exit; the settings it starts with; its width when stderr
    is no terminal). Without ``stdin`` the child gets no input at all (no terminal), the way
    cron or CI runs it; with ``columns=None`` it gets no COLUMNS either (rich then assumes 80).
    Everything else runs the command in this process (``run_cli``): a start-up costs a second
    or more."""
    full_env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    if columns is not None:
        full_env["COLUMNS"] = columns
    full_env.update(env or {})
    return subprocess.run(
        [sys.executable, "-m", "digest.cli", *args],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        env=full_env,
        cwd=cwd or ROOT,
        timeout=180,
        check=False,
    )


@dataclass(frozen=True)
class Ran:
    """How a command run in this process ended, in ``subprocess.CompletedProcess``'s words."""

    returncode: int
    stdout: str
    stderr: str


def run_cli(
    *args: str,
    env: dict[str, str | None] | None = None,
    cwd: Path | None = None,
    stdin: str | None = None,
    columns: str | None = "200",
) -> Ran:
    """``digest ARGS`` run in this process as ``run_digest`` runs it in a subprocess: the
    environment plus ``env`` (a variable given None is unset), in ``cwd`` (the checkout by
    default), ``stdin`` as its input (none: a prompt reads end of input), its output
    ``columns`` wide (80 for ``None``, as rich assumes when no terminal says). The process's
    state is reset before (the command reads the environment as a new process would) and after
    (the test's next reads do not see the command's settings). A Python exception that escaped
    the command fails the test here, with its traceback."""
    from typer.testing import CliRunner

    from digest.cli import app, render

    _reset_process_state()
    try:
        with chdir(cwd or ROOT), pytest.MonkeyPatch.context() as patch:
            # rich read COLUMNS once, when render was imported (pytest-xdist sets it to 80)
            for console in (render.out, render.err):
                patch.setattr(console, "_width", int(columns or 80))
            result = CliRunner().invoke(
                app, list(args), input=stdin, env={**(env or {}), "COLUMNS": columns}
            )
    finally:
        _reset_process_state()
    escaped = result.exception
    assert escaped is None or isinstance(escaped, SystemExit), "".join(
        traceback.format_exception(escaped)
    )
    return Ran(result.exit_code, result.stdout, result.stderr)


def run_all(commands: list[list[str]]) -> list[Ran]:
    """Run each command in this process (``run_cli``), one after the other."""
    return [run_cli(*command) for command in commands]


def ok(*args: str, **options: Any) -> str:
    """Run a command in this process (``run_cli``) that must succeed; its stdout."""
    result = run_cli(*args, **options)
    assert result.returncode == 0, (args, result.stdout, result.stderr)
    return result.stdout


def run_json(*args: str) -> Any:
    """Run a command with ``--json`` in this process; its parsed stdout."""
    return json.loads(ok(*args, "--json"))


def one_error_line(
    result: subprocess.CompletedProcess[str] | Ran, *needles: str, code: int = 2
) -> str:
    """Exit ``code`` and exactly one line on stderr (no traceback) that holds every needle."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def invoke(*args: str) -> Result:
    """The typer app run in this process (CliRunner: much faster than a subprocess), after
    forgetting cached settings, engines and agent ids, so the environment as it is now is what
    the command reads. A Python exception that escaped the command fails the test here, with
    its traceback."""
    from typer.testing import CliRunner

    from digest.cli import app

    forget_process_state()
    result = CliRunner().invoke(app, list(args))
    escaped = result.exception
    assert escaped is None or isinstance(escaped, SystemExit), "".join(
        traceback.format_exception(escaped)
    )
    return result


def one_error(result: Result, *needles: str, code: int | None = 2) -> str:
    """``invoke``'s ``one_error_line``: exit ``code`` (any failure for ``None``), nothing on
    stderr but one line that starts with ``error:`` and holds every needle, no traceback."""
    assert "Traceback" not in result.output, result.output
    if code is None:
        assert result.exit_code != 0, result.output
    else:
        assert result.exit_code == code, (result.exit_code, result.output)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def sqlite_env_for(db_file: Path) -> dict[str, str]:
    """The embedded default on ``db_file``: no broker, offline/rules."""
    env = {k: v for k, v in os.environ.items() if k not in ("DIGEST_BROKER_URL", "COLUMNS")}
    env.pop("DIGEST_LLM_API_BASE", None)
    env.update(DIGEST_DATABASE_URL=f"sqlite:///{db_file}", DIGEST_LLM_MODEL="offline/rules")
    return env


def forget_process_state() -> None:
    """Drop cached settings, engines and agent ids: the database under them changes."""
    from digest.capture.store import forget_agent_ids
    from digest.config import get_settings
    from digest.db import dispose_engines

    get_settings.cache_clear()
    dispose_engines()
    forget_agent_ids()


def lesson_row(lesson_id: int) -> Lesson:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        return lesson


def set_lesson(lesson_id: int, **values: Any) -> None:
    with session_scope() as session:
        lesson = session.get(Lesson, lesson_id)
        assert lesson is not None
        for key, value in values.items():
            setattr(lesson, key, value)


# --- the bank --------------------------------------------------------------------------------


@dataclass
class Bank:
    """One tenant's lessons: a manual one, two reflected ones, a skipped event; a second agent
    and a second tenant each with a lesson of their own."""

    tenant: str
    other_tenant: str
    manual: int
    answer: int
    refund: int
    other_agent_lesson: int
    other_tenant_lesson: int

    @property
    def mine(self) -> tuple[str, ...]:
        return ("--tenant", self.tenant, "--agent", AGENT)


def make_bank(tenant: str) -> Bank:
    other_tenant = f"{tenant}-other"
    manual = manual_lesson(tenant, AGENT, "refund-limits: refunds above 200 EUR need a manager")
    digest.record_answer(
        tenant, AGENT, question="Do we ship to Norway?",
        answer="Yes, from the Oslo warehouse, 3-5 days.",
    )  # fmt: skip
    digest.record_run(tenant, AGENT, **REFUND_RUN)
    digest.record_run(tenant, AGENT, **TRANSIENT_RUN)
    other_agent = manual_lesson(tenant, OTHER_AGENT, "discounts: never promise a discount")
    other_tenant_lesson = manual_lesson(
        other_tenant, AGENT, "greetings: greet the customer by name"
    )
    # Only this tenant: on the shared Postgres other tests' pending events are theirs.
    drained = run_json("drain", "--tenant", tenant)
    assert drained["by_status"] == {"reflected": 2, "skipped": 1}, drained
    by_source = _sources(tenant, AGENT)
    return Bank(
        tenant=tenant,
        other_tenant=other_tenant,
        manual=manual,
        answer=by_source["owner_answer"],
        refund=by_source["run_outcome"],
        other_agent_lesson=other_agent,
        other_tenant_lesson=other_tenant_lesson,
    )


def _sources(tenant: str, agent: str) -> dict[str, int]:
    from digest.models import Tenant

    with session_scope() as session:
        rows = session.execute(
            select(Lesson.source, Lesson.id)
            .join(Agent, Agent.id == Lesson.agent_id)
            .join(Tenant, Tenant.id == Agent.tenant_id)
            .where(Tenant.name == tenant, Agent.name == agent)
        ).all()
    return {source: lesson_id for source, lesson_id in rows}


@pytest.fixture(scope="module")
def bank_template(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Bank]:
    """Build the bank once per module (captures, a drain) into a template SQLite file; each
    test gets a copy, which is much faster than capturing and reflecting again."""
    from digest.migrate import upgrade

    path = tmp_path_factory.mktemp("bank") / "template.db"
    url = f"sqlite:///{path}"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DIGEST_DATABASE_URL", url)
        patch.delenv("DIGEST_BROKER_URL", raising=False)
        patch.delenv("DIGEST_LLM_API_BASE", raising=False)
        patch.setenv("DIGEST_LLM_MODEL", "offline/rules")
        forget_process_state()
        upgrade(url)
        bank = make_bank("owner-shop")
        forget_process_state()
    return path, bank


@pytest.fixture()
def bank(sqlite_env: str, bank_template: tuple[Path, Bank]) -> Bank:
    template, made = bank_template
    forget_process_state()  # no pooled connection may hold the file being replaced
    source = sqlite3.connect(template)
    target = sqlite3.connect(sqlite_env.removeprefix("sqlite:///"))
    try:
        source.backup(target)
    finally:
        source.close()
        target.close()
    return made


@pytest.fixture()
def pg_bank(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Bank]:
    """The same bank on PostgreSQL, reflected in-process: without a broker nothing is queued
    for the workers other tests start on the shared queue."""
    from digest.outbox.publish import reset_publisher

    monkeypatch.delenv("DIGEST_BROKER_URL")
    forget_process_state()
    reset_publisher()
    yield make_bank(tenant)
