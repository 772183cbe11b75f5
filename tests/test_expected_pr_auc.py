"""The promised PR AUC (:func:`subroc_ext.metrics.expected_auc.expected_pr_auc_of_sorted`,
:class:`subroc_ext.scoring.case_mix.ExpectedPRAUC`) and the case-mix quality of the PR AUCs.

Its numerator and denominator are expectations over label draws: checked
exactly by enumerating every labelling of small sets of rows, weighted by its
probability, with scikit-learn's PR AUC of each; the ratio against the
mean PR AUC of label draws as the rows grow (its consistency).
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics

from subroc_ext.metrics.expected_auc import expected_pr_auc_of_sorted
from subroc_ext.metrics.label_draws import pr_auc_of_draws
from subroc_ext.objective.case_mix import CaseMixQF, CaseMixTarget
from subroc_ext.scoring.measures import PRAUC, AverageRankingLoss
from subroc_ext.scoring.normalized_pr_auc import NormalizedPRAUC
from subroc_ext.utils.subsets import all_subsets


def brute_force_expectations(probabilities):
    """``E[PR AUC * P]`` and ``E[P]`` over every labelling (scikit-learn's PR AUC)."""
    numerator = denominator = 0.0
    for labels in itertools.product([False, True], repeat=len(probabilities)):
        labels = np.array(labels)
        weight = np.prod(np.where(labels, probabilities, 1 - probabilities))
        if labels.any():
            precision, recall, _ = metrics.precision_recall_curve(labels.astype(int), probabilities)
            numerator += weight * metrics.auc(recall, precision) * labels.sum()
        denominator += weight * labels.sum()
    return numerator, denominator


@pytest.mark.parametrize("seed", range(12))
def test_the_ratio_of_exact_expectations(seed):
    rng = np.random.default_rng(seed)
    size = int(rng.integers(1, 9))
    probabilities = np.sort(np.round(rng.random(size), 1) if seed % 2 else rng.random(size))
    numerator, denominator = brute_force_expectations(probabilities)
    expected = numerator / denominator if denominator > 0 else 0.0
    assert expected_pr_auc_of_sorted(probabilities) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("tied", [False, True])
def test_it_tends_to_the_mean_pr_auc_of_label_draws(tied):
    """The promise itself (the mean over draws) and the ratio differ by less as the rows grow."""
    rng = np.random.default_rng(4)
    gaps = []
    for size in (20, 2000):
        p = np.sort(np.round(rng.beta(1, 3, size), 1) if tied else rng.beta(1, 3, size))
        draws = pr_auc_of_draws(rng.random((4000, size)) < p, p)
        gaps.append(abs(expected_pr_auc_of_sorted(p) - np.nanmean(draws)))
    assert gaps[1] < 0.005 and gaps[1] < gaps[0]


def case_mix_data(rng, size=14):
    p = np.round(rng.random(size), 1)
    data = pd.DataFrame({"y": (rng.random(size) < p).astype(int), "s": rng.permutation(p), "p": p})
    data.loc[:1, "y"] = [1, 0]
    return data


@pytest.mark.parametrize("measure", [PRAUC(), NormalizedPRAUC()], ids=lambda m: m.name)
@pytest.mark.parametrize("mode", ["worse", "better", "both"])
def test_the_case_mix_estimate_bounds_every_subset(measure, mode):
    """``CaseMixQF(measure=...)``'s optimistic estimate of a cover is at least
    the quality of each of its subsets (every subset of 9-row covers)."""
    target = CaseMixTarget("y", "s", "p")
    for seed in range(8):
        rng = np.random.default_rng(seed)
        data = case_mix_data(rng)
        qf = CaseMixQF("y", mode=mode, measure=measure, size_weight=seed % 2, balance_weight=0.5 * (seed % 3))
        qf.calculate_constant_statistics(data, target)
        rows = np.sort(rng.choice(len(data), 9, replace=False))
        cover = np.zeros(len(data), dtype=bool)
        cover[rows] = True
        estimate = qf.statistics_of_mask(qf.sides.mask_of(cover)).optimistic_estimate
        best = -np.inf
        for subset in all_subsets(len(rows)):
            mask = np.zeros(len(data), dtype=bool)
            mask[rows[subset]] = True
            best = max(best, qf.statistics_of_mask(qf.sides.mask_of(mask)).quality)
        assert estimate >= best - 1e-12, f"seed={seed}"


def test_the_case_mix_of_other_measures_is_refused():
    with pytest.raises(ValueError, match="not measure 'arl'"):
        CaseMixQF("y", measure=AverageRankingLoss())
