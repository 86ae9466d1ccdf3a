"""The ``digest`` typer app: command groups, shared options, ``main()`` and the error handler."""

from __future__ import annotations

import logging
import os
import re
import stat
import sys
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from digest.cli import render
from digest.errors import DigestError, InvalidArgument

try:  # newer typer releases carry their own copy of click
    from typer._click.exceptions import UsageError
except ImportError:  # pragma: no cover - an older typer, on click itself
    from click.exceptions import UsageError  # type: ignore[assignment,unused-ignore]

#: what typer itself raises to end a command (exit codes, aborted prompts, `--help` of a group
#: given no arguments) and the ends of a closed pipe: these keep their own handling.
_PASS_THROUGH = (typer.Exit, typer.Abort, typer.TyperException, EOFError, BrokenPipeError)
#: ``ctx.meta`` key: a command's ``--help`` was asked for, so no settings are read
_HELP_ASKED = "digest.help_asked"
#: the largest id or version number there is: the database's signed 64-bit integer
ID_MAX = 2**63 - 1


def failure(exc: Exception) -> tuple[str, int]:
    """The sentence and exit code a command ends with when it raised ``exc``.

    Exit codes: 0 success, 1 some input was rejected (``capture``, ``import``) or a
    confirmation was declined, 2 an error that stopped the command (unknown tenant or agent,
    invalid setting, database unavailable, file missing, an extra not installed):
    ``DigestError.exit_code``.
    """
    if isinstance(exc, DigestError):
        return str(exc), exc.exit_code
    from digest.extras import missing_extra

    extra = missing_extra(exc, "this command")
    if extra is not None:  # a module of an extra this installation lacks
        return str(extra), extra.exit_code
    from sqlalchemy.exc import SQLAlchemyError

    if isinstance(exc, SQLAlchemyError):
        return database_failure(exc), 2
    if isinstance(exc, OSError) and exc.strerror and exc.filename:
        return f"{exc.strerror}: {exc.filename}", 2
    return f"unexpected {type(exc).__name__}: {exc}", 2


#: what a database's own message means, and what to do about it: (pattern, sentence)
_DATABASE_HINTS = (
    (
        re.compile(r'database "([^"]+)" does not exist'),
        "the database {0!r} does not exist on that server: create it (`createdb {0}`), then "
        "run `digest db upgrade` (DIGEST_DATABASE_URL names it)",
    ),
    (
        re.compile(r'role "([^"]+)" does not exist'),
        "the server has no user {0!r}: fix the user in DIGEST_DATABASE_URL",
    ),
    (
        re.compile(r'password authentication failed for user "([^"]+)"'),
        "the server refused the password of user {0!r}: fix DIGEST_DATABASE_URL",
    ),
    (
        re.compile(r"no such table|relation \"[^\"]+\" does not exist"),
        "the schema is missing: run `digest db upgrade`",
    ),
    (
        re.compile(r"unable to open database file"),
        "cannot open the SQLite file of DIGEST_DATABASE_URL: does its folder exist, and may "
        "this user write there?",
    ),
)


def database_failure(exc: Exception) -> str:
    """A database fault (schema missing, server down, no such database or user) as one
    sentence that says what to do, credentials masked."""
    from digest.redact import redact

    lines = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    message = redact(lines[0]) if lines else type(exc).__name__
    for pattern, sentence in _DATABASE_HINTS:
        found = pattern.search(message)
        if found:
            return f"database error: {sentence.format(*found.groups())} ({message})"
    return f"database error: {message}"


def report_failure(exc: Exception) -> int:
    """Print ``error: <sentence>`` as one line on stderr; return the exit code."""
    message, code = failure(exc)
    render.error(message)
    return code


def usage_failure(exc: UsageError) -> str:
    """A usage error (a missing option, an id out of range, an unknown command) as one
    sentence that says where the help is."""
    command = exc.ctx.command_path if exc.ctx is not None else ""
    return exc.format_message() + (f" (see `{command} --help`)" if command else "")


class _OneLineErrors(TyperGroup):
    """The root command group. Every command (and the root callback, which reads the settings)
    runs inside its ``invoke``, so this is where any failure of theirs is reported, usage
    errors of the commands included (typer would draw them as a box)."""

    def make_context(self, *args: Any, **kwargs: Any) -> Any:
        _readable_help(self)
        # the root's own options (`digest --bogus`): parsed before any command runs
        try:
            return super().make_context(*args, **kwargs)
        except UsageError as exc:
            raise _reported_usage(exc) from None

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        given = args[: args.index("--")] if "--" in args else args
        ctx.meta[_HELP_ASKED] = any(arg in ctx.help_option_names for arg in given)
        return super().parse_args(ctx, args)

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except UsageError as exc:
            raise _reported_usage(exc) from None
        except _PASS_THROUGH:
            raise
        except Exception as exc:
            raise typer.Exit(report_failure(exc)) from None


def _readable_help(command: Any) -> None:
    """Help that reads like a manual page: ``--tenant TENANT``, ``--weeks N``, ``--file
    PATH`` and ``LESSON_ID...`` instead of typer's ``<str>``, ``<int range>`` and
    ``<list[int]>``, and no ``[1<=x<=9223372036854775807]`` (a range a person needs is in the
    option's sentence; a value outside it is still a one-line usage error)."""
    for param in command.params:
        desc = getattr(param, "type_descriptor", None)
        if desc is None or getattr(param, "is_flag", False):
            continue
        if param.metavar is None:
            if param.param_type_name == "argument":
                name = (param.name or "value").upper()
            elif desc.is_path:
                name = "PATH"
            elif desc.is_ranged or desc.annotation in (int, float, int | None, float | None):
                name = "N"
            else:
                name = (param.name or "value").upper()
            param.metavar = name
        if param.param_type_name == "argument":  # its name says what it is: no type beside it
            param.display_type_rich = lambda ctx: None
            # an error names it as the code does ('events'), not as help shows it ('EVENTS')
            param.get_error_hint = partial("'{}'".format, param.name)
        param._get_number_range_help_str = lambda: None
    for sub in getattr(command, "commands", {}).values():
        _readable_help(sub)


def _reported_usage(exc: UsageError) -> Exception:
    """Report a usage error as one line; what to raise then (a group's help shown for want of
    arguments is raised on as it is)."""
    if type(exc).__name__ == "NoArgsIsHelpError":
        return exc
    render.error(usage_failure(exc))
    return typer.Exit(exc.exit_code)


app = typer.Typer(
    cls=_OneLineErrors,
    help="lesson digest: turn what happened to your agents into versioned lessons.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain help: paragraphs rewrapped to the terminal (rich's boxes kept a docstring's line
    # breaks, mid-sentence) and no <bool> placeholder beside a flag
    rich_markup_mode=None,
)
db_app = typer.Typer(rich_markup_mode=None, help="Database schema.", no_args_is_help=True)
app.add_typer(db_app, name="db")
version_app = typer.Typer(
    rich_markup_mode=None, help="Learning document versions of one agent.", no_args_is_help=True
)
app.add_typer(version_app, name="version")
tenant_app = typer.Typer(rich_markup_mode=None, help="Tenant settings.", no_args_is_help=True)
app.add_typer(tenant_app, name="tenant")
lesson_app = typer.Typer(
    rich_markup_mode=None, help="The lessons of one agent, for their owner.", no_args_is_help=True
)
app.add_typer(lesson_app, name="lesson")
agent_app = typer.Typer(
    rich_markup_mode=None,
    help="An agent's settings: learning on or off, instructions, model.",
    no_args_is_help=True,
)
app.add_typer(agent_app, name="agent")

JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
TenantOpt = Annotated[str, typer.Option("--tenant", help="Tenant key.")]
AgentOpt = Annotated[str, typer.Option("--agent", help="Agent key.")]
#: the most a text file given to a command (an edited version body) may hold
TEXT_FILE_MAX = 1024 * 1024


def id_argument(help_text: str) -> Any:
    """A positional id or version number: a whole number from 1 to ``ID_MAX``, else a usage
    error (the database could not hold it, so no row has it)."""
    return typer.Argument(min=1, max=ID_MAX, help=help_text)


def regular_file(path: Path, what: str) -> Path:
    """``path`` when it is a regular file (links followed), else ``InvalidArgument`` saying
    what it is instead. Checked before anything opens it: opening a FIFO to read it waits for
    a writer for ever."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise InvalidArgument(f"{what}: no such file: {path}") from None
    except OSError as exc:
        raise InvalidArgument(f"{what}: cannot read {path}: {exc.strerror}") from None
    if stat.S_ISDIR(mode):
        raise InvalidArgument(f"{what}: {path} is a folder, not a file")
    if not stat.S_ISREG(mode):
        raise InvalidArgument(f"{what}: {path} is not a regular file (a FIFO, socket or device)")
    return path


def read_text_file(path: Path, what: str, limit: int = TEXT_FILE_MAX) -> str:
    """The UTF-8 text of the regular file ``path`` (at most ``limit`` bytes), or
    ``InvalidArgument`` saying why not. Opened without blocking and checked once open, so a
    FIFO put in its place after a look is refused too."""
    regular_file(path, what)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError as exc:
        raise InvalidArgument(f"{what}: cannot read {path}: {exc.strerror}") from None
    with os.fdopen(descriptor, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise InvalidArgument(f"{what}: {path} is not a regular file")
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise InvalidArgument(f"{what}: {path} is larger than {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InvalidArgument(f"{what}: {path} is not UTF-8 text (byte {exc.start})") from None


def package_version() -> str:
    """This installation's version (the package's metadata; the source tree's when it is not
    installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("lesson-digest")
    except PackageNotFoundError:  # pragma: no cover - run from a checkout never installed
        return "unknown (not installed)"


def _print_version(asked: bool) -> None:
    if asked:
        render.say(f"lesson digest {package_version()}")
        raise typer.Exit(0)


@app.callback()
def _configure(
    ctx: typer.Context,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Show info logs.")] = False,
    _version: Annotated[
        bool,
        typer.Option(
            "--version",
            callback=_print_version,
            is_eager=True,
            help="Print the installed version and exit.",
        ),
    ] = False,
) -> None:
    from digest.config import get_settings
    from digest.errors import ConfigError
    from digest.logs import configure_logging

    if ctx.meta.get(_HELP_ASKED):
        return  # a command's help needs no settings: it works whatever DIGEST_* holds
    level = "INFO" if verbose else "WARNING"
    if ctx.invoked_subcommand != "doctor":  # doctor reports them as a check of its own
        from digest.config import unknown_names

        for sentence in unknown_names():
            render.warn(sentence)
    try:
        settings = get_settings()  # an invalid DIGEST_* value stops here, as one sentence
    except ConfigError:
        if ctx.invoked_subcommand != "doctor":
            raise
        configure_logging(level, json=False)  # doctor reports the setting itself
        return
    if ctx.invoked_subcommand not in MAKES_THE_DATABASE:
        refuse_a_missing_sqlite_file(settings.database_url)
    configure_logging(level, json=False if sys.stderr.isatty() else settings.log_json)
    if not verbose:
        for handler in logging.getLogger().handlers:
            handler.addFilter(_not_reported_twice)


#: the commands that may create a SQLite file (the others would leave an empty one behind)
MAKES_THE_DATABASE = ("db", "demo", "doctor")


def refuse_a_missing_sqlite_file(url: str) -> None:
    """``DatabaseUnavailable`` when ``url`` names a SQLite file that is not there: a command
    that only reads or adds to the database would otherwise create an empty file (and fail on
    its missing schema)."""
    from digest.errors import DatabaseUnavailable

    path = sqlite_file(url)
    if path is not None and not path.exists():
        raise DatabaseUnavailable(
            f"no database at {path}: make it with `digest db upgrade` (or run `digest demo`), "
            "or point DIGEST_DATABASE_URL at the right file"
        )


def sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names; None for another database or SQLite in memory."""
    for prefix in ("sqlite:///", "sqlite+pysqlite:///"):
        if url.startswith(prefix):
            name = url.removeprefix(prefix).split("?", 1)[0]
            return Path(name) if name and name != ":memory:" else None
    return None


def _not_reported_twice(record: logging.LogRecord) -> bool:
    """Capture logs an error only when the database did not take an event, which is the
    failure the command then reports as its one line: the log line would say it twice."""
    return not (record.name == "digest.capture" or record.name.startswith("digest.capture."))


def main() -> None:
    """The ``digest`` console script."""
    try:
        app()
    except Exception as exc:  # raised outside any command (the group reports theirs)
        raise SystemExit(report_failure(exc)) from None
