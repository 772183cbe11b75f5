"""Tests of :mod:`subroc_ext.scoring.multiclass_weights` by enumerating every count vector."""

import itertools

import numpy as np
import pytest

from subroc_ext.scoring import weights
from subroc_ext.scoring.multiclass_weights import (
    multiclass_balance,
    multiclass_max_weight,
    multiclass_min_weight,
    multiclass_weight,
)

WEIGHTS = [(0, 0), (0, 1), (1, 1), (0.3, 1), (1, 0.3), (0.5, 0.5), (2, 0), (3, 0.5), (0.2, 2)]


def oracle_weight(counts, alpha, beta):
    n = sum(counts)
    balance = min(counts) / max(counts) if min(counts) > 0 else 0.0
    return float(n) ** alpha * balance**beta


def subsets_with_every_class(counts):
    return itertools.product(*(range(1, c + 1) for c in counts))


@pytest.mark.parametrize("alpha, beta", WEIGHTS)
def test_extremes_by_enumeration(alpha, beta):
    rng = np.random.default_rng(int(alpha * 10 + beta * 100))
    for _ in range(60):
        n_classes = int(rng.integers(2, 5))
        counts = rng.integers(1, 7 if n_classes < 4 else 5, size=n_classes)
        values = [oracle_weight(d, alpha, beta) for d in subsets_with_every_class(counts)]
        assert multiclass_max_weight(counts, alpha, beta) == pytest.approx(max(values), rel=1e-12)
        assert multiclass_min_weight(counts, alpha, beta) == pytest.approx(min(values), rel=1e-12)


@pytest.mark.parametrize("alpha, beta", WEIGHTS)
def test_two_classes_equal_binary_weights(alpha, beta):
    for p, n in itertools.product(range(1, 12), repeat=2):
        assert multiclass_weight([p, n], alpha, beta) == pytest.approx(
            weights.subgroup_weight(p, n, alpha, beta)
        )
        assert multiclass_max_weight([p, n], alpha, beta) == pytest.approx(
            weights.max_weight(p, n, alpha, beta)
        )


def test_balance_and_weight_values():
    assert multiclass_balance([3, 3, 3]) == 1.0
    assert multiclass_balance([2, 4, 8]) == 0.25
    assert multiclass_balance([0, 4, 8]) == 0.0
    assert multiclass_weight([2, 4, 8], 1, 1) == 14 * 0.25
    assert multiclass_weight([0, 4, 8], 1, 0) == 12.0  # 0^0 = 1
    np.testing.assert_allclose(multiclass_weight([[1, 1], [1, 3]], 1, 2), [2.0, 4 / 9])
    assert multiclass_max_weight([0, 4], 1, 1) == 0.0
    assert multiclass_min_weight([0, 4], 1, 1) == 0.0
