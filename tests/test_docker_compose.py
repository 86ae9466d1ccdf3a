"""docker-compose.yml and the Dockerfile, read, not run (Docker does not run here): their
services, commands and environment must agree with the code they start. Cross-cutting: the
deployment files against digest.config, worker.config and the command line."""

from __future__ import annotations

import re
import shlex
from typing import Any

import pytest
import yaml

from digest.config import Settings
from tests.conftest import ROOT
from worker.config import celery_config

_INTERPOLATION = re.compile(r"\$\{(\w+)(?::?-([^}]*))?\}")


def interpolate(value: str, env: dict[str, str]) -> str:
    """Compose's `${VAR:-default}` substitution, `$$` being a literal dollar for the shell."""
    escaped = value.replace("$$", "\0")
    resolved = _INTERPOLATION.sub(lambda m: env.get(m.group(1), m.group(2) or ""), escaped)
    return resolved.replace("\0", "$")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(loaded, dict)
    return loaded


def service_env(service: dict[str, Any], host_env: dict[str, str]) -> dict[str, str]:
    env = service.get("environment") or {}
    assert isinstance(env, dict), "environment must be a mapping"
    return {key: interpolate(str(value), host_env) for key, value in env.items()}


def command_of(service: dict[str, Any]) -> list[str]:
    command = service["command"]
    return shlex.split(command) if isinstance(command, str) else [str(c) for c in command]


def test_the_production_services_are_all_there(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {"postgres", "redis", "migrate", "worker", "beat", "api", "flower"} <= set(services)
    for name, service in services.items():
        if name == "migrate":
            assert service["restart"] == "no", "migrate is a one-shot job"
            continue
        assert "healthcheck" in service, f"{name} has no healthcheck"
        assert service["healthcheck"]["test"], f"{name} healthcheck is empty"


def test_every_digest_variable_is_a_setting_and_validates(compose: dict[str, Any]) -> None:
    known = {f"DIGEST_{name.upper()}" for name in Settings.model_fields}
    digest_services = ("migrate", "worker", "beat", "api")
    for name in digest_services:
        env = service_env(compose["services"][name], host_env={})
        unknown = {key for key in env if key.startswith("DIGEST_")} - known
        assert not unknown, f"{name} sets variables no setting reads: {unknown}"
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            **{
                key.removeprefix("DIGEST_").lower(): value
                for key, value in env.items()
                if key.startswith("DIGEST_") and value != ""
            },
        )
        assert settings.broker_url == "redis://redis:6379/0"
        assert settings.database_url.startswith("postgresql+psycopg://")
        assert "@postgres:5432/" in settings.database_url
        assert settings.visibility_timeout_s > settings.task_time_limit_s


def test_worker_runs_the_threads_pool_with_concurrency_from_the_environment(
    compose: dict[str, Any],
) -> None:
    worker = compose["services"]["worker"]
    command = command_of(worker)
    assert command[:4] == ["celery", "-A", "worker", "worker"]
    assert "-E" in command or "--task-events" in command

    default_env = service_env(worker, host_env={})
    assert default_env["DIGEST_WORKER_POOL"] == "threads"
    overridden = service_env(worker, host_env={"DIGEST_WORKER_CONCURRENCY": "40"})
    assert overridden["DIGEST_WORKER_CONCURRENCY"] == "40"

    config = celery_config(
        Settings(
            _env_file=None,  # type: ignore[call-arg]
            broker_url=overridden["DIGEST_BROKER_URL"],
            worker_pool=overridden["DIGEST_WORKER_POOL"],  # type: ignore[arg-type]
            worker_concurrency=int(overridden["DIGEST_WORKER_CONCURRENCY"]),
        )
    )
    assert config["worker_pool"] == "threads"
    assert config["worker_concurrency"] == 40
    assert config["worker_send_task_events"] is True
    assert config["task_send_sent_event"] is True


def test_commands_start_what_exists(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert command_of(services["migrate"]) == ["digest", "db", "upgrade"]
    beat = command_of(services["beat"])
    assert beat[:4] == ["celery", "-A", "worker", "beat"]
    assert command_of(services["flower"])[-1] == "flower"

    # `celery -A worker` must find the app, and `digest db upgrade` must be a real command.
    import worker

    assert worker.celery_app.app.main
    from typer.testing import CliRunner

    from digest.cli import app

    result = CliRunner().invoke(app, ["db", "upgrade", "--help"])
    assert result.exit_code == 0, result.output


def test_startup_order_and_one_beat(compose: dict[str, Any]) -> None:
    services = compose["services"]
    for name in ("worker", "beat", "api"):
        depends = services[name]["depends_on"]
        assert depends["migrate"]["condition"] == "service_completed_successfully"
        assert depends["redis"]["condition"] == "service_healthy"
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    assert "deploy" not in services["beat"] or services["beat"]["deploy"].get("replicas") == 1


def test_flower_reads_the_same_broker(compose: dict[str, Any]) -> None:
    flower_env = service_env(compose["services"]["flower"], host_env={})
    worker_env = service_env(compose["services"]["worker"], host_env={})
    assert flower_env["CELERY_BROKER_URL"] == worker_env["DIGEST_BROKER_URL"]


def test_dockerfile_copies_what_exists() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text().splitlines()
    copies = [line.split()[1:-1] for line in dockerfile if line.startswith("COPY ")]
    assert copies, "the Dockerfile copies nothing"
    for sources in copies:
        for source in sources:
            assert (ROOT / source).exists(), f"Dockerfile copies missing {source}"


def test_the_api_serves_what_the_command_line_has(compose: dict[str, Any]) -> None:
    """`api` runs `digest serve` on all interfaces, on the port it publishes, with the
    workers' image and environment, and its health check reads /readyz on that port."""
    services = compose["services"]
    api = services["api"]
    command = command_of(api)
    assert command[:2] == ["digest", "serve"]
    host, port = command[command.index("--host") + 1], command[command.index("--port") + 1]
    assert host == "0.0.0.0" and api["ports"] == [f"{port}:{port}"]
    assert api["image"] == services["worker"]["image"]
    assert service_env(api, {}) == service_env(services["beat"], {})
    assert f"127.0.0.1:{port}/readyz" in " ".join(api["healthcheck"]["test"])

    from typer.testing import CliRunner

    from digest.cli import app

    result = CliRunner().invoke(app, ["serve", "--help"])
    assert result.exit_code == 0 and "--host" in result.output and "--port" in result.output


def test_the_image_installs_the_extras_its_services_run(compose: dict[str, Any]) -> None:
    """One image for migrate, worker, beat and api: its extras (the Dockerfile's ``EXTRAS``,
    which compose sets) hold the command line (`digest db upgrade`), Celery and the HTTP
    service; an extra it names must exist."""
    from digest.extras import EXTRAS, INCLUDES

    dockerfile = (ROOT / "Dockerfile").read_text()
    assert 'pip install --no-cache-dir ".[${EXTRAS}]"' in dockerfile
    default = re.search(r"^ARG EXTRAS=(\S*)$", dockerfile, re.MULTILINE)
    assert default is not None
    for extras in (default.group(1), compose["x-digest-image"]["build"]["args"]["EXTRAS"]):
        named = [e.strip() for e in extras.split(",") if e.strip()]
        assert set(named) <= set(EXTRAS), named
        installed = set(named).union(*(INCLUDES[e] for e in named))
        assert {"cli", "worker", "service"} <= installed, extras
    for name in ("migrate", "worker", "beat", "api"):
        assert compose["services"][name]["build"] == compose["x-digest-image"]["build"]
