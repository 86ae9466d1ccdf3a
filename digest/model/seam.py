"""The model seam (DESIGN §4): every LLM call goes through litellm with a model string.

litellm is imported here, lazily, on the first call: the capture path never pays for it.
``offline/*`` model strings are the exception: the deterministic rules (``digest.model.offline``)
are answered in process, without litellm (10-40 ms of its overhead per call and a 2-3 s
import, for a function that takes well under a millisecond). They still get the same rendered
messages, the same parser and retries, and record usage (estimated tokens, zero cost); the
rules stay registered as a litellm custom provider for code that calls litellm itself.
``scripted/*`` model strings (``digest.model.scripted``, the twin tests register a handler
for) are answered in process the same way.
Retries are ours (tenacity, bounded, jittered); litellm's and the OpenAI SDK's own retries are
switched off so attempts do not multiply. Each call reports tokens and cost.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

import structlog
from tenacity import (
    RetryCallState,
    retry_if_exception_type,
    stop_after_attempt,
    wait_random_exponential,
)
from tenacity import Retrying as _Retrying

from digest.config import Settings, get_settings
from digest.errors import LLMError, LLMOutputError, LLMTransientError, is_time_limit
from digest.model import scripted
from digest.model.offline import answer, is_offline_model, token_estimate
from digest.model.scripted import is_scripted_model

log = structlog.get_logger("digest.model")

T = TypeVar("T")

_setup_lock = threading.Lock()
_litellm: Any = None


@dataclass
class Usage:
    """What a step's model calls cost. Summed across retries: a retried call still cost."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    errors: list[str] = field(default_factory=list)

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.errors.extend(other.errors)


def _load_litellm() -> Any:
    """Import and configure litellm once per process."""
    global _litellm
    with _setup_lock:
        if _litellm is None:
            # Never fetch the model cost map over the network at import time.
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            from digest.model.offline_provider import OfflineRules

            litellm.num_retries = 0
            litellm.suppress_debug_info = True
            litellm.telemetry = False
            litellm.drop_params = True
            litellm.custom_provider_map = [
                {"provider": "offline", "custom_handler": OfflineRules()},
            ]
            _litellm = litellm
        return _litellm


def warm_up() -> None:
    """Import and configure litellm now (worker children call this at start)."""
    _load_litellm()


def _transient_types(litellm: Any) -> tuple[type[BaseException], ...]:
    names = (
        "RateLimitError",
        "Timeout",
        "APIConnectionError",
        "InternalServerError",
        "ServiceUnavailableError",
        "BadGatewayError",
    )
    return tuple(getattr(litellm, n) for n in names if hasattr(litellm, n))


def complete(
    messages: list[dict[str, str]],
    *,
    model: str,
    settings: Settings | None = None,
    usage: Usage,
) -> str:
    """One model call, no retry. Raises LLMTransientError / LLMError; records usage."""
    settings = settings or get_settings()
    if is_offline_model(model):
        return _complete_in_process(answer, messages, usage)
    if is_scripted_model(model):
        return _complete_in_process(partial(scripted.answer, model), messages, usage)
    litellm = _load_litellm()
    kwargs: dict[str, Any] = {
        "model": model,
        "messages": messages,
        "timeout": settings.llm_timeout_s,
        "max_tokens": settings.llm_max_tokens,
        "temperature": 0,
        "num_retries": 0,
        "max_retries": 0,
    }
    if settings.llm_api_base:
        kwargs["api_base"] = settings.llm_api_base
    if settings.llm_api_key is not None:
        kwargs["api_key"] = settings.llm_api_key.get_secret_value()
    elif settings.llm_api_base:
        kwargs["api_key"] = "no-key"  # local OpenAI-compatible servers ignore it
    usage.calls += 1
    try:
        response = litellm.completion(**kwargs)
    except Exception as exc:
        _reraise_time_limit(exc)
        message = f"{type(exc).__name__}: {_short(exc)}"
        usage.errors.append(message)
        if isinstance(exc, _transient_types(litellm)):
            raise LLMTransientError(message) from exc
        raise LLMError(message) from exc
    reported = getattr(response, "usage", None)
    if reported is not None:
        usage.prompt_tokens += int(getattr(reported, "prompt_tokens", 0) or 0)
        usage.completion_tokens += int(getattr(reported, "completion_tokens", 0) or 0)
    try:
        usage.cost_usd += float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # unknown model prices (local servers) cost nothing known
        log.debug("cost_unknown", model=model)
    return _content(response)


def answered_in_process(model: str) -> bool:
    """Is ``model`` answered in this process, without litellm (``offline/*``, ``scripted/*``)?"""
    return is_offline_model(model) or is_scripted_model(model)


def _complete_in_process(
    respond: Callable[[list[dict[str, Any]]], str], messages: list[dict[str, str]], usage: Usage
) -> str:
    """One call answered in process (the offline rules, a scripted handler): the same contract
    as a model call. Whatever it raises is recorded and raised as is."""
    usage.calls += 1
    try:
        text = respond(list(messages))
    except Exception as exc:
        usage.errors.append(f"{type(exc).__name__}: {_short(exc)}")
        raise
    prompt_tokens, completion_tokens = token_estimate(list(messages), text)
    usage.prompt_tokens += prompt_tokens
    usage.completion_tokens += completion_tokens
    return text  # nothing answered in process costs money


def _content(response: Any) -> str:
    content = response.choices[0].message.content
    return content if isinstance(content, str) else ""


def _reraise_time_limit(exc: BaseException) -> None:
    """litellm wraps whatever its call raised, a worker's soft time limit included, in an
    ``APIConnectionError``; retried as a model fault, the limit would never stop the task (only
    the hard limit, which kills the pool child). Re-raise the limit itself."""
    seen: BaseException | None = exc
    while seen is not None:
        if is_time_limit(seen):
            raise seen
        seen = seen.__cause__ or seen.__context__


def call_and_parse(
    messages: list[dict[str, str]],
    parse: Callable[[str], T],
    *,
    model: str,
    usage: Usage,
    settings: Settings | None = None,
) -> T:
    """Call the model and parse its answer, retrying transient faults and unparseable output.

    Bounded by ``DIGEST_LLM_MAX_ATTEMPTS`` with jittered exponential waits. The last error is
    raised as is (LLMTransientError or LLMOutputError) for the caller to record.
    """
    settings = settings or get_settings()

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning(
            "llm_retry", model=model, attempt=state.attempt_number, error=_short(exc) if exc else ""
        )

    retrying = _Retrying(
        stop=stop_after_attempt(settings.llm_max_attempts),
        wait=wait_random_exponential(multiplier=0.5, max=settings.llm_retry_wait_max_s),
        retry=retry_if_exception_type((LLMTransientError, LLMOutputError)),
        before_sleep=before_sleep,
        reraise=True,
    )
    for attempt in retrying:
        with attempt:
            text = complete(messages, model=model, settings=settings, usage=usage)
            try:
                return parse(text)
            except LLMOutputError as exc:
                usage.errors.append(f"LLMOutputError: {exc}")
                raise
    raise AssertionError("unreachable: tenacity reraises the last error")


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
