"""Every shell command of README.md and docs/*.md runs as written, in order, on a fresh database.

Each document runs in one ``bash`` session in a folder of its own that looks like a checkout
(every top-level entry of this one linked in, ``.venv`` the venv running the tests, its ``bin``
on PATH as after ``. .venv/bin/activate``), with no ``DIGEST_*`` setting but what the
document's commands set: the README's quick start runs on the embedded default (a SQLite file
in that folder), its production part and docs/production.md on a fresh PostgreSQL database
with this test's Redis DB and a real worker started as the document says. Exceptions are
directives in the documents themselves (``tests/docrun.py`` says how to write them).

For the README and the production walk-through the test also checks what is printed at the
steps a new user reads: what the demo learned and holds back, what a capture says when it
stores nothing new, and what the worker learned from a capture and why no agent reads it yet.
"""

from __future__ import annotations

import os
import re
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import psycopg
import pytest

from tests.conftest import ROOT
from tests.docrun import Document, DocRunError, Shell, StandIns, Step, free_port, parse, run_document

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: left out of the reader's folder: ours, or what the documents' commands write there
NOT_LINKED = frozenset({".git", ".venv", "digest.db", "lessons", "report.html"})


def reader_folder(folder: Path) -> Path:
    """A folder that looks like this checkout to a command, and keeps what commands write."""
    folder.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in NOT_LINKED and not entry.name.startswith("celerybeat-schedule"):
            (folder / entry.name).symlink_to(entry)
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
    began = time.monotonic()
    try:
        for done in run_document(document, shell, stand_ins):
            steps.append(done)
    except DocRunError as exc:
        pytest.fail(str(exc), pytrace=False)
    finally:
        shell.close()
        print(f"{path.name}: {len(steps)} commands in {time.monotonic() - began:.1f} s")
        for done in sorted(steps, key=lambda s: -s.seconds)[:6]:
            print(f"  {done.seconds:6.1f} s  {done.text.splitlines()[0][:90]}")
    CHECKS.get(path.name, lambda steps: None)(steps)


CHECKS: dict[str, Callable[[list[Step]], None]] = {}
