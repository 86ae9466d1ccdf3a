"""``digest doctor``: is this deployment able to work? Each check prints one line saying what
it found, in plain words, and what to change when it is wrong.

Checks, in order (a check that needs an earlier one that failed is reported as skipped):

1. **settings**: every ``DIGEST_*`` value is valid; **setting names**: no ``DIGEST_*``
   variable is an unknown name, which would be ignored (a warning naming the closest setting);
2. **time budget**: the model budget of one reflection fits the reflect task's soft limit
   (the worker refuses to start otherwise);
3. **database**: reachable;
4. **schema**: migrated to this code's head revision;
5. **broker**: Redis answers (or the embedded mode, which needs none);
6. **model**: each configured model answers a one-token request (``offline/*`` answers in
   process);
7. **embeddings**: the embedding model gives a vector;
8. **relay**: has run within two intervals (with a broker);
9. **budgets**: a warning naming each tenant whose daily model budget is spent or whose events
   wait for its next budget day, with when they resume.

Exit status: 0 when nothing failed (warnings allowed), 1 when a check failed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from typing import Annotated, Any

import typer

from digest.cli import render
from digest.cli.app import JsonOpt, app, failure, sqlite_file

OK, WARN, FAIL, SKIP = "ok", "warn", "FAIL", "skip"


@dataclass
class Check:
    name: str
    status: str
    detail: str


def _settings() -> tuple[Check, Any]:
    from digest.config import get_settings
    from digest.errors import ConfigError

    try:
        settings = get_settings()
    except ConfigError as exc:
        return Check("settings", FAIL, str(exc)), None
    from digest.config import redact_url

    broker = redact_url(settings.broker_url) if settings.broker_url else "none (embedded)"
    return Check(
        "settings",
        OK,
        f"valid: database {redact_url(settings.database_url)}, broker {broker}, "
        f"model {settings.llm_model}",
    ), settings


def _names() -> Check:
    from digest.config import unknown_names

    unknown = unknown_names()
    if unknown:
        return Check("setting names", WARN, "; ".join(unknown))
    return Check("setting names", OK, "every DIGEST_* variable is a setting")


def _budget(settings: Any) -> Check:
    """Whether a reflection's model calls, with every retry, end before the worker stops the
    reflect task: said as what is budgeted, against what, and why it is fine (or what to
    change)."""
    from digest.config import IN_PROCESS_MODELS

    problems = settings.budget_problems()
    if problems:
        return Check("time budget", FAIL, problems[0])
    soft = settings.task_soft_time_limit_s
    models = {settings.model_for(step) for step in ("reflect", "reconcile", "summarize")}
    if all(model.startswith(IN_PROCESS_MODELS) for model in models):
        return Check(
            "time budget",
            OK,
            f"the models ({', '.join(sorted(models))}) answer in this process, so a reflection "
            f"waits on no network and ends well within the reflect task's {soft} s limit "
            "(DIGEST_TASK_SOFT_TIME_LIMIT_S)",
        )
    budget, room = settings.model_budget_s, settings.model_deadline_s
    return Check(
        "time budget",
        OK,
        f"even when every model call times out and is retried (DIGEST_LLM_TIMEOUT_S, "
        f"DIGEST_LLM_MAX_ATTEMPTS), a reflection gives up on the model after {budget:.0f} s, "
        f"before the worker stops the reflect task at {soft} s "
        f"(DIGEST_TASK_SOFT_TIME_LIMIT_S; {room:g} s are left for model calls), so the event "
        "waits for a retry instead of being cut off",
    )


def _database(settings: Any) -> Check:
    from sqlalchemy import text

    from digest.db import get_engine
    from digest.redact import redact

    path = sqlite_file(settings.database_url)
    if path is not None and not path.is_file():  # connecting would create it
        return Check(
            "database",
            FAIL,
            f"no database file at {path}: run `digest db upgrade` to create it "
            "(or set DIGEST_DATABASE_URL)",
        )
    try:
        with get_engine(settings.database_url).connect() as connection:
            connection.execute(text("SELECT 1"))
    except Exception as exc:
        return Check("database", FAIL, f"{failure(exc)[0]} (DIGEST_DATABASE_URL)")
    return Check("database", OK, f"reachable at {redact(settings.database_url)}")


def _schema(settings: Any) -> Check:
    from digest.migrate import revisions

    try:
        current, head = revisions(settings.database_url)
    except Exception as exc:
        return Check("schema", FAIL, failure(exc)[0])
    if current is None:
        return Check("schema", FAIL, "the database has no schema: run `digest db upgrade`")
    if current != head:
        return Check(
            "schema",
            FAIL,
            f"the database is at revision {current}, this code needs {head}: "
            "run `digest db upgrade`",
        )
    return Check("schema", OK, f"at the head revision ({head})")


def _broker(settings: Any) -> Check:
    if settings.embedded:
        return Check(
            "broker",
            OK,
            "none set (embedded mode: `digest drain` reflects events in this process)",
        )
    from redis import Redis

    from digest.redact import redact

    try:
        client = Redis.from_url(settings.broker_url, socket_timeout=2, socket_connect_timeout=2)
        try:
            client.ping()
        finally:
            client.close()
    except Exception as exc:
        return Check(
            "broker",
            FAIL,
            f"Redis at {redact(settings.broker_url)} does not answer ({type(exc).__name__}: "
            f"{exc}); check DIGEST_BROKER_URL and that Redis runs",
        )
    return Check("broker", OK, f"Redis answers at {redact(settings.broker_url)}")


def _models(settings: Any) -> list[Check]:
    from digest.errors import LLMError, MissingExtra
    from digest.model.seam import ping

    checks = []
    models = {settings.model_for(step) for step in ("reflect", "reconcile", "summarize")}
    for model in sorted(models):
        name = f"model {model}"
        try:
            how = ping(model, settings)
        except MissingExtra as exc:  # litellm is not installed
            checks.append(Check(name, FAIL, str(exc)))
        except LLMError as exc:
            where = f" at {settings.llm_api_base}" if settings.llm_api_base else ""
            checks.append(Check(name, FAIL, f"no answer{where}: {exc}"))
        else:
            checks.append(Check(name, OK, how))
    return checks


def _embeddings(settings: Any) -> Check:
    from digest.errors import DigestError
    from digest.identity.embedding import embed_one, get_embedder

    try:
        embedder = get_embedder(settings)
        if embedder is None:
            return Check("embeddings", OK, "none (neighbours are found by their words only)")
        vector = embed_one(embedder, "doctor")
    except (DigestError, OSError) as exc:
        return Check("embeddings", FAIL, f"{exc} (DIGEST_EMBEDDING_MODEL)")
    return Check("embeddings", OK, f"{settings.embedding_model}: {len(vector)} dimensions")


def _relay(settings: Any) -> Check:
    from digest.lessons.service import relay_warning

    if settings.embedded:
        return Check("relay", OK, "not needed in the embedded mode")
    try:
        warning = relay_warning(settings)
    except Exception as exc:
        return Check("relay", FAIL, failure(exc)[0])
    if warning:
        return Check("relay", WARN, warning)
    return Check("relay", OK, "ran within the last two intervals")


def _spending(settings: Any) -> Check:
    """A tenant whose daily model budget is spent, or whose events wait for the next day."""
    from digest.db import session_scope
    from digest.lessons.budgets import tenant_budgets

    try:
        with session_scope(settings.database_url) as session:
            days = tenant_budgets(session, settings)
    except Exception as exc:
        return Check("budgets", FAIL, failure(exc)[0])
    over = [day for day in days if day.spent or day.waiting]
    if over:
        return Check("budgets", WARN, "; ".join(f"{d.tenant}: {d.sentence()}" for d in over))
    if not days:
        return Check("budgets", OK, "no tenant has a daily model budget")
    return Check("budgets", OK, f"{len(days)} tenant(s) with a daily budget, none spent")


def run_checks() -> list[Check]:
    """Every check, in order; the ones that depend on a failed one are skipped."""
    first, settings = _settings()
    checks = [first, _names()]
    if settings is None:
        rest = ("time budget", "database", "schema", "broker", "model", "embeddings", "relay",
                "budgets")  # fmt: skip
        return checks + [Check(name, SKIP, "needs valid settings") for name in rest]
    checks.append(_budget(settings))
    database = _database(settings)
    checks.append(database)
    needs_db: list[tuple[str, Callable[[Any], Check]]] = [("schema", _schema)]
    for name, check in needs_db:
        checks.append(
            check(settings) if database.status == OK else Check(name, SKIP, "needs the database")
        )
    checks.append(_broker(settings))
    checks.extend(_models(settings))
    checks.append(_embeddings(settings))
    schema_ok = checks[4].status == OK
    checks.append(_relay(settings) if schema_ok else Check("relay", SKIP, "needs the schema"))
    checks.append(_spending(settings) if schema_ok else Check("budgets", SKIP, "needs the schema"))
    return checks


@app.command("doctor")
def doctor(
    as_json: JsonOpt = False,
    strict: Annotated[bool, typer.Option(help="Exit 1 on warnings too.")] = False,
) -> None:
    """Check settings, time budget, database, schema, broker, models, embeddings, the relay and
    the tenants' daily budgets, and say in plain words what is wrong. Exit 1 if a check
    failed."""
    checks = run_checks()
    if as_json:
        render.json([asdict(c) for c in checks])
    else:
        for check in checks:
            render.plain(f"{check.status:<4} {check.name}: {check.detail}\n")
    failed = [c for c in checks if c.status == FAIL or (strict and c.status == WARN)]
    if failed:
        if not as_json:
            render.error(f"{len(failed)} check(s) failed: {', '.join(c.name for c in failed)}")
        raise typer.Exit(1)
