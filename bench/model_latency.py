"""Benchmark 5: throughput when every model call takes 1 s, on the Celery threads pool.

A half-repeats stream from 20 agents goes through one worker (``--pool threads``) whose model
is the loopback server, which sleeps 1 s before each answer. With model latency overlapped
across threads, throughput approaches concurrency / calls-per-event per second; serialised it
would be about 1 event/s. The floor is that serial rate measured in the same run: one event
(one model call) at a time through the same worker.

The threads pool runs in one process, so everything a task does besides waiting for the model
(SQL, litellm's own work, ~50-70 ms a event) shares one interpreter lock: one process tops out
near 15 events/s however many threads wait. A 2-core host therefore runs ``--workers`` 2
threads-pool workers on the same queue (the usual way to use both cores with the threads
pool), ``--concurrency`` threads in total split between them.

    .venv/bin/python bench/model_latency.py [--scale 1.0] [--concurrency 64] [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parent), str(Path(__file__).resolve().parent.parent)]

from _loopback import Loopback, loopback_env  # noqa: E402  (sets LITELLM_LOCAL_MODEL_COST_MAP)
from _report import Figure  # noqa: E402

BENCH = "model latency (1 s per call)"
TARGET = 20.0
LATENCY_S = 1.0
AGENTS = 20
DEFAULT_CONCURRENCY = 64
DEFAULT_WORKERS = 2


def measure(
    scale: float = 1.0, concurrency: int = DEFAULT_CONCURRENCY, workers: int = DEFAULT_WORKERS
) -> list[Figure]:
    from _pipeline import running_worker, send_and_wait
    from _scratch import scratch_database
    from _stream import make_stream
    from _worker import start_worker, worker_env

    n = max(60, int(600 * scale))
    per_worker = max(1, concurrency // max(1, workers))
    stream = make_stream(n, AGENTS, seed=5)
    serial = make_stream(8, 1, repeat_share=0.0, seed=9)
    with (
        scratch_database() as url,
        Loopback(latency_s=LATENCY_S) as loop,
        running_worker(
            url, pool="threads", concurrency=per_worker, **loopback_env(loop.api_base)
        ) as (worker, queue),
    ):
        more = [
            start_worker(
                worker_env(url, queue, **loopback_env(loop.api_base)), "threads", per_worker
            )
            for _ in range(workers - 1)
        ]
        try:
            # Warm up (the first call imports the OpenAI client), then the floor: events sent one
            # at a time, each waiting for its model calls in turn.
            send_and_wait(url, worker, serial[:1], key_prefix="warm", sample_every_s=0.05)
            calls0, _tokens = loop.counts()
            waited = sum(
                send_and_wait(
                    url, worker, [e], key_prefix=f"serial-{i}", sample_every_s=0.05
                ).seconds
                for i, e in enumerate(serial[1:4])
            )
            calls1, _tokens = loop.counts()
            serial_rate = 3 / waited
            run = send_and_wait(
                url, worker, stream, key_prefix="stream", sample_every_s=0.25, capture_threads=8
            )
            calls2, _tokens = loop.counts()
        finally:
            for extra in more:
                extra.stop()
    per_event = (calls2 - calls1) / n
    return [
        Figure(
            BENCH, "events/s end to end", run.rate, "events/s",
            floor_name=f"one event at a time (3 events, {calls1 - calls0} calls of 1 s)",
            floor=serial_rate, target=f">= {TARGET:.0f} events/s", met=run.rate >= TARGET,
            note=f"{n} events, {AGENTS} agents, half repeats; {workers} worker(s) --pool threads "
            f"--concurrency {per_worker}; {per_event:.2f} model calls/event; capture took "
            f"{run.capture_seconds:.1f} s; statuses {run.statuses}",
        ),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    args = parser.parse_args()
    for f in measure(args.scale, args.concurrency, args.workers):
        ratio = f"  ratio {f.ratio:.1f}" if f.ratio is not None else ""
        print(f"{f.name} = {f.value:.2f} {f.unit}{ratio}  met={f.met}  {f.note}")


if __name__ == "__main__":
    main()
