"""The embedding step of question identity (``digest.questions.same.queued_match``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from digest.identity.embedding import cosine_scale, embed_many, get_embedder


def nearest(wording: str, rows: Sequence[Any], relevance_at_least: float) -> Any:
    """The row (with ``text``) whose embedding is nearest ``wording``'s, if its relevance on
    the embedder's scale is at least ``relevance_at_least``; None without an embedder."""
    embedder = get_embedder()
    if embedder is None or not rows:
        return None
    vectors = embed_many(embedder, [wording, *(r.text for r in rows)])
    cosines = np.asarray(vectors[1:]) @ vectors[0]
    relevance = cosine_scale(embedder).relevance(cosines)
    best = int(np.argmax(relevance))
    return rows[best] if relevance[best] >= relevance_at_least else None
