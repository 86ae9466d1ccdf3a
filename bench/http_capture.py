"""HTTP capture (``POST /v1/events`` on ``digest serve``) against the Python API's capture.

The floor is ``digest.record_run`` in this process, measured in the same run against the same
scratch database, Redis and tenant, with the same event (the body carries the same fields plus
its ``kind``). The server is ``digest serve`` as a subprocess on a free port, with an agent key
of its own; it is ready when ``/readyz`` answers 200. It runs twice: ``--workers 1`` (the
default) and ``--workers 2``.

- latency, on each server: one request at a time on one keep-alive httpx client, alternating
  one for one with a ``record_run`` so both see the same noise (p50 and p99). The issue's
  target: HTTP p50 within 3x the Python API's p50.
- throughput, on ``--workers 2``: ``--concurrency`` keep-alive clients (one connection each,
  one request at a time each, on one asyncio loop), in requests/s, against ``record_run`` one
  call after another on one thread. The client runs on the same machine as the server and
  takes some of its cores: its CPU time is in the note.

Warm-up requests and calls (first connections, tenant/agent rows, first publish) are excluded.

    .venv/bin/python bench/http_capture.py [--scale 1.0] [--concurrency 16]

Uses DIGEST_BENCH_PG like bench/capture_latency.py, and Redis at DIGEST_BENCH_REDIS (default
redis://127.0.0.1:6379/13), where it writes only to a queue of its own and deletes it after.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

if __package__:  # imported by a runner as bench.http_capture
    from bench._report import Figure
    from bench._scratch import percentile, scratch_database
    from bench.capture_latency import ERROR, TASK, TOOL_CALLS, _digest_env
else:  # run as a script: python bench/http_capture.py
    from _report import Figure
    from _scratch import percentile, scratch_database
    from capture_latency import ERROR, TASK, TOOL_CALLS, _digest_env

BENCH = "HTTP capture"
TARGET_RATIO = 3.0
CONCURRENCY = 16
SERVER_WORKERS = 2
ROOT = Path(__file__).resolve().parent.parent
REDIS_URL = os.environ.get("DIGEST_BENCH_REDIS", "redis://127.0.0.1:6379/13")

BODY: dict[str, Any] = {
    "kind": "run_outcome", "agent": "bot", "task": TASK, "outcome": "failure", "error": ERROR,
    "tool_calls": TOOL_CALLS,
}  # fmt: skip


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def _server(env: dict[str, str], workers: int) -> Iterator[str]:
    """``digest serve --workers N`` on a free port, in its own process group; yields its URL
    once /readyz answers 200 and stops the group afterwards."""
    import httpx

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    log_path = Path(os.environ.get("TMPDIR", "/tmp")) / f"digest-bench-serve-{port}.log"
    with log_path.open("wb") as handle:
        proc = subprocess.Popen(
            [sys.executable, "-m", "digest.cli", "serve", "--port", str(port),
             "--workers", str(workers)],
            cwd=ROOT, env={**inherited, **env}, stdout=handle, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"digest serve exited early:\n{log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{url}/readyz", timeout=1).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"digest serve not ready after 60 s:\n{log_path.read_text()}")
            time.sleep(0.2)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=10)
    log_path.unlink(missing_ok=True)


def measure(scale: float = 1.0, concurrency: int = CONCURRENCY) -> list[Figure]:
    import redis

    n = max(50, int(1000 * scale))
    warmup = max(10, int(50 * scale))
    requests = max(200, int(4000 * scale))
    queue = f"bench-http-{uuid.uuid4().hex[:8]}"
    client = redis.Redis.from_url(REDIS_URL)
    figures: list[Figure] = []
    with scratch_database() as url:
        env = {
            "DIGEST_DATABASE_URL": url, "DIGEST_BROKER_URL": REDIS_URL, "DIGEST_QUEUE": queue,
            "DIGEST_EMBEDDING_MODEL": "none",
        }  # fmt: skip
        try:
            with _digest_env(env):
                from digest.apikeys import create_key

                key = create_key("bench", "agent", "bench/http_capture.py").secret
                headers = {"Authorization": f"Bearer {key}"}
                for workers in (1, SERVER_WORKERS):
                    with _server(env, workers) as base_url:
                        figures += _latency(base_url, headers, workers, n, warmup)
                        if workers == SERVER_WORKERS:
                            figures += _throughput(base_url, headers, requests, concurrency)
        finally:
            client.delete(queue, f"_kombu.binding.{queue}")
            client.close()
    return figures


def _python_capture() -> None:
    import digest

    digest.record_run("bench", "bot", task=TASK, outcome="failure", error=ERROR,
                      tool_calls=TOOL_CALLS)  # fmt: skip


def _ms(samples: list[float], q: float) -> float:
    return percentile(samples, q) * 1000


def _latency(
    base_url: str, headers: dict[str, str], workers: int, n: int, warmup: int
) -> list[Figure]:
    """HTTP p50 and p99, one request at a time, alternating with ``record_run``."""
    import httpx

    clock = time.perf_counter
    python_times: list[float] = []
    http_times: list[float] = []
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as http:

        def http_capture() -> None:
            answer = http.post("/v1/events", json=BODY)
            if answer.status_code != 201:
                raise RuntimeError(f"POST /v1/events: {answer.status_code} {answer.text[:500]}")

        for _ in range(warmup):
            _python_capture()
            http_capture()
        for _ in range(n):
            started = clock()
            _python_capture()
            python_times.append(clock() - started)
            started = clock()
            http_capture()
            http_times.append(clock() - started)

    served = f"--workers {workers}"
    p50, floor_p50 = _ms(http_times, 0.5), _ms(python_times, 0.5)
    note = (
        f"digest serve {served}; n={n} alternating with record_run on one keep-alive client,"
        f" {warmup} warm-up calls excluded"
    )
    return [
        Figure(BENCH, f"POST /v1/events p50 ({served})", p50, "ms", "record_run p50",
               floor_p50, target=f"p50 <= {TARGET_RATIO:g}x floor",
               met=p50 <= TARGET_RATIO * floor_p50, note=note),
        Figure(BENCH, f"POST /v1/events p99 ({served})", _ms(http_times, 0.99), "ms",
               "record_run p99", _ms(python_times, 0.99), note=note),
    ]  # fmt: skip


def _throughput(
    base_url: str, headers: dict[str, str], requests: int, concurrency: int
) -> list[Figure]:
    """Requests/s from ``concurrency`` clients against ``record_run`` one after another."""
    clock = time.perf_counter
    started = clock()
    for _ in range(requests):
        _python_capture()
    python_rate = requests / (clock() - started)

    cpu_before = resource.getrusage(resource.RUSAGE_SELF)
    http_rate, refused = asyncio.run(_http_rate(base_url, headers, requests, concurrency))
    cpu_after = resource.getrusage(resource.RUSAGE_SELF)
    client_cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (
        cpu_after.ru_stime - cpu_before.ru_stime
    )
    if refused:
        raise RuntimeError(f"{refused} of {requests} concurrent requests were not 201")
    return [
        Figure(BENCH, f"POST /v1/events, {concurrency} clients", http_rate, "requests/s",
               "record_run one after another", python_rate,
               note=f"{requests} requests each way; digest serve --workers {SERVER_WORKERS} on"
               f" a {os.cpu_count()}-core machine, the load-generating client on the same"
               f" cores ({client_cpu:.1f} s of CPU); record_run on one thread"),
    ]  # fmt: skip


async def _http_rate(
    base_url: str, headers: dict[str, str], requests: int, concurrency: int
) -> tuple[float, int]:
    """(requests/s, how many were not 201) for ``requests`` POSTs spread over ``concurrency``
    keep-alive connections, each sending one request at a time."""
    import httpx

    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    refused = 0
    async with httpx.AsyncClient(
        base_url=base_url, headers=headers, timeout=30, limits=limits
    ) as http:

        async def client(count: int) -> None:
            nonlocal refused
            for _ in range(count):
                answer = await http.post("/v1/events", json=BODY)
                refused += answer.status_code != 201

        # open every connection (and warm each server process) before timing
        await asyncio.gather(*(client(2) for _ in range(concurrency)))
        share, extra = divmod(requests, concurrency)
        started = time.perf_counter()
        await asyncio.gather(*(client(share + (i < extra)) for i in range(concurrency)))
        elapsed = time.perf_counter() - started
    return requests / elapsed, refused


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--concurrency", type=int, default=CONCURRENCY)
    args = parser.parse_args()
    figures = measure(args.scale, args.concurrency)
    for figure in figures:
        ratio = f"{figure.ratio:.2f}x" if figure.ratio is not None else "-"
        verdict = {None: "", True: "  MET", False: "  NOT MET"}[figure.met]
        print(
            f"{figure.name:<38} {figure.value:9.3f} {figure.unit}  floor {figure.floor or 0:9.3f}"
            f" {figure.unit}  ratio {ratio:>6}  {figure.target}{verdict}"
        )
        print(f"{'':<38} floor: {figure.floor_name}; {figure.note}")
    print()
    for p50 in (f for f in figures if f.met is not None):
        within = "within" if p50.met else "NOT within"
        print(
            f"{p50.name}: {p50.ratio or 0:.2f}x the Python API's p50, {within} the issue's"
            f" {TARGET_RATIO:g}x target."
        )


if __name__ == "__main__":
    main()
