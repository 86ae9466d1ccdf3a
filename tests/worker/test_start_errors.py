"""Issue 26 point 4: ``celery -A worker worker`` and ``beat`` with an invalid ``DIGEST_*``
value end with one sentence and exit status 2, as ``digest`` does, not a traceback."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT


@pytest.mark.parametrize("command", ["worker", "beat"])
def test_an_invalid_setting_is_one_line(command: str, tmp_path: object) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(DIGEST_LLM_TIMEOUT_S="soon", DIGEST_DATABASE_URL=f"sqlite:///{tmp_path}/x.db")
    ran = subprocess.run(
        [sys.executable, "-m", "celery", "-A", "worker", command, "--loglevel=ERROR"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert ran.returncode == 2, ran.stderr
    assert ran.stderr.strip().splitlines() == [
        "error: invalid setting DIGEST_LLM_TIMEOUT_S: Input should be a valid number, unable "
        "to parse string as a number"
    ]
    assert "Traceback" not in ran.stdout + ran.stderr
