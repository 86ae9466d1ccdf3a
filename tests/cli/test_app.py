"""How any command fails (digest/cli/app.py): one sentence on stderr and an exit code, never a
traceback, whether the error is a typed one, a bad setting or a database fault. A bad setting
and a database that is down are run as real subprocesses (the settings a process starts with;
nothing else on stderr, from the interpreter's start to its exit); the rest in this process."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from tests.cli.conftest import one_error_line, run_all, run_cli, run_digest, sqlite_env_for

WHO = ("--tenant", "acme", "--agent", "bot")


def test_an_invalid_setting_is_one_sentence_naming_the_variable(sqlite_env: str) -> None:
    bad = {"DIGEST_REFLECT_BATCH_SIZE": "abc"}
    # the console entry point of a process started with the bad value
    one_error_line(run_digest("stats", env=bad), "invalid setting DIGEST_REFLECT_BATCH_SIZE")
    for command in (["lesson", "list", *WHO], ["drain"], ["demo"]):
        result = run_cli(*command, env=bad)
        one_error_line(result, "invalid setting DIGEST_REFLECT_BATCH_SIZE")
    # the root help reads no settings
    assert "Usage" in run_cli("--help", env=bad).stdout


def test_a_database_without_the_schema_says_to_upgrade(tmp_path: Path) -> None:
    env = sqlite_env_for(tmp_path / "empty.db")
    (tmp_path / "empty.db").touch()  # there, but never migrated (no file: test_database_errors)
    commands = [["stats"], ["lesson", "list", *WHO], ["version", "list", *WHO], ["requeue",
                "--tenant", "acme"], ["tenant", "set", "--tenant", "acme"]]  # fmt: skip
    for result in [run_cli(*command, env=env) for command in commands]:
        one_error_line(result, "database error", "run `digest db upgrade`")


def test_a_database_that_is_down_is_one_sentence_without_the_password() -> None:
    env = {"DIGEST_DATABASE_URL": "postgresql://digest:s3cret@127.0.0.1:1/digest"}
    # a process, from its start to its exit
    assert "s3cret" not in one_error_line(run_digest("stats", env=env), "database error")
    for command in (["lesson", "list", *WHO], ["version", "show", *WHO, "1"]):
        line = one_error_line(run_cli(*command, env=env), "database error")
        assert "s3cret" not in line


def test_typed_errors_keep_their_exit_code(sqlite_env: str) -> None:
    not_found, bad_input = run_all([["lesson", "show", *WHO, "1"], ["requeue", "--tenant", "a",
                                    "--status", "pending"]])  # fmt: skip
    one_error_line(not_found, "unknown tenant 'acme'")
    one_error_line(bad_input, "status: only failed and dead")


def test_the_typer_app_reports_errors_in_process(sqlite_env: str) -> None:
    """``from digest.cli import app`` (what CliRunner and embedding tools call) handles errors
    itself: main() is not needed for the one-line form."""
    from digest.cli import app

    result = CliRunner().invoke(app, ["lesson", "list", *WHO], catch_exceptions=False)
    assert result.exit_code == 2
    assert result.stderr.strip() == "error: unknown tenant 'acme'"
    usage = CliRunner().invoke(app, ["lesson", "list"], catch_exceptions=False)
    assert usage.exit_code == 2 and "Missing option" in usage.output
