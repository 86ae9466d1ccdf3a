"""Issue 26 point 6: long work is not silent. ``digest drain`` at a terminal shows a counter of
the events it reflects while it runs (on stderr, gone when it ends); in a pipe, or with
``--json``, its output is what it always was."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import REFUND_RUN, ok, run_cli, sqlite_env_for
from tests.conftest import ROOT


def _at_a_terminal(args: list[str], env: dict[str, str]) -> str:
    """Run ``digest ARGS`` with stdout and stderr on a pseudo-terminal; what it wrote."""
    leader, follower = pty.openpty()
    child = subprocess.Popen(
        [sys.executable, "-m", "digest.cli", *args],
        cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower,
    )  # fmt: skip
    os.close(follower)
    seen = b""
    while True:
        ready, _, _ = select.select([leader], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    child.wait(timeout=60)
    os.close(leader)
    assert child.returncode == 0, seen
    return seen.decode("utf-8", "replace")


def test_drain_counts_at_a_terminal_and_stays_quiet_in_a_pipe(tmp_path: Path) -> None:
    env_extra = sqlite_env_for(tmp_path / "d.db")
    ok("db", "upgrade", env=env_extra)
    events = tmp_path / "runs.jsonl"
    lines = [
        {"kind": "run_outcome", "tenant": "acme", "agent": "bot", **REFUND_RUN,
         "idempotency_key": f"run-{i}"}
        for i in range(3)
    ]  # fmt: skip
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    ok("capture", "--file", str(events), env=env_extra)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(env_extra, COLUMNS="100", TERM="xterm")
    shown = _at_a_terminal(["drain"], env)
    assert "reflecting" in shown and "event(s)" in shown
    assert "processed 3 event(s)" in shown

    more = tmp_path / "more.jsonl"
    more.write_text(json.dumps({**lines[0], "idempotency_key": "run-9"}) + "\n")
    ok("capture", "--file", str(more), env=env_extra)
    piped = run_cli("drain", env=env_extra)
    assert piped.stdout.strip().startswith("processed 1 event(s)")
    assert "reflecting" not in piped.stdout + piped.stderr


def test_import_and_reindex_count_at_a_terminal_and_stay_quiet_in_a_pipe(tmp_path: Path) -> None:
    """The other long commands a person waits on: ``import`` counts files, ``lesson reindex``
    counts lessons, at a terminal only."""
    env_extra = sqlite_env_for(tmp_path / "d.db")
    ok("db", "upgrade", env=env_extra)
    ok("tenant", "create", "--tenant", "acme", env=env_extra)
    ok("lesson", "add", "--tenant", "acme", "--agent", "bot", "--new-agent",
       "refund-amount: always send the amount with issue_refund", env=env_extra)  # fmt: skip
    out = tmp_path / "out"
    ok("export", "--tenant", "acme", "--agent", "bot", "--out", str(out), env=env_extra)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(env_extra, COLUMNS="100", TERM="xterm")
    shown = _at_a_terminal(["import", str(out), "--tenant", "acme", "--agent", "bot"], env)
    assert "importing" in shown and "file(s)" in shown and "rejected 0" in shown
    shown = _at_a_terminal(["lesson", "reindex", "--tenant", "acme"], env)
    assert "reindexing" in shown and "lesson(s)" in shown
    for args in (["import", str(out), "--tenant", "acme", "--agent", "bot"],
                 ["lesson", "reindex", "--tenant", "acme"]):  # fmt: skip
        piped = run_cli(*args, env=env_extra)
        assert piped.returncode == 0, piped.stderr
        assert "importing" not in piped.stderr and "reindexing" not in piped.stderr
