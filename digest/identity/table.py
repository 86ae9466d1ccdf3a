"""The static embedding table as stored (``digest.identity.distil`` builds it,
``digest.identity.embedding.StaticEmbedder`` reads it)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

#: the files of the table, in ``static_dir()``
FILES = ("rows.npy", "weights.npy", "projection.npy", "scale.npy")


@dataclass(frozen=True)
class Table:
    """The static embedding: int8 rows, one float weight per token (row scale times SIF
    weight), the projection that made the rows from the model's outputs (mean, components,
    centre) and the cosine scale (zero, one)."""

    rows: np.ndarray  # (vocabulary, DIMENSIONS) int8
    weights: np.ndarray  # (vocabulary,) float32
    projection: np.ndarray  # (2 + DIMENSIONS, 384) float32: mean, centre (padded), components
    scale: np.ndarray  # (2,) float64: the static cosines of the model's COS_ZERO and COS_ONE

    def arrays(self) -> dict[str, np.ndarray]:
        return dict(zip(FILES, (self.rows, self.weights, self.projection, self.scale), strict=True))


def static_dir() -> Path:
    """Where the packaged table is."""
    return Path(__file__).resolve().parent / "data" / "static"
