"""What the command line prints is the data, literally (digest/cli/render.py): no rich markup,
no emoji codes and no terminal escape sequences taken from tenant names or lesson text."""

from __future__ import annotations

import json

from digest.cli.render import clean
from tests.cli.conftest import ok, one_error_line, run_cli

MARKUP_TITLE = "[/]bad [red]title[/red] :thumbs_up:"


def test_clean_removes_escape_sequences_and_control_characters() -> None:
    assert clean("\x1b[31mred\x1b[0m") == "red"
    assert clean("title\x1b]0;new window title\x07 end") == "title end"
    assert clean("a\x1b[2Jb\x9b1mc") == "abc"
    assert clean("bell\x07 back\x08 nul\x00 del\x7f") == "bell back nul del"
    assert clean("evil\u202egnp.exe") == "evilgnp.exe"  # bidi override
    assert clean("two\nlines\tand a tab") == "two\nlines\tand a tab"
    assert clean("[red]not markup[/] :smile: café") == "[red]not markup[/] :smile: café"


def test_markup_and_escapes_in_data_are_printed_literally(sqlite_env: str) -> None:
    tenant, agent = "[bold]shop", "bot[/]"
    who = ("--tenant", tenant, "--agent", agent)
    text = f"{MARKUP_TITLE}\ndo \x1b[31mthis\x1b[0m [link=http://x]now[/link]"
    ok("tenant", "create", "--tenant", tenant)
    added = ok("lesson", "add", *who, "--new-agent", text)
    assert added.startswith(f"added lesson 1: {MARKUP_TITLE}")

    for command in (("lesson", "list", *who), ("lesson", "show", *who, "1")):
        out = ok(*command)
        assert "\x1b" not in out
        assert "[/]bad [red]title[/red]" in out and ":thumbs_up:" in out
    shown = ok("lesson", "show", *who, "1")
    assert "correction: do this [link=http://x]now[/link]" in shown

    # --json keeps the data exactly (JSON escapes the control characters itself)
    data = json.loads(ok("lesson", "show", *who, "1", "--json"))
    assert data["title"] == MARKUP_TITLE
    assert data["correction"] == "do \x1b[31mthis\x1b[0m [link=http://x]now[/link]"

    ok("improve-now", *who)
    body = ok("version", "show", *who, "1")
    assert "[/]bad [red]title[/red]" in body and "\x1b" not in body
    assert f"deleted 1 lesson(s) of {tenant}/{agent}" in ok("lesson", "reset", *who, "--yes")


def test_markup_in_an_error_is_printed_literally(sqlite_env: str) -> None:
    result = run_cli("lesson", "list", "--tenant", "[/]\x1b[2J", "--agent", "x")
    line = one_error_line(result, "tenant '[/]\\x1b[2J' is not a valid key")
    assert "[/]" in line and "\x1b" not in line
    result = run_cli("lesson", "list", "--tenant", "[/]", "--agent", "x")
    one_error_line(result, "unknown tenant '[/]'")
    assert run_cli("tenant", "create", "--tenant", "[red]t[/]").returncode == 0
    tenant = run_cli("tenant", "set", "--tenant", "[red]t[/]", "--threshold", "2")
    assert tenant.stdout.strip() == "tenant '[red]t[/]': apply mode auto; --threshold 2", (
        tenant.stderr
    )
