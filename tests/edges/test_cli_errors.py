"""Every error is one sentence (issue 14, point 6).

Every command of the ``digest`` app, found by walking the typer app (so a new command is
picked up, and fails ``test_every_command_has_minimal_arguments`` until it has a row in
``ARGUMENTS``), is run under each condition a broken deployment or a careless caller gives it:

- an invalid setting (``DIGEST_LLM_TIMEOUT_S=abc``), and a database URL no driver knows;
- a database that is down, and one never migrated (an empty SQLite file, an empty PostgreSQL
  database);
- ids no row can have (0, negative, ≥ 2**63) for every id argument, and a missing option;
- file errors, and what is not a regular file (a folder, a FIFO: never opened to be read).

Each ends with a failing exit status, one ``error: …`` line on stderr, no traceback, and
nothing half-written: no database file, no table, no tenant, no event, no export folder.
Success is right only where it is right: ``--help`` (which reads no settings), and ``db
upgrade`` and ``demo`` on an empty database (they create the schema).

The library's read path keeps the same contract: ``current_learning`` raises a ``DigestError``
(``DatabaseUnavailable``, ``ConfigError``), never a driver's exception, and ``pitfalls`` is
best effort (``""``).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
import typer.main
from sqlalchemy import func, select

import digest
from digest.cli import app
from digest.cli.app import ID_MAX, TEXT_FILE_MAX
from digest.db import session_scope
from digest.errors import ConfigError, DatabaseUnavailable, DigestError
from digest.models import Agent, Event, LearningVersion, Lesson, Tenant
from tests.cli.conftest import forget_process_state, invoke, one_error

TENANT, AGENT = "acme", "bot"
WHO = ["--tenant", TENANT, "--agent", AGENT]

#: minimal valid arguments of every command. Placeholders: ``{events}`` a JSON Lines file of
#: one event, ``{lessons}`` a folder holding one LESSON.md, ``{out}`` a folder that does not
#: exist yet, ``{id}`` an id or version number. Positional arguments come after ``--``, so a
#: negative id reaches the command as a value.
ARGUMENTS: dict[str, list[str]] = {
    "capture": ["--file", "{events}"],
    "drain": [],
    "requeue": ["--tenant", TENANT],
    "demo": [],
    "improve-now": WHO,
    "sweep": [],
    "stats": [],
    "export": [*WHO, "--out", "{out}"],
    "import": [*WHO, "--", "{lessons}"],
    "db upgrade": [],
    "version list": WHO,
    "version show": [*WHO, "--", "{id}"],
    "version diff": [*WHO, "--", "{id}", "{id}"],
    "version replay": WHO,
    "version approve": [*WHO, "--by", "me", "--", "{id}"],
    "version reject": [*WHO, "--by", "me", "--", "{id}"],
    "version rollback": [*WHO, "--by", "me", "--", "{id}"],
    "tenant set": ["--tenant", TENANT, "--threshold", "3"],
    "tenant create": ["--tenant", TENANT],
    "tenant list": [],
    "tenant key create": ["--tenant", TENANT],
    "tenant key list": ["--tenant", TENANT],
    "tenant key revoke": ["--tenant", TENANT, "--", "dg_agent_abcdefgh"],
    "agent list": ["--tenant", TENANT],
    "agent show": WHO,
    "agent set": [*WHO, "--learning", "off"],
    "lesson list": WHO,
    "lesson search": [*WHO, "--", "refund"],
    "lesson show": [*WHO, "--", "{id}"],
    "lesson add": [*WHO, "--", "refunds: confirm the amount first"],
    "lesson delete": [*WHO, "--", "{id}"],
    "lesson disable": [*WHO, "--", "{id}"],
    "lesson enable": [*WHO, "--", "{id}"],
    "lesson expire": [*WHO, "--in", "30d", "--", "{id}"],
    "lesson release": [*WHO, "--by", "me", "--", "{id}"],
    "lesson reset": [*WHO, "--yes"],
    "lesson compact": WHO,
    "lesson similar": [*WHO, "--", "refund"],
    "lesson reindex": [],
    "lesson effect": WHO,
    "report": [*WHO, "--html", "{out}"],
    "doctor": [],
    "question ask": [*WHO, "--", "Do you ship to Norway?"],
    "question list": ["--tenant", TENANT],
    "question show": ["--tenant", TENANT, "--", "{id}"],
    "question answer": ["--tenant", TENANT, "--by", "me", "--", "{id}", "Yes."],
    "question dismiss": ["--tenant", TENANT, "--by", "me", "--reason", "no", "--", "{id}"],
    "forget": ["--tenant", TENANT, "--contact", "c-1"],
}
#: commands left out because they run until stopped (a server, a worker loop), with why.
#: ``demo`` runs the loop once and ends, so it is not one of them.
LONG_RUNNING: dict[str, str] = {
    "serve": "the HTTP server runs until stopped; tests/service starts it as a subprocess "
    "and checks a database that is down (503) and never migrated (/readyz)",
}
#: commands another change is adding: their row may be here before the app has them
NOT_YET = {"doctor"}
#: commands that create the schema: on a database never migrated they succeed
MIGRATING = {"db upgrade", "demo"}
#: commands whose output is a report of several lines by design (one line per check): held
#: to a failing exit status and no traceback, not to one line
REPORTS = {"doctor"}


def command_paths() -> list[str]:
    """Every command of the app, as its path (``lesson show``), groups walked recursively."""
    found: list[str] = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        children = getattr(command, "commands", None)
        if children is None:
            found.append(" ".join(path))
            return
        for name, child in children.items():
            walk(child, (*path, name))

    walk(typer.main.get_command(app), ())
    return sorted(found)


COMMANDS = [path for path in command_paths() if path not in LONG_RUNNING]
WITH_IDS = [path for path in COMMANDS if "{id}" in ARGUMENTS.get(path, [])]


# --- the files and databases a command is given --------------------------------------------------

LESSON_MD = (
    "---\nschema: agentlearning/v1\ntitle: Confirm the amount\n---\n"
    "## What to do (or avoid)\n\nConfirm the refund amount before issuing it.\n"
)
EVENT_LINE = (
    '{"kind": "run_outcome", "tenant": "acme", "agent": "bot", "task": "refund order 7", '
    '"outcome": "failure", "error": "amount is required"}\n'
)


@pytest.fixture()
def inputs(tmp_path: Path) -> dict[str, Path]:
    events = tmp_path / "events.jsonl"
    events.write_text(EVENT_LINE, encoding="utf-8")
    lessons = tmp_path / "lessons" / "confirm-amount"
    lessons.mkdir(parents=True)
    (lessons / "LESSON.md").write_text(LESSON_MD, encoding="utf-8")
    return {"events": events, "lessons": lessons.parent, "out": tmp_path / "export"}


def argv(command: str, inputs: dict[str, Path], id_value: str = "1") -> list[str]:
    values = {name: str(path) for name, path in inputs.items()}
    return [*command.split(), *(a.format(**values, id=id_value) for a in ARGUMENTS[command])]


@pytest.fixture()
def embedded(monkeypatch: pytest.MonkeyPatch) -> None:
    """No broker, offline/rules: what the commands run on unless a test says otherwise."""
    monkeypatch.delenv("DIGEST_BROKER_URL", raising=False)
    monkeypatch.delenv("DIGEST_LLM_API_BASE", raising=False)
    monkeypatch.setenv("DIGEST_LLM_MODEL", "offline/rules")


def sqlite_tables(path: Path) -> list[str]:
    with sqlite3.connect(path) as conn:
        return [row[0] for row in conn.execute("SELECT name FROM sqlite_master")]


def postgres_tables(url: str) -> list[str]:
    with psycopg.connect(url.replace("+psycopg", "")) as conn:
        rows = conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
        )
        return [row[0] for row in rows]


def assert_failed_in_one_sentence(command: str, result: Any, *needles: str) -> None:
    if command in REPORTS:
        assert "Traceback" not in result.output, result.output
        assert result.exit_code != 0 and result.output.strip(), result.output
    else:
        one_error(result, *needles)


# --- the table is complete ---------------------------------------------------------------------


def test_every_command_has_minimal_arguments() -> None:
    missing = sorted(set(COMMANDS) - set(ARGUMENTS))
    assert not missing, f"add minimal valid arguments for {missing} to ARGUMENTS"
    stale = sorted(set(ARGUMENTS) - set(command_paths()) - NOT_YET)
    assert not stale, f"ARGUMENTS names commands the app no longer has: {stale}"
    assert len(COMMANDS) >= 29  # the walk found the groups' commands, not only the top level


def test_every_id_argument_is_marked_in_the_table() -> None:
    """An int argument named like an id (``lesson_id``, ``number``, ``old``, ``new``) is
    ``{id}`` in ARGUMENTS, so the id cases below cover it."""
    commands = {path: cmd for path, cmd in _walked().items() if path in ARGUMENTS}
    for path, command in commands.items():
        ids = [
            p.name
            for p in command.params
            if p.param_type_name == "argument"
            and (p.name.endswith("_id") or p.name in ("number", "old", "new"))
        ]
        assert ARGUMENTS[path].count("{id}") == len(ids), (path, ids)


def _walked() -> dict[str, Any]:
    root = typer.main.get_command(app)
    out: dict[str, Any] = {}
    for path in command_paths():
        command = root
        for name in path.split():
            command = command.commands[name]
        out[path] = command
    return out


@pytest.mark.parametrize("command", COMMANDS)
def test_the_minimal_arguments_are_valid(
    command: str, migrated: None, inputs: dict[str, Path]
) -> None:
    """On a healthy database every row of the table parses: the command either succeeds or
    fails with a sentence of its own (an unknown tenant), never a usage error."""
    result = invoke(*argv(command, inputs))
    assert "Traceback" not in result.output, result.output
    if result.exit_code != 0 and command not in REPORTS:
        line = one_error(result, code=None)
        assert "--help`)" not in line, line  # a usage error names where the help is


# --- settings and databases --------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_an_invalid_setting(
    command: str, embedded: None, inputs: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    never = tmp_path / "never.db"
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{never}")
    monkeypatch.setenv("DIGEST_LLM_TIMEOUT_S", "abc")
    result = invoke(*argv(command, inputs))
    assert_failed_in_one_sentence(command, result, "invalid setting DIGEST_LLM_TIMEOUT_S")
    assert not never.exists()  # the settings stop a command before it touches anything
    assert not inputs["out"].exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_database_url_no_driver_knows(
    command: str, embedded: None, inputs: dict[str, Path], monkeypatch: Any
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", "garbage://")
    result = invoke(*argv(command, inputs))
    assert_failed_in_one_sentence(command, result, "garbage")
    assert not inputs["out"].exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_database_that_is_down(
    command: str, embedded: None, inputs: dict[str, Path], monkeypatch: Any
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", "postgresql+psycopg://digest:s3cret@127.0.0.1:1/x")
    result = invoke(*argv(command, inputs))
    assert_failed_in_one_sentence(command, result, "port 1")
    assert "s3cret" not in result.output
    assert not inputs["out"].exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_sqlite_file(
    command: str, embedded: None, inputs: dict[str, Path], tmp_path: Path, monkeypatch: Any
) -> None:
    empty = tmp_path / "empty.db"
    empty.touch()
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{empty}")
    result = invoke(*argv(command, inputs))
    if command in MIGRATING:
        assert result.exit_code == 0, result.output
        assert "alembic_version" in sqlite_tables(empty)
        return
    assert_failed_in_one_sentence(command, result, "run `digest db upgrade`")
    assert sqlite_tables(empty) == []  # nothing created a table on the way
    assert not inputs["out"].exists()


@pytest.fixture(scope="module")
def empty_postgres(pg_admin: str) -> Iterator[Callable[[], str]]:
    """Empty PostgreSQL databases (never migrated), dropped at the end of the module."""
    made: list[str] = []
    base = pg_admin.rsplit("/", 1)[0].replace("postgresql://", "postgresql+psycopg://", 1)

    def make() -> str:
        name = f"digest_empty_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(pg_admin, autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        made.append(name)
        return f"{base}/{name}"

    yield make
    forget_process_state()
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        for name in made:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


@pytest.fixture(scope="module")
def shared_empty_postgres(empty_postgres: Callable[[], str]) -> str:
    return empty_postgres()


@pytest.mark.parametrize("command", COMMANDS)
def test_an_empty_postgres_database(
    command: str,
    embedded: None,
    inputs: dict[str, Path],
    empty_postgres: Callable[[], str],
    shared_empty_postgres: str,
    monkeypatch: Any,
) -> None:
    # a command that creates the schema gets a database of its own
    url = empty_postgres() if command in MIGRATING else shared_empty_postgres
    monkeypatch.setenv("DIGEST_DATABASE_URL", url)
    result = invoke(*argv(command, inputs))
    forget_process_state()  # no pooled connection stays open on the database
    if command in MIGRATING:
        assert result.exit_code == 0, result.output
        assert "alembic_version" in postgres_tables(url)
        return
    assert_failed_in_one_sentence(command, result, "run `digest db upgrade`")
    assert postgres_tables(url) == []
    assert not inputs["out"].exists()


# --- help and usage ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", COMMANDS)
def test_help_reads_no_settings(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGEST_LLM_TIMEOUT_S", "abc")
    result = invoke(*command.split(), "--help")
    assert result.exit_code == 0, result.output
    assert "Usage" in result.stdout and "error" not in result.stderr


REQUIRING = [
    path
    for path, cmd in _walked().items()
    if path in COMMANDS and any(p.required for p in cmd.params)
]


@pytest.mark.parametrize("command", REQUIRING)
def test_a_missing_option_or_argument_is_one_sentence(command: str, migrated: None) -> None:
    line = one_error(invoke(*command.split()), "Missing", f"{command} --help")
    assert line.endswith("--help`)")


def test_an_unknown_command_or_option_is_one_sentence(migrated: None) -> None:
    one_error(invoke("lesson", "shwo"), "No such command", "lesson --help")
    one_error(invoke("--bogus", "stats"), "No such option: --bogus")
    one_error(invoke("stats", "--bogus"), "No such option: --bogus", "stats --help")


# --- ids no row can have -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def templates(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two SQLite files made once per module: ``migrated`` (an empty schema) and ``seeded``
    (acme/bot with one lesson and an active version 1). Each test works on a copy."""
    from digest.migrate import upgrade
    from digest.pipeline import improve_now

    folder = tmp_path_factory.mktemp("templates")
    made = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv("DIGEST_BROKER_URL", raising=False)
        patch.delenv("DIGEST_LLM_API_BASE", raising=False)
        patch.setenv("DIGEST_LLM_MODEL", "offline/rules")
        for name in ("migrated", "seeded"):
            path = made[name] = folder / f"{name}.db"
            patch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{path}")
            forget_process_state()
            upgrade()
            if name == "seeded":
                digest.record_lesson(TENANT, AGENT, "refunds: confirm the amount first")
                assert improve_now(TENANT, AGENT).status == "created"
        forget_process_state()
    return made


def copy_of(template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "digest.db"
    source, copy = sqlite3.connect(template), sqlite3.connect(target)
    try:
        source.backup(copy)
    finally:
        source.close()
        copy.close()
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{target}")
    forget_process_state()


@pytest.fixture()
def migrated(
    embedded: None,
    templates: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A migrated, empty database of this test's own."""
    copy_of(templates["migrated"], tmp_path, monkeypatch)


@pytest.fixture()
def seeded(
    embedded: None,
    templates: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> Callable[[], dict[str, Any]]:
    """acme/bot with one lesson and an active version 1; returns ``snapshot`` (rows per table,
    the lessons' and versions' statuses) to show that nothing changed."""
    copy_of(templates["seeded"], tmp_path, monkeypatch)
    return snapshot


def snapshot() -> dict[str, Any]:
    with session_scope() as session:
        counts = {
            model.__tablename__: session.scalar(select(func.count()).select_from(model))
            for model in (Tenant, Agent, Event, Lesson, LearningVersion)
        }
        lessons = sorted(tuple(row) for row in session.execute(select(Lesson.id, Lesson.status)))
        versions = sorted(session.execute(select(LearningVersion.number, LearningVersion.status)))
    return {"counts": counts, "lessons": lessons, "versions": [tuple(v) for v in versions]}


BAD_IDS = {"zero": "0", "negative": "-1", "2**63": str(ID_MAX + 1), "10**30": str(10**30)}


@pytest.mark.parametrize("value", BAD_IDS.values(), ids=BAD_IDS.keys())
@pytest.mark.parametrize("command", WITH_IDS)
def test_an_id_no_row_can_have(
    command: str, value: str, seeded: Callable[[], dict[str, Any]], inputs: dict[str, Path]
) -> None:
    before = seeded()
    line = one_error(invoke(*argv(command, inputs, id_value=value)), "Invalid value")
    names = ("lesson_id", "number", "old", "new", "question_id")
    assert any(f"'{name}'" in line.lower() for name in names)
    assert seeded() == before


def test_a_negative_id_typed_without_dashes_is_one_sentence(
    seeded: Callable[[], dict[str, Any]],
) -> None:
    before = seeded()
    one_error(invoke("lesson", "delete", *WHO, "-1"), "-1", "lesson delete --help")
    assert seeded() == before


def test_the_largest_id_is_a_clean_not_found(seeded: Callable[[], dict[str, Any]]) -> None:
    one_error(invoke("lesson", "show", *WHO, str(ID_MAX)), f"lesson {ID_MAX} not found")
    one_error(invoke("version", "show", *WHO, str(ID_MAX)), f"no version {ID_MAX}")


def test_an_out_of_range_tenant_setting_writes_nothing(
    seeded: Callable[[], dict[str, Any]],
) -> None:
    before = seeded()
    one_error(invoke("tenant", "set", "--tenant", "new-one", "--quiet", str(10**30)), "quiet")
    assert seeded() == before


# --- files -------------------------------------------------------------------------------------


@pytest.fixture()
def fifo(tmp_path: Path) -> Iterator[Path]:
    """A FIFO, and a watchdog that frees a reader blocked on it after 20 s (so a regression
    fails this test instead of hanging the suite); the test asserts it never had to."""
    path = tmp_path / "pipe"
    os.mkfifo(path)
    done, freed = threading.Event(), threading.Event()

    def free_a_blocked_reader() -> None:
        if done.wait(20):
            return
        while not done.is_set():
            try:
                os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))
                freed.set()
            except OSError:  # no reader yet
                pass
            done.wait(0.05)

    watchdog = threading.Thread(target=free_a_blocked_reader, daemon=True)
    watchdog.start()
    yield path
    done.set()
    watchdog.join()
    assert not freed.is_set(), "a command opened the FIFO to read it"


@pytest.fixture()
def places(tmp_path: Path, fifo: Path) -> dict[str, Path]:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    plain = tmp_path / "a-file.txt"
    plain.write_text("just text\n", encoding="utf-8")
    binary = tmp_path / "body.bin"
    binary.write_bytes(b"\xff\xfe not text")
    large = tmp_path / "large.md"
    large.write_bytes(b"x" * (TEXT_FILE_MAX + 1))
    return {
        "missing": tmp_path / "missing",
        "folder": folder,
        "fifo": fifo,
        "file": plain,
        "binary": binary,
        "large": large,
    }


def files_in(folder: Path) -> list[Path]:
    """What is below ``folder``, but the test database (whose WAL files come and go)."""
    return sorted(p for p in folder.rglob("*") if not p.name.startswith("digest.db"))


APPROVE = ["version", "approve", *WHO, "1", "--by", "me", "--body-file"]
EXPORT = ["export", *WHO, "--out"]
FILE_CASES: dict[str, tuple[list[str], str]] = {
    "capture-missing": (["capture", "--file", "{missing}"], "no such file"),
    "capture-folder": (["capture", "--file", "{folder}"], "is a folder, not a file"),
    "capture-fifo": (["capture", "--file", "{fifo}"], "not a regular file"),
    "demo-missing": (["demo", "--file", "{missing}"], "no such file"),
    "demo-fifo": (["demo", "--file", "{fifo}"], "not a regular file"),
    "approve-missing": ([*APPROVE, "{missing}"], "no such file"),
    "approve-folder": ([*APPROVE, "{folder}"], "is a folder, not a file"),
    "approve-fifo": ([*APPROVE, "{fifo}"], "not a regular file"),
    "approve-not-utf8": ([*APPROVE, "{binary}"], "not UTF-8 text"),
    "approve-too-large": ([*APPROVE, "{large}"], f"larger than {TEXT_FILE_MAX} bytes"),
    "export-into-a-file": ([*EXPORT, "{file}"], "{file}"),
    "export-into-a-fifo": ([*EXPORT, "{fifo}"], "{fifo}"),
    "export-below-a-file": ([*EXPORT, "{file}/sub"], "{file}"),
    "export-where-nothing-can-be-written": ([*EXPORT, "/proc/digest-edge/out"], "/proc/"),
    "import-missing": (["import", *WHO, "--", "{missing}"], "{missing}"),
    "import-a-file": (["import", *WHO, "--", "{file}"], "{file}"),
    "import-a-fifo": (["import", *WHO, "--", "{fifo}"], "{fifo}"),
}


@pytest.mark.parametrize("case", FILE_CASES.values(), ids=FILE_CASES.keys())
def test_a_file_that_cannot_be_used(
    case: tuple[list[str], str],
    seeded: Callable[[], dict[str, Any]],
    places: dict[str, Path],
    tmp_path: Path,
) -> None:
    args, needle = case
    values = {name: str(path) for name, path in places.items()}
    before, files_before = seeded(), files_in(tmp_path)
    one_error(invoke(*(a.format(**values) for a in args)), needle.format(**values))
    assert seeded() == before  # no event, no lesson, no version changed
    assert files_in(tmp_path) == files_before  # and no file or folder written
    assert places["file"].read_text(encoding="utf-8") == "just text\n"


def test_demo_with_a_bad_file_does_not_touch_the_database(
    embedded: None, tmp_path: Path, fifo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh = tmp_path / "fresh.db"
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{fresh}")
    one_error(invoke("demo", "--file", str(fifo)), "not a regular file")
    assert not fresh.exists()


# --- the library's read path -------------------------------------------------------------------


def test_current_learning_with_the_database_down_raises_a_digest_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", "postgresql+psycopg://digest:s3cret@127.0.0.1:1/x")
    forget_process_state()
    with pytest.raises(DatabaseUnavailable, match="could not be read") as caught:
        digest.current_learning(TENANT, AGENT)
    assert isinstance(caught.value, DigestError) and "s3cret" not in str(caught.value)
    assert digest.pitfalls(TENANT, AGENT, "refund the order please") == ""  # best effort


def test_current_learning_on_an_unmigrated_database_says_to_upgrade(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", f"sqlite:///{tmp_path / 'empty.db'}")
    forget_process_state()
    with pytest.raises(DatabaseUnavailable, match="run `digest db upgrade`"):
        digest.current_learning(TENANT, AGENT)
    assert digest.pitfalls(TENANT, AGENT, "refund the order please") == ""


@pytest.mark.parametrize(
    ("env", "error"),
    [
        # a URL lesson digest cannot open is an invalid setting, said before any connection
        ({"DIGEST_DATABASE_URL": "garbage://"}, ConfigError),
        ({"DIGEST_DATABASE_URL": "not a url"}, ConfigError),
        ({"DIGEST_LLM_TIMEOUT_S": "abc"}, ConfigError),
    ],
    ids=["unknown-driver", "not-a-url", "bad-setting"],
)
def test_current_learning_with_a_bad_configuration_raises_a_digest_error(
    env: dict[str, str], error: type[DigestError], monkeypatch: pytest.MonkeyPatch
) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    forget_process_state()
    with pytest.raises(error):
        digest.current_learning(TENANT, AGENT)


def test_current_learning_still_answers_when_the_database_is_healthy(
    seeded: Callable[[], dict[str, Any]],
) -> None:
    found = digest.current_learning(TENANT, AGENT)
    assert found is not None and found.number == 1
    assert digest.current_learning(TENANT, "nobody") is None
