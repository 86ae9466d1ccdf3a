"""A scripted OpenAI-compatible chat server on 127.0.0.1, for the real-provider path.

litellm talks to it as ``openai/<name>`` with ``api_base``. Requests are routed to a script by
a marker found in the prompt (``[script:NAME]``, which tests put in the event text), so one
worker can serve many tests and each test counts exactly its own requests.

When a prompt carries several markers (a reconcile request shows other events' lessons before
the candidate), ``FakeLLM(route_by_last=True)`` routes by the last one, the candidate's.

A script is a list of steps, one per request; the last step repeats. Steps:
``("reply", text)``, ``("status", code)`` or ``("status", code, error_message)``,
``("sleep", seconds, text)``.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections import defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MARKER = re.compile(r"\[script:([A-Za-z0-9_-]+)\]")
Step = tuple[Any, ...]


class FakeLLM:
    def __init__(self, *, route_by_last: bool = False) -> None:
        self.route_by_last = route_by_last
        self.scripts: dict[str, list[Step]] = {}
        self.requests: dict[str, int] = defaultdict(int)
        self.bodies: dict[str, list[dict[str, Any]]] = defaultdict(list)
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, name: str, *steps: Step) -> str:
        """Register a script; returns the marker to embed in the event text."""
        with self._lock:
            self.scripts[name] = list(steps)
        return f"[script:{name}]"

    def count(self, name: str) -> int:
        with self._lock:
            return self.requests[name]

    def start(self) -> FakeLLM:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _next_step(self, name: str) -> Step:
        with self._lock:
            index = self.requests[name]
            self.requests[name] += 1
            steps = self.scripts.get(name) or [("status", 500)]
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
                step = fake._next_step(name)
                if step[0] == "status":
                    message = step[2] if len(step) > 2 else f"scripted {step[1]}"
                    self._send(step[1], {"error": {"message": message}})
                    return
                if step[0] == "sleep":
                    time.sleep(step[1])
                    step = ("reply", step[2])
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

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    if status == 429:
                        self.send_header("Retry-After", "0")
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
