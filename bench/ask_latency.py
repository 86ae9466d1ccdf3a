"""``digest.ask`` against ``digest.record_run``, call for call in the same run (issue 28).

An agent asks its owner on its hot path, so ``ask`` must cost about what a capture costs: the
target is ask p50 at most 2x record_run p50. The agent has a realistic bank: 30 owner-answer
questions answered and reflected into lessons, and 30 open questions. Three kinds of ask are
measured, each alternating with a record_run so both see the same noise:

- *known*: a paraphrase of an answered question (read the owner's lessons, match, return);
- *join*: a repeat of an open question from another thread (match, one UPDATE + one INSERT);
- *new*: a question nobody asked (match nothing, take the tenant's lock, INSERT).

    .venv/bin/python bench/ask_latency.py [--scale 1.0] [--embedding none|static]

Uses DIGEST_BENCH_PG and DIGEST_BENCH_REDIS like bench/capture_latency.py.
"""

from __future__ import annotations

import argparse
import time
import uuid
from functools import partial

if __package__:
    from bench._report import Figure
    from bench._scratch import percentile, scratch_database
    from bench.capture_latency import REDIS_URL, _digest_env
else:
    from _report import Figure
    from _scratch import percentile, scratch_database
    from capture_latency import REDIS_URL, _digest_env

BENCH = "ask latency"
TARGET_RATIO = 2.0
PLACES = [
    "Norway", "Finland", "Sweden", "Denmark", "Iceland", "Estonia", "Latvia", "Poland", "Spain",
    "Portugal", "France", "Italy", "Austria", "Greece", "Ireland", "Belgium", "Croatia",
    "Slovenia", "Hungary", "Romania", "Bulgaria", "Cyprus", "Malta", "Chile", "Peru", "Brazil",
    "Canada", "Mexico", "Japan", "Korea",
]  # fmt: skip


def measure(scale: float = 1.0, embedding: str = "none") -> list[Figure]:
    n = max(30, int(600 * scale))
    queue = f"bench-ask-{uuid.uuid4().hex[:8]}"
    samples: dict[str, list[float]] = {"known": [], "join": [], "new": [], "record_run": []}
    with scratch_database() as url:
        env = {
            "DIGEST_DATABASE_URL": url, "DIGEST_BROKER_URL": REDIS_URL, "DIGEST_QUEUE": queue,
            "DIGEST_ASK_AGENT_DAILY": str(10 * n), "DIGEST_ASK_TENANT_DAILY": str(10 * n),
            "DIGEST_EMBEDDING_MODEL": embedding,
        }  # fmt: skip
        with _digest_env(env):
            import digest
            from digest.outbox.publish import reset_publisher
            from digest.pipeline import drain
            from digest.questions.queue import answer_question

            for place in PLACES:
                asked = digest.ask("bench", "bot", f"Do you ship to {place}?")
                answer_question("bench", asked.question_id, f"Yes, to {place} in 5 days.", by="o")
                digest.ask("bench", "bot", f"Do you have a warehouse in {place}?")
            # reflect the answers in process (no worker in a bench): owner-answer lessons
            import os

            os.environ.pop("DIGEST_BROKER_URL")
            reset_publisher()
            drain(tenant="bench", agent="bot")
            os.environ["DIGEST_BROKER_URL"] = REDIS_URL
            reset_publisher()

            def record() -> None:
                digest.record_run("bench", "bot", task="refund order 1182", outcome="failure",
                                  error="amount is required")  # fmt: skip

            clock = time.perf_counter
            for i in range(n):
                place = PLACES[i % len(PLACES)]
                calls = {
                    "known": partial(digest.ask, "bench", "bot", f"Can you deliver to {place}?"),
                    "join": partial(
                        digest.ask, "bench", "bot", f"Any warehouse in {place}?", thread_id=f"t{i}"
                    ),
                    "new": partial(digest.ask, "bench", "bot", f"Do you sell model X{i} cards?"),
                    "record_run": record,
                }
                for name, call in calls.items():
                    started = clock()
                    call()
                    samples[name].append(clock() - started)
            statuses = {
                "known": digest.ask("bench", "bot", "Can you deliver to Norway?").status,
                "join": digest.ask("bench", "bot", "Any warehouse in Norway?").status,
            }
    import redis

    redis.Redis.from_url(REDIS_URL).delete(queue, f"_kombu.binding.{queue}")

    def ms(values: list[float], q: float) -> float:
        return percentile(values, q) * 1000

    floor = ms(samples["record_run"], 0.5)
    figures = []
    for kind in ("known", "join", "new"):
        value = ms(samples[kind], 0.5)
        figures.append(
            Figure(BENCH, f"ask p50 ({kind})", value, "ms", "record_run p50", floor,
                   target=f"<= {TARGET_RATIO:g}x floor", met=value <= TARGET_RATIO * floor,
                   note=f"n={n}, alternating with record_run; {statuses.get(kind, 'asked')}")
        )  # fmt: skip
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument(
        "--embedding", default="none",
        help="DIGEST_EMBEDDING_MODEL for the asks (none: the words only; static: the default)",
    )  # fmt: skip
    args = parser.parse_args()
    for figure in measure(args.scale, args.embedding):
        ratio = f"{figure.ratio:.2f}x" if figure.ratio is not None else "-"
        verdict = {None: "", True: "  MET", False: "  NOT MET"}[figure.met]
        print(f"{figure.name:<20} {figure.value:8.3f} ms  floor {figure.floor or 0:8.3f} ms"
              f"  ratio {ratio:>6}  {figure.target}{verdict}  ({figure.note})")  # fmt: skip


if __name__ == "__main__":
    main()
