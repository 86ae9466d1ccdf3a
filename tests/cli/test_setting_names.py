"""Issue 26 points 5 and 6. A ``DIGEST_*`` variable that is no setting is ignored, so a typo
(``DIGEST_THRESHOLD`` for ``DIGEST_THRESHOLD_SIGNALS``) would change nothing without a word:
``digest doctor`` flags it as a warning, every command and the worker say so as they start.
``digest --version`` says what is installed."""

from __future__ import annotations

import json

import pytest

from digest.config import setting_names, unknown_names
from tests.cli.conftest import run_cli


def test_unknown_names_suggest_the_setting_meant() -> None:
    found = unknown_names(
        {
            "DIGEST_THRESHOLD": "3",  # a prefix of DIGEST_THRESHOLD_SIGNALS
            "DIGEST_DATABSE_URL": "sqlite://",  # a typo
            "DIGEST_NOTHING_LIKE_IT": "1",
            "DIGEST_LLM_MODEL": "offline/rules",  # a setting
            "DIGEST_TEST_REDIS_DB": "3",  # the test suite's own
            "PATH": "/bin",
        }
    )
    assert found == [
        "DIGEST_DATABSE_URL is not a setting and is ignored; did you mean DIGEST_DATABASE_URL?",
        "DIGEST_NOTHING_LIKE_IT is not a setting and is ignored",
        "DIGEST_THRESHOLD is not a setting and is ignored; did you mean DIGEST_THRESHOLD_SIGNALS?",
    ]
    assert unknown_names({name: "x" for name in setting_names()}) == []


def test_the_expiry_and_fading_settings_are_known_and_guessed() -> None:
    """The lesson expiry and fading settings are settings, and the names a person might guess
    for them lead to them."""
    assert {"DIGEST_UNCONFIRMED_TTL_DAYS", "DIGEST_LESSON_HALF_LIFE_DAYS"} <= set(setting_names())
    assert unknown_names({"DIGEST_UNTRUSTED_TTL_DAYS": "7", "DIGEST_HALF_LIFE_DAYS": "30"}) == [
        "DIGEST_HALF_LIFE_DAYS is not a setting and is ignored; "
        "did you mean DIGEST_LESSON_HALF_LIFE_DAYS?",
        "DIGEST_UNTRUSTED_TTL_DAYS is not a setting and is ignored; "
        "did you mean DIGEST_UNCONFIRMED_TTL_DAYS?",
    ]


def test_doctor_warns_and_a_command_says_it_once(
    sqlite_env: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_THRESHOLD", "3")
    doctor = run_cli("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(doctor.stdout)}
    assert checks["setting names"]["status"] == "warn"
    assert "DIGEST_THRESHOLD_SIGNALS?" in checks["setting names"]["detail"]
    assert doctor.returncode == 0  # a warning, unless --strict
    assert run_cli("doctor", "--strict").returncode == 1

    stats = run_cli("stats")
    assert stats.returncode == 0
    assert stats.stderr.count("DIGEST_THRESHOLD is not a setting") == 1, stats.stderr

    monkeypatch.delenv("DIGEST_THRESHOLD")
    clean = json.loads(run_cli("doctor", "--json").stdout)
    assert {c["name"]: c["status"] for c in clean}["setting names"] == "ok"


def test_the_worker_says_it_as_it_starts(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from worker.startup import _refuse_a_budget_that_does_not_fit

    monkeypatch.setenv("DIGEST_QUIET_SECOND", "10")
    _refuse_a_budget_that_does_not_fit()  # the worker_init handler: warns, starts
    err = capsys.readouterr().err
    assert "warning: DIGEST_QUIET_SECOND is not a setting" in err
    assert "did you mean DIGEST_QUIET_SECONDS?" in err


def test_digest_version_prints_the_installed_version() -> None:
    from importlib.metadata import version

    shown = run_cli("--version", env={"DIGEST_DATABASE_URL": "nope://"})  # no settings read
    assert shown.returncode == 0 and shown.stderr == ""
    assert shown.stdout.strip() == f"lesson digest {version('lesson-digest')}"
