"""How a cosine between two texts' embeddings becomes a relevance (``CosineScale``: each
embedding model has its own), and how it combines with the lexical one: the scale part of
``digest.identity.index``'s ranking."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: cosine → semantic relevance: at or below COS_ZERO nothing in common, at or above COS_ONE
#: the same lesson in other words (all-MiniLM-L6-v2 puts paraphrases around 0.7–0.9)
COS_ZERO = 0.25
COS_ONE = 0.80
#: weight of the semantic signal in the hybrid relevance
SEMANTIC_WEIGHT = 0.5
#: a prompt's semantic relevance at which a lesson qualifies without a keyword (the cosine
#: 0.45 on all-MiniLM-L6-v2's scale)
QUALIFYING_RELEVANCE = (0.45 - COS_ZERO) / (COS_ONE - COS_ZERO)


@dataclass(frozen=True)
class CosineScale:
    """Where a model's cosines mean "nothing in common" (``zero``) and "the same in other
    words" (``one``). Each embedding model has its own: a static table puts unrelated texts
    nearer each other than a transformer does (``digest.identity.distil``)."""

    zero: float = COS_ZERO
    one: float = COS_ONE

    def relevance(self, cosines: np.ndarray) -> np.ndarray:
        return np.clip((cosines - self.zero) / (self.one - self.zero), 0.0, 1.0)

    @property
    def qualifying(self) -> float:
        """The cosine at which a lesson qualifies for a prompt by meaning alone."""
        return self.zero + QUALIFYING_RELEVANCE * (self.one - self.zero)


#: all-MiniLM-L6-v2's scale, and the one of an embedder that states none
DEFAULT_SCALE = CosineScale()


def matrix_times(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector`` in float32 on this thread. Not through BLAS: a multi-threaded
    BLAS wakes its threads for every product, which on a busy host costs tens of
    milliseconds for what one core does in a fraction of one (10,000 x 128 floats)."""
    return np.einsum("ij,j->i", matrix, vector.astype(np.float32, copy=False))


def semantic_relevance(cosine: float, scale: CosineScale = DEFAULT_SCALE) -> float:
    return min(1.0, max(0.0, (cosine - scale.zero) / (scale.one - scale.zero)))


def combine(lexical: float, cosine: float | None, scale: CosineScale = DEFAULT_SCALE) -> float:
    """The hybrid relevance: the lexical one alone without vectors."""
    if cosine is None:
        return lexical
    return (1 - SEMANTIC_WEIGHT) * lexical + SEMANTIC_WEIGHT * semantic_relevance(cosine, scale)


def unit_vector(vector: np.ndarray) -> np.ndarray:
    """``vector`` scaled to length 1 (as float32), so a dot product is a cosine."""
    vector = np.asarray(vector, dtype=np.float64)
    norm = float(np.linalg.norm(vector))
    return (vector / norm if norm > 0 else vector).astype(np.float32)
