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
switched off so attempts do not multiply. Each call reports tokens and cost. A remote call
made for a tenant (``digest.model.spend.for_tenant``) is charged to its daily budget: reserved
before the call, before it takes a fleet slot, and settled with the provider's usage after it;
a spent budget raises ``BudgetExhausted`` and no request leaves.

The embedding seam (``digest.identity.embedding``) calls litellm too, through the same public
pieces (``digest.model.provider``, re-exported here), so both seams share one litellm
configuration and one notion of a transient fault: ``load_litellm`` (the import, with
litellm's process-wide settings made once), ``call_args`` (the model string, timeout, provider
address and key, and the per-call retry switches at 0) and ``provider_fault`` (what an
exception out of a litellm call means).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from tenacity import (
    RetryCallState,
    retry_if_exception_type,
    wait_random_exponential,
)
from tenacity import Retrying as _Retrying

from digest.config import Settings, get_settings
from digest.errors import LLMError, LLMOutputError, LLMTransientError
from digest.extras import require
from digest.logs import get_logger
from digest.model import limits, scripted, spend
from digest.model.offline import answer, is_offline_model, token_estimate
from digest.model.provider import (
    ProviderFault,
    call_args,
    load_litellm,
    permanent_reason,
    provider_args,
    provider_fault,
    retry_after,
    short_error,
    warm_up,
)
from digest.model.scripted import is_scripted_model

log = get_logger("digest.model")

__all__ = [
    "ProviderFault",
    "Usage",
    "call_and_parse",
    "call_args",
    "complete",
    "load_litellm",
    "ping",
    "provider_args",
    "provider_fault",
    "require_litellm",
    "retry_after",
    "time_budget",
    "time_left",
    "warm_up",
    "warm_up_for",
]

T = TypeVar("T")

#: when the model calls of the running task must have ended (``time.monotonic()``)
_deadline: ContextVar[float | None] = ContextVar("digest_model_deadline", default=None)
#: a call is not started with less time than this (or its whole timeout, if shorter) left
MIN_CALL_S = 5.0


def min_call_s(settings: Settings) -> float:
    """The least time left before the deadline in which a model call is still started."""
    return min(MIN_CALL_S, settings.llm_timeout_s)


@contextmanager
def time_budget(seconds: float) -> Iterator[float]:
    """Model calls inside end within ``seconds`` from now (an enclosing budget that ends
    sooner wins): a call gets at most the time left as its timeout, no retry starts that
    could not finish, and a step that runs out raises ``LLMTransientError`` (the event is
    put back as waiting, not left to the worker's hard time limit). Yields the deadline."""
    deadline = time.monotonic() + seconds
    outer = _deadline.get()
    if outer is not None:
        deadline = min(deadline, outer)
    token = _deadline.set(deadline)
    try:
        yield deadline
    finally:
        _deadline.reset(token)


def time_left() -> float | None:
    """Seconds left in the running task's model budget (None: no budget set)."""
    deadline = _deadline.get()
    return None if deadline is None else deadline - time.monotonic()


def _out_of_time(left: float, need: float) -> LLMTransientError:
    return LLMTransientError(
        f"the task's time budget is spent ({max(left, 0):.1f} s left, a model call needs "
        f"{need:g} s)"
    )


@dataclass
class Usage:
    """What a step's model calls cost. Summed across retries: a retried call still cost."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    errors: list[str] = field(default_factory=list)
    #: the model of the last call (``digest_runs.model``: ``digest stats`` tells the offline
    #: rules, which cost nothing, from a provider's model)
    model: str | None = None

    def add(self, other: Usage) -> None:
        self.model = other.model or self.model
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.errors.extend(other.errors)


def complete(
    messages: list[dict[str, str]],
    *,
    model: str,
    settings: Settings | None = None,
    usage: Usage,
) -> str:
    """One model call, no retry. Raises LLMTransientError / LLMError; records usage."""
    settings = settings or get_settings()
    usage.model = model
    if is_offline_model(model):
        return _complete_in_process(answer, messages, usage)
    if is_scripted_model(model):
        return _complete_in_process(partial(scripted.answer, model), messages, usage)
    litellm = load_litellm(f"the model {model!r}")
    timeout = settings.llm_timeout_s
    left = time_left()
    if left is not None:
        if left < min_call_s(settings):
            raise _out_of_time(left, min_call_s(settings))
        timeout = min(timeout, left)
    kwargs = call_args(
        model, timeout=timeout, api_base=settings.llm_api_base, api_key=settings.llm_api_key
    )
    try:  # the tenant's daily budget first: a refused call holds no fleet slot
        bill = spend.charge(model, messages, settings)
    except LLMError as exc:  # BudgetExhausted, or the ledger out of reach: no call was made
        usage.errors.append(f"{type(exc).__name__}: {exc}")
        raise
    tokens: int | None = None
    cost = 0.0
    try:
        with limits.model_slot(model, settings, deadline=_deadline.get()):
            usage.calls += 1
            response = litellm.completion(
                messages=messages, max_tokens=settings.llm_max_tokens, temperature=0, **kwargs
            )
        reported = getattr(response, "usage", None)
        if reported is not None:
            prompt = int(getattr(reported, "prompt_tokens", 0) or 0)
            completion = int(getattr(reported, "completion_tokens", 0) or 0)
            usage.prompt_tokens += prompt
            usage.completion_tokens += completion
            tokens = prompt + completion
        try:
            cost = float(litellm.completion_cost(completion_response=response) or 0.0)
        except Exception:  # unknown model prices (local servers) cost nothing known
            log.debug("cost_unknown", model=model)
        usage.cost_usd += cost
    except LLMTransientError as exc:  # no slot came free: no call was made
        tokens = 0
        usage.errors.append(str(exc))
        raise
    except Exception as exc:
        tokens = 0  # a failed call reported no usage: nothing known is charged
        raise _model_error(exc, usage) from exc
    finally:
        if bill is not None:
            bill.settle(tokens, cost)
    return _content(response)


def _model_error(exc: BaseException, usage: Usage | None = None) -> LLMError:
    """A model call's exception as digest's error (recorded in ``usage``)."""
    fault = provider_fault(exc)
    if usage is not None:
        usage.errors.append(fault.message)
    if fault.transient:
        return LLMTransientError(fault.message, retry_after=fault.retry_after)
    return LLMError(permanent_reason(exc, fault.message))


def ping(model: str, settings: Settings) -> str:
    """Ask ``model`` for one token (``digest doctor``): returns what answered, raises
    ``LLMError`` with the reason it did not. No retry, no fleet slot: a health check."""
    if answered_in_process(model):
        return "answered in this process (no provider)"
    litellm = load_litellm(f"the model {model!r}")
    kwargs = call_args(
        model,
        timeout=min(settings.llm_timeout_s, 15.0),
        api_base=settings.llm_api_base,
        api_key=settings.llm_api_key,
    )
    try:
        litellm.completion(
            messages=[{"role": "user", "content": "Reply with the word ok."}],
            max_tokens=5,
            **kwargs,
        )
    except Exception as exc:
        raise _model_error(exc) from exc
    return "answered"


def require_litellm(settings: Settings, needed_by: str) -> None:
    """``MissingExtra`` before any work when a model the settings name (``DIGEST_LLM_MODEL``
    or a step's own) needs litellm and the ``llm`` extra is not installed, naming the setting:
    ``digest drain with DIGEST_LLM_MODEL=openai/gpt-4o-mini needs litellm: pip install
    'lesson-digest[llm]'``. An agent's own model override is checked when it is called."""
    for step in ("reflect", "reconcile", "summarize"):
        model = settings.model_for(step)
        if not answered_in_process(model):
            own = getattr(settings, f"llm_{step}_model", None)
            setting = f"DIGEST_LLM_{step.upper()}_MODEL" if own else "DIGEST_LLM_MODEL"
            require("llm", f"{needed_by} with {setting}={model}")


def needs_litellm(settings: Settings) -> bool:
    """Does a model the settings name go through litellm: a step's chat model that is not
    answered in process, or an embedding model that is a provider's (not ``static``,
    ``local`` or ``none``)?"""
    steps = ("reflect", "reconcile", "summarize")
    if any(not answered_in_process(settings.model_for(step)) for step in steps):
        return True
    embedding = settings.embedding_model.strip()
    return embedding.lower() != "none" and not embedding.startswith(("static", "local"))


def warm_up_for(settings: Settings | None = None) -> bool:
    """Import litellm now (``warm_up``) when a model the settings name needs it; True if it
    did. With every model answered in process (``offline/rules``, the static table) litellm,
    some 150 MB of a process's memory, is not loaded: an agent whose own model override
    needs it loads it on that model's first call."""
    if not needs_litellm(settings or get_settings()):
        return False
    warm_up()
    return True


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
        usage.errors.append(f"{type(exc).__name__}: {short_error(exc)}")
        raise
    prompt_tokens, completion_tokens = token_estimate(list(messages), text)
    usage.prompt_tokens += prompt_tokens
    usage.completion_tokens += completion_tokens
    return text  # nothing answered in process costs money


def _content(response: Any) -> str:
    content = response.choices[0].message.content
    return content if isinstance(content, str) else ""


def call_and_parse(
    messages: list[dict[str, str]],
    parse: Callable[[str], T],
    *,
    model: str,
    usage: Usage,
    settings: Settings | None = None,
) -> T:
    """Call the model and parse its answer, retrying transient faults and unparseable output.

    Bounded by ``DIGEST_LLM_MAX_ATTEMPTS`` with jittered exponential waits (a provider's
    Retry-After instead, when it sent one), and by the task's ``time_budget``: no attempt
    starts that could not finish in it, and a Retry-After longer than
    ``DIGEST_LLM_RETRY_WAIT_MAX_S`` ends the attempts at once. The last error is raised as is
    (LLMTransientError or LLMOutputError) for the caller to record: the reflect pipeline
    then puts the event back as waiting (``digest.reflect.apply.mark_waiting``).
    """
    settings = settings or get_settings()

    def before_sleep(state: RetryCallState) -> None:
        exc = state.outcome.exception() if state.outcome else None
        log.warning(
            "llm_retry",
            model=model,
            attempt=state.attempt_number,
            error=short_error(exc) if exc else "",
        )

    backoff = wait_random_exponential(multiplier=0.5, max=settings.llm_retry_wait_max_s)

    def wait(state: RetryCallState) -> float:
        # The provider's Retry-After wins over our backoff (up to the longest wait we allow).
        exc = state.outcome.exception() if state.outcome else None
        hinted = getattr(exc, "retry_after", None)
        if hinted is not None:
            return min(float(hinted), settings.llm_retry_wait_max_s)
        return float(backoff(state))

    def stop(state: RetryCallState) -> bool:
        if state.attempt_number >= settings.llm_max_attempts:
            return True
        exc = state.outcome.exception() if state.outcome else None
        hinted = getattr(exc, "retry_after", None)
        if hinted is not None and hinted > settings.llm_retry_wait_max_s:
            return True  # the provider asks for longer than a task may wait: defer the event
        left = time_left()
        # the next attempt needs its wait and a call's minimum before the budget ends
        return left is not None and left < wait(state) + min_call_s(settings)

    retrying = _Retrying(
        stop=stop,
        wait=wait,
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
