"""Engine and sessions. One engine per process and URL, kept in the process's runtime
(``digest.runtime``), whose reset disposes them (a forked worker child, tests)."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import ExceptionContext
from sqlalchemy.orm import Session, sessionmaker

from digest.config import get_settings
from digest.runtime import runtime


class Engines:
    """The process's engines and session factories, by URL (a piece of the runtime)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()  # one engine per URL, however many threads ask at once
        self.by_url: dict[str, tuple[Engine, sessionmaker[Session]]] = {}
        #: engines whose connections are in autocommit for their whole life, by URL
        self.autocommit: dict[str, Engine] = {}
        #: set by a threads-pool worker at start: its concurrency (see ``follow_concurrency``)
        self.worker_threads: int | None = None

    def close(self) -> None:
        """Forget pooled connections without closing them: in a forked child they are the
        parent's sockets. Takes no lock: a parent's thread may have held it at the fork."""
        kept, self.by_url = self.by_url, {}
        autocommit, self.autocommit = self.autocommit, {}
        for engine in [*(engine for engine, _ in kept.values()), *autocommit.values()]:
            engine.dispose(close=False)


def _engines() -> Engines:
    return runtime().piece(Engines)


def follow_concurrency(threads: int) -> None:
    """A threads-pool worker runs ``threads`` tasks at once, each holding one connection: size
    the pool for that unless DIGEST_DB_POOL_SIZE says otherwise. Engines made before are
    disposed, so every engine has the size."""
    engines = _engines()
    engines.close()
    engines.worker_threads = threads


def pool_size() -> int:
    configured = get_settings().db_pool_size
    if configured is not None:
        return configured
    return max(5, _engines().worker_threads or 0)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    cursor = dbapi_connection.cursor()
    cursor.execute("PRAGMA foreign_keys=ON")
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=10000")
    cursor.close()


#: psycopg's ``prepare_threshold`` that never prepares a statement on its own (a count no
#: statement reaches) but still prepares one run with ``prepare=True`` (``None`` would refuse)
PREPARE_ON_REQUEST = 2**62


def make_engine(url: str, **options: Any) -> Engine:
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 10})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    engine = create_engine(
        url,
        **options,
        # No pre-ping: it costs a round trip per checkout on the agent's hot path. A dropped
        # connection (Postgres restarted) is detected on use, the pool is invalidated, and
        # callers retry once (capture) or the task is retried (worker).
        pool_pre_ping=False,
        pool_size=pool_size(),
        max_overflow=5,
        # A dead database must fail the hot path fast, not after the OS connect timeout.
        # No automatic server-side prepared statements: after five runs psycopg would prepare a
        # statement and Postgres could switch it to a generic plan made while a table was small,
        # kept for the connection's life however large the table grows (the old SQL neighbour
        # search took 50 ms instead of 2 this way). Planning each statement costs far less than
        # that. Only a statement that asks is prepared (``execute(..., prepare=True)``): the
        # capture INSERT, a one-row write with no plan to choose (``PREPARE_ON_REQUEST``).
        connect_args={"connect_timeout": 3, "prepare_threshold": PREPARE_ON_REQUEST},
    )

    def after_error(context: ExceptionContext) -> None:
        # A connection found dead (the server restarted): SQLAlchemy drops this pool's older
        # connections; the same database's other pool holds connections as old.
        if context.is_disconnect and context.engine is not None:
            connections_lost(context.engine, pool_invalidated=True)

    event.listen(engine, "handle_error", after_error)
    return engine


def connections_lost(seen_by: Engine, *, pool_invalidated: bool) -> None:
    """A connection of ``seen_by`` was found dead: every pooled connection to its database may
    be (the server restarted). Close the idle ones of this process's engines for it (the main
    one and ``autocommit_engine``'s), ``seen_by``'s too unless SQLAlchemy invalidated its pool
    already; connections in use are discarded when they come back."""
    engines = _engines()
    kept = [engine for engine, _ in engines.by_url.values()] + list(engines.autocommit.values())
    for engine in kept:
        if engine.url == seen_by.url and not (pool_invalidated and engine is seen_by):
            engine.dispose()


def get_engine(url: str | None = None) -> Engine:
    return _connected(url or get_settings().database_url)[0]


def autocommit_engine(url: str | None = None) -> Engine:
    """An engine whose pooled connections stay in autocommit: for single statements (a
    capture's INSERT) and reads that need no transaction (``read_scope``). On PostgreSQL it has
    its own pool, so a checkout neither switches the connection to autocommit nor switches it
    back on return (SQLAlchemy's per-connection ``isolation_level`` option does both, at about
    a tenth of a millisecond per call). SQLite shares the one engine, with the option."""
    url = url or get_settings().database_url
    engines = _engines()
    found = engines.autocommit.get(url)
    if found is not None:
        return found
    shared = get_engine(url) if url.startswith("sqlite") else None
    with engines.lock:
        found = engines.autocommit.get(url)
        if found is None:
            found = engines.autocommit[url] = (
                # Nothing to roll back when a connection comes back: no reset on return.
                make_engine(url, isolation_level="AUTOCOMMIT", pool_reset_on_return=None)
                if shared is None
                else shared.execution_options(isolation_level="AUTOCOMMIT")
            )
    return found


def session_factory(url: str | None = None) -> sessionmaker[Session]:
    return _connected(url or get_settings().database_url)[1]


def _connected(url: str) -> tuple[Engine, sessionmaker[Session]]:
    engines = _engines()
    found = engines.by_url.get(url)
    if found is not None:
        return found
    with engines.lock:
        found = engines.by_url.get(url)
        if found is None:
            engine = make_engine(url)
            found = engines.by_url[url] = (engine, sessionmaker(engine, expire_on_commit=False))
        return found


@contextmanager
def session_scope(url: str | None = None) -> Iterator[Session]:
    """A session whose transaction commits on success and rolls back on any error."""
    session = session_factory(url)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


@contextmanager
def read_scope(url: str | None = None) -> Iterator[Session]:
    """A session for reads that need no transaction of their own: each statement runs in
    autocommit, which under READ COMMITTED sees exactly what it would inside a transaction
    (every statement takes its own snapshot), minus the BEGIN and COMMIT round trips. Not for
    writes, locks or reads that must agree with each other."""
    with (
        autocommit_engine(url).connect() as reader,
        Session(bind=reader, expire_on_commit=False) as session,
    ):
        yield session


def dispose_engines() -> None:
    """Forget pooled connections (the runtime's reset does it too)."""
    engines = runtime().peek(Engines)
    if engines is not None:
        engines.close()


def is_postgres(session: Session) -> bool:
    return session.get_bind().dialect.name == "postgresql"
