"""Benchmark 5: throughput when every model call takes 1 s, on the Celery threads pool.

A half-repeats stream from 20 agents goes through one worker (``--pool threads``) whose model
is the loopback server, which sleeps 1 s before each answer. With model latency overlapped
across threads, throughput approaches concurrency / calls-per-event per second; serialised it
would be about 1 event/s. The floor is that serial rate measured in the same run: one event
(one model call) at a time through the same worker.

    .venv/bin/python bench/model_latency.py [--scale 1.0] [--concurrency 64]
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


def measure(scale: float = 1.0, concurrency: int = DEFAULT_CONCURRENCY) -> list[Figure]:
    from _pipeline import running_worker, send_and_wait
    from _scratch import scratch_database
    from _stream import make_stream

    n = max(60, int(600 * scale))
    stream = make_stream(n, AGENTS, seed=5)
    serial = make_stream(8, 1, repeat_share=0.0, seed=9)
    with (
        scratch_database() as url,
        Loopback(latency_s=LATENCY_S) as loop,
        running_worker(
            url, pool="threads", concurrency=concurrency, **loopback_env(loop.api_base)
        ) as (worker, _),
    ):
        # Warm up (the first call imports the OpenAI client), then the floor: events sent one
        # at a time, each waiting for its model calls in turn.
        send_and_wait(url, worker, serial[:1], key_prefix="warm", sample_every_s=0.05)
        calls0, _tokens = loop.counts()
        waited = sum(
            send_and_wait(url, worker, [e], key_prefix=f"serial-{i}", sample_every_s=0.05).seconds
            for i, e in enumerate(serial[1:4])
        )
        calls1, _tokens = loop.counts()
        serial_rate = 3 / waited
        run = send_and_wait(url, worker, stream, key_prefix="stream", sample_every_s=0.25)
        calls2, _tokens = loop.counts()
    per_event = (calls2 - calls1) / n
    return [
        Figure(
            BENCH, "events/s end to end", run.rate, "events/s",
            floor_name=f"one event at a time (3 events, {calls1 - calls0} calls of 1 s)",
            floor=serial_rate, target=f">= {TARGET:.0f} events/s", met=run.rate >= TARGET,
            note=f"{n} events, {AGENTS} agents, half repeats; --pool threads --concurrency "
            f"{concurrency}; {per_event:.2f} model calls/event; capture took "
            f"{run.capture_seconds:.1f} s; statuses {run.statuses}",
        ),
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=DEFAULT_CONCURRENCY)
    args = parser.parse_args()
    for f in measure(args.scale, args.concurrency):
        ratio = f"  ratio {f.ratio:.1f}" if f.ratio is not None else ""
        print(f"{f.name} = {f.value:.2f} {f.unit}{ratio}  met={f.met}  {f.note}")


if __name__ == "__main__":
    main()
