"""Tests of :mod:`subroc_ext.inference.influence`: each function's value and
delete-one changes against recomputing the measure without each row
(scikit-learn for the ROC AUC and PR AUC), on scores with many ties."""

import numpy as np
import pytest
from sklearn.metrics import auc, precision_recall_curve, roc_auc_score

from subroc_ext.inference.influence import (
    auc_influence,
    expected_auc_influence,
    pr_auc_influence,
)
from subroc_ext.metrics.expected_auc import expected_roc_auc


def pr_auc(is_positive, scores):
    precision, recall, _ = precision_recall_curve(is_positive, scores)
    return auc(recall, precision)


@pytest.mark.parametrize("influence, oracle", [(auc_influence, roc_auc_score), (pr_auc_influence, pr_auc)])
@pytest.mark.parametrize("seed", range(3))
def test_terms_are_exact_delete_one_changes(influence, oracle, seed):
    rng = np.random.default_rng([3, seed])
    scores = rng.integers(0, 6, 120) / 5  # many ties
    is_positive = rng.random(120) < 0.4
    order = np.argsort(scores, kind="stable")
    scores, is_positive = scores[order], is_positive[order]
    group_ids = np.unique(scores, return_inverse=True)[1]
    mask = rng.random(120) < 0.5
    mask[-1], is_positive[-1] = True, seed % 2 == 0  # the top row alone in its tie group
    scores[-1] = 1.5
    group_ids[-1] = group_ids[-2] + 1
    value, terms = influence(is_positive, group_ids, mask)
    assert value == pytest.approx(oracle(is_positive[mask], scores[mask]), abs=1e-12)
    for row in range(120):
        kept = mask.copy()
        kept[row] = False
        expected = oracle(is_positive[kept], scores[kept]) - value if mask[row] else 0.0
        assert terms[row] == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_expected_auc_terms_are_exact_delete_one_changes(seed):
    """Against recomputing the expected AUC without each row, with ties,
    zeros and ones (a set whose remaining rows all sit at 0 gives 1/2)."""
    rng = np.random.default_rng([4, seed])
    probabilities = np.sort(rng.integers(0, 6, 80) / 5 if seed % 2 else rng.random(80))
    mask = rng.random(80) < 0.5
    value, terms = expected_auc_influence(probabilities, mask)
    assert value == pytest.approx(expected_roc_auc(probabilities[mask]), abs=1e-12)
    for row in range(80):
        kept = mask.copy()
        kept[row] = False
        expected = expected_roc_auc(probabilities[kept]) - value if mask[row] else 0.0
        assert terms[row] == pytest.approx(expected, abs=1e-12)
    _, terms = expected_auc_influence(np.array([0.0, 0.0, 0.7]), np.ones(3, bool))
    assert terms.tolist() == pytest.approx([0.0, 0.0, 0.5 - 1.0])
