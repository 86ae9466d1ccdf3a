"""Logging never raises into the caller because the stderr it was set up with went away."""

from __future__ import annotations

import io
import sys
from collections.abc import Iterator

import pytest
import structlog

from digest.logs import configure_logging


@pytest.fixture()
def restore_logging() -> Iterator[None]:
    yield
    structlog.reset_defaults()


def test_logs_follow_the_current_stderr_after_the_old_one_is_closed(
    restore_logging: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = io.StringIO()
    monkeypatch.setattr(sys, "stderr", first)
    configure_logging("INFO", json=True)  # as a CLI run inside a test runner does
    structlog.get_logger("t").warning("to_first")
    first.close()  # the runner is done with its capture buffer

    second = io.StringIO()
    monkeypatch.setattr(sys, "stderr", second)
    structlog.get_logger("t").warning("to_second", api_key="sk-proj-" + "x" * 24)
    output = second.getvalue()
    assert '"event": "to_second"' in output
    assert "xxxxxxxxxxxxxxxx" not in output
