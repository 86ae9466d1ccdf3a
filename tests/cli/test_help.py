"""Help reads as sentences with manual-page placeholders (issue 26): ``--tenant TENANT``,
``--weeks N``, ``--file PATH``, ``LESSON_ID``; never typer's ``<str>``, ``<int range>``,
``<list[int]>`` or ``<bool>``, nor a ``[1<=x<=9223372036854775807]`` range."""

from __future__ import annotations

import re

import typer
from click.testing import CliRunner

from digest.cli import app
from tests.edges.test_cli_errors import command_paths

PLACEHOLDER = re.compile(r"<[a-z][a-z\[\], ]*>|x<=|<=x")


ROOT = typer.main.get_command(app)  # built once: typer builds it again on every invoke(app)


def helped(*path: str) -> str:
    """``digest PATH --help`` in this process (help reads no settings: no state to reset)."""
    shown = CliRunner().invoke(ROOT, [*path, "--help"], env={"COLUMNS": "100"})
    assert shown.exit_code == 0, (path, shown.output)
    return shown.stdout


def test_every_commands_help_has_no_type_placeholders() -> None:
    for path in command_paths():
        shown = helped(*path.split())
        found = PLACEHOLDER.findall(shown)
        assert not found, (path, found, shown)
    release = helped("lesson", "release")
    assert "--tenant TENANT" in release and "LESSON_ID" in release and "--all " in release
    report = helped("report")
    assert "--weeks N" in report and "(1-52)" in report and "--html PATH" in report
