"""Tests of :mod:`subroc_ext.inference.promise`: the label-draw test of a subgroup's promise."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from subroc_ext.inference.promise import Promise, _Subgroup, promise_test
from subroc_ext.scoring.measures import ROCAUC
from subroc_ext.metrics.expected_auc import expected_roc_auc


def _exact_p_value(scores, probabilities, observed, shortfall):
    """P(ROC AUC of labels drawn from ``probabilities`` <= observed + max(shortfall, 0)),
    a one-class draw counting as reaching it: every label vector enumerated."""
    total = 0.0
    for labels in itertools.product([0, 1], repeat=len(scores)):
        labels = np.array(labels)
        weight = np.prod(np.where(labels == 1, probabilities, 1 - probabilities))
        if labels.min() == labels.max() or roc_auc_score(labels, scores) <= observed + max(shortfall, 0) + 1e-12:
            total += weight
    return total


@pytest.mark.parametrize("seed", range(2))
def test_label_draws_reach_the_statistic_as_often_as_enumeration_says(seed):
    rng = np.random.default_rng(seed)
    n = 40
    probabilities = rng.uniform(0.05, 0.95, n)
    scores = np.round(probabilities, 1)  # ties among the scores: mid-ranks
    is_positive = rng.random(n) < np.where(np.arange(n) < 9, 0.5, probabilities)
    mask = np.arange(n) < 9  # nine rows: 512 label vectors
    whole = expected_roc_auc(probabilities) - roc_auc_score(is_positive, scores)
    observed = roc_auc_score(is_positive[mask], scores[mask])
    exact = _exact_p_value(scores[mask], probabilities[mask], observed, whole)
    subgroup = _Subgroup(mask, Promise(ROCAUC(), is_positive, scores, probabilities), "worse", whole, seed)
    share = subgroup.reaches(20_000, 0).mean()
    assert abs(share - exact) <= 4 * np.sqrt(exact * (1 - exact) / 20_000) + 1e-4, (share, exact)


def test_a_stopped_p_value_is_at_least_the_full_one():
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, 500)
    y = rng.random(500) < p
    masks = [np.arange(500) < k for k in (60, 120, 250)]
    stopped = promise_test(masks, y, p, p, method="bonferroni", random_state=1)
    full = promise_test(masks, y, p, p, method="bonferroni", random_state=1, alpha=1e-9, max_samples=4_000)
    assert (stopped["draws"] <= 4_000).all()
    assert (stopped["p_value"].to_numpy() >= full["p_value"].to_numpy() - 1e-12)[stopped["draws"] < 4_000].all()


def _range_restricted(seed, n=3000):
    """True probabilities as the scores, and slices of their strongest predictor."""
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(2.5 * x - 0.5)))
    y = rng.random(n) < p
    masks = [x > 1.0, x < -0.8, (x > 0.0) & (x < 0.8)]
    return x, p, y, masks


def test_range_restricted_slices_of_true_probabilities_are_rejected_at_most_alpha():
    """The null of the promise: scores = true probabilities. A slice of the
    predictor ranks worse (range restriction) but no worse than promised."""
    rejected = np.array([
        promise_test(masks, y, p, p, method="bonferroni", max_samples=2_000, random_state=seed)["p_value"] <= 0.05
        for seed in range(200)
        for _, p, y, masks in [_range_restricted(seed)]
    ])  # fmt: skip
    # each slice's rejection rate at most alpha, up to the simulation's error (200 data sets: sd 0.015)
    assert rejected.mean(axis=0).max() <= 0.05 + 2.5 * 0.015
    assert rejected.mean() <= 0.05


def test_weights_from_independent_data_find_a_small_failure_the_plain_correction_misses():
    rng = np.random.default_rng(5)
    n = 4000
    p = rng.uniform(0.05, 0.95, n)
    y = rng.random(n) < p
    scores = p.copy()
    failing = np.arange(n) < 30
    scores[failing] = rng.permutation(p[failing])  # the model's ranking is noise there
    masks = [failing] + [(p > c) & (p < c + 0.2) for c in np.linspace(0.05, 0.7, 30)]
    plain = promise_test(masks, y, scores, scores, random_state=0)
    assert plain["p_value"].iloc[0] < 0.01 and not plain["significant"].any()  # 31 tests, BY: too little
    weights = np.r_[10.0, np.full(30, 0.7)]
    weighted = promise_test(masks, y, scores, scores, weights=weights / weights.mean(), random_state=0)
    assert weighted["significant"].tolist() == [True] + [False] * 30


def test_the_same_subgroup_gets_the_same_p_value_whatever_else_is_tested():
    _, p, y, masks = _range_restricted(1)
    alone = promise_test(masks[:1], y, p, p, method="bonferroni", random_state=3)
    together = promise_test(masks[::-1], y, p, p, method="bonferroni", random_state=3)
    assert alone["p_value"].iloc[0] == together["p_value"].iloc[-1]
