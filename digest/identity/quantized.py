"""Vectors held as int8 codes, one float32 scale per row (issue 27 point 4: a worker that
stays small).

A kept index holds each lesson's vector and its tasks' vectors for as long as the process
serves the agent: in float32 a 128-dimension vector is 512 bytes, as codes 132. A row is
scaled so that its largest component is ±127 and rounded, so a component is off by at most
half a step (its largest / 254) and a cosine with a unit vector by about 0.001 (at most a few
thousandths): below what tells a paraphrase from another lesson (``bench/recall.py`` and
``bench/neighbour_search.py`` measure it). The product with a query reads the codes as float32
in one pass on this thread, as ``digest.identity.scale.matrix_times`` does, which is faster
than float16 (numpy has no vectorised float16 cast here) and a fourth of float32's memory.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the largest code: a row's largest component (in magnitude) is coded as ±CODE_MAX
CODE_MAX = 127


class QuantizedRows:
    """Rows of vectors as int8 codes times a float32 scale per row."""

    __slots__ = ("codes", "scales")

    def __init__(self, codes: np.ndarray, scales: np.ndarray) -> None:
        self.codes = codes
        self.scales = scales

    @classmethod
    def of(cls, matrix: np.ndarray) -> QuantizedRows:
        """The codes of a (rows, dim) float matrix (a row of zeros stays zeros)."""
        matrix = np.asarray(matrix, dtype=np.float32)
        if matrix.ndim != 2:
            raise ValueError(f"rows of vectors are 2-D, not {matrix.ndim}-D")
        largest = np.abs(matrix).max(axis=1) if matrix.size else np.zeros(len(matrix), np.float32)
        scales = (largest / CODE_MAX).astype(np.float32)
        safe = np.where(scales > 0, scales, 1.0).astype(np.float32)
        codes = np.rint(matrix / safe[:, None]).clip(-CODE_MAX, CODE_MAX).astype(np.int8)
        return cls(codes, scales)

    @classmethod
    def empty(cls, dim: int) -> QuantizedRows:
        return cls(np.zeros((0, dim), np.int8), np.zeros(0, np.float32))

    @classmethod
    def concatenate(cls, parts: Sequence[QuantizedRows], dim: int) -> QuantizedRows:
        """The parts' rows one after another (all of ``dim`` dimensions)."""
        held = [part for part in parts if len(part)]
        if not held:
            return cls.empty(dim)
        return cls(
            np.concatenate([part.codes for part in held]),
            np.concatenate([part.scales for part in held]),
        )

    def take(self, at: np.ndarray) -> QuantizedRows:
        """The rows at ``at`` (positions or a boolean mask), in that order."""
        return QuantizedRows(self.codes[at], self.scales[at])

    def times(self, vector: np.ndarray) -> np.ndarray:
        """Each row's dot product with ``vector`` (float32), on this thread (not through BLAS:
        see ``digest.identity.scale.matrix_times``)."""
        products = np.einsum("ij,j->i", self.codes, vector.astype(np.float32, copy=False))
        return (products * self.scales).astype(np.float32, copy=False)

    def row(self, position: int) -> np.ndarray:
        """One row as float32 (what the codes stand for)."""
        return self.codes[position].astype(np.float32) * self.scales[position]

    @property
    def dim(self) -> int:
        return int(self.codes.shape[1])

    @property
    def nbytes(self) -> int:
        return int(self.codes.nbytes + self.scales.nbytes)

    def __len__(self) -> int:
        return len(self.codes)
