"""Shared by the benchmarks: a scratch PostgreSQL database, settings switched through the
environment and restored, and percentiles."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager

import psycopg

ADMIN_URL = os.environ.get("DIGEST_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")


@contextmanager
def scratch_database(admin_url: str = ADMIN_URL) -> Iterator[str]:
    """Create a throw-away database on ``admin_url``'s server, migrated to head; yield its
    libpq URL; drop it after."""
    name = f"digest_bench_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    url = admin_url.rsplit("/", 1)[0] + f"/{name}"
    try:
        from digest.migrate import upgrade

        upgrade(url)
        yield url
    finally:
        from digest.db import dispose_engines

        dispose_engines()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                (name,),
            )
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')


def use_settings() -> None:
    """Read the settings again (the environment changed) and forget what was made from them:
    engines and the embedding cache."""
    from digest.config import get_settings
    from digest.db import dispose_engines
    from digest.identity.embedding import clear_cache

    get_settings.cache_clear()
    dispose_engines()
    clear_cache()


@contextmanager
def environment(*names: str) -> Iterator[None]:
    """The block may set or remove the ``names`` variables (``DIGEST_*`` settings): they are
    put back as they were after it, and the settings read again."""
    saved = {name: os.environ.get(name) for name in names}
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        use_settings()


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
