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

The embedding seam (``digest.identity.embedding``) calls litellm too, through the same public
pieces, so both seams share one litellm configuration and one notion of a transient fault:
``load_litellm`` (the import, with litellm's process-wide settings made once), ``call_args``
(the model string, timeout, provider address and key, and the per-call retry switches at 0)
and ``provider_fault`` (what an exception out of a litellm call means).
"""

from __future__ import annotations

import email.utils
import os
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import partial
from typing import Any, TypeVar

from pydantic import SecretStr
from tenacity import (
    RetryCallState,
    retry_if_exception_type,
    wait_random_exponential,
)
from tenacity import Retrying as _Retrying

from digest.config import Settings, get_settings
from digest.errors import LLMError, LLMOutputError, LLMTransientError, is_time_limit
from digest.logs import get_logger
from digest.model import limits, scripted
from digest.model.offline import answer, is_offline_model, token_estimate
from digest.model.scripted import is_scripted_model

log = get_logger("digest.model")

T = TypeVar("T")

_setup_lock = threading.Lock()
_litellm: Any = None

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

    def add(self, other: Usage) -> None:
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.errors.extend(other.errors)


def load_litellm() -> Any:
    """litellm, imported and configured by the first call in this process.

    Its process-wide settings are made here, once, before any call is made: litellm's own
    retries off (``num_retries``, and ``DEFAULT_MAX_RETRIES``, which its OpenAI and Azure
    embedding calls use in place of an explicit ``max_retries=0``: ``max_retries or
    litellm.DEFAULT_MAX_RETRIES``, BerriAI/litellm#7003), no telemetry, no debug banner,
    parameters a provider does not take dropped, the model cost map read from the installed
    package (never fetched at import), and ``offline/rules`` registered as a custom provider.
    No logging callbacks are registered: usage is read from each response. A call's own
    arguments (``call_args``) switch off the OpenAI SDK's retries."""
    global _litellm
    if _litellm is not None:
        return _litellm
    with _setup_lock:
        if _litellm is None:
            # Read before litellm's import, which would otherwise fetch the cost map.
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            import litellm

            from digest.model.offline_provider import OfflineRules

            litellm.num_retries = 0
            # declared Final, yet read at call time: the one knob for those embedding calls
            litellm.DEFAULT_MAX_RETRIES = 0  # type: ignore[misc]
            litellm.suppress_debug_info = True
            if isinstance(getattr(litellm, "telemetry", None), bool):
                # Versions with a telemetry flag get it off. Newer ones have none, and their
                # proxy's ``litellm.telemetry`` package (off unless consented to) is not shadowed.
                litellm.telemetry = False
            litellm.drop_params = True
            litellm.custom_provider_map = [
                {"provider": "offline", "custom_handler": OfflineRules()},
            ]
            _litellm = litellm
        return _litellm


def warm_up() -> None:
    """Import and configure litellm now (worker children call this at start)."""
    load_litellm()


def call_args(
    model: str, *, timeout: float, api_base: str | None, api_key: SecretStr | None
) -> dict[str, Any]:
    """What every litellm call of digest passes besides its content: the model string, the
    timeout, the provider's address and key (``provider_args``), and the per-call retry
    switches at 0 (litellm's ``num_retries``, the OpenAI SDK's ``max_retries``): tenacity's
    attempts are the only ones."""
    return {
        "model": model,
        "timeout": timeout,
        "num_retries": 0,
        "max_retries": 0,
        **provider_args(api_base, api_key),
    }


def provider_args(api_base: str | None, api_key: SecretStr | None) -> dict[str, str]:
    """A provider's address and key, as litellm arguments."""
    found: dict[str, str] = {}
    if api_base:
        found["api_base"] = api_base
    if api_key is not None:
        found["api_key"] = api_key.get_secret_value()
    elif api_base:
        found["api_key"] = "no-key"  # local OpenAI-compatible servers ignore it
    return found


#: litellm's exception classes of faults worth retrying (those this litellm version has)
_TRANSIENT_FAULTS = (
    "RateLimitError",
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)


@dataclass(frozen=True)
class ProviderFault:
    """What an exception out of a litellm call means for digest."""

    #: the exception's class name (``RateLimitError``, ``AuthenticationError``, …)
    kind: str
    #: its words on one line, at most 300 characters
    detail: str
    #: rate limit, 5xx, timeout, connection: worth retrying; anything else is permanent
    transient: bool
    #: the provider's Retry-After in seconds, when it sent one
    retry_after: float | None = None

    @property
    def message(self) -> str:
        return f"{self.kind}: {self.detail}"


def provider_fault(exc: BaseException) -> ProviderFault:
    """Classify an exception a litellm call raised.

    A worker's soft time limit is not a fault of the provider: litellm wraps whatever its call
    raised in an ``APIConnectionError``, and a limit retried as a transient fault would never
    stop the task (only the hard limit would, killing the pool child). So a time limit found
    anywhere in the exception's chain is raised again as itself."""
    _reraise_time_limit(exc)
    litellm = load_litellm()
    transient = tuple(getattr(litellm, n) for n in _TRANSIENT_FAULTS if hasattr(litellm, n))
    return ProviderFault(
        kind=type(exc).__name__,
        detail=_short(exc),
        transient=isinstance(exc, transient),
        retry_after=retry_after(exc),
    )


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
    litellm = load_litellm()
    timeout = settings.llm_timeout_s
    left = time_left()
    if left is not None:
        if left < min_call_s(settings):
            raise _out_of_time(left, min_call_s(settings))
        timeout = min(timeout, left)
    kwargs = call_args(
        model, timeout=timeout, api_base=settings.llm_api_base, api_key=settings.llm_api_key
    )
    try:
        with limits.model_slot(model, settings, deadline=_deadline.get()):
            usage.calls += 1
            response = litellm.completion(
                messages=messages, max_tokens=settings.llm_max_tokens, temperature=0, **kwargs
            )
    except LLMTransientError as exc:  # no slot came free: no call was made
        usage.errors.append(str(exc))
        raise
    except Exception as exc:
        raise _model_error(exc, usage) from exc
    reported = getattr(response, "usage", None)
    if reported is not None:
        usage.prompt_tokens += int(getattr(reported, "prompt_tokens", 0) or 0)
        usage.completion_tokens += int(getattr(reported, "completion_tokens", 0) or 0)
    try:
        usage.cost_usd += float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # unknown model prices (local servers) cost nothing known
        log.debug("cost_unknown", model=model)
    return _content(response)


def retry_after(exc: BaseException) -> float | None:
    """The provider's ``Retry-After`` (seconds or an HTTP date; ``retry-after-ms`` too) from
    the HTTP response an exception carries, if any."""
    headers = None
    for found in (
        getattr(exc, "litellm_response_headers", None),  # where litellm keeps them
        getattr(getattr(exc, "response", None), "headers", None),
        getattr(exc, "headers", None),
    ):
        if found:
            headers = found
            break
    if headers is None:
        return None
    try:
        millis = headers.get("retry-after-ms")
        if millis is not None:
            return max(0.0, float(millis) / 1000)
        value = headers.get("retry-after")
    except Exception:  # headers of an unexpected type: no hint
        return None
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(str(value))
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


#: litellm's permanent failures, as the reason an event fails with
_PERMANENT = {
    "AuthenticationError": "the provider refused the API key (check DIGEST_LLM_API_KEY)",
    "PermissionDeniedError": "the provider denied access to this model with this key",
    "NotFoundError": "the provider does not know this model (check DIGEST_LLM_MODEL)",
    "BadRequestError": "the provider rejected the request as malformed",
    "ContextWindowExceededError": "the request is longer than the model's context window",
    "ContentPolicyViolationError": "the provider refused the content under its policy",
}


def _permanent(exc: BaseException, message: str) -> str:
    """A permanent failure's reason: what it means, then the provider's own words."""
    for klass in type(exc).__mro__:
        meaning = _PERMANENT.get(klass.__name__)
        if meaning is not None:
            return f"{meaning}: {message}"
    return message


def _model_error(exc: BaseException, usage: Usage | None = None) -> LLMError:
    """A model call's exception as digest's error (recorded in ``usage``)."""
    fault = provider_fault(exc)
    if usage is not None:
        usage.errors.append(fault.message)
    if fault.transient:
        return LLMTransientError(fault.message, retry_after=fault.retry_after)
    return LLMError(_permanent(exc, fault.message))


def ping(model: str, settings: Settings) -> str:
    """Ask ``model`` for one token (``digest doctor``): returns what answered, raises
    ``LLMError`` with the reason it did not. No retry, no fleet slot: a health check."""
    if answered_in_process(model):
        return "answered in this process (no provider)"
    litellm = load_litellm()
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
    """Raise the worker's time limit if it is anywhere in ``exc``'s chain (``provider_fault``)."""
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
            "llm_retry", model=model, attempt=state.attempt_number, error=_short(exc) if exc else ""
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


def _short(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
