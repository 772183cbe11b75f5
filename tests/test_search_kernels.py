"""search_kernels.promising_children: the counts of every child and the
children kept, against plain NumPy on unpacked masks."""

import numpy as np
import pytest

from subroc_ext.scoring.bitset import pack
from subroc_ext.engine.search_kernels import promising_children
from subroc_ext.scoring.weights import max_weight, subgroup_weight


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("cap", [np.inf, 0.0, 0.01, 0.3])
@pytest.mark.parametrize("expandable", [False, True])
def test_counts_and_kept_children_equal_numpy(seed, cap, expandable):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    is_positive = rng.random(n) < rng.uniform(0.05, 0.95)
    selectors = rng.random((30, n)) < rng.uniform(0.02, 0.9, size=(30, 1))
    parent = rng.random(n) < [0.0, 0.01, 0.5, 1.0][seed]
    candidates = np.sort(rng.choice(30, 20, replace=False)).astype(np.int64)
    min_support, min_positives, min_negatives = int(rng.integers(1, 15)), seed % 2, 1
    alpha, beta = [(0.0, 0.0), (1.0, 1.0), (0.5, 2.0), (2.0, 0.0)][seed]
    threshold = float(rng.uniform(-1, 2))
    keep, positives, negatives = promising_children(
        pack(parent), pack(selectors), candidates, pack(is_positive), pack(~is_positive), min_support,
        min_positives, min_negatives, cap, threshold, alpha, beta, expandable,
    )  # fmt: skip
    children = parent & selectors[candidates]
    expected_p = (children & is_positive).sum(axis=1)
    expected_n = (children & ~is_positive).sum(axis=1)
    np.testing.assert_array_equal(positives, expected_p)
    np.testing.assert_array_equal(negatives, expected_n)
    expected = (
        (expected_p + expected_n >= min_support) & (expected_p >= min_positives)
        & (expected_n >= min_negatives) & (expected_p + expected_n >= 1)
    )  # fmt: skip
    if np.isfinite(cap):
        promising = subgroup_weight(expected_p, expected_n, alpha, beta) * cap > threshold
        if expandable:
            promising |= max_weight(expected_p, expected_n, alpha, beta) * cap > threshold
        expected &= promising
    np.testing.assert_array_equal(keep, expected)
