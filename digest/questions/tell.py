"""Telling the worker about new questions off the asking agent's turn (issue 28).

A new question needs the worker's judge (``digest.questions.merge``), but the agent that asked
need not wait for the message: ``ask`` hands the agent's id to this process's one sender
thread and returns. The thread gathers for ``GATHER_S`` and then publishes
``digest.merge_questions`` once for each agent told (however many questions it opened
meanwhile; the message is coalesced per agent in the broker too). A message lost with the
process (or the broker) is sent again by the relay: a question left unjudged past
``DIGEST_RELAY_PENDING_AGE_S`` (``digest.outbox.relay``).

The sender is a piece of the process's runtime: its reset (a forked child, a test) and the
process's exit send what is left in the process that queued it and stop the thread. Standard
library only: ``ask`` is on the capture path.
"""

from __future__ import annotations

import atexit
import os
import threading
import time

from digest._log import stdlib_logger
from digest.config import Settings
from digest.outbox.publish import publish_merge_questions
from digest.runtime import runtime

log = stdlib_logger("digest.questions.tell")

#: how long a reset waits for the sender to finish, at most
CLOSE_WAIT_S = 5.0
#: how long the sender gathers the agents told before it sends (a close sends at once)
GATHER_S = 0.25


class _Sender:
    def __init__(self) -> None:
        self.pid = os.getpid()
        self.lock = threading.Condition()
        self.waiting: dict[int, Settings] = {}
        self.thread: threading.Thread | None = None
        self.closed = False

    def tell(self, agent_id: int, settings: Settings) -> None:
        with self.lock:
            self.waiting[agent_id] = settings
            if self.thread is None:
                self.thread = threading.Thread(
                    target=self._run, name="digest-questions-tell", daemon=True
                )
                self.thread.start()
            self.lock.notify_all()

    def _run(self) -> None:
        while True:
            with self.lock:
                while not self.waiting and not self.closed:
                    self.lock.wait()
                # gather what a burst of asks queues: one message per agent
                until = time.monotonic() + GATHER_S
                while not self.closed and (left := until - time.monotonic()) > 0:
                    self.lock.wait(left)
                batch, self.waiting = self.waiting, {}
                if not batch and self.closed:
                    return
            for agent_id, settings in batch.items():
                try:
                    publish_merge_questions(agent_id, settings)
                except Exception as exc:  # the relay sends it again; never kill the thread
                    log.warning("merge_publish_failed agent_id=%s error=%s", agent_id, exc)

    def close(self) -> None:
        """Send what is queued and stop (in a forked child: drop the parent's queue)."""
        with self.lock:
            if os.getpid() != self.pid:
                self.waiting = {}
            self.closed = True
            self.lock.notify_all()
            thread = self.thread
        if thread is not None and os.getpid() == self.pid:
            thread.join(CLOSE_WAIT_S)


def tell_worker(agent_id: int, settings: Settings) -> None:
    """Have ``digest.merge_questions`` published for the agent, off the caller's turn."""
    if settings.embedded:  # no worker: ``digest.pipeline.drain`` merges in its process
        return
    runtime().piece(_Sender).tell(agent_id, settings)


def flush_tells() -> None:
    """Send every message queued so far (tests, and a process about to exit)."""
    runtime().drop(_Sender)


@atexit.register
def _flush_at_exit() -> None:
    found = runtime().peek(_Sender)
    if found is not None:
        found.close()
