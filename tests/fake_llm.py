"""A scripted OpenAI-compatible chat server on 127.0.0.1, for the real-provider path.

litellm talks to it as ``openai/<name>`` with ``api_base``. Requests are routed to a script by
a marker found in the prompt (``[script:NAME]``, which tests put in the event text), so one
worker can serve many tests and each test counts exactly its own requests.

When a prompt carries several markers (a reconcile request shows other events' lessons before
the candidate), ``FakeLLM(route_by_last=True)`` routes by the last one, the candidate's.

``script_by_kind(name, reflect=[...], reconcile=[...])`` gives each step kind its own script
and its own count, told apart by the prompt (a reconcile request shows ``<candidates>``, a
reflect request an ``<event>``): a retry gets the next answer of its own kind even when an
earlier reply was lost on the way (a client timeout on a loaded host), where one shared
sequence would hand a reflect retry the reconcile answer.

A script is a list of steps, one per request; the last step repeats. Steps:
``("reply", text)``, ``("status", code)`` or ``("status", code, error_message)``,
``("sleep", seconds, text)``, ``("hang", text)``: no answer until the client hangs up (its
timeout, whatever it is; at most a minute), so a slow fault needs no timing assumption.
"""

from __future__ import annotations

import json
import re
import select
import socket
import threading
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

MARKER = re.compile(r"\[script:([A-Za-z0-9_-]+)\]")
Step = tuple[Any, ...]


class _Loopback:
    """An HTTP server on a free port of 127.0.0.1, serving ``_handler()`` on its own threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> Self:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        raise NotImplementedError


class FakeLLM(_Loopback):
    def __init__(self, *, route_by_last: bool = False) -> None:
        self.route_by_last = route_by_last
        self.scripts: dict[str, list[Step]] = {}
        self.kind_scripts: dict[str, dict[str, list[Step]]] = {}
        self.requests: dict[str, int] = defaultdict(int)
        self.kind_requests: dict[tuple[str, str], int] = defaultdict(int)
        self.bodies: dict[str, list[dict[str, Any]]] = defaultdict(list)
        super().__init__()

    def script(self, name: str, *steps: Step) -> str:
        """Register a script; returns the marker to embed in the event text."""
        with self._lock:
            self.scripts[name] = list(steps)
        return f"[script:{name}]"

    def script_by_kind(self, name: str, **kinds: list[Step]) -> str:
        """Register one script per step kind (``reflect``, ``reconcile``; see ``kind_of``);
        a request of a kind without a script gets a 500. Returns the marker."""
        unknown = set(kinds) - {"reflect", "reconcile"}
        assert not unknown, unknown
        with self._lock:
            self.kind_scripts[name] = {kind: list(steps) for kind, steps in kinds.items()}
        return f"[script:{name}]"

    def count(self, name: str, kind: str | None = None) -> int:
        """Requests served for ``name``: all of them, or those of one step ``kind``."""
        with self._lock:
            return self.requests[name] if kind is None else self.kind_requests[(name, kind)]

    @staticmethod
    def kind_of(messages: list[dict[str, Any]]) -> str:
        """``reconcile`` if the last message shows ``<candidates>``, ``reflect`` if an
        ``<event>``, else ``other``."""
        last = str(messages[-1].get("content", "")) if messages else ""
        if "<candidates>" in last:
            return "reconcile"
        return "reflect" if "<event>" in last else "other"

    def _next_step(self, name: str, kind: str = "other") -> Step:
        with self._lock:
            self.requests[name] += 1
            if name in self.kind_scripts:
                index = self.kind_requests[(name, kind)]
                steps = self.kind_scripts[name].get(kind) or [("status", 500)]
            else:
                index = self.requests[name] - 1
                steps = self.scripts.get(name) or [("status", 500)]
            self.kind_requests[(name, kind)] += 1
            return steps[min(index, len(steps) - 1)]

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:  # keep test output clean
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                text = json.dumps(body.get("messages", []))
                found = MARKER.findall(text)
                name = (found[-1] if fake.route_by_last else found[0]) if found else "_unscripted"
                with fake._lock:
                    fake.bodies[name].append(body)
                step = fake._next_step(name, fake.kind_of(body.get("messages", [])))
                if step[0] == "status":
                    message = step[2] if len(step) > 2 and step[2] else f"scripted {step[1]}"
                    retry_after = step[3] if len(step) > 3 else "0"
                    self._send(step[1], {"error": {"message": message}}, retry_after)
                    return
                if step[0] == "sleep":
                    time.sleep(step[1])
                    step = ("reply", step[2])
                if step[0] == "hang":
                    self._until_client_leaves(60.0)
                    step = ("reply", step[1])
                self._send(
                    200,
                    {
                        "id": "chatcmpl-fake",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "fake"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": step[1]},
                            }
                        ],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                    },
                )

            def _until_client_leaves(self, limit: float) -> None:
                """Wait until the client closes the connection (EOF or a reset), or ``limit``."""
                deadline = time.monotonic() + limit
                while (left := deadline - time.monotonic()) > 0:
                    readable, _, _ = select.select([self.connection], [], [], min(left, 1.0))
                    if readable:
                        try:
                            if not self.connection.recv(1, socket.MSG_PEEK):
                                return
                        except OSError:
                            return
                        time.sleep(0.01)  # bytes of a next request: not ours to read

            def _send(self, status: int, payload: dict[str, Any], retry_after: str = "0") -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if status == 429:
                        self.send_header("Retry-After", retry_after)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    return  # the client gave up (its timeout): that is the point of the step

        return Handler


LESSON = (
    "<lesson>\n<situation>Calling the scripted tool</situation>\n"
    "<mistake>It failed.</mistake>\n<correction>Check the scripted arguments first.</correction>\n"
    "<tags>scripted, tool-error</tags>\n</lesson>"
)


class ChaosLLM(_Loopback):
    """An OpenAI-compatible server whose every request draws a fault at the given ``rates``
    (seeded), and otherwise answers correctly: a reflect request (it shows an ``<event>``)
    gets one lesson quoting the event's ``[script:NAME]`` marker, a reconcile request
    (``<candidates>``) an ADD of its candidate. Faults: ``429`` (with ``Retry-After``),
    ``503``, ``garbage`` (not text the contracts read), ``prose`` (an answer in words, no
    tags or JSON), ``bad-ids`` (a reconcile answer naming lessons and candidates that do not
    exist; on a reflect request it is a valid answer).

    ``calls`` records (start, end, status) per request, ``max_in_flight`` the most requests
    it served at once: what a fleet-wide limit is checked against."""

    KINDS = ("429", "503", "garbage", "prose", "bad-ids")

    def __init__(self, rates: dict[str, float], seed: int = 1, retry_after: str = "1") -> None:
        import random

        unknown = set(rates) - set(self.KINDS)
        assert not unknown, unknown
        self.rates, self.retry_after = rates, retry_after
        self.rng = random.Random(seed)
        #: (start, end, status, model) per request
        self.calls: list[tuple[float, float, int, str]] = []
        self.faults: Counter[str] = Counter()
        self.in_flight = self.max_in_flight = 0
        super().__init__()

    def _draw(self) -> str | None:
        with self._lock:
            roll = self.rng.random()
        for kind, rate in self.rates.items():
            if roll < rate:
                return kind
            roll -= rate
        return None

    def answer(self, messages: list[dict[str, Any]]) -> tuple[int, str]:
        text = "\n".join(str(m.get("content", "")) for m in messages)
        fault = self._draw()
        if fault is not None:
            with self._lock:
                self.faults[fault] += 1
        if fault in ("429", "503"):
            return int(fault), ""
        if fault == "garbage":
            return 200, "\x00\x7f{{<<lesson"
        if fault == "prose":
            return 200, "I think the agent did fine and should just try again next time."
        if "<candidates>" in text:
            if fault == "bad-ids":
                return 200, json.dumps({"operations": [
                    {"op": "UPDATE", "candidate": 0, "id": 99,
                     "lesson": {"situation": "made up", "correction": "made up"}},
                    {"op": "DELETE", "candidate": 7, "id": -1},
                    {"op": "ADD", "candidate": 0},
                ]})  # fmt: skip
            return 200, json.dumps({"operations": [{"op": "ADD", "candidate": 0}]})
        marker = MARKER.findall(text)
        name = marker[0] if marker else "unmarked"
        return 200, (
            f"<lesson><situation>Handling request {name}</situation><mistake>It was slow."
            f"</mistake><correction>Look up {name} in the index first.</correction>"
            "<tags>chaos</tags></lesson>"
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        chaos = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                return

            def do_POST(self) -> None:
                started, status, model, counted = time.time(), 0, "", True
                with chaos._lock:
                    chaos.in_flight += 1
                    chaos.max_in_flight = max(chaos.max_in_flight, chaos.in_flight)
                try:
                    length = int(self.headers.get("Content-Length") or 0)
                    body = json.loads(self.rfile.read(length) or b"{}")
                    model = str(body.get("model", ""))
                    status, content = chaos.answer(body.get("messages", []))
                    time.sleep(0.01)  # a model takes a moment: calls overlap
                    if status != 200:
                        payload: dict[str, Any] = {"error": {"message": f"chaos {status}"}}
                    else:
                        payload = {
                            "id": "chatcmpl-chaos",
                            "object": "chat.completion",
                            "created": int(started),
                            "model": body.get("model", "chaos"),
                            "choices": [{"index": 0, "finish_reason": "stop",
                                         "message": {"role": "assistant", "content": content}}],
                            "usage": {"prompt_tokens": 11, "completion_tokens": 7,
                                      "total_tokens": 18},
                        }  # fmt: skip
                    data = json.dumps(payload).encode()
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if status == 429:
                        self.send_header("Retry-After", chaos.retry_after)
                    # the request stops counting as in flight before its answer goes out: the
                    # client frees its slot the moment it reads the answer, and a thread that
                    # wrote it may run its bookkeeping only after the next request arrived (the
                    # span counted is inside the client's, so the check stays strict)
                    with chaos._lock:
                        chaos.in_flight -= 1
                        counted = False
                    self.end_headers()
                    self.wfile.write(data)
                finally:
                    with chaos._lock:
                        if counted:
                            chaos.in_flight -= 1
                        chaos.calls.append((started, time.time(), status, model))

        return Handler


class HandlerLLM(_Loopback):
    """The tests' OpenAI-compatible server answering every request with ``handler(messages)``
    (a 400 if it raises): a scripted model a worker process reaches through litellm."""

    def __init__(self, handler: Callable[[list[dict[str, Any]]], str]) -> None:
        self.handler = handler
        #: the requests served
        self.requests = 0
        super().__init__()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                return

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                with server._lock:
                    server.requests += 1
                try:
                    text = server.handler(body.get("messages", []))
                except Exception as exc:
                    self._reply(400, {"error": {"message": f"{type(exc).__name__}: {exc}"}})
                    return
                message = {"role": "assistant", "content": text}
                self._reply(
                    200,
                    {
                        "id": "chatcmpl-handler",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "fake"),
                        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                        "usage": {"prompt_tokens": 11, "completion_tokens": 7, "total_tokens": 18},
                    },
                )

            def _reply(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    return

        return Handler


class OfflineOverHTTP(HandlerLLM):
    """An OpenAI-compatible server that answers every request as ``offline/rules`` would
    answer the same messages in process: the remote path (litellm over HTTP, no transaction
    open during the call, an event at a time) with the embedded default's judgements, so a
    test can show that both paths of the one reflect core decide the same. ``requests``
    counts the model calls served."""

    def __init__(self) -> None:
        from digest.model.offline import answer

        super().__init__(answer)
