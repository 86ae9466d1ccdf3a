"""digest.logs: digest's structured loggers and the configuration of the processes digest starts.
Events become stdlib records under ``digest`` with their fields; secrets never reach a log line
(by field name or by value, nested ones and tracebacks included), neither a rendered one nor a
host's record; and logging never raises into the caller because the stderr it was set up with
went away. (A host's view, in fresh processes: tests/edges/test_library_logging.py.)"""

from __future__ import annotations

import io
import json
import logging
import sys
from collections.abc import Iterator

import pytest
import structlog

from digest.logs import EventMessage, capture_logs, configure_logging, get_logger, redact_secrets
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
    get_logger("digest.t").warning("to_first")
    first.close()  # the runner is done with its capture buffer

    second = io.StringIO()
    monkeypatch.setattr(sys, "stderr", second)
    get_logger("digest.t").warning("to_second", api_key="sk-proj-" + "x" * 24)
    output = second.getvalue()
    assert '"event": "to_second"' in output
    assert "xxxxxxxxxxxxxxxx" not in output


# --- the log processor chain -------------------------------------------------------------------


def test_logs_carry_no_secret_in_any_value(monkeypatch: pytest.MonkeyPatch) -> None:
    """The real processor chain (digest's events and stdlib records alike), rendered as JSON."""
    root = logging.getLogger()
    saved = (root.handlers[:], root.level)
    stream = io.StringIO()
    configure_logging("INFO", json=True, stream=stream)
    try:
        log = get_logger("digest.security")
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


# --- digest's events on the stdlib path ----------------------------------------------------------


def _rendered(level: str, *, json_lines: bool) -> io.StringIO:
    stream = io.StringIO()
    configure_logging(level, json=json_lines, stream=stream)
    return stream


def test_fields_and_bound_context_reach_the_json_line(restore_logging: None) -> None:
    stream = _rendered("INFO", json_lines=True)
    log = get_logger("digest.reflect")
    with structlog.contextvars.bound_contextvars(event_id=3, tenant="acme", agent="bot"):
        log.info("reflect_done", lessons=2, note="two words")
    log.debug("below_the_level")
    logging.getLogger("digest.capture").info("manual_lesson_added lesson_id=%s", 5)

    done, added = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert {"level", "timestamp"} <= set(done) and "logger" not in done  # as before
    assert (done["event"], done["lessons"], done["note"]) == ("reflect_done", 2, "two words")
    assert (done["event_id"], done["tenant"], done["agent"]) == (3, "acme", "bot")
    assert added["event"] == "manual_lesson_added lesson_id=5"
    assert (added["logger"], added["level"]) == ("digest.capture", "info")


def test_people_get_readable_lines_at_their_level(restore_logging: None) -> None:
    stream = _rendered("WARNING", json_lines=False)
    log = get_logger("digest.relay")
    log.info("relay_done", relayed=4)
    log.warning("relay_slow", seconds=12.5, password="hunter2-hunter2")
    (line,) = stream.getvalue().splitlines()
    assert "[warning  ] relay_slow" in line
    assert "seconds=12.5" in line and f"password={MASK}" in line
    assert "hunter2" not in line and not line.startswith("{")


def test_other_structlog_loggers_of_a_configured_process_share_its_handler(
    restore_logging: None,
) -> None:
    stream = _rendered("INFO", json_lines=True)
    structlog.get_logger("elsewhere").warning("foreign", api_key=SECRETS["anthropic"])
    (line,) = [json.loads(text) for text in stream.getvalue().splitlines()]
    assert (line["event"], line["api_key"]) == ("foreign", MASK)


def test_a_hosts_record_carries_the_fields_and_names_the_line_that_logged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="digest")
    get_logger("digest.versions").info("version_composed", number=3, summary="two words")
    (record,) = caplog.records
    assert (record.name, record.levelno) == ("digest.versions", logging.INFO)
    assert record.getMessage() == "version_composed number=3 summary='two words'"
    assert isinstance(record.msg, dict) and record.msg["number"] == 3
    assert (record.filename, record.funcName) == (
        "test_logs.py",
        "test_a_hosts_record_carries_the_fields_and_names_the_line_that_logged",
    )


def test_a_hosts_record_holds_no_secret_and_a_masked_traceback(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="digest")
    log = get_logger("digest.model")
    try:
        raise RuntimeError(f"boom with {SECRETS['aws']}")
    except RuntimeError:
        log.exception("llm_crashed", api_key=SECRETS["anthropic"], url=SECRETS["openai"])
    (record,) = caplog.records
    text = caplog.text
    assert record.levelno == logging.ERROR and not record.exc_info  # in the message, masked
    assert "Traceback" in record.getMessage() and "RuntimeError: boom with" in text
    for secret in SECRETS.values():
        assert secret not in text
        assert secret not in repr(record.msg)


def test_stdlib_levels_decide_what_digest_emits(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="digest")
    logging.getLogger("digest.quiet").setLevel(logging.ERROR)
    try:
        log = get_logger("digest.quiet")
        log.warning("dropped")
        log.error("kept")
        get_logger("digest.loud").info("also_kept")
    finally:
        logging.getLogger("digest.quiet").setLevel(logging.NOTSET)
    assert [r.getMessage() for r in caplog.records] == ["kept", "also_kept"]


def test_an_event_message_is_one_readable_line_with_the_traceback_below() -> None:
    message = EventMessage(
        event="pitfalls_failed", tenant="acme", error="OperationalError: down", empty="",
        count=2, level="error", timestamp="2026-01-01T00:00:00Z", exception="Traceback: x",
    )  # fmt: skip
    assert str(message) == (
        "pitfalls_failed tenant=acme error='OperationalError: down' empty='' count=2\nTraceback: x"
    )
    assert str(EventMessage(event="bare")) == "bare"


def test_capture_logs_collects_every_level_and_then_lets_records_through(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="digest")
    log = get_logger("digest.pipeline")
    with capture_logs() as logs:
        log.debug("quiet_detail", n=1)
        log.warning("loud", n=2)
    assert logs == [
        {"event": "quiet_detail", "n": 1, "log_level": "debug"},
        {"event": "loud", "n": 2, "log_level": "warning"},
    ]
    assert caplog.records == []  # captured, not emitted
    log.warning("after")
    assert [r.getMessage() for r in caplog.records] == ["after"]


def test_digest_logs_only_under_the_digest_logger() -> None:
    assert get_logger("digest").name == "digest"
    with pytest.raises(ValueError, match="under the 'digest' logger"):
        get_logger("digestive.tract")
