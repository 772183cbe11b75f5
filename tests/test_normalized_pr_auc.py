"""The normalized PR AUC (:mod:`subroc_ext.metrics.normalized_pr_auc`,
:class:`subroc_ext.scoring.normalized_pr_auc.NormalizedPRAUC`) against independent oracles.

The floor is the worst ranking's area by scikit-learn; the measure on every
subset of small covers, ties and no ties, by the brute-force PR AUC of
``conftest.py`` normalized with that floor; its extremes and the optimistic
estimate of its quality function are checked against every subset.
"""

import functools

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics

import subroc_ext
from subroc_ext.metrics.label_draws import pr_auc_normalized_of_draws
from subroc_ext.metrics.normalized_pr_auc import normalized_pr_auc, pr_auc_floor_limit, smallest_pr_auc
from subroc_ext.scoring import measures
from subroc_ext.scoring.normalized_pr_auc import NormalizedPRAUC
from subroc_ext.workflow.pipeline import make_quality_function

TOL = 1e-9
TARGET = subroc_ext.SoftClassifierTarget("label", "score")


def sklearn_pr_auc(is_positive, scores):
    precision, recall, _ = metrics.precision_recall_curve(np.asarray(is_positive, dtype=int), scores)
    return metrics.auc(recall, precision)


@functools.lru_cache(maxsize=None)
def worst_area(positives, negatives):
    """scikit-learn's PR AUC of every positive scored below every negative."""
    labels = np.r_[np.zeros(negatives), np.ones(positives)]
    return sklearn_pr_auc(labels, -np.arange(positives + negatives, dtype=float))


def oracle_normalized(is_positive, scores):
    positives, negatives = int(is_positive.sum()), int((~is_positive).sum())
    if not positives or not negatives:
        return np.nan
    floor = worst_area(positives, negatives)
    return max(0.0, (sklearn_pr_auc(is_positive, scores) - floor) / (1 - floor))


def subset_values(oracle, is_positive, scores):
    """The normalized PR AUC of every subset (NaN where undefined), from the brute-force PR AUC."""
    masks = oracle.all_subsets(len(scores))
    values = oracle.subset_measures(is_positive, scores, masks)
    floors = np.array([worst_area(p, n) if p and n else np.nan for p, n in zip(values["positives"], values["negatives"])])
    with np.errstate(invalid="ignore"):
        return masks, values, np.where(np.isnan(floors), np.nan, np.maximum(0.0, (values["pr_auc"] - floors) / (1 - floors)))


def random_cover(rng, ties):
    size = int(rng.integers(2, 12))
    is_positive = rng.random(size) < rng.uniform(0.15, 0.85)
    first, second = rng.permutation(size)[:2]
    is_positive[first], is_positive[second] = True, False
    scores = rng.integers(0, rng.integers(2, 5), size).astype(float) if ties else rng.normal(size=size)
    return is_positive, scores


@pytest.mark.parametrize("positives", range(1, 13))
@pytest.mark.parametrize("negatives", range(1, 13))
def test_the_floor_is_the_worst_rankings_area(positives, negatives):
    assert smallest_pr_auc(positives, negatives) == pytest.approx(worst_area(positives, negatives), abs=1e-12)


@pytest.mark.parametrize("prevalence", [0.02, 0.25, 0.5, 0.9])
def test_the_floor_tends_to_boyds_closed_form(prevalence):
    rows = 200_000
    positives = round(prevalence * rows)
    assert smallest_pr_auc(positives, rows - positives) == pytest.approx(pr_auc_floor_limit(prevalence), abs=1e-4)


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "continuous"])
def test_value_matches_scikit_learn_normalized(ties):
    rng = np.random.default_rng(11 + ties)
    for _ in range(200):
        is_positive, scores = random_cover(rng, ties)
        value = NormalizedPRAUC().value(measures.Cover.from_arrays(is_positive, scores))
        assert value == pytest.approx(oracle_normalized(is_positive, scores), abs=TOL)
        assert 0.0 <= value <= 1.0


def test_undefined_without_either_class():
    measure = NormalizedPRAUC()
    assert not measure.is_defined(3, 0) and not measure.is_defined(0, 3) and measure.is_defined(1, 1)
    assert np.isnan(normalized_pr_auc(1.0, 3, 0))


@pytest.mark.parametrize("ties", [True, False], ids=["ties", "continuous"])
def test_extremes_bound_every_subset_and_are_exact_without_ties_between_classes(oracle, ties):
    """Valid on every cover; exact where the cover has a positive strictly
    below and one strictly above a negative (always on continuous scores)."""
    rng = np.random.default_rng(21 + ties)
    measure = NormalizedPRAUC()
    for _ in range(250):
        is_positive, scores = random_cover(rng, ties)
        lowest, highest = measure.extremes(measures.Cover.from_arrays(is_positive, scores))
        _, _, values = subset_values(oracle, is_positive, scores)
        defined = values[~np.isnan(values)]
        context = f"labels={is_positive.astype(int).tolist()} scores={scores.tolist()}"
        assert lowest <= defined.min() + TOL and highest >= defined.max() - TOL, context
        exact = lowest == pytest.approx(defined.min(), abs=TOL) and highest == pytest.approx(defined.max(), abs=TOL)
        inverted = (scores[is_positive][:, None] < scores[~is_positive][None, :]).any()
        ordered = (scores[is_positive][:, None] > scores[~is_positive][None, :]).any()
        if inverted and ordered or not ties:
            assert exact, context


@pytest.mark.parametrize("mode", ["worse", "better", "both"])
@pytest.mark.parametrize("alpha, beta", [(0, 0), (0, 1), (1, 1), (0.3, 1), (2, 0)])
def test_the_optimistic_estimate_bounds_every_subset(oracle, mode, alpha, beta):
    """The quality function's estimate of a cover is at least the weighted
    quality ``n^a cb^b q`` of each of its subsets, and its quality is that formula."""
    for seed in range(24):
        rng = np.random.default_rng(seed)
        size = int(rng.integers(12, 19))
        is_positive = rng.random(size) < rng.uniform(0.2, 0.8)
        is_positive[:2] = True, False
        scores = rng.integers(0, 4, size) / 3 if seed % 2 else rng.random(size)
        data = pd.DataFrame({"label": is_positive.astype(int), "score": scores})
        qf = make_quality_function("pr_auc_normalized", "label", size_weight=alpha, balance_weight=beta, mode=mode)
        qf.calculate_constant_statistics(data, TARGET)
        reference = oracle_normalized(is_positive, scores)
        assert qf.dataset_value == pytest.approx(reference, abs=1e-12)
        rows = np.sort(rng.choice(size, int(rng.integers(2, 11)), replace=False))
        masks, counts, values = subset_values(oracle, is_positive[rows], scores[rows])
        difference = values - reference
        raw = {"worse": -difference, "better": difference, "both": np.abs(difference)}[mode]
        p, n = counts["positives"], counts["negatives"]
        with np.errstate(invalid="ignore", divide="ignore"):
            balance = np.where(np.maximum(p, n) > 0, np.minimum(p, n) / np.maximum(p, n), 0.0)
        qualities = np.where(np.isnan(values), -np.inf, (p + n) ** float(alpha) * balance ** float(beta) * raw)
        mask = np.zeros(size, dtype=bool)
        mask[rows] = True
        stats = qf.statistics_of_cover(qf.dataset.cover(qf.dataset.mask_of(mask)))
        assert not np.isnan(stats.optimistic_estimate)
        assert stats.quality == pytest.approx(qualities[-1], abs=TOL) or stats.quality == qualities[-1] == -np.inf
        assert stats.optimistic_estimate >= qualities.max() - TOL, f"seed={seed}"


@pytest.mark.parametrize("tied", [True, False])
def test_draws_equal_the_measure_on_each_draw(tied):
    rng = np.random.default_rng(5)
    scores = rng.integers(0, 5, 30).astype(float) if tied else rng.random(30)
    labels = rng.random((40, 30)) < 0.3
    labels[0], labels[1] = True, False  # one class: undefined
    drawn = pr_auc_normalized_of_draws(labels, scores)
    assert np.isnan(drawn[:2]).all()
    for draw, value in zip(labels[2:], drawn[2:]):
        assert value == oracle_normalized(draw, scores) or value == pytest.approx(oracle_normalized(draw, scores), abs=TOL)
    assert np.array_equal(drawn, NormalizedPRAUC().drawn_values(labels, scores), equal_nan=True)


def test_check_measure_says_ok():
    report = subroc_ext.check_measure(NormalizedPRAUC(), random_state=0)
    assert report.ok, report


def test_fast_search_equals_best_first_search():
    """The compiled kernels (FastSearch) and the Python value (pysubgroup's
    BestFirstSearch) find the same top-k with the same qualities."""
    import pysubgroup as ps

    rng = np.random.default_rng(3)
    n = 400
    data = pd.DataFrame({"a": rng.choice(list("xyz"), n), "b": rng.choice(list("uvw"), n), "c": rng.random(n)})
    data["score"] = np.round(rng.random(n), 2)
    data["label"] = (rng.random(n) < np.where(data["a"] == "x", 0.5, data["score"])).astype(int)
    selectors = ps.create_selectors(data, ignore=["label", "score"], nbins=4)
    results = []
    for algorithm in (subroc_ext.FastSearch(), ps.BestFirstSearch()):
        qf = make_quality_function("pr_auc_normalized", "label", size_weight=0.5, balance_weight=0.5)
        task = ps.SubgroupDiscoveryTask(data, TARGET, selectors, qf, result_set_size=15, depth=2,
                                        constraints=[ps.MinSupportConstraint(10)])  # fmt: skip
        results.append(sorted(round(q, 10) for q, *_ in algorithm.execute(task).results))
    assert results[0] == results[1]


def test_a_tie_group_of_both_classes_can_go_below_the_floor_and_counts_as_it():
    """One negative on top, then every other row tied: the linearly
    interpolated PR AUC is P / (2 (N + P)), below the floor of rankings."""
    is_positive = np.array([False, True, True, False])
    scores = np.array([2.0, 0.0, 0.0, 0.0])
    assert sklearn_pr_auc(is_positive, scores) == pytest.approx(0.25)
    assert 0.25 < smallest_pr_auc(2, 2)
    assert NormalizedPRAUC().value(measures.Cover.from_arrays(is_positive, scores)) == 0.0
