"""Benchmark 4: LLM calls and prompt tokens per event as an agent's lesson bank grows.

For each bank size (100, 1,000, 10,000 lessons) an agent's bank is seeded with lessons the
offline judge draws from synthetic events (bulk SQL, each lesson citing a seed event, with its
ADD history row), then a half-repeats stream (200 events at scale 1.0) for that agent goes
through a real worker whose model is ``openai/loopback``: an OpenAI-compatible server on
127.0.0.1 that answers with the offline rules and counts every request and its prompt tokens.
The floor is Mem0's classic add: 2 calls per event (extract + update).

    .venv/bin/python bench/llm_calls.py [--scale 1.0]
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from _loopback import Loopback, loopback_env  # noqa: E402  (sets LITELLM_LOCAL_MODEL_COST_MAP)
from _report import Figure  # noqa: E402

BENCH = "LLM calls per event"
SIZES = (100, 1_000, 10_000)
MEM0_CALLS = 2.0
CALLS_TARGET = 1.0
FLAT_WITHIN = 0.15


def seed_bank(database_url: str, tenant: str, agent: str, size: int, seed: int) -> None:
    """``size`` active lessons for ``agent``, judged by the offline rules from synthetic events
    (the same kinds of events the stream sends, other words)."""
    import psycopg
    from _stream import make_stream

    import digest
    from digest.lessons.store import Candidate
    from digest.model.contracts import Skip, parse_reflect_output
    from digest.model.offline import judge_event

    # The tenant and agent rows come from the product's capture path.
    key = f"seed-{agent}"
    digest.record_run(tenant, agent, task="seed", outcome="success", idempotency_key=key)
    candidates: list[Candidate] = []
    for event in make_stream(size * 3, 1, repeat_share=0.0, seed=seed):
        verdict = parse_reflect_output(judge_event({"kind": event.kind, "payload": event.fields}))
        if not isinstance(verdict, Skip):
            candidates.extend(Candidate.of(block).normalised() for block in verdict)
        if len(candidates) >= size:
            break
    now = datetime.now(UTC)
    with psycopg.connect(database_url) as conn:
        tenant_id, agent_id, event_id = conn.execute(
            "SELECT e.tenant_id, e.agent_id, e.id FROM events e JOIN agents a ON a.id ="
            " e.agent_id WHERE a.name = %s AND e.idempotency_key = %s",
            (agent, f"seed-{agent}"),
        ).fetchone()  # type: ignore[misc]
        with conn.cursor() as cur:
            with cur.copy(
                "COPY lessons (tenant_id, agent_id, scope, slug, title, situation, mistake,"
                " correction, tags, source, outcome, confidence, support_count, success_count,"
                " failure_count, hit_count, status, last_seen_at, created_at, updated_at)"
                " FROM STDIN"
            ) as copy:
                for i, c in enumerate(candidates[:size]):
                    copy.write_row((
                        tenant_id, agent_id, "agent", f"seed-{i}", c.title, c.situation,
                        c.mistake, c.correction, json.dumps(list(c.tags)), "run_outcome",
                        "failure", 0.5, 1, 0, 0, 0, "active", now, now, now,
                    ))  # fmt: skip
            cur.execute(
                "INSERT INTO lesson_evidence (lesson_id, event_id, note, created_at)"
                " SELECT id, %s, 'seeded for the benchmark', now() FROM lessons"
                " WHERE agent_id = %s",
                (event_id, agent_id),
            )
            cur.execute(
                "INSERT INTO lesson_history (lesson_id, tenant_id, agent_id, op, reason,"
                " event_id, at) SELECT id, tenant_id, agent_id, 'ADD', 'seeded', %s, now()"
                " FROM lessons WHERE agent_id = %s",
                (event_id, agent_id),
            )
            cur.execute("ANALYZE lessons")


def measure(scale: float = 1.0) -> list[Figure]:
    from dataclasses import replace

    from _pipeline import running_worker, send_and_wait
    from _scratch import scratch_database
    from _stream import make_stream

    n = max(20, int(200 * scale))
    figures: list[Figure] = []
    per_event_tokens: list[float] = []
    # One worker process, threads pool (the production shape): its threads share one process.
    with (
        scratch_database() as url,
        Loopback() as loop,
        running_worker(url, pool="threads", concurrency=4, **loopback_env(loop.api_base)) as (
            worker,
            _,
        ),
    ):
        for size in SIZES:
            agent = f"bank-{size}"
            seed_bank(url, "bench", agent, size, seed=size)
            stream = [replace(e, agent=agent) for e in make_stream(n, 1, seed=size + 1)]
            calls0, tokens0 = loop.counts()
            send_and_wait(url, worker, stream, key_prefix=agent)
            calls, tokens = loop.counts()
            per_call = (calls - calls0) / n
            per_token = (tokens - tokens0) / n
            per_event_tokens.append(per_token)
            figures.append(
                Figure(
                    BENCH, f"calls/event, bank of {size}", per_call, "calls/event",
                    floor_name="Mem0 classic add (extract + update)", floor=MEM0_CALLS,
                    target=f"<= {CALLS_TARGET:.1f}", met=per_call <= CALLS_TARGET,
                    note=f"{n} events, half repeats; {calls - calls0} requests counted",
                )
            )  # fmt: skip
            figures.append(
                Figure(BENCH, f"prompt tokens/event, bank of {size}", per_token, "tokens")
            )
    low, high = min(per_event_tokens), max(per_event_tokens)
    spread = (high - low) / low if low else float("inf")
    figures.append(
        Figure(
            BENCH, "prompt tokens/event spread across banks", spread * 100, "%",
            target=f"<= {FLAT_WITHIN * 100:.0f}%", met=spread <= FLAT_WITHIN,
            note="(max - min) / min of the per-event prompt tokens above",
        )
    )  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    for figure in measure(args.scale):
        ratio = f"  ratio {figure.ratio:.2f}" if figure.ratio is not None else ""
        print(f"{figure.name} = {figure.value:.2f} {figure.unit}{ratio}  met={figure.met}")


if __name__ == "__main__":
    main()
