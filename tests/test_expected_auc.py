"""The expected ROC AUC (:mod:`subroc_ext.metrics.expected_auc`) against SPEC's
formula evaluated pair by pair, and its extremes over subsets by enumeration.

The oracle is SPEC.md's definition with a double loop over the rows (self-pairs
left out); the inputs are random, with ties, exact zeros and ones, and as few
as two rows. The extremes are checked on every subset of small sets.
"""

import numpy as np
import pytest

from subroc_ext.metrics.expected_auc import (
    expected_auc_extremes,
    expected_auc_of_sorted,
    expected_roc_auc,
)
from subroc_ext.utils.subsets import all_subsets


def brute_force(p):
    """SPEC: sum over i != j of p_i (1 - p_j) ([p_i > p_j] + 1/2 [p_i = p_j]) over
    the same sum without the indicator; NaN for fewer than two rows, 1/2 where
    the sum is 0 (all tied at 0 or at 1: the module's documented extension)."""
    numerator = denominator = 0.0
    for i in range(len(p)):
        for j in range(len(p)):
            if i == j:
                continue
            weight = p[i] * (1 - p[j])
            numerator += weight * ((p[i] > p[j]) + 0.5 * (p[i] == p[j]))
            denominator += weight
    if len(p) < 2:
        return np.nan
    return numerator / denominator if denominator > 0 else 0.5


def random_probabilities(rng, size, kind):
    if kind == "continuous":
        return rng.random(size)
    if kind == "ties":
        return rng.integers(0, 5, size) / 4  # 0, 0.25, ..., 1: ties, zeros and ones
    return rng.choice([0.0, 1.0, 0.3], size)


@pytest.mark.parametrize("kind", ["continuous", "ties", "degenerate"])
def test_kernel_equals_the_pairwise_definition(kind):
    rng = np.random.default_rng(0)
    for case in range(300):
        p = random_probabilities(rng, int(rng.integers(0, 40)), kind)
        expected = brute_force(p)
        found = expected_roc_auc(rng.permutation(p))  # any order: sorted inside
        if np.isnan(expected):
            assert np.isnan(found), (case, p)
        else:
            assert found == pytest.approx(expected, abs=1e-12), (case, p)


def test_undefined_cases_and_exact_halves():
    assert np.isnan(expected_roc_auc([]))
    assert np.isnan(expected_roc_auc([0.7]))
    assert expected_roc_auc([0.0, 0.0, 0.0]) == 0.5  # all tied: the limit of every other tie
    assert expected_roc_auc([1.0, 1.0]) == 0.5
    assert expected_roc_auc([0.0, 1.0]) == 1.0
    assert expected_roc_auc([0.3] * 7) == 0.5  # exactly: nothing cancels
    assert expected_roc_auc([0.0, 0.0, 0.4, 0.4]) == pytest.approx(brute_force(np.array([0, 0, 0.4, 0.4])))


def test_a_narrow_spread_promises_less():
    rng = np.random.default_rng(1)
    p = rng.random(2000)
    slices = [(p < 0.5), (p >= 0.5), (p > 0.4) & (p < 0.6)]
    whole = expected_roc_auc(p)
    assert whole == pytest.approx(brute_force(p[:300]), abs=0.03)
    for inside in slices:
        assert expected_roc_auc(p[inside]) < whole - 0.05


def test_probabilities_outside_the_unit_interval_are_refused():
    with pytest.raises(ValueError, match=r"probability must be probabilities in \[0, 1\]; 1 value"):
        expected_roc_auc([0.2, 1.5])
    with pytest.raises(ValueError, match="probabilities in"):
        expected_roc_auc([0.2, np.nan])


@pytest.mark.parametrize("kind", ["continuous", "ties", "degenerate"])
def test_extremes_are_the_lowest_and_highest_over_every_subset(kind):
    """Enumerated: every subset of at least two rows; both extremes are
    reached (tight), as the docstring claims."""
    rng = np.random.default_rng(2)
    for case in range(80):
        p = np.sort(random_probabilities(rng, int(rng.integers(2, 11)), kind))
        masks = all_subsets(len(p))
        values = np.array([brute_force(p[mask]) for mask in masks if mask.sum() >= 2])
        lowest, highest = expected_auc_extremes(p)
        assert lowest <= values.min() + 1e-12 and highest >= values.max() - 1e-12, (case, p)
        assert lowest == pytest.approx(values.min(), abs=1e-12), (case, p)
        assert highest == pytest.approx(values.max(), abs=1e-12), (case, p)


def test_extremes_are_what_a_pair_gives_bit_for_bit():
    """The highest value is the kernel's own number on the two extreme rows."""
    rng = np.random.default_rng(3)
    for _ in range(200):
        p = np.sort(rng.random(int(rng.integers(2, 30))))
        _, highest = expected_auc_extremes(p)
        assert highest == expected_auc_of_sorted(np.array([p[0], p[-1]]))
