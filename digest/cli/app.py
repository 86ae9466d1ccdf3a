"""The ``digest`` typer app: command groups, shared options, ``main()`` and the error handler."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from digest.cli import render
from digest.errors import DigestError

#: what typer itself raises to end a command (exit codes, aborted prompts, usage errors) and
#: the ends of a closed pipe: these keep their own handling.
_PASS_THROUGH = (typer.Exit, typer.Abort, typer.TyperException, EOFError, BrokenPipeError)


def failure(exc: Exception) -> tuple[str, int]:
    """The sentence and exit code a command ends with when it raised ``exc``.

    Exit codes: 0 success, 1 some input was rejected (``capture``, ``import``) or a
    confirmation was declined, 2 an error that stopped the command (unknown tenant or agent,
    invalid setting, database unavailable, file missing): ``DigestError.exit_code``.
    """
    if isinstance(exc, DigestError):
        return str(exc), exc.exit_code
    from sqlalchemy.exc import SQLAlchemyError

    if isinstance(exc, SQLAlchemyError):
        return database_failure(exc), 2
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename}", 2
    return f"unexpected {type(exc).__name__}: {exc}", 2


def database_failure(exc: Exception) -> str:
    """A database fault (schema missing, server down) as one sentence, credentials masked."""
    from digest.redact import redact

    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    message = redact(lines[0]) if lines else type(exc).__name__
    missing = "no such table" in message or "does not exist" in message
    hint = " (schema missing: run `digest db upgrade`)" if missing else ""
    return f"database error: {message}{hint}"


def report_failure(exc: Exception) -> int:
    """Print ``error: <sentence>`` as one line on stderr; return the exit code."""
    message, code = failure(exc)
    render.error(message)
    return code


class _OneLineErrors(TyperGroup):
    """The root command group. Every command (and the root callback, which reads the settings)
    runs inside its ``invoke``, so this is where any failure of theirs is reported."""

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except _PASS_THROUGH:
            raise
        except Exception as exc:
            raise typer.Exit(report_failure(exc)) from None


app = typer.Typer(
    cls=_OneLineErrors,
    help="lesson digest: turn what happened to your agents into versioned lessons.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
app.add_typer(db_app, name="db")
version_app = typer.Typer(help="Learning document versions of one agent.", no_args_is_help=True)
app.add_typer(version_app, name="version")
tenant_app = typer.Typer(help="Tenant settings.", no_args_is_help=True)
app.add_typer(tenant_app, name="tenant")
lesson_app = typer.Typer(help="The lessons of one agent, for their owner.", no_args_is_help=True)
app.add_typer(lesson_app, name="lesson")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
TenantOpt = Annotated[str, typer.Option("--tenant", help="Tenant key.")]
AgentOpt = Annotated[str, typer.Option("--agent", help="Agent key.")]


@app.callback()
def _configure(
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show info logs.")] = False,
) -> None:
    from digest.config import get_settings
    from digest.logs import configure_logging

    settings = get_settings()  # an invalid DIGEST_* value stops here, as one sentence
    level = "INFO" if verbose else "WARNING"
    configure_logging(level, json=False if sys.stderr.isatty() else settings.log_json)


def main() -> None:
    """The ``digest`` console script."""
    try:
        app()
    except Exception as exc:  # raised outside any command (the group reports theirs)
        raise SystemExit(report_failure(exc)) from None
