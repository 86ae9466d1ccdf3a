"""``scripted/*``: a model answered in process by a function a test registers.

The model seam's in-memory twin for tests, the way httpx's ``MockTransport`` stands in for the
network: a handler takes the rendered messages and returns the model's text, or raises what a
provider would (``LLMTransientError`` for a 429, ``LLMError`` for a bad request, anything else
for a bug). The seam answers ``scripted/*`` model strings exactly like ``offline/*``: in
process, with the same usage recording, the same parsers and the same tenacity retries in
``call_and_parse``; reflection batches such an agent's events as it does offline ones. So a
test drives the real pipeline with the answers it needs, without patching any function::

    def handler(messages):
        if step_of(messages) == "summarize":
            raise LLMTransientError("503 from the scripted provider")
        return rules(messages)  # everything else as offline/rules answers it

    with scripted_model(handler) as model:
        use_model(monkeypatch, model.name)  # DIGEST_LLM_MODEL (or an agent's llm_model)
        ...
    assert [step_of(m) for m in model.requests] == ["reflect", "summarize", ...]

A handler lives in the process that registered it (a worker subprocess has none), in its
runtime (``digest.runtime``), whose reset forgets it: a request for a name nobody registered
raises ``LLMError``, as a provider's unknown model would.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from types import TracebackType
from typing import Any

from digest.errors import LLMError
from digest.model.offline import (
    ADDED_BLOCK,
    CANDIDATES_BLOCK,
    EVENT_BLOCK,
    EXISTING_BLOCK,
)
from digest.model.offline import answer as rules
from digest.model.prefixes import SCRIPTED_PREFIX
from digest.runtime import runtime

#: model strings answered by a registered handler, in process
PREFIX = SCRIPTED_PREFIX

Messages = list[dict[str, Any]]
#: ``handler(messages) -> text``: the model's answer to one request, or an exception
Handler = Callable[[Messages], str]

__all__ = [
    "PREFIX",
    "Handler",
    "Messages",
    "ScriptedModel",
    "answer",
    "event_of",
    "is_scripted_model",
    "reset",
    "rules",
    "scripted_model",
    "step_of",
]


class _Registry:
    """The handlers registered in this process, by model string."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.models: dict[str, ScriptedModel] = {}


def is_scripted_model(model: str) -> bool:
    """Is ``model`` answered in process by a registered handler?"""
    return model.startswith(PREFIX)


class ScriptedModel:
    """A handler under a model string (``scripted/<unique>`` unless named), with every request
    it received in ``requests``. Registered while used as a context manager (or between
    ``register`` and ``unregister``)."""

    def __init__(self, handler: Handler, name: str | None = None) -> None:
        self.handler = handler
        self.name = f"{PREFIX}{name or uuid.uuid4().hex[:12]}"
        #: the messages of every request, in the order they came
        self.requests: list[Messages] = []
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"ScriptedModel(name={self.name!r}, requests={len(self.requests)})"

    def register(self) -> ScriptedModel:
        registry = runtime().piece(_Registry)
        with registry.lock:
            if registry.models.get(self.name, self) is not self:
                raise ValueError(f"{self.name} is already registered")
            registry.models[self.name] = self
        return self

    def unregister(self) -> None:
        registry = runtime().piece(_Registry)
        with registry.lock:
            if registry.models.get(self.name) is self:
                del registry.models[self.name]

    def __enter__(self) -> ScriptedModel:
        return self.register()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.unregister()

    def __call__(self, messages: Messages) -> str:
        copied = [dict(m) for m in messages]
        with self._lock:
            self.requests.append(copied)
        return self.handler(copied)


def scripted_model(handler: Handler, *, name: str | None = None) -> ScriptedModel:
    """A scripted model for ``handler``; use it as a context manager to register it."""
    return ScriptedModel(handler, name)


def answer(model: str, messages: Messages) -> str:
    """The registered handler's answer to one request (``digest.model.seam`` calls this)."""
    registry = runtime().piece(_Registry)
    with registry.lock:
        found = registry.models.get(model)
    if found is None:
        raise LLMError(f"no handler is registered for {model!r} in this process")
    return found(messages)


def reset() -> None:
    """Forget every registered handler (as the runtime's reset does)."""
    runtime().drop(_Registry)


# --- what a handler reads from a request ---------------------------------------------------------


def _user_text(messages: Messages) -> str:
    return "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")


def step_of(messages: Messages) -> str:
    """Which step asks: ``reflect``, ``reconcile`` or ``summarize`` (by the blocks the prompts
    carry, as offline/rules tells them apart), or ``unknown``."""
    text = _user_text(messages)
    if ADDED_BLOCK.search(text):
        return "summarize"
    if EXISTING_BLOCK.search(text) and CANDIDATES_BLOCK.search(text):
        return "reconcile"
    if EVENT_BLOCK.search(text):
        return "reflect"
    return "unknown"


def event_of(messages: Messages) -> dict[str, Any] | None:
    """The event a reflect request shows (its ``<event>`` JSON: id, kind, trust, payload)."""
    found = EVENT_BLOCK.search(_user_text(messages))
    if found is None:
        return None
    event = json.loads(found.group(1))
    return event if isinstance(event, dict) else None
