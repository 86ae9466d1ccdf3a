"""Vectors held as int8 codes with a scale per row (``digest.identity.quantized``): what a
cosine costs in precision, and that rows taken or joined are the rows coded at once. Pure."""

from __future__ import annotations

import numpy as np

from digest.identity.quantized import QuantizedRows


def _unit_rows(n: int, dim: int, seed: int) -> np.ndarray:
    rows = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return rows / np.linalg.norm(rows, axis=1, keepdims=True)


def test_cosines_from_codes_are_within_a_few_thousandths_of_float32() -> None:
    rows = _unit_rows(2000, 128, 1)
    coded = QuantizedRows.of(rows)
    assert coded.codes.dtype == np.int8 and coded.nbytes == 2000 * (128 + 4)
    for probe in _unit_rows(20, 128, 2):
        exact = rows @ probe
        assert np.abs(coded.times(probe) - exact).max() < 0.005
    # each row is still its own nearest: a self-probe scores about 1
    own = np.array([coded.times(row)[i] for i, row in enumerate(rows[:50])])
    assert np.abs(own - 1.0).max() < 0.005


def test_rows_taken_and_joined_are_the_rows_coded_at_once() -> None:
    rows = _unit_rows(30, 16, 3)
    coded = QuantizedRows.of(rows)
    joined = QuantizedRows.concatenate(
        [coded.take(np.arange(10)), coded.take(np.arange(10, 30))], 16
    )
    assert np.array_equal(joined.codes, coded.codes) and np.array_equal(joined.scales, coded.scales)
    picked = coded.take(np.array([5, 2]))
    assert np.array_equal(picked.codes, coded.codes[[5, 2]])
    assert np.allclose(picked.row(0), rows[5], atol=0.01)


def test_a_row_of_zeros_stays_zeros_and_no_rows_is_empty() -> None:
    coded = QuantizedRows.of(np.zeros((3, 8), np.float32))
    assert not coded.codes.any() and not coded.scales.any()
    assert not coded.times(np.ones(8, np.float32)).any()
    empty = QuantizedRows.concatenate([], 8)
    assert len(empty) == 0 and empty.dim == 8
