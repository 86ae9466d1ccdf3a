"""Lesson embeddings as stored: which model and text a vector belongs to, and computing them
without ever failing a write (issue 13).

A vector is stored with a key naming the embedding model and the exact text it embeds
(``vector_key``). A lesson whose text changed (an UPDATE, an owner's edit), or a bank read
under another model, has a stale key: its vector is recomputed when the agent's index is
built and written back by ``digest lesson reindex``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from digest.config import Settings, get_settings
from digest.identity.embedding import Embedder, embed_many, get_embedder, to_bytes
from digest.logs import get_logger
from digest.text import lesson_text

log = get_logger("digest.identity")


def vector_key(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\x1f{text}".encode()).hexdigest()[:40]


def embedder(settings: Settings | None = None) -> Embedder | None:
    """The configured embedder, or None (``none``, or it cannot be loaded: logged, and the
    neighbours are lexical only until it can)."""
    try:
        return get_embedder(settings or get_settings())
    except Exception as exc:
        log.error("embedder_unavailable", error=f"{type(exc).__name__}: {exc}"[:300])
        return None


def vectors_for(found: Embedder | None, texts: Sequence[str]) -> list[np.ndarray] | None:
    """Vectors of ``texts``, or None when there is no embedder or it failed (logged): a
    neighbour search then goes on lexical only, a write stores no vector."""
    if found is None or not texts:
        return None
    try:
        return embed_many(found, list(texts))
    except Exception as exc:
        log.error("embedding_failed", model=found.name, error=f"{type(exc).__name__}: {exc}"[:300])
        return None


def stored_vector(situation: str, correction: str) -> tuple[bytes | None, str | None]:
    """(embedding bytes, key) for a lesson's text, from the process's cache when the search
    before the write embedded it already; (None, None) without an embedder."""
    found = embedder()
    text = lesson_text(situation, correction)
    vectors = vectors_for(found, [text])
    if found is None or vectors is None:
        return None, None
    return to_bytes(vectors[0]), vector_key(found.name, text)
