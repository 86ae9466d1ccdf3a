"""An embedding model of a provider, through litellm (``openai/text-embedding-3-small``, …):
``digest.identity.embedding.get_embedder`` returns one for any model that is neither the
static table nor the local model. Batched (``REQUEST_TEXTS``), retried by tenacity on
transient faults, through the model seam's one litellm configuration."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from digest.config import Settings
from digest.errors import EmbeddingError, EmbeddingTransientError
from digest.identity.scale import unit_vector

if TYPE_CHECKING:
    from tenacity import RetryCallState

#: texts in one request to an embedding provider (OpenAI takes at most 2,048)
REQUEST_TEXTS = 256


# --- a provider through litellm --------------------------------------------------------------


class LiteLLMEmbedder:
    """A litellm embedding model (``openai/text-embedding-3-small``, …), retried by tenacity."""

    def __init__(self, model: str, settings: Settings) -> None:
        self.name = model
        self._settings = settings

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        vectors: list[np.ndarray] = []
        for start in range(0, len(texts), REQUEST_TEXTS):
            vectors.extend(self._embed_retried(list(texts[start : start + REQUEST_TEXTS])))
        return vectors

    def _embed_retried(self, texts: list[str]) -> list[np.ndarray]:
        from tenacity import (
            Retrying,
            retry_if_exception_type,
            stop_after_attempt,
            wait_random_exponential,
        )

        from digest.logs import get_logger

        log = get_logger("digest.identity")

        def before_sleep(state: RetryCallState) -> None:
            exc = state.outcome.exception() if state.outcome else None
            log.warning(
                "embedding_retry", model=self.name, attempt=state.attempt_number, error=str(exc)
            )

        retrying = Retrying(
            stop=stop_after_attempt(self._settings.llm_max_attempts),
            wait=wait_random_exponential(multiplier=0.5, max=self._settings.llm_retry_wait_max_s),
            retry=retry_if_exception_type(EmbeddingTransientError),
            before_sleep=before_sleep,
            reraise=True,
        )
        for attempt in retrying:
            with attempt:
                return self._embed_once(texts)
        raise AssertionError("unreachable: tenacity reraises the last error")

    def _embed_once(self, texts: list[str]) -> list[np.ndarray]:
        # Through the model seam: one litellm configuration per process (its retries and the
        # SDK's off, no cost map fetched) and one notion of a transient fault.
        from digest.model import seam

        settings = self._settings
        litellm = seam.load_litellm(f"the embedding model {self.name!r}")
        arguments = seam.call_args(
            self.name,
            timeout=settings.embedding_timeout_s,
            api_base=settings.embedding_api_base,
            api_key=settings.embedding_api_key,
        )
        try:
            response = litellm.embedding(input=texts, **arguments)
        except Exception as exc:
            fault = seam.provider_fault(exc)  # a worker's time limit is raised as itself
            message = f"{self.name}: {fault.message}"
            if fault.transient:
                raise EmbeddingTransientError(message) from exc
            raise EmbeddingError(message) from exc
        return _vectors_of(response, len(texts), self.name)


def _vectors_of(response: Any, expected: int, model: str) -> list[np.ndarray]:
    """The vectors of an embedding response, in input order, unit length; EmbeddingError if it
    is not one finite, non-zero vector of one size per text."""
    data = getattr(response, "data", None)
    if not isinstance(data, list) or len(data) != expected:
        count = len(data) if isinstance(data, list) else "no"
        raise EmbeddingError(f"{model} answered {count} vectors for {expected} texts")
    items = [_item(entry) for entry in data]
    indexes = [index for index, _ in items]
    if indexes != [None] * expected:  # answers carry indexes: put the vectors in that order
        if sorted(i if isinstance(i, int) else -1 for i in indexes) != list(range(expected)):
            raise EmbeddingError(f"{model} answered vectors with indexes {indexes}")
        items.sort(key=lambda item: item[0] or 0)
    try:
        matrix = np.array([values for _, values in items], dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(f"{model} answered vectors that are not lists of numbers") from exc
    if matrix.ndim != 2 or matrix.shape[1] == 0 or not np.isfinite(matrix).all():
        raise EmbeddingError(f"{model} answered vectors that are not lists of numbers")
    if (np.linalg.norm(matrix, axis=1) == 0).any():
        raise EmbeddingError(f"{model} answered a zero vector")
    return [unit_vector(row) for row in matrix]


def _item(entry: Any) -> tuple[int | None, Any]:
    if isinstance(entry, dict):
        return entry.get("index"), entry.get("embedding")
    return getattr(entry, "index", None), getattr(entry, "embedding", None)
