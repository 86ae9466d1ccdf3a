"""Run every benchmark and write bench/RESULTS.md (issue 6).

    .venv/bin/python bench/run_all.py [--scale 1.0] [--only throughput,llm_calls] [--out PATH]
                                      [--update]

Each module under bench/ that exposes ``measure(scale) -> list[Figure]`` is run in turn. A
module that fails (or has no ``measure``) is recorded with its error and the others still
run; the exit status is then non-zero. Every figure is reported next to the floor measured in
the same run, so results travel between machines as ratios.

``--update`` rewrites only the sections of the modules run (``--only``) in the existing report,
each saying the command, date and commit it was measured at; the other sections and the
report's header (the full run's machine and commit) stay, and the count of targets not met is
read again from every section.
"""

from __future__ import annotations

import argparse
import datetime as dt
import importlib
import os
import platform
import re
import shlex
import subprocess
import sys
import time
import traceback
from importlib import metadata
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# The benchmarks import their helpers as top-level modules (``_scratch``) and the product
# from the checkout, whether run as scripts or as ``bench.<name>``.
sys.path[:0] = [str(HERE), str(ROOT)]

from _report import Figure  # noqa: E402

MODULES = (
    "capture_latency",
    "ask_latency",
    "async_capture",
    "http_capture",
    "import_time",
    "neighbour_search",
    "recall",
    "pitfalls_latency",
    "holdout",
    "throughput",
    "llm_calls",
    "model_latency",
    "replay",
    "quality",
    "trajectories",
)


def _first_line(path: str, prefix: str) -> str:
    try:
        for line in Path(path).read_text().splitlines():
            if line.startswith(prefix):
                return line.split(":", 1)[1].strip()
    except OSError:
        return "unknown"
    return "unknown"


def _command(*args: str) -> str:
    try:
        out = subprocess.run(args, capture_output=True, text=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({type(exc).__name__})"
    return (out.stdout or out.stderr).strip() or "unknown"


def _dirty() -> bool:
    """Does the checkout hold uncommitted changes to the product (``PRODUCT``)?"""
    try:
        out = subprocess.run(
            ["git", "-C", str(ROOT), "status", "--porcelain", "--", *PRODUCT],
            capture_output=True, text=True, timeout=10, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and bool(out.stdout.strip())


def machine() -> list[tuple[str, str]]:
    import psycopg
    import redis

    pg_url = os.environ.get("DIGEST_BENCH_PG", "postgresql://postgres@127.0.0.1:5432/postgres")
    redis_url = os.environ.get("DIGEST_BENCH_REDIS", "redis://127.0.0.1:6379/7")
    try:
        with psycopg.connect(pg_url) as conn:
            row = conn.execute("SHOW server_version").fetchone()
            pg = str(row[0]) if row else "unknown"
    except psycopg.Error as exc:
        pg = f"unavailable ({type(exc).__name__})"
    try:
        rd = str(redis.Redis.from_url(redis_url).info("server")["redis_version"])
    except redis.RedisError as exc:
        rd = f"unavailable ({type(exc).__name__})"
    kb = _first_line("/proc/meminfo", "MemTotal").split()[0]
    ram = f"{int(kb) / 1024 / 1024:.1f} GiB" if kb.isdigit() else "unknown"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())

    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    return [
        ("CPU", _first_line("/proc/cpuinfo", "model name")),
        ("cores", str(os.cpu_count())),
        ("RAM", ram),
        ("OS", platform.platform()),
        ("Python", platform.python_version()),
        ("PostgreSQL", pg),
        ("Redis", rd),
        (
            "packages",
            ", ".join(
                f"{n} {version(n)}" for n in ("celery", "kombu", "sqlalchemy", "psycopg", "litellm")
            ),
        ),
        ("load average at start (1, 5, 15 min)", load),
        ("git commit", _command("git", "-C", str(ROOT), "rev-parse", "--short", "HEAD")),
    ]


def _number(value: float | None) -> str:
    if value is None:
        return ""
    if abs(value) >= 100:
        return f"{value:,.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _met(met: bool | None) -> str:
    return {True: "yes", False: "**no**", None: "report"}[met]


def table(figures: list[Figure]) -> list[str]:
    lines = [
        "| figure | value | floor | ratio | target | met? |",
        "|---|---|---|---|---|---|",
    ]
    for f in figures:
        floor = f"{_number(f.floor)} {f.unit} ({f.floor_name})" if f.floor is not None else ""
        ratio = f"{_number(f.ratio)}×" if f.ratio is not None else ""
        lines.append(
            f"| {f.name} | {_number(f.value)} {f.unit} | {floor} | {ratio} | {f.target} |"
            f" {_met(f.met)} |"
        )
    notes = [f"- {f.name}: {f.note}" for f in figures if f.note]
    return [*lines, "", *notes] if notes else lines


def run(names: list[str], scale: float) -> tuple[dict[str, list[Figure]], dict[str, str], dict]:
    results: dict[str, list[Figure]] = {}
    errors: dict[str, str] = {}
    seconds: dict[str, float] = {}
    for name in names:
        started = time.monotonic()
        print(f"== {name} (scale {scale})", file=sys.stderr, flush=True)
        try:
            module = importlib.import_module(f"bench.{name}")
            measure = getattr(module, "measure", None)
            if measure is None:
                raise AttributeError(f"bench/{name}.py has no measure(scale) function")
            results[name] = list(measure(scale))
        except ModuleNotFoundError as exc:
            if exc.name == f"bench.{name}":
                errors[name] = f"bench/{name}.py does not exist"
            else:
                errors[name] = traceback.format_exc(limit=8)
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            errors[name] = traceback.format_exc(limit=8)
        seconds[name] = time.monotonic() - started
        status = "failed" if name in errors else f"{len(results.get(name, []))} figures"
        print(f"   {status} in {seconds[name]:.1f} s", file=sys.stderr, flush=True)
    return results, errors, seconds


def render(
    command: str,
    started: dt.datetime,
    facts: list[tuple[str, str]],
    results: dict[str, list[Figure]],
    errors: dict[str, str],
    seconds: dict[str, float],
    names: list[str],
) -> str:
    out = [
        "# Benchmark results",
        "",
        "Written by `bench/run_all.py`; do not edit by hand. Each figure sits next to a floor",
        "measured in the same run on the same machine: compare ratios across machines, not",
        "absolute numbers.",
        "",
        f"- command: `{command}`",
        f"- date: {started.strftime('%Y-%m-%d %H:%M UTC')}",
    ]
    out += [f"- {k}: {v}" for k, v in facts]
    unmet = [f"{n}: {f.name}" for n in names for f in results.get(n, []) if f.met is False]
    out += ["", f"Targets not met: {len(unmet)}; benchmarks failed: {len(errors)}.", ""]
    for name in names:
        out += section(name, results, errors, seconds)
    return "\n".join(out)


def section(
    name: str,
    results: dict[str, list[Figure]],
    errors: dict[str, str],
    seconds: dict[str, float],
    measured: str = "",
) -> list[str]:
    """One module's section of the report; ``measured`` says when it was run alone."""
    bench = results.get(name)
    title = bench[0].bench if bench else name.replace("_", " ")
    out = [f"## {title} (`bench/{name}.py`, {seconds.get(name, 0):.0f} s)", ""]
    if measured:
        out += [measured, ""]
    if name in errors:
        out += ["**Failed:**", "", "```", errors[name].rstrip(), "```", ""]
    elif not bench:
        out += ["(no figures)", ""]
    else:
        out += [*table(bench), ""]
    return out


#: the paths whose uncommitted changes a figure measured alone is marked with
PRODUCT = ("digest", "worker", "prompts", "migrations")
_TALLY = re.compile(r"^Targets not met: \d+; benchmarks failed: \d+\.$", re.M)


def update(report: str, sections: dict[str, list[str]]) -> str:
    """``report`` with the sections of ``sections``' modules replaced (or added at the end),
    and its tally of unmet targets and failed benchmarks counted again from every section."""
    parts = re.split(r"(?m)^(?=## )", report.rstrip("\n") + "\n")
    head, body = parts[0], parts[1:]
    for name, lines in sections.items():
        text = "\n".join(lines).rstrip("\n") + "\n\n"
        mine = next(
            (i for i, p in enumerate(body) if f"(`bench/{name}.py`" in p.split("\n")[0]), None
        )
        if mine is None:
            body.append(text)
        else:
            body[mine] = text
    merged = "".join(p.rstrip("\n") + "\n\n" for p in body)
    unmet = len(re.findall(r"(?m)\| \*\*no\*\* \|$", merged))
    failed = len(re.findall(r"(?m)^\*\*Failed:\*\*$", merged))
    head = _TALLY.sub(f"Targets not met: {unmet}; benchmarks failed: {failed}.", head)
    return head + merged  # each section ends with a blank line, as ``render`` writes it


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--only", default="", help="comma-separated module names")
    parser.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    parser.add_argument(
        "--update", action="store_true", help="replace only these modules' sections in --out"
    )
    args = parser.parse_args()
    names = [n for n in args.only.split(",") if n] or list(MODULES)
    command = " ".join(
        shlex.quote(a) for a in [".venv/bin/python", "bench/run_all.py", *sys.argv[1:]]
    )
    started = dt.datetime.now(dt.UTC)
    facts = machine()
    results, errors, seconds = run(names, args.scale)
    if args.update and args.out.exists():
        commit = dict(facts).get("git commit", "unknown")
        if _dirty():
            commit += " with uncommitted changes to the product"
        measured = (
            f"Measured alone at {commit} on {started.strftime('%Y-%m-%d %H:%M UTC')}:"
            f" `{command}` (the header describes the full run)."
        )
        sections = {n: section(n, results, errors, seconds, measured) for n in names}
        args.out.write_text(update(args.out.read_text(), sections))
    else:
        args.out.write_text(render(command, started, facts, results, errors, seconds, names) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    for name, error in errors.items():
        print(f"{name} failed:\n{error}", file=sys.stderr)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
