"""A loopback OpenAI-compatible chat server that counts what the pipeline asks of a model.

It answers like a plausible model by delegating to the offline rules
(``digest.model.offline.answer``) and counts requests and prompt tokens (estimated as characters
/ 4, the same for every bank size, so per-event figures compare), in all and by the step that
asked (``kinds()``: reflect, reconcile, summarize, read from the blocks the prompt carries).
``answerer`` replaces the offline rules (``bench/_oracle.py``: the quality bench's oracle).
``latency_s`` makes every answer wait, like a remote model."""

from __future__ import annotations

import json
import os
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# digest.model.offline imports litellm: never let it fetch the model cost map over the network.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


class Loopback:
    def __init__(
        self, latency_s: float = 0.0, answerer: Callable[[list[dict[str, Any]]], str] | None = None
    ) -> None:
        self.latency_s = latency_s
        #: who answers a request (None: the offline rules); ``bench/_oracle.py`` passes its own
        self.answerer = answerer
        self.requests = 0
        self.prompt_tokens = 0
        self.errors = 0
        self._kinds: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._server.request_queue_size = 256
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def api_base(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def counts(self) -> tuple[int, int]:
        with self._lock:
            return self.requests, self.prompt_tokens

    def kinds(self) -> dict[str, int]:
        """Requests served so far by the step that sent them."""
        with self._lock:
            return dict(self._kinds)

    def __enter__(self) -> Loopback:
        self._thread.start()
        return self

    def __exit__(self, *_: Any) -> None:
        self._server.shutdown()
        self._server.server_close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        loop = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_: Any) -> None:
                return

            def do_POST(self) -> None:
                from digest.model.offline import answer

                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                messages = body.get("messages", [])
                prompt_tokens = sum(len(str(m.get("content") or "")) for m in messages) // 4 + 1
                with loop._lock:
                    loop.requests += 1
                    loop.prompt_tokens += prompt_tokens
                    loop._kinds[_step(messages)] += 1
                if loop.latency_s:
                    time.sleep(loop.latency_s)
                try:
                    text, status = (loop.answerer or answer)(messages), 200
                except Exception as exc:  # the rules found nothing to judge: a 400, as a model API
                    with loop._lock:
                        loop.errors += 1
                    self._send(400, {"error": {"message": str(exc)}})
                    return
                completion_tokens = len(text) // 4 + 1
                self._send(
                    status,
                    {
                        "id": "chatcmpl-loopback",
                        "object": "chat.completion",
                        "created": int(time.time()),
                        "model": body.get("model", "loopback"),
                        "choices": [
                            {
                                "index": 0,
                                "finish_reason": "stop",
                                "message": {"role": "assistant", "content": text},
                            }
                        ],
                        "usage": {
                            "prompt_tokens": prompt_tokens,
                            "completion_tokens": completion_tokens,
                            "total_tokens": prompt_tokens + completion_tokens,
                        },
                    },
                )

            def _send(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def _step(messages: list[dict[str, Any]]) -> str:
    """Which step of the pipeline sent a request, by the blocks its prompt carries."""
    text = "\n".join(str(m.get("content") or "") for m in messages)
    for block, step in (
        ("<added>", "summarize"),
        ("<candidates>", "reconcile"),
        ("<event>", "reflect"),
    ):
        if block in text:
            return step
    return "other"


def loopback_env(api_base: str) -> dict[str, str]:
    """Worker settings for the real-provider path pointed at the loopback server."""
    return {
        "DIGEST_LLM_MODEL": "openai/loopback",
        "DIGEST_LLM_API_BASE": api_base,
        "DIGEST_LLM_TIMEOUT_S": "30",
    }
