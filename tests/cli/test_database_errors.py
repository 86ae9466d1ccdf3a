"""Issue 26 point 4: each way the database setting can be wrong gets its own sentence, one
line on stderr, exit 2, and nothing created on the way."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.conftest import one_error_line, run_cli


def _server(pg_admin: str) -> str:
    """``postgresql://user@host:port`` of the machine's PostgreSQL, without a database."""
    return pg_admin.rsplit("/", 1)[0]


def test_a_missing_postgres_database_says_to_create_it(pg_admin: str) -> None:
    url = f"{_server(pg_admin)}/digest_never_made"
    line = one_error_line(run_cli("stats", env={"DIGEST_DATABASE_URL": url}), "createdb")
    assert "'digest_never_made' does not exist" in line
    assert "schema is missing" not in line  # the old, wrong advice


def test_an_unknown_role_says_to_fix_the_user(pg_admin: str) -> None:
    host = _server(pg_admin).split("@", 1)[1]
    url = f"postgresql://nobody_at_all@{host}/postgres"
    line = one_error_line(run_cli("stats", env={"DIGEST_DATABASE_URL": url}), "no user")
    assert "'nobody_at_all'" in line and "db upgrade" not in line


@pytest.mark.parametrize(
    ("url", "needle"),
    [
        ("mysql://u:secret@localhost/x", "'mysql' is not supported"),
        ("postgresql+asyncpg://u@localhost/x", "driver 'asyncpg'"),
        ("just-a-name", "must be a URL"),
    ],
)
def test_a_url_lesson_digest_cannot_open_is_an_invalid_setting(url: str, needle: str) -> None:
    line = one_error_line(run_cli("stats", env={"DIGEST_DATABASE_URL": url}), needle)
    assert "DIGEST_DATABASE_URL" in line and "secret" not in line
    assert "ModuleNotFoundError" not in line


def test_a_command_never_creates_a_sqlite_file(tmp_path: Path) -> None:
    missing = tmp_path / "fresh.db"
    env = {"DIGEST_DATABASE_URL": f"sqlite:///{missing}"}
    for argv in (("stats",), ("lesson", "list", "--tenant", "t", "--agent", "a")):
        one_error_line(run_cli(*argv, env=env), f"no database at {missing}", "db upgrade")
    assert list(tmp_path.iterdir()) == []  # no file, no -wal, no -shm
    assert run_cli("db", "upgrade", env=env).returncode == 0
    assert missing.exists() and run_cli("stats", env=env).returncode == 0


def test_db_upgrade_into_a_missing_folder_says_which(tmp_path: Path) -> None:
    target = tmp_path / "no" / "such" / "x.db"
    ran = run_cli("db", "upgrade", env={"DIGEST_DATABASE_URL": f"sqlite:///{target}"})
    one_error_line(ran, f"the folder {target.parent} does not exist")
    assert not (tmp_path / "no").exists()
