"""The base install is the agent's client; everything else is an extra (issue 26 point 9).

``pip install lesson-digest`` must capture and read back lessons with only its base
dependencies, and every entry point that needs an extra must say which one in one line. No pip
runs here (no network, and a real venv takes a minute): a subprocess whose ``sys.meta_path``
refuses every module that the extras' distributions install (read from ``pyproject.toml`` and
the installed metadata, never listed by hand) stands for an installation without them, and an
AST walk of the client's modules checks that the base dependencies cover what they import.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
import uuid
from collections.abc import Iterable, Iterator
from functools import cache
from importlib.metadata import distributions, packages_distributions
from pathlib import Path
from typing import Any

import pytest
import redis
from packaging.requirements import Requirement
from sqlalchemy import select

from digest.errors import MissingExtra
from tests.conftest import ROOT

PROJECT = "lesson-digest"
#: the extras that only gather others
GATHERING = {"all", "dev"}


def _normal(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


@cache
def _pyproject() -> dict[str, Any]:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        return tomllib.load(handle)


def _base() -> list[Requirement]:
    return [Requirement(r) for r in _pyproject()["project"]["dependencies"]]


def _extra(name: str) -> list[Requirement]:
    return [Requirement(r) for r in _pyproject()["project"]["optional-dependencies"][name]]


def _extras() -> list[str]:
    return [e for e in _pyproject()["project"]["optional-dependencies"] if e not in GATHERING]


@cache
def _installed() -> dict[str, list[str]]:
    """Each installed distribution's requirements, by normalised name (one scan)."""
    return {_normal(d.metadata["Name"]): d.requires or [] for d in distributions()}


def _closure(requirements: Iterable[Requirement]) -> set[str]:
    """Every distribution these requirements install (normalised names), through this
    project's own extras (``lesson-digest[cli]``) and the installed metadata of the others."""
    asked: set[tuple[str, frozenset[str]]] = set()
    todo = list(requirements)
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({"extra": ""}):
            continue
        name = _normal(req.name)
        if name == PROJECT:
            for extra in req.extras:
                todo.extend(_extra(extra))
            continue
        if (name, frozenset(req.extras)) in asked:
            continue
        asked.add((name, frozenset(req.extras)))
        if name not in _installed():
            continue  # not installed here, so nothing of it can be imported either
        for line in _installed()[name]:
            sub = Requirement(line)
            if sub.marker is None or any(
                sub.marker.evaluate({"extra": e}) for e in ("", *req.extras)
            ):
                # decided here, for the extras asked of ``name``: a marker such as
                # ``extra == "asyncio"`` (sqlalchemy's greenlet) would fail the check above
                sub.marker = None
                todo.append(sub)
    return {name for name, _ in asked}


@cache
def _modules_by_distribution() -> dict[str, set[str]]:
    by_dist: dict[str, set[str]] = {}
    for module, dists in packages_distributions().items():
        for dist in dists:
            by_dist.setdefault(_normal(dist), set()).add(module)
    return by_dist


def _modules(dists: Iterable[str]) -> set[str]:
    by_dist = _modules_by_distribution()
    return {module for dist in dists for module in by_dist.get(dist, ())}


@cache
def _refused(*installed: str) -> list[str]:
    """The top-level modules of an installation with the base and the extras ``installed``
    only: whatever the other extras install and these do not."""
    kept = _closure([*_base(), *(r for e in installed for r in _extra(e))])
    others = _closure(r for e in _extras() for r in _extra(e))
    return sorted(_modules(others - kept) - _modules(kept) - {"digest", "worker"})


# --- what the client's modules import --------------------------------------------------------


def _client_entries() -> list[str]:
    import digest

    return sorted({"digest", "digest.aio", *digest._SOURCES.values()})


def _ignored_edges() -> set[tuple[str, str]]:
    """The gated ways out of the client: the import-linter contract's ignored imports."""
    for contract in _pyproject()["tool"]["importlinter"]["contracts"]:
        if contract["name"].startswith("The agent's client"):
            return {
                (a.strip(), b.strip())
                for a, b in (line.split("->") for line in contract.get("ignore_imports", []))
            }
    raise AssertionError("pyproject has no contract for the agent's client")


def _source(module: str) -> Path | None:
    base = ROOT.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


def _imports(module: str, path: Path) -> Iterator[str]:
    """Every module ``module`` imports, at any depth of its code, but not under
    ``if TYPE_CHECKING:`` (which never runs)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]

    def walk(node: ast.AST) -> Iterator[str]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    yield from walk(other)
                continue
            if isinstance(child, ast.Import):
                yield from (alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:
                    parts = package.split(".")
                    parts = parts[: len(parts) - child.level + 1]
                    base = ".".join([*parts, *([child.module] if child.module else [])])
                else:
                    base = child.module or ""
                yield base
                yield from (f"{base}.{alias.name}" for alias in child.names)
            yield from walk(child)

    yield from walk(ast.parse(path.read_text(encoding="utf-8")))


@cache
def _client_third_party() -> dict[str, set[str]]:
    """Third-party top-level module → the client modules that import it: from the client's
    entry points through every digest module they import (lazily too), except across the
    gated imports the contract names."""
    ignored = _ignored_edges()
    seen: set[str] = set()
    todo = _client_entries()
    found: dict[str, set[str]] = {}
    while todo:
        module = todo.pop()
        path = _source(module)
        if module in seen or path is None:
            continue
        seen.add(module)
        parent = module.rpartition(".")[0]
        if parent:
            todo.append(parent)
        for imported in _imports(module, path):
            top = imported.split(".")[0]
            if (module, imported) in ignored or (module, top) in ignored or not top:
                continue
            if top in ("digest", "worker"):
                todo.append(imported)
            elif top not in sys.stdlib_module_names and top != "__future__":
                found.setdefault(top, set()).add(module)
    assert "digest.capture.api" in seen and "digest.retrieve" in seen
    return found


def test_the_base_dependencies_cover_every_module_the_client_imports() -> None:
    direct = _modules(_normal(r.name) for r in _base())
    imported = _client_third_party()
    assert {"sqlalchemy", "redis", "pydantic"} <= set(imported)  # the walk sees them
    uncovered = {top: sorted(by) for top, by in imported.items() if top not in direct}
    assert not uncovered, f"the client imports modules its base dependencies lack: {uncovered}"


def test_the_client_reaches_no_extra_but_through_its_gates() -> None:
    refused = set(_refused())
    reached = set(_client_third_party()) & refused
    assert not reached, f"the client imports modules of extras: {sorted(reached)}"
    # and the gates themselves lead into the extras they name
    assert ("digest.identity.embedding", "onnxruntime") in _ignored_edges()


def test_the_extras_table_is_pyproject() -> None:
    from digest.extras import EXTRAS, INCLUDES

    optional = _pyproject()["project"]["optional-dependencies"]
    assert set(EXTRAS) == set(_extras())
    for extra, (_, modules) in EXTRAS.items():
        own = [r for r in _extra(extra) if _normal(r.name) != PROJECT]
        installs = _modules(_closure(own))
        assert set(modules) <= installs, f"{extra}: {set(modules) - installs} not in pyproject"
        included = {e for r in _extra(extra) if _normal(r.name) == PROJECT for e in r.extras}
        assert set(INCLUDES[extra]) == included, extra
    gathered = {e for r in optional["all"] for e in Requirement(r).extras}
    assert gathered == set(_extras()), "`all` must be every extra"
    dev = {e for r in optional["dev"] if _normal(Requirement(r).name) == PROJECT for e in
           Requirement(r).extras}  # fmt: skip
    assert dev == {"all"}, "scripts/setup-dev installs '.[dev]', which must pull every extra"


def test_require_names_the_extra_and_what_needs_it(monkeypatch: pytest.MonkeyPatch) -> None:
    import digest.extras

    digest.extras.require("cli", "x")  # installed here: nothing raised
    monkeypatch.setattr(
        digest.extras, "find_spec", lambda name: None if name == "uvicorn" else object()
    )
    with pytest.raises(MissingExtra) as caught:
        digest.extras.require("service", "digest serve")
    assert str(caught.value) == (
        "digest serve needs the HTTP service: pip install 'lesson-digest[service]'"
    )
    assert caught.value.exit_code == 2
    digest.extras.require("report", "x")  # uvicorn is no module of report or cli
    assert digest.extras.extra_of("jinja2.sandbox") == "report"
    assert digest.extras.extra_of("sqlalchemy") is None


# --- an installation without the extras, in a subprocess ---------------------------------------

#: Runs a script with the modules of $REFUSE (JSON) refused, as if not installed.
REFUSING = """
import importlib.abc, json, os, sys
REFUSED = frozenset(json.loads(os.environ["REFUSE"]))
TRIED = set()
class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        top = name.split(".")[0]
        if top in REFUSED:
            TRIED.add(top)
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None
sys.meta_path.insert(0, Refuse())
for name in list(sys.modules):  # nothing of them imported before this line
    assert name.split(".")[0] not in REFUSED, name
"""

CLIENT = """
import asyncio, io, logging
stream = io.StringIO()
logging.basicConfig(stream=stream, level=logging.WARNING)
import digest, digest.aio

tenant, agent = os.environ["TENANT"], "support-bot"
ids = [digest.record_run(tenant, agent, task="refund order 1182", outcome="failure",
                         error="amount is required", idempotency_key="run-1")]
ids.append(digest.record_run(tenant, agent, task="refund order 1182", outcome="failure",
                             error="amount is required", idempotency_key="run-1"))
ids.append(digest.record_edit(tenant, agent, original="Dear sir, refund done.",
                              final="Hi Ann, your refund is on its way."))
ids.append(digest.record_answer(tenant, agent, question="Do we ship to Norway?",
                                answer="Yes, from the Oslo warehouse."))
ids.append(digest.record_lesson(tenant, agent, "refunds: confirm the amount before refunding"))
assert digest.ask(tenant, agent, "Do you ship to Finland?").status == "asked"
blocks = [digest.pitfalls(tenant, agent, "please refund order 77")]
guard = digest.LoopDetector()
for _ in range(3):
    warning = guard.record("issue_refund", {"order": "77"}, ok=False, error="amount is required")

async def main():
    more = await digest.aio.record_run(tenant, agent, task="refund order 9", outcome="failure")
    block = await digest.aio.pitfalls(tenant, agent, "a refund for order 9")
    shots = await digest.aio.examples(tenant, agent, "refund")
    learning = await digest.aio.current_learning(tenant, agent)
    await digest.aio.aclose()
    return more, block, shots, learning

more, block, shots, learning = asyncio.run(main())
ids.append(more)
blocks.append(block)
print(json.dumps({
    "ids": ids,
    "blocks": blocks,
    "examples": [list(e) for e in digest.examples(tenant, agent, "refund")],
    "learning": None if digest.current_learning(tenant, agent) is None else "some",
    "loop_warning": warning,
    "loaded": sorted({m.split(".")[0] for m in sys.modules} & REFUSED),
    "tried": sorted(TRIED),
    "log": stream.getvalue(),
}))
"""


def _run(script: str, refuse: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **env, "REFUSE": json.dumps(refuse), "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-c", REFUSING + script],
        cwd=ROOT, env=full, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_base_install_captures_and_reads_without_any_extra(
    services_env: dict[str, str], pg_url: str, redis_url: str
) -> None:
    refuse = _refused()
    # what the extras are known to bring, derived above, not listed
    assert {"litellm", "celery", "typer", "onnxruntime", "matplotlib", "fastapi"} <= set(refuse)
    tenant, queue = f"extras-{uuid.uuid4().hex[:8]}", f"extras-{uuid.uuid4().hex[:8]}"
    env = {
        **services_env,
        "TENANT": tenant,
        "DIGEST_QUEUE": queue,
        # the default, whose model is in the embeddings extra: pitfalls ranks by words
        "DIGEST_EMBEDDING_MODEL": "local",
    }
    done = _run(CLIENT, refuse, env)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)

    assert out["loaded"] == []
    ids = out["ids"]
    assert all(isinstance(i, int) for i in ids) and ids[0] == ids[1]  # idempotent repeat
    assert "confirm the amount before refunding" in out["blocks"][0]
    assert "confirm the amount before refunding" in out["blocks"][1]
    assert out["examples"] == [] and out["learning"] is None
    assert out["loop_warning"]  # the third identical failing call is a loop
    # the missing local model was said once, with what to install, and nothing failed
    assert out["log"].count("embedder_not_installed") == 1, out["log"]
    assert "pip install 'lesson-digest[embeddings]'" in out["log"]
    assert "pitfalls_failed" not in out["log"] and "publish_failed" not in out["log"]

    # the events are in PostgreSQL and their messages in Redis
    from digest.db import session_scope
    from digest.models import Event, Tenant

    with session_scope(pg_url) as session:
        stored = set(
            session.scalars(
                select(Event.id)
                .join(Tenant, Tenant.id == Event.tenant_id)
                .where(Tenant.name == tenant)
            )
        )
    assert set(ids) <= stored
    client = redis.Redis.from_url(redis_url)
    try:
        assert client.llen(queue) >= 1
    finally:
        client.delete(queue)


def test_the_digest_command_without_the_command_line_says_what_to_install() -> None:
    done = _run(
        "sys.argv = ['digest', 'stats']\nfrom digest.cli import main\nmain()",
        _refused(),
        {},
    )
    assert done.returncode == 2
    assert done.stderr == (
        "error: the digest command needs the command line: pip install 'lesson-digest[cli]'\n"
    )


def test_digest_serve_without_the_service_says_what_to_install(tmp_path: Path) -> None:
    database = tmp_path / "digest.db"
    database.touch()
    done = _run(
        "sys.argv = ['digest', 'serve']\nfrom digest.cli import main\nmain()",
        _refused("cli"),
        {"DIGEST_DATABASE_URL": f"sqlite:///{database}"},
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "error: digest serve needs the HTTP service: pip install 'lesson-digest[service]'\n"
    )


# --- a command that needs an extra, in this process --------------------------------------------


@pytest.mark.parametrize(
    ("command", "absent", "sentence"),
    [
        (
            ["lesson", "reindex"],
            "onnxruntime",
            "digest lesson reindex needs the local embedding model: "
            "pip install 'lesson-digest[embeddings]'",
        ),
        (
            ["report", "--tenant", "t", "--agent", "a", "--html", "{tmp}/r.html"],
            "matplotlib",
            "digest report --html needs the report's charts: pip install 'lesson-digest[report]'",
        ),
    ],
    ids=["reindex", "report-html"],
)
def test_a_command_that_needs_a_missing_extra_is_one_line(
    sqlite_env: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    command: list[str],
    absent: str,
    sentence: str,
) -> None:
    from tests.cli.conftest import one_error_line, run_cli

    monkeypatch.setitem(sys.modules, absent, None)  # not importable, as if not installed
    out = tmp_path / "out"
    out.mkdir()
    args = [part.replace("{tmp}", str(out)) for part in command]
    done = run_cli(*args, env={"DIGEST_EMBEDDING_MODEL": "local"})
    assert one_error_line(done, code=2) == f"error: {sentence}"
    assert list(out.iterdir()) == []  # no page, not even a partial one


def test_any_module_of_a_missing_extra_is_reported_as_that_extra() -> None:
    from digest.cli.app import failure

    missing = ModuleNotFoundError("No module named 'yaml'", name="yaml")
    assert failure(missing) == (
        "this command needs the command line: pip install 'lesson-digest[cli]'",
        2,
    )
    other = ModuleNotFoundError("No module named 'nowhere'", name="nowhere")
    assert failure(other)[0].startswith("unexpected ModuleNotFoundError")


def test_drain_with_a_providers_model_and_no_litellm_stops_before_claiming_anything(
    sqlite_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import digest
    from digest.db import session_scope
    from digest.models import Event
    from tests.cli.conftest import one_error_line, run_cli

    event_id = digest.record_run("extras-t", "bot", task="refund order 1", outcome="failure")
    monkeypatch.setitem(sys.modules, "litellm", None)  # not importable, as if not installed
    done = run_cli("drain", env={"DIGEST_LLM_REFLECT_MODEL": "openai/gpt-4o-mini"})
    assert one_error_line(done, code=2) == (
        "error: digest drain with DIGEST_LLM_REFLECT_MODEL=openai/gpt-4o-mini needs litellm: "
        "pip install 'lesson-digest[llm]'"
    )
    with session_scope(sqlite_env) as session:
        event = session.get(Event, event_id)
        assert event is not None and (event.status, event.attempts) == ("pending", 0)


def test_doctor_names_the_extras_a_model_lacks(
    sqlite_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import digest.model.provider as provider
    from tests.cli.conftest import run_cli

    for absent in ("litellm", "onnxruntime"):
        monkeypatch.setitem(sys.modules, absent, None)  # not importable, as if not installed
    # as a process that never loaded it (an earlier test of this process may have)
    monkeypatch.setattr(provider, "_litellm", None)
    done = run_cli(
        "doctor", "--json",
        env={"DIGEST_LLM_MODEL": "openai/gpt-4o-mini", "DIGEST_EMBEDDING_MODEL": "local"},
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    checks = {c["name"]: c for c in json.loads(done.stdout)}
    model = checks["model openai/gpt-4o-mini"]
    assert model["status"] == "FAIL"
    assert "needs litellm: pip install 'lesson-digest[llm]'" in model["detail"]
    assert checks["embeddings"]["status"] == "FAIL"
    assert "pip install 'lesson-digest[embeddings]'" in checks["embeddings"]["detail"]
