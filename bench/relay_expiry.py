"""What the expiry check adds to each relay run (issue 26: expired lessons leave the learning
document within a relay interval, ``digest.versions.triggers.expire_due``).

A scratch PostgreSQL database (``DIGEST_BENCH_PG``) with 200,000 active lessons of 200 agents,
1% of them with an expiry 30 days ahead (none due, the common case); the broker
(``DIGEST_BENCH_REDIS``) is only named, nothing is published. Alternated runs of the relay
alone (the floor), the relay then the check, and the check alone; then the check alone once
more without the partial index ``ix_lessons_expires_at`` (migration 0022). Medians::

    python -m bench.relay_expiry
"""

from __future__ import annotations

import os
import statistics
import time

from sqlalchemy import create_engine, text

from bench._scratch import scratch_database

REDIS_URL = os.environ.get("DIGEST_BENCH_REDIS", "redis://127.0.0.1:6379/7")
LESSONS = 200_000
AGENTS = 200
RUNS = 30

_LESSONS_SQL = f"""
INSERT INTO lessons (tenant_id, agent_id, scope, slug, title, situation, correction, tags,
  cues, source, trust, outcome, confidence, support_count, success_count, failure_count,
  hit_count, status, created_at, updated_at, independent_sources, source_span_s, expires_at)
SELECT 1, 1 + (g % {AGENTS}), 'agent', 's' || g, 't' || g, 'situation', 'correction', '[]',
  '[]', 'run_outcome', 'untrusted', 'failure', 0.5, 1, 0, 0, 0, 'active', now(), now(), 0, 0,
  CASE WHEN g % 100 = 0 THEN now() + interval '30 days' END
FROM generate_series(1, {LESSONS}) g
"""


def _timed(call: object) -> float:
    started = time.perf_counter()
    call()  # type: ignore[operator]
    return time.perf_counter() - started


def main() -> None:
    with scratch_database() as url:
        sa_url = url.replace("postgresql://", "postgresql+psycopg://", 1)
        os.environ["DIGEST_DATABASE_URL"] = sa_url
        os.environ["DIGEST_BROKER_URL"] = REDIS_URL
        from digest.config import forget_settings

        forget_settings()
        engine = create_engine(sa_url)
        with engine.begin() as conn:
            conn.execute(
                text(
                    "INSERT INTO tenants (name, learning_apply_mode, settings, created_at) "
                    "VALUES ('bench', 'auto', '{}', now())"
                )
            )
            conn.execute(
                text(
                    "INSERT INTO agents (tenant_id, name, enable_learning, lesson_epoch, "
                    f"created_at) SELECT 1, 'a' || g, true, 0, now() "
                    f"FROM generate_series(1, {AGENTS}) g"
                )
            )
            conn.execute(text(_LESSONS_SQL))
            conn.execute(text("ANALYZE lessons"))
        from digest.outbox.relay import relay_pending
        from digest.versions.triggers import expire_due

        def both() -> None:
            relay_pending()
            expire_due(fan_out=True)

        floor, with_check, check = [], [], []
        for _ in range(RUNS):
            floor.append(_timed(relay_pending))
            with_check.append(_timed(both))
            check.append(_timed(lambda: expire_due(fan_out=True)))
        with engine.begin() as conn:
            conn.execute(text("DROP INDEX ix_lessons_expires_at"))
        unindexed = [_timed(lambda: expire_due(fan_out=True)) for _ in range(RUNS)]
        engine.dispose()
    median = statistics.median
    print(
        f"{LESSONS} lessons, {LESSONS // 100} with an expiry, none due; load "
        f"{os.getloadavg()[0]:.1f}: relay alone (floor) {median(floor) * 1000:.1f} ms, relay "
        f"and expiry check {median(with_check) * 1000:.1f} ms "
        f"({median(with_check) / median(floor):.2f}x the floor); the check alone "
        f"{median(check) * 1000:.1f} ms, without the partial index "
        f"{median(unindexed) * 1000:.1f} ms"
    )


if __name__ == "__main__":
    main()
