"""litellm as the model seams use it: the import with its process-wide settings made once,
the arguments every call passes, and what an exception out of a call means.

``digest.model.seam`` (chat completions) and ``digest.identity.embedding`` (embeddings) both
call litellm through these pieces, so they share one configuration and one notion of a
transient fault: ``load_litellm``, ``call_args``, ``provider_fault`` (with ``retry_after``
and the meaning of a permanent failure, ``permanent_reason``).
"""

from __future__ import annotations

import email.utils
import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from pydantic import SecretStr

from digest.errors import is_time_limit

_setup_lock = threading.Lock()
_litellm: Any = None


def load_litellm(needed_by: str = "a provider's model") -> Any:
    """litellm, imported and configured by the first call in this process; ``MissingExtra``
    (``{needed_by} needs litellm: pip install 'lesson-digest[llm]'``) when it is not installed.

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
    from digest.extras import require

    require("llm", needed_by)
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
    reraise_time_limit(exc)
    litellm = load_litellm()
    transient = tuple(getattr(litellm, n) for n in _TRANSIENT_FAULTS if hasattr(litellm, n))
    return ProviderFault(
        kind=type(exc).__name__,
        detail=short_error(exc),
        transient=isinstance(exc, transient),
        retry_after=retry_after(exc),
    )


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


def permanent_reason(exc: BaseException, message: str) -> str:
    """A permanent failure's reason: what it means, then the provider's own words."""
    for klass in type(exc).__mro__:
        meaning = _PERMANENT.get(klass.__name__)
        if meaning is not None:
            return f"{meaning}: {message}"
    return message


def reraise_time_limit(exc: BaseException) -> None:
    """Raise the worker's time limit if it is anywhere in ``exc``'s chain (``provider_fault``)."""
    seen: BaseException | None = exc
    while seen is not None:
        if is_time_limit(seen):
            raise seen
        seen = seen.__cause__ or seen.__context__


def short_error(exc: BaseException, limit: int = 300) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
