"""README.md "What `examples` returns on the demo": the calls it shows print what it says they
print, on the demo's data (the demo run in this process on the embedded default). The
commands themselves also run in tests/test_docs_run.py; this test checks their output."""

from __future__ import annotations

import contextlib
import io
import re
import shlex

from tests.cli.conftest import run_cli
from tests.conftest import ROOT

HEADING = "### What `examples` returns on the demo"


def shown_calls() -> list[tuple[str, str]]:
    """The section's ``$ .venv/bin/python -c '…'`` commands, each with the line shown after it."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split(HEADING, 1)[1].split("\n### ", 1)[0]
    block = re.search(r"```console\n(.*?)```", section, re.S)
    assert block is not None, "the section has no console block"
    lines = block.group(1).splitlines()
    calls = []
    for i, line in enumerate(lines):
        if line.startswith("$ "):
            words = shlex.split(line[2:])
            assert words[:2] == [".venv/bin/python", "-c"], line
            calls.append((words[2], lines[i + 1]))
    return calls


def test_the_readme_shows_what_examples_returns_on_the_demo(sqlite_env: str) -> None:
    demo = run_cli("demo")
    assert demo.returncode == 0, demo.stderr
    calls = shown_calls()
    assert len(calls) == 2
    for code, shown in calls:
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(code, {})  # the README's own one-liner
        assert printed.getvalue().strip() == shown, code
    # without a contact, an edit of the history; for the contact whose conversation it was,
    # the edit made there
    assert "lamp" not in calls[0][1] and "lamp arrived" in calls[1][1]
    listed = run_cli("lesson", "list", "--tenant", "demo-shop", "--agent", "support-bot")
    assert "contact" in listed.stdout and "cust-1065" in listed.stdout
