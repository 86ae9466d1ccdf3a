"""worker.celery_app: the Celery application, a bottom module. Importing it reads no settings
(an invalid one surfaces when a worker starts, not on import), it imports no task module, and
its configuration is digest's settings."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.conftest import ROOT

CHECK = """
import sys
import worker.celery_app as celery_app
print("worker.tasks" in sys.modules)
"""


def test_importing_the_app_reads_no_settings_and_no_tasks() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env["DIGEST_LLM_MAX_ATTEMPTS"] = "0"  # invalid: only a starting worker may find out
    done = subprocess.run(
        [sys.executable, "-c", CHECK], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def test_the_configuration_is_digests_settings() -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(DIGEST_QUEUE="from-settings", DIGEST_BROKER_URL="redis://127.0.0.1:1/9")
    code = (
        "from worker.celery_app import app; c = app.conf;"
        " print(c.task_default_queue, c.broker_url, c.task_acks_late)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120, check=True,
    )  # fmt: skip
    assert done.stdout.split() == ["from-settings", "redis://127.0.0.1:1/9", "True"]
