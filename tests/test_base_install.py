"""The base install, as a real installation: a venv that holds the base dependencies and
nothing else (issue 26 point 9), and the README's first command's ``cli`` extra for the demo.

``tests/test_extras.py`` refuses the extras' modules inside this venv; here the venv is a new
one (``python -m venv``, no system site-packages) whose site-packages holds only the
distributions ``pyproject.toml``'s ``[project] dependencies`` install (through their own
dependencies and extras: ``sqlalchemy[asyncio]`` brings greenlet) and the ``digest`` and
``worker`` packages, linked from this venv and this checkout as a wheel would lay them out. No
pip runs and nothing is downloaded: the distributions are the ones already installed here, at
the same versions, so the venv takes a second to make. A module the client imports that the
base dependencies lack fails its import there, as in an agent's process.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import sysconfig
import uuid
import venv
from importlib.metadata import distribution
from pathlib import Path

import pytest
import redis
from sqlalchemy import select

from tests.conftest import ROOT
from tests.test_extras import CLIENT, REFUSING, _base, _closure, _refused

#: What the venv's script starts with: the modules the extras install (as test_extras derives
#: them), each checked to be absent from the venv, not refused.
ABSENT = """
import importlib.util, json, os, sys
REFUSED = frozenset(json.loads(os.environ["REFUSE"]))
TRIED = set()
present = sorted(m for m in REFUSED if importlib.util.find_spec(m) is not None)
assert not present, f"the base venv holds modules of extras: {present}"
"""


def _link_distribution(name: str, site: Path) -> None:
    """Link every top-level entry of the installed distribution ``name`` (its packages, modules,
    bundled libraries and ``.dist-info``) into ``site``."""
    found = distribution(name)
    tops = {Path(str(f)).parts[0] for f in found.files or () if not str(f).startswith("..")}
    for top in sorted(tops - {"__pycache__"}):
        source = Path(str(found.locate_file(top)))
        if source.exists() and not (site / top).exists():
            (site / top).symlink_to(source)


@pytest.fixture(scope="module")
def base_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh venv with only the base install in it."""
    root = tmp_path_factory.mktemp("base-install")
    site = root / "site"
    site.mkdir()
    wanted = _closure(_base())
    assert {"sqlalchemy", "greenlet", "psycopg", "psycopg-binary", "redis"} <= wanted, wanted
    for name in sorted(wanted):
        _link_distribution(name, site)
    for package in ("digest", "worker"):  # the wheel's packages (pyproject's hatch targets)
        (site / package).symlink_to(ROOT / package)
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root / "venv")
    python = root / "venv" / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert purelib != sysconfig.get_paths()["purelib"]
    Path(purelib, "base-install.pth").write_text(f"{site}\n", encoding="utf-8")
    print(f"base install: {python} with {len(wanted)} distributions linked from {sys.prefix}")
    return python


def _in_venv(python: Path, script: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items()
             if not k.startswith(("DIGEST_", "PYTHON", "VIRTUAL_ENV"))}  # fmt: skip
    full = {**clean, **env, "REFUSE": json.dumps(_refused())}
    return subprocess.run(
        [str(python), "-c", ABSENT + script],
        cwd=python.parent, env=full, capture_output=True, text=True, timeout=180,
    )  # fmt: skip


def test_the_base_venv_lacks_every_extra(base_python: Path) -> None:
    done = _in_venv(
        base_python,
        "print(json.dumps(sorted(p for p in sys.path if 'site' in p)))\n"
        "import digest, digest.aio\n"
        "sys.argv = ['digest', 'stats']\n"
        "from digest.cli import main\n"
        "main()\n",
        {},
    )
    # `import digest` and digest.aio load; the command line is an extra and says so
    assert done.returncode == 2, done.stderr
    assert done.stderr == (
        "error: the digest command needs the command line: pip install 'lesson-digest[cli]'\n"
    )
    paths = json.loads(done.stdout)
    assert not any(str(Path(sys.prefix)) in p for p in paths), paths  # not this venv's


@pytest.mark.parametrize("backend", ["postgresql", "sqlite"])
def test_the_base_install_captures_and_reads_in_a_venv_of_its_own(
    base_python: Path, backend: str, request: pytest.FixtureRequest
) -> None:
    tenant = f"base-{uuid.uuid4().hex[:8]}"
    queue = f"base-{uuid.uuid4().hex[:8]}"
    if backend == "postgresql":
        services: dict[str, str] = request.getfixturevalue("services_env")
        # the local model is the embeddings extra: pitfalls says so once and ranks by words
        env = {**services, "DIGEST_QUEUE": queue, "DIGEST_EMBEDDING_MODEL": "local"}
        url = services["DIGEST_DATABASE_URL"]
    else:
        url = request.getfixturevalue("sqlite_env")
        # the default embedding (static) is numpy, in the base install; no broker
        env = {"DIGEST_DATABASE_URL": url, "DIGEST_LLM_MODEL": "offline/rules"}
    done = _in_venv(base_python, CLIENT, {**env, "TENANT": tenant})
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout)

    assert out["loaded"] == [] and out["tried"] == []
    ids = out["ids"]
    assert all(isinstance(i, int) for i in ids) and ids[0] == ids[1]  # the idempotent repeat
    for block in out["blocks"]:
        assert "confirm the amount before refunding" in block, block
    assert out["loop_warning"]
    assert "pitfalls_failed" not in out["log"] and "publish_failed" not in out["log"]
    if backend == "postgresql":
        assert out["log"].count("embedder_not_installed") == 1, out["log"]
        assert "pip install 'lesson-digest[embeddings]'" in out["log"]
    else:
        assert "embedder_not_installed" not in out["log"], out["log"]

    from digest.db import session_scope
    from digest.models import Event, Tenant

    with session_scope(url) as session:
        stored = set(
            session.scalars(
                select(Event.id).join(Tenant, Tenant.id == Event.tenant_id)
                .where(Tenant.name == tenant)
            )
        )  # fmt: skip
    assert set(ids) <= stored
    if backend == "postgresql":
        client = redis.Redis.from_url(env["DIGEST_BROKER_URL"])
        try:
            assert client.llen(queue) >= 1  # published without Celery or kombu
        finally:
            client.delete(queue)


def test_the_readme_demo_needs_the_cli_extra_alone(tmp_path: Path) -> None:
    """The README's first command installs ``.[cli]`` and runs ``digest demo``: the demo runs,
    learns and composes a version with every other extra's module refused."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(REFUSE=json.dumps(_refused("cli")), PYTHONPATH=str(ROOT), COLUMNS="100")
    done = subprocess.run(
        [sys.executable, "-c",
         REFUSING + "sys.argv = ['digest', 'demo']\nfrom digest.cli import main\nmain()"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    assert "database: sqlite:///digest.db" in done.stdout
    assert re.search(r"captured 28 event\(s\)", done.stdout), done.stdout[:2000]
    assert "learning document composed version 1 (active)" in done.stdout
    assert "lesson(s) held" in done.stdout  # what waits, and why
    assert (tmp_path / "digest.db").is_file()


def test_the_documented_install_sizes_are_the_dependency_closures() -> None:
    """README and docs/production.md say how many packages the base install and ``[all]`` are:
    the closures this file builds the venv from (installed here, so counted exactly)."""
    from tests.test_extras import _extra, _extras

    base = len(_closure(_base()))
    every = len(_closure([*_base(), *(r for e in _extras() for r in _extra(e))]))
    readme = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    production = " ".join((ROOT / "docs" / "production.md").read_text(encoding="utf-8").split())
    for text in (readme, production):
        assert f"{base} packages besides itself" in text
    assert f"`[all]`, it is {every} packages" in readme
