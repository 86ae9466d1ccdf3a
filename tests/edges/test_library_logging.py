"""A library stays quiet in its host (issue 14, point 9).

Each host here is a fresh Python process that imports ``digest`` the way an agent does and
calls the capture and read APIs with the broker unreachable (so a publish fails and is logged),
a manual lesson added twice (logged at info), a bad ``pitfalls`` style (logged at error) and
``current_learning``. A host that configures nothing sees nothing on stdout or stderr; a host
that configures stdlib logging receives ``digest.*`` records with their fields; a host that
uses structlog for itself keeps its own output and gets none of digest's. The processes digest
starts, the CLI here (the worker's lines: tests/worker/test_logging.py), still render them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from digest.db import session_scope
from digest.models import Agent, Event, Tenant
from tests.conftest import ROOT

#: Nothing listens on port 1: every publish fails at once.
DEAD_BROKER = "redis://127.0.0.1:1/0"

#: What the host does with digest; ``report`` (argv[2]) receives what the calls returned.
CALLS = """
import json, sys
import digest
tenant, report = sys.argv[1], sys.argv[2]
results = {
    "run": digest.record_run(tenant, "bot", task="refund order 1182", outcome="failure",
                             error="amount is required"),
    "lesson": digest.record_lesson(tenant, "bot", "refunds: always confirm the amount first"),
    "again": digest.record_lesson(tenant, "bot", "refunds: always confirm the amount first"),
    "pitfalls": digest.pitfalls(tenant, "bot", "refund please"),
    "bad_style": digest.pitfalls(tenant, "bot", "refund please", style="markdown"),
    "learning": digest.current_learning(tenant, "bot"),
}
"""

#: Records reaching the host's root logger, as plain values, appended to the report.
KEEP_RECORDS = """
import logging
seen = []
class Keep(logging.Handler):
    def emit(self, record):
        seen.append({
            "name": record.name, "level": record.levelname, "message": record.getMessage(),
            "fields": {k: repr(v) for k, v in record.msg.items()}
                      if isinstance(record.msg, dict) else None,
            "module": record.module, "func": record.funcName,
        })
logging.getLogger().addHandler(Keep())
"""

REPORT = """
results["records"] = [r for r in globals().get("seen", ()) if r["name"].startswith("digest")]
with open(report, "w") as out:
    json.dump(results, out, default=repr)
"""


def host_env(pg_url: str, queue: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(
        DIGEST_DATABASE_URL=pg_url,
        DIGEST_BROKER_URL=DEAD_BROKER,
        DIGEST_QUEUE=queue,
        DIGEST_LLM_MODEL="offline/rules",
        DIGEST_EMBEDDING_MODEL="none",
    )
    return {**env, **extra}


def run_host(
    setup: str, tenant: str, env: dict[str, str], tmp_path: Path, *, calls: str = CALLS
) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """Run ``setup`` then the calls in a fresh process; its output and its report."""
    report = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-c", setup + calls + REPORT, tenant, str(report)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done, json.loads(report.read_text())


def stored_events(tenant: str) -> int:
    with session_scope() as session:
        return (
            session.scalar(
                select(func.count(Event.id))
                .join(Agent, Agent.id == Event.agent_id)
                .join(Tenant, Tenant.id == Agent.tenant_id)
                .where(Tenant.name == tenant)
            )
            or 0
        )


def by_event(records: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {r["message"].split(" ", 1)[0]: r for r in records}


# --- a host that configures nothing --------------------------------------------------------------


def test_a_host_that_configures_nothing_sees_nothing(
    services_env: dict[str, str], pg_url: str, queue: str, tenant: str, tmp_path: Path
) -> None:
    done, results = run_host("", tenant, host_env(pg_url, queue), tmp_path)
    assert (done.stdout, done.stderr) == ("", "")
    # The calls ran, and each had something to log: a failed publish, two manual lessons, a
    # bad style. The run and both lessons are stored.
    assert results["pitfalls"] != "" and results["bad_style"] == ""
    assert results["learning"] is None
    assert stored_events(tenant) == 3


def test_a_host_whose_database_is_down_sees_nothing(
    pg_url: str, queue: str, tenant: str, tmp_path: Path
) -> None:
    env = host_env(pg_url, queue, DIGEST_DATABASE_URL="postgresql://postgres@127.0.0.1:1/none")
    calls = CALLS.split("results = {")[0] + (
        "results = {'pitfalls': digest.pitfalls(tenant, 'bot', 'refund please')}\n"
    )
    done, results = run_host("", tenant, env, tmp_path, calls=calls)
    assert (done.stdout, done.stderr) == ("", "")
    assert results["pitfalls"] == ""  # logged pitfalls_failed at error, printed nothing


def test_importing_digest_configures_no_output() -> None:
    code = (
        "import json, logging, structlog, digest, digest.capture.api, digest.retrieve,"
        " digest.pipeline, digest.logs\n"
        "root, lib = logging.getLogger(), logging.getLogger('digest')\n"
        "print(json.dumps([root.handlers == [], root.level, structlog.is_configured(),"
        " [type(h).__name__ for h in lib.handlers], lib.level, lib.propagate]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == [True, 30, False, ["NullHandler"], 0, True]
    assert done.stderr == ""


def test_a_host_that_uses_structlog_keeps_its_output_and_gets_none_of_digests(
    services_env: dict[str, str], pg_url: str, queue: str, tenant: str, tmp_path: Path
) -> None:
    setup = (
        "import structlog\n"
        "structlog.get_logger().info('host_started')\n"  # structlog's default: stdout
        "host_events = []\n"
        "def keep(logger, name, event_dict):\n"
        "    host_events.append(event_dict['event'])\n"
        "    raise structlog.DropEvent\n"
        "structlog.configure(processors=[keep])\n"
    )
    calls = CALLS + "structlog.get_logger().info('host_done')\nresults['host'] = host_events\n"
    done, results = run_host(setup, tenant, host_env(pg_url, queue), tmp_path, calls=calls)
    assert "host_started" in done.stdout and len(done.stdout.splitlines()) == 1
    assert done.stderr == ""
    assert results["host"] == ["host_done"]  # digest's events never took the host's path


# --- a host that configures stdlib logging -----------------------------------------------------


def test_a_host_with_logging_at_info_receives_digest_records_with_their_fields(
    services_env: dict[str, str], pg_url: str, queue: str, tenant: str, tmp_path: Path
) -> None:
    setup = "import logging\nlogging.basicConfig(level=logging.INFO)\n" + KEEP_RECORDS
    done, results = run_host(setup, tenant, host_env(pg_url, queue), tmp_path)
    records = by_event(results["records"])

    publish = records["publish_failed"]
    assert (publish["name"], publish["level"]) == ("digest.publish", "WARNING")
    assert "task=digest.reflect_batch" in publish["message"]
    assert "error=ConnectionError" in publish["message"]
    added, supported = records["manual_lesson_added"], records["manual_lesson_supported"]
    assert (added["name"], added["level"]) == ("digest.capture", "INFO")
    assert supported["name"] == "digest.capture" and "lesson_id=" in supported["message"]
    bad = records["pitfalls_bad_style"]
    assert (bad["name"], bad["level"], bad["module"]) == ("digest.retrieve", "ERROR", "retrieve")
    assert bad["fields"]["style"] == "'markdown'"
    assert bad["message"].startswith("pitfalls_bad_style style=markdown allowed=")
    assert all(r["name"].startswith("digest.") for r in results["records"])
    # basicConfig's own handler printed them, on stderr, in its own format.
    assert "WARNING:digest.publish:publish_failed task=digest.reflect_batch" in done.stderr
    assert "INFO:digest.capture:manual_lesson_added" in done.stderr
    assert done.stdout == ""


def test_a_host_at_the_default_level_gets_warnings_and_errors_only(
    services_env: dict[str, str], pg_url: str, queue: str, tenant: str, tmp_path: Path
) -> None:
    setup = "import logging\nlogging.basicConfig()\n" + KEEP_RECORDS
    done, results = run_host(setup, tenant, host_env(pg_url, queue), tmp_path)
    assert sorted(by_event(results["records"])) == ["pitfalls_bad_style", "publish_failed"]
    assert "manual_lesson" not in done.stderr and done.stdout == ""


def test_a_host_can_silence_digest_alone(
    services_env: dict[str, str], pg_url: str, queue: str, tenant: str, tmp_path: Path
) -> None:
    setup = (
        "import logging\nlogging.basicConfig(level=logging.INFO)\n"
        "logging.getLogger('digest').setLevel(logging.CRITICAL)\n"
    )
    calls = CALLS + "logging.getLogger('host').info('host_done')\n"
    done, _ = run_host(setup, tenant, host_env(pg_url, queue), tmp_path, calls=calls)
    assert done.stderr.strip() == "INFO:host:host_done"


def test_a_host_with_structlogs_logger_factory_gets_the_calling_line(
    services_env: dict[str, str], pg_url: str, queue: str, tenant: str, tmp_path: Path
) -> None:
    """structlog's LoggerFactory swaps the stdlib logger class for one that finds the caller
    itself; digest's records still name digest's line, not structlog's frames."""
    setup = (
        "import logging, structlog, sys\n"
        "structlog.configure(logger_factory=structlog.stdlib.LoggerFactory())\n"
        "logging.basicConfig(level=logging.INFO, stream=sys.stdout)\n" + KEEP_RECORDS
    )
    done, results = run_host(setup, tenant, host_env(pg_url, queue), tmp_path)
    bad = by_event(results["records"])["pitfalls_bad_style"]
    assert (bad["module"], bad["func"]) == ("retrieve", "pitfalls")
    assert done.stderr == ""


# --- the CLI: digest's own process ---------------------------------------------------------------

RUN_LINE = {
    "kind": "run_outcome", "agent": "bot", "task": "refund order 1182", "outcome": "failure",
    "error": "amount is required", "idempotency_key": "run-1182",
}  # fmt: skip


def run_cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "digest.cli", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip


@pytest.fixture()
def run_file(tenant: str, tmp_path: Path) -> Path:
    path = tmp_path / "runs.jsonl"
    path.write_text(json.dumps({**RUN_LINE, "tenant": tenant}) + "\n")
    return path


def test_the_cli_prints_readable_warnings_and_no_info_by_default(
    services_env: dict[str, str], pg_url: str, queue: str, tenant: str, run_file: Path
) -> None:
    env = host_env(pg_url, queue, DIGEST_LOG_JSON="false")
    done = run_cli("capture", "--file", str(run_file), env=env)
    assert done.returncode == 0, done.stderr
    assert "stored 1 new event(s)" in done.stdout
    (line,) = done.stderr.splitlines()
    assert "[warning  ] publish_failed task=digest.reflect_batch" in line
    assert line.endswith("[digest.publish]")
    added = run_cli("lesson", "add", "--tenant", tenant, "--agent", "bot", "x: y z", env=env)
    assert added.returncode == 0 and added.stderr == ""  # info is not shown


def test_the_cli_shows_info_lines_with_verbose(
    services_env: dict[str, str], pg_url: str, queue: str, tenant: str
) -> None:
    env = host_env(pg_url, queue, DIGEST_LOG_JSON="false")
    assert run_cli("tenant", "create", "--tenant", tenant, env=env).returncode == 0
    done = run_cli(
        "-v",
        "lesson",
        "add",
        "--tenant",
        tenant,
        "--agent",
        "bot",
        "--new-agent",
        "x: y z",
        env=env,
    )
    assert done.returncode == 0, done.stderr
    (line,) = done.stderr.splitlines()
    assert "[info     ] manual_lesson_added" in line and not line.startswith("{")


def test_the_cli_writes_json_lines_to_a_pipe_when_asked(
    services_env: dict[str, str], pg_url: str, queue: str, run_file: Path
) -> None:
    env = host_env(pg_url, queue, DIGEST_LOG_JSON="true")
    done = run_cli("capture", "--file", str(run_file), env=env)
    assert done.returncode == 0, done.stderr
    (line,) = [json.loads(text) for text in done.stderr.splitlines()]
    assert (line["logger"], line["level"]) == ("digest.publish", "warning")
    assert line["event"].startswith("publish_failed task=digest.reflect_batch")
