"""Every shell command of README.md and docs/*.md runs as written, in order, on a fresh database.

Each document runs in one ``bash`` session in a folder of its own that looks like a checkout
(every top-level entry of this one linked in, ``.venv`` the venv running the tests, its ``bin``
on PATH as after ``. .venv/bin/activate``), with no ``DIGEST_*`` setting but what the
document's commands set: the README's quick start runs on the embedded default (a SQLite file
in that folder), its production part and docs/production.md on a fresh PostgreSQL database
with this test's Redis DB and a real worker started as the document says. Exceptions are
directives in the documents themselves (``tests/docrun.py`` says how to write them).

For the README and the production walk-through the test also checks what every step prints,
as a new user reads it (``PRINTS``: one line per step, so a new step needs one), and in more
detail the steps that explain a wait or a duplicate: what the demo learned and holds back
(every lesson accounted for), what a capture says when it stores nothing new, what the HTTP
API answers to a repeated event, and what the worker learned from a capture and why no agent
reads it yet.

A command may exit non-zero only where its document announces it, in a directive before its
block (``<!-- doc-run: exit 1 "digest doctor" -->``); the README and tests/README.md say so to
contributors, and ``tests/docrun.py`` lists every directive.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from tests.conftest import ROOT
from tests.docrun import (
    DocRunError,
    Shell,
    StandIns,
    Step,
    free_port,
    parse,
    run_document,
)

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def reader_folder(folder: Path) -> Path:
    """A folder that looks like this checkout to a command, and keeps what commands write:
    every top-level entry git tracks is linked in (not a ``digest.db`` or ``lessons/`` left
    in the checkout, which a command would otherwise write through), ``.venv`` is this venv."""
    folder.mkdir()
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files"], capture_output=True, text=True)
    tracked = {path.split("/", 1)[0] for path in listed.stdout.splitlines()}
    if listed.returncode != 0:  # not a git checkout: what a checkout of it would hold
        tracked = {entry.name for entry in ROOT.iterdir()} - {".git", ".venv", "digest.db"}
    for name in sorted(tracked):
        if (ROOT / name).exists():
            (folder / name).symlink_to(ROOT / name)
    (folder / ".venv").symlink_to(Path(sys.prefix))
    return folder


def reader_env() -> dict[str, str]:
    """A reader's environment: no DIGEST_* setting, the venv's bin first on PATH. PYTHONPATH
    names this checkout, which the venv's editable install may not point at."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("DIGEST_", "PYTEST_", "VIRTUAL_ENV"))}  # fmt: skip
    env["PATH"] = f"{Path(sys.prefix) / 'bin'}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(ROOT)
    return env


@pytest.fixture()
def fresh_databases(pg_admin: str) -> Iterator[Callable[[list[str]], dict[str, str]]]:
    """Names for the databases a document creates; each is dropped after the test."""
    made: list[str] = []

    def names(wanted: list[str]) -> dict[str, str]:
        chosen = {name: f"docrun_{uuid.uuid4().hex[:10]}" for name in wanted}
        made.extend(chosen.values())
        return chosen

    yield names
    with psycopg.connect(pg_admin, autocommit=True) as conn:
        for name in made:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def _children_cpu() -> float:
    """CPU seconds of this process's ended children (the shell counts every command's)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def step(steps: list[Step], prefix: str, nth: int = 0) -> Step:
    """The ``nth`` step whose command starts with ``prefix``."""
    found = [s for s in steps if s.command.text.startswith(prefix)]
    assert len(found) > nth, f"no step {nth} starting with {prefix!r}: {[s.text for s in steps]}"
    return found[nth]


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: path.name)
def test_document_runs_as_written(
    path: Path,
    tmp_path: Path,
    redis_url: str,
    fresh_databases: Callable[[list[str]], dict[str, str]],
) -> None:
    document = parse(path)
    if not document.commands:
        return  # nothing to run; its directives parsed
    stand_ins = StandIns(
        databases=fresh_databases(document.databases),
        ports={port: free_port() for port in document.ports},
        redis_url=redis_url,
    )
    shell = Shell(reader_folder(tmp_path / "reader"), reader_env(), tmp_path / "steps")
    steps: list[Step] = []
    began, cpu = time.monotonic(), _children_cpu()
    try:
        for done in run_document(document, shell, stand_ins):
            steps.append(done)
    except DocRunError as exc:
        pytest.fail(str(exc), pytrace=False)
    finally:
        shell.close()
        print(f"{path.name}: {len(steps)} commands in {time.monotonic() - began:.1f} s, "
              f"{_children_cpu() - cpu:.1f} s of CPU")  # fmt: skip
        for done in sorted(steps, key=lambda s: -s.seconds)[:6]:
            print(f"  {done.seconds:6.1f} s  {done.text.splitlines()[0][:90]}")
    if path.name in PRINTS:
        check_each_step(steps, PRINTS[path.name])
    CHECKS.get(path.name, lambda steps: None)(steps)


#: What each step a new user runs prints, in the order of the document: the step's start, and
#: a pattern its output (stdout, then stderr, with every run of white space one space) must
#: hold; ``^$`` is a step that prints nothing.
#: Every step the run runs has its line, so a step added to the document adds one here.
PRINTS: dict[str, list[tuple[str, str]]] = {
    "README.md": [
        (".venv/bin/digest demo", r"captured 28 event\(s\)(?s:.*)composed version 1 \(active\)"),
        (".venv/bin/python -c", r"^\[\"I'm sorry order \d+ is late"),
        (".venv/bin/python -c", r"^\[\"I'm sorry the lamp arrived"),
        ("ID=$(digest question ask", r"^$"),
        ("digest question list", r"Do you take weekend"),
        ("digest question answer", r"^question \d+ answered by ann for 1 asks"),
        ("digest question ask", r"^known \(question \d+\): Yes, Saturdays 9-13\.$"),
        ("export DIGEST_DATABASE_URL=", r"^$"),
        ("export DIGEST_BROKER_URL=", r"^$"),
        ("createdb", r"^$"),
        ("digest db upgrade", r"is at revision head"),
        ("digest doctor", r"\bok schema: at the head revision"),
        ("DIGEST_WORKER_POOL=threads", r"celery@\S+ ready\."),
        ("celery -A worker beat", r"beat: Starting"),
        ("digest tenant create", r"^created tenant 'acme'$"),
        ("AGENT_KEY=", r"^warning: agent key dg_agent_\S+ for tenant 'acme': store it now"),
        ("digest serve", r"Uvicorn running on http://0\.0\.0\.0:\d+"),
        ("EVENT=", r"^$"),
        ("curl -sS -w", r'^\{"id":\d+,"created":true\} 201$'),
        ("curl -sS -w", r'^\{"id":\d+,"created":false\} 200$'),
        ("digest improve-now", r"^no change: no version yet(?s:.*)1 lesson\(s\) held"),
        ("curl -sS -H", r'^\{"agent":"support-bot","pitfalls":""\}$'),
        ("digest forget", r"^nothing to forget: no data of that contact in tenant 'acme'$"),
        ("digest tenant set", r"^tenant 'acme': apply mode auto; .*200$"),
        ("digest lesson effect", r"^no run named a lesson it applied \(1 run\(s\) counted"),
        ("digest tenant set", r"budget 200,000 tokens and \$5 a day$"),
        ("digest stats", r"acme: budget 200,000 tokens and \$5 a day: 0 tokens"),
        ("digest tenant set", r"^tenant 'acme': apply mode auto"),
    ],
    "production.md": [
        ("export DIGEST_DATABASE_URL=", r"^$"),
        ("export DIGEST_BROKER_URL=", r"^$"),
        ("createdb", r"^$"),
        ("digest db upgrade", r"is at revision head"),
        ("digest doctor", r"\bok broker: Redis answers"),
        ("DIGEST_WORKER_POOL=threads", r"celery@\S+ ready\."),
        ("celery -A worker beat", r"beat: Starting"),
        ("digest capture", r"^stored 28 new event\(s\); rejected 0 line\(s\)$"),
        ("digest improve-now", r"^version 1 \(active\)(?s:.*)5 lesson\(s\) held"),
        ("digest lesson list", r"(?s)held 1/2.*\b5 held\b"),
        ("digest capture", r"^stored 0 new event\(s\); already stored 28; rejected 0 line\(s\)$"),
        ("digest requeue", r"^nothing to requeue$"),
        ("digest lesson reindex", r"^\d+ active lesson\(s\) of 1 agent\(s\)"),
        ("digest tenant set", r"^tenant 'demo-shop': apply mode approval"),
    ],
    "report.md": [
        ("digest demo", r"composed version 1 \(active\)"),  # the document's setup
        ("digest report", r"A held lesson reaches agents once enough independent sources"),
        ("digest report", r"^wrote report\.html: \d+ topic\(s\), \d+ kind\(s\) of edit"),
        ("digest lesson effect", r'"agent": "support-bot"'),
    ],
}


def check_each_step(steps: list[Step], expected: list[tuple[str, str]]) -> None:
    """Each step printed what a new user is told to expect, in order, and no step went
    unchecked."""
    run = [s.command.text for s in steps]
    assert len(steps) == len(expected), (
        f"{len(steps)} steps ran, {len(expected)} are described in PRINTS: {run}"
    )
    for done, (prefix, pattern) in zip(steps, expected, strict=True):
        assert done.command.text.startswith(prefix), (done.command.text, prefix)
        printed = "\n".join(out for out in (done.stdout.strip(), done.stderr.strip()) if out)
        flat = " ".join(printed.split())  # as read, whatever the width it was wrapped at
        assert re.search(pattern, flat), f"`{done.text}` printed:\n{printed[-2000:]}"


def check_readme(steps: list[Step]) -> None:
    """The quick start on the embedded default, then the production part: PostgreSQL, Redis,
    a worker and beat, and the HTTP API."""
    demo = step(steps, ".venv/bin/digest demo").stdout
    assert "database: sqlite:///digest.db" in demo  # the embedded default, no setting
    assert re.search(r"captured \d+ event\(s\)", demo), demo
    # the lessons learned from run text wait for a second independent source, and say so
    assert re.search(r"\d+ held\b", demo) and "independent sources" in demo, demo
    assert "learning document composed version 1 (active)" in demo
    # every lesson learned is accounted for: in the version, held, or for one contact
    learned = max(int(n) for n in re.findall(r"^│\s*(\d+) │", demo, re.MULTILINE))
    added = re.search(r"Added \((\d+)\)", demo)
    held = re.search(r"(\d+) lesson\(s\) held", demo)
    contact = re.search(r"(\d+) lesson\(s\) for one contact", demo)
    assert added and held and contact, demo
    assert int(added[1]) + int(held[1]) + int(contact[1]) == learned, demo
    assert "skipped (nothing to learn)" in demo and "a retry fixes it" in demo, demo
    doctor = step(steps, "digest doctor").stdout
    assert "database: reachable at postgresql" in doctor and "schema: at the head" in doctor
    assert "broker: Redis answers" in doctor
    # the same event twice over HTTP: stored once, and the repeat says so
    first, again = (step(steps, "curl -sS -w", n).stdout.rsplit(" ", 1) for n in (0, 1))
    assert first[1].strip() == "201" and json.loads(first[0])["created"] is True, first
    assert again[1].strip() == "200" and json.loads(again[0]) == {
        "id": json.loads(first[0])["id"],
        "created": False,
    }, again
    # the worker learned from it; what the agent reads of it waits for a second source
    waits = step(steps, "digest improve-now").stdout
    assert "no version yet" in waits and "1 lesson(s) held" in waits, waits
    assert "2 independent" in waits and "digest lesson release" in waits, waits
    pitfalls = json.loads(step(steps, "curl -sS -H").stdout)
    assert pitfalls == {"agent": "support-bot", "pitfalls": ""}, pitfalls


def check_production(steps: list[Step]) -> None:
    """The walk-through by hand: a real worker learns from a capture; improve-now waits for it
    and says what is held; the same file again stores nothing."""
    first = step(steps, "digest capture --file examples/events.jsonl").stdout
    assert re.search(r"stored 28 new event\(s\)", first), first
    improve = step(steps, "digest improve-now").stdout
    assert "version 1 (active)" in improve, improve
    held = re.search(r"(\d+) lesson\(s\) held: learned from run text", improve)
    assert held and int(held[1]) > 0, improve
    assert "2 independent" in improve, improve
    listing = step(steps, "digest lesson list").stdout
    assert "held" in listing and "1/2" in listing, listing
    again = step(steps, "digest capture --file examples/events.jsonl", 1).stdout
    assert re.search(r"stored 0 new event\(s\); already stored 28\b", again), again
    assert "apply mode approval" in step(steps, "digest tenant set").stdout


def check_cli(steps: list[Step]) -> None:
    """The walk-through after the demo: the demo file captured again stores nothing twice, so
    the drain after it has nothing to do; approval mode makes version 3 wait for ana."""
    again = step(steps, "digest capture --file examples/events.jsonl").stdout
    assert re.search(r"stored 0 new event\(s\); already stored 28\b", again), again
    drained = json.loads(step(steps, "digest drain --json").stdout)
    assert drained["processed"] == 0 and not drained["errors"], drained
    waits = step(steps, "digest improve-now", 1).stdout
    assert "version 3 (pending)" in waits and "apply mode is approval" in waits, waits
    assert "version 3 is active: approved by ana" in step(steps, "digest version approve").stdout


CHECKS: dict[str, Callable[[list[Step]], None]] = {
    "README.md": check_readme,
    "production.md": check_production,
    "cli.md": check_cli,
}
