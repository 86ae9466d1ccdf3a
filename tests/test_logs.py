"""digest.logs: the structlog configuration. Secrets never reach a log line (by field name or by
value, nested ones and tracebacks included), and logging never raises into the caller because
the stderr it was set up with went away."""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator

import pytest
import structlog

from digest.logs import configure_logging, redact_secrets
from digest.redact import MASK
from tests.test_redact import SECRETS


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


# --- the log processor chain -------------------------------------------------------------------


def test_logs_carry_no_secret_in_any_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real processor chain (structlog and stdlib records alike), rendered as JSON."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    stream = io.StringIO()
    configure_logging("INFO", json=True, stream=stream)
    try:
        log = structlog.get_logger("test.security")
        log.error(
            "llm_failed",
            error=f"AuthenticationError: Incorrect API key provided: {SECRETS['openai']}",
            url=f"postgresql://digest:{SECRETS['pg-password']}@db/digest",
            nested={"headers": {"Authorization": f"Bearer {SECRETS['bearer']}"},
                    "urls": [f"redis://:{SECRETS['redis-password']}@cache/0"]},
            api_key=SECRETS["anthropic"],
            prompt_tokens=120,
        )  # fmt: skip
        try:
            raise RuntimeError(f"boom with {SECRETS['aws']} and {SECRETS['github']}")
        except RuntimeError:
            log.exception("task_crashed")
        logging.getLogger("celery.worker").warning(
            "Connected to redis://:%s@cache:6379/0", SECRETS["redis-password"]
        )
    finally:
        root.handlers[:], _ = saved
        root.setLevel(saved[1])
        structlog.reset_defaults()
    output = stream.getvalue()
    lines = [json.loads(line) for line in output.splitlines()]
    assert [line["event"] for line in lines[:2]] == ["llm_failed", "task_crashed"]
    assert "Connected to redis://:***@cache:6379/0" in lines[2]["event"]
    assert "RuntimeError" in lines[1]["exception"]  # the traceback is kept, only masked
    assert lines[0]["prompt_tokens"] == 120  # a count, not a secret: a field name says so
    for secret in SECRETS.values():
        assert secret not in output


def test_redact_secrets_blanks_fields_named_for_secrets_only() -> None:
    event = redact_secrets(
        None, "info",
        {"event": "x", "db_password": "p", "access_token": "t", "prompt_tokens": 12,
         "nested": {"api_key": "k", "note": "Bearer abcdefgh12345678"},
         "items": ("sk-" + "a" * 20,)},
    )  # fmt: skip
    assert event["db_password"] == event["access_token"] == MASK
    assert event["prompt_tokens"] == 12
    assert event["nested"] == {"api_key": MASK, "note": f"Bearer {MASK}"}
    assert event["items"] == (f"sk-{MASK}",)
