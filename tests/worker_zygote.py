"""A process that has imported what a worker imports (``worker.tasks``, litellm, Celery's
worker), and starts each test worker by forking itself: ``spawn_worker``'s worker then costs a
fork instead of a fresh interpreter's 3-5 s of imports (much more on a loaded host).

The fork child is what ``celery -A worker worker ...`` would be: its own session (process
group), the given environment only, the log file as stdout and stderr, no stdin, the
process's state forgotten (``digest.runtime``), then Celery's own command line. The zygote
stays single-threaded and opens no socket, so there is nothing a child could share.

Protocol (lines of JSON on stdin; lines on stdout): ``{"env", "argv", "log", "cwd"}`` →
``pid <n>``; when a child ends, ``exit <pid> <returncode>``. EOF on stdin ends every child
left and the zygote.
"""

import contextlib
import json
import os
import select
import signal
import sys
import traceback
from typing import Any

import billiard  # noqa: F401
import celery.apps.worker
import celery.bin.celery
import celery.concurrency.prefork
import celery.concurrency.thread  # noqa: F401

import worker
import worker.tasks
from digest.model.provider import warm_up

warm_up()
if worker.app.configured:  # the configuration must be read from each child's environment
    sys.stdout.write("error the app was configured at import\n")
    sys.stdout.flush()
    raise SystemExit(1)


def child(request: dict[str, Any]) -> None:
    code = 1
    try:
        os.setsid()
        log = os.open(request["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        os.close(null)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        from digest.runtime import runtime

        runtime().reset()
        sys.argv = request["argv"]
        from celery.__main__ import main

        main()
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:
        traceback.print_exc()
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def reap(children: set[int]) -> None:
    while children:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        children.discard(pid)
        sys.stdout.write(f"exit {pid} {os.waitstatus_to_exitcode(status)}\n")
        sys.stdout.flush()


def main() -> None:
    children: set[int] = set()
    buffer = b""
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    while True:
        readable, _, _ = select.select([0], [], [], 0.05)
        reap(children)
        if not readable:
            continue
        data = os.read(0, 65536)
        if not data:
            break
        buffer += data
        while b"\n" in buffer:
            line, buffer = buffer.split(b"\n", 1)
            request = json.loads(line)
            pid = os.fork()
            if pid == 0:
                child(request)
            children.add(pid)
            sys.stdout.write(f"pid {pid}\n")
            sys.stdout.flush()
    for pid in children:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)
    while children:
        reap(children)


if __name__ == "__main__":
    main()
