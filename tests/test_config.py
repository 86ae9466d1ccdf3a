"""digest.config: the one settings class (``DIGEST_*``), read once. URLs are normalised and
validated, limits are checked against each other, an invalid value names its variable, secrets
stay out of the repr, and per-step models fall back to the default model."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from digest.config import Settings, get_settings, resource_dir
from digest.errors import ConfigError

# --- settings --------------------------------------------------------------------------------


@pytest.mark.parametrize("scheme", ["postgres://", "postgresql://"])
def test_libpq_database_url_gets_the_psycopg_driver(scheme: str) -> None:
    url = Settings(database_url=f"{scheme}u:pw@h/db").database_url
    assert url == "postgresql+psycopg://u:pw@h/db"


def test_sqlite_database_url_is_unchanged() -> None:
    assert Settings(database_url="sqlite:///x.db").database_url == "sqlite:///x.db"


def test_settings_repr_hides_passwords() -> None:
    shown = repr(
        Settings(database_url="postgresql://u:secret@h/db", broker_url="redis://:hunter2@r:6379/0")
    )
    assert "secret" not in shown
    assert "hunter2" not in shown
    assert "u:***@h/db" in shown


@pytest.mark.parametrize("url", ["amqp://guest@localhost//", "sentinel://127.0.0.1:26379"])
def test_a_broker_other_than_redis_is_refused_at_startup(url: str) -> None:
    with pytest.raises(ValidationError, match="must be a Redis URL"):
        Settings(broker_url=url)
    assert Settings(broker_url="rediss://cache.example:6380/0").broker_url is not None
    assert Settings(broker_url=None).embedded


def test_settings_are_read_once_until_the_cache_is_cleared(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("DIGEST_QUEUE", "first")
    get_settings.cache_clear()
    assert get_settings() is get_settings() and get_settings().queue == "first"
    monkeypatch.setenv("DIGEST_QUEUE", "second")
    assert get_settings().queue == "first"
    get_settings.cache_clear()
    assert get_settings().queue == "second"


@pytest.mark.parametrize(
    ("variable", "value", "says"),
    [
        ("DIGEST_LLM_MAX_ATTEMPTS", "0", "greater than or equal to 1"),
        ("DIGEST_BROKER_URL", "amqp://x", "must be a Redis URL"),
        ("DIGEST_SWEEP_CRON", "every monday", "needs 5 fields"),
        ("DIGEST_TASK_TIME_LIMIT_S", "10", "DIGEST_TASK_SOFT_TIME_LIMIT_S"),
    ],
)
def test_an_invalid_value_names_its_variable(
    monkeypatch: pytest.MonkeyPatch, variable: str, value: str, says: str
) -> None:
    monkeypatch.setenv(variable, value)
    get_settings.cache_clear()
    with pytest.raises(ConfigError) as caught:
        get_settings()
    assert caught.value.field == variable and says in caught.value.message


def test_the_visibility_timeout_outlasts_the_hard_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError, match="visibility_timeout_s"):
        Settings(task_soft_time_limit_s=100, task_time_limit_s=4000, visibility_timeout_s=3600)
    monkeypatch.setenv("DIGEST_VISIBILITY_TIMEOUT_S", "100")
    get_settings.cache_clear()
    with pytest.raises(ConfigError) as caught:
        get_settings()
    assert caught.value.field == "DIGEST_VISIBILITY_TIMEOUT_S"
    assert "DIGEST_TASK_TIME_LIMIT_S" in caught.value.message


def test_step_models_fall_back_to_the_default_model() -> None:
    settings = Settings(llm_model="openai/gpt-4o-mini", llm_summarize_model="offline/rules")
    assert settings.model_for("reflect") == "openai/gpt-4o-mini"
    assert settings.model_for("summarize") == "offline/rules"


def test_a_processing_claim_is_stale_after_the_hard_limit_and_the_grace() -> None:
    settings = Settings(task_soft_time_limit_s=10, task_time_limit_s=20, processing_grace_s=5)
    assert settings.processing_stale_after_s == 25


def test_the_resource_folders_are_found() -> None:
    for name in ("prompts", "migrations", "examples"):
        assert resource_dir(name).is_dir()
    with pytest.raises(FileNotFoundError):
        resource_dir("nothing-here")
