"""SQL statements per process, for the pipeline benchmarks: a SQLAlchemy listener on every
engine counts the statements sent (an ``executemany`` is one) and the transactions committed.

In a worker (``python bench/_sql_count.py <celery arguments>``, what ``_worker.start_worker``
runs when its environment names ``BENCH_SQL_COUNTS``) each process writes its counts to
``$BENCH_SQL_COUNTS/<pid>`` at each statement and commit, in place (one ``pwrite``: a few
microseconds; a prefork child's counts start at zero under its own pid). The benchmark
process counts its own (capture's) with ``install()`` and reads ``counts()``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

#: the folder a worker's processes write their counts to (not ``DIGEST_*``: the worker would
#: warn about a setting it does not know)
ENV = "BENCH_SQL_COUNTS"

_counts = {"statements": 0, "commits": 0}
#: this process's counts file, open (None: not written, the benchmark process's own)
_file: list[int] = []


def counts() -> dict[str, int]:
    return dict(_counts)


def _open() -> None:
    """Counts from zero, written to this process's own file (after a fork: the child's)."""
    _counts.update(statements=0, commits=0)
    if _file:
        os.close(_file.pop())
    folder = os.environ.get(ENV)
    if folder:
        _file.append(os.open(Path(folder) / str(os.getpid()), os.O_WRONLY | os.O_CREAT, 0o644))
        _write()


def _write() -> None:
    if _file:
        os.pwrite(_file[0], b"%20d %20d" % (_counts["statements"], _counts["commits"]), 0)


def _statement(*_: Any) -> None:
    _counts["statements"] += 1
    _write()


def _commit(*_: Any) -> None:
    _counts["commits"] += 1
    _write()


def install() -> None:
    """Count every engine's statements and commits in this process from now on."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine

    if not event.contains(Engine, "before_cursor_execute", _statement):
        event.listen(Engine, "before_cursor_execute", _statement)
        event.listen(Engine, "commit", _commit)
        os.register_at_fork(after_in_child=_open)


def read_folder(folder: Path) -> dict[str, int]:
    """The counts every worker process wrote, summed."""
    total = {"statements": 0, "commits": 0}
    for path in folder.iterdir():
        statements, commits = path.read_text().split()
        total["statements"] += int(statements)
        total["commits"] += int(commits)
    return total


if __name__ == "__main__":  # a celery worker whose statements are counted
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # as ``python -m`` would
    install()
    _open()
    import _memory_trace  # opt-in: BENCH_MEMORY_TRACE (bench/throughput.py --trace-memory)

    _memory_trace.install()
    import _kept_bytes  # opt-in: BENCH_KEPT_BYTES (bench/_pipeline.py, the RSS verdict)

    _kept_bytes.install()
    from celery.__main__ import main

    sys.argv = ["celery", *sys.argv[1:]]
    main()
