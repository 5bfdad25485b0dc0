"""coded / coded_gather (calc/fabric/tables.py) give exactly np.unique's answer."""

from __future__ import annotations

import numpy as np
import pytest

from workbench.calc.fabric.tables import coded, coded_gather


def _unique(values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    found, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    return found, inverse.reshape(-1), counts


@pytest.mark.parametrize(
    "values",
    [
        np.array([], dtype=np.int64),
        np.array([7], dtype=np.int64),
        np.array([5, -3, 5, 0, -3, 12], dtype=np.int64),
        np.random.default_rng(1).integers(-50, 400, 5000),
        np.random.default_rng(2).integers(0, 10**12, 300),  # a long range: np.unique
        np.array([2.5, -1.0, 2.5, 400.0]),  # floats: np.unique
    ],
)
def test_coded_is_np_unique(values: np.ndarray) -> None:
    got, want = coded(values), _unique(values)
    for g, w in zip(got, want, strict=True):
        assert g.dtype == w.dtype
        assert np.array_equal(g, w)


@pytest.mark.parametrize(
    "table",
    [
        np.array([3, 1, 3, 9, -2, 1], dtype=np.int64),
        np.array([400.0, -1.0, 200.0, -1.0, 0.0, 400.0]),
    ],
)
def test_coded_gather_is_np_unique_of_the_gather(table: np.ndarray) -> None:
    rng = np.random.default_rng(3)
    for size in (0, 1, 50, 4000):
        index = rng.integers(0, len(table) - 1, size)  # the last row never named
        found, inverse = coded_gather(table, index)
        want, want_inverse = np.unique(table[index], return_inverse=True)
        assert np.array_equal(found, want)
        assert np.array_equal(inverse, want_inverse.reshape(-1))
