"""Tests of :mod:`subroc_ext.metrics.confidence` (DeLong intervals of the ROC AUC).

Oracles: DeLong's placement values by brute-force pairwise counting (not the
midrank shortcut the module uses), scikit-learn's AUC, and the coverage of
the interval in a seeded simulation with a known true AUC.
"""

import warnings

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.metrics import roc_auc_score as sklearn_roc_auc

from subroc_ext import UndefinedMeasureWarning
from subroc_ext.metrics.confidence import delong_interval, delong_interval_of_sorted, roc_auc_confidence_interval
from subroc_ext.metrics.kernels import sort_by_score


def brute_force_delong(is_positive, scores, confidence=0.95):
    """AUC, standard error and interval straight from DeLong's definitions."""
    positives, negatives = scores[is_positive], scores[~is_positive]
    psi = (positives[:, None] > negatives[None, :]) + 0.5 * (positives[:, None] == negatives[None, :])
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    m, n = len(positives), len(negatives)
    std_error = np.sqrt(v10.var(ddof=1) / m + v01.var(ddof=1) / n)
    z = norm.ppf(0.5 + confidence / 2)
    auc = psi.mean()
    return auc, std_error, max(0.0, auc - z * std_error), min(1.0, auc + z * std_error)


@pytest.mark.parametrize("seed", range(60))
def test_matches_brute_force_with_ties(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(4, 80))
    is_positive = rng.random(size) < rng.uniform(0.2, 0.8)
    is_positive[:2], is_positive[2:4] = True, False  # at least two of each class
    # few distinct scores (many ties) for even seeds, continuous for odd ones
    scores = rng.integers(0, 4, size).astype(float) if seed % 2 == 0 else rng.normal(size=size)
    scores += 0.8 * is_positive * rng.random()
    confidence = (0.95, 0.9, 0.99)[seed % 3]
    found = roc_auc_confidence_interval(is_positive, scores, positive_label=True, confidence=confidence)
    expected = brute_force_delong(is_positive, scores, confidence)
    np.testing.assert_allclose(found, expected, rtol=1e-10, atol=1e-12)
    assert found.roc_auc == pytest.approx(sklearn_roc_auc(is_positive, scores), rel=1e-12)
    assert found.low <= found.roc_auc <= found.high


@pytest.mark.parametrize("seed", range(30))
def test_sorted_rows_give_the_same_interval(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 300))
    scores = rng.integers(0, int(rng.integers(1, 40)), n) / 7.0  # ties, often many
    is_positive = rng.random(n) < rng.uniform(0.02, 0.98)
    order, group_ids = sort_by_score(scores)
    expected = delong_interval(is_positive, scores)
    from_sorted = delong_interval_of_sorted(is_positive[order], group_ids)
    np.testing.assert_array_equal(from_sorted, delong_interval(is_positive[order], scores[order]))
    np.testing.assert_allclose(from_sorted, expected, rtol=1e-13)  # the sums in another order
    auc, std_error, low, high = brute_force_delong(is_positive, scores) if 0 < is_positive.sum() < n else [np.nan] * 4
    np.testing.assert_allclose(expected.roc_auc, auc, rtol=1e-12)
    if is_positive.sum() >= 2 and (~is_positive).sum() >= 2:
        np.testing.assert_allclose([expected.std_error, expected.low, expected.high], [std_error, low, high],
                                   rtol=1e-9, atol=1e-12)  # fmt: skip


def test_invariant_under_monotone_transforms_and_label_encodings():
    rng = np.random.default_rng(1)
    labels = rng.integers(0, 2, 200)
    scores = np.round(rng.random(200) + 0.3 * labels, 2)
    reference = roc_auc_confidence_interval(labels, scores)
    np.testing.assert_allclose(roc_auc_confidence_interval(labels, np.exp(3 * scores)), reference)
    text = np.where(labels == 1, "bad", "good")
    np.testing.assert_allclose(
        roc_auc_confidence_interval(text, scores, positive_label="bad"), reference
    )


def test_interval_covers_the_true_auc_about_95_percent_of_the_time():
    """Binormal scores: positives N(d, 1), negatives N(0, 1), true AUC Phi(d / sqrt 2)."""
    rng = np.random.default_rng(2)
    d = 1.0
    true_auc = norm.cdf(d / np.sqrt(2))
    covered, repeats = 0, 400
    labels = np.repeat([True, False], [60, 80])
    for _ in range(repeats):
        scores = rng.normal(size=140) + d * labels
        interval = delong_interval(labels, scores)
        covered += interval.low <= true_auc <= interval.high
    assert 0.92 <= covered / repeats <= 0.98


def test_undefined_cases():
    with pytest.warns(UndefinedMeasureWarning, match="ROC AUC is undefined"):
        interval = roc_auc_confidence_interval([1, 1, 1], [0.1, 0.2, 0.3])
    assert np.isnan(interval).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        single = roc_auc_confidence_interval([1, 0, 0, 0], [0.9, 0.1, 0.95, 0.3])
        assert single.roc_auc == pytest.approx(2 / 3)
        assert np.isnan([single.std_error, single.low, single.high]).all()
        assert np.isnan(delong_interval(np.zeros(3, bool), np.arange(3.0))).all()
    perfect = roc_auc_confidence_interval([0, 0, 1, 1], [0.1, 0.2, 0.3, 0.4])
    assert (perfect.roc_auc, perfect.std_error, perfect.low, perfect.high) == (1.0, 0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match=r"confidence must be in \(0, 1\), got 95"):
        roc_auc_confidence_interval([0, 1], [0.1, 0.2], confidence=95)
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        roc_auc_confidence_interval([0, 1, 1], [0.1, 0.2])


def test_old_keyword_names_still_work_with_a_warning():
    labels, scores = ["bad", "good", "bad", "good"], [0.9, 0.2, 0.6, 0.4]
    expected = roc_auc_confidence_interval(labels, scores, positive_label="bad")
    with pytest.warns(FutureWarning, match="'pos_label' is deprecated.*use 'positive_label'"):
        old = roc_auc_confidence_interval(y_true=labels, y_score=scores, pos_label="bad")
    assert old == expected and expected.roc_auc == 1.0
