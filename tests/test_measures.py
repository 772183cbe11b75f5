"""Exhaustive tests of :mod:`subroc_ext.scoring.measures`: values and extremes.

``Measure.extremes(cover)`` must bracket the measure on every defined subset
of the cover (validity), and, where SPEC.md claims so, be reached by one
(tightness). Every non-empty subset of random covers of up to 12 rows is
enumerated and evaluated with the brute-force oracles of ``conftest.py``.
"""

import itertools

import numpy as np
import pandas as pd
import pytest
from sklearn import metrics

from subroc_ext.scoring import measures
from subroc_ext.inputs.sorted_data import SortedDataset

TOL = 1e-12
N_COVERS = 250
KERNEL_MEASURES = {
    "roc_auc": measures.ROCAUC,
    "pr_auc": measures.PRAUC,
    "arl": measures.AverageRankingLoss,
}
TIES = pytest.mark.parametrize("ties", [True, False], ids=["ties", "continuous"])


def random_scores(rng, size, ties):
    """Scores from two to four distinct values (``ties``) or continuous."""
    if ties:
        return rng.integers(0, rng.integers(2, 5), size).astype(float)
    return rng.normal(size=size)


def random_cover_arrays(rng, ties, needs_negative):
    """Labels and scores of a random cover of 1 to 12 rows holding a positive
    (and a negative if ``needs_negative``); sizes favour the large end."""
    size = int(rng.choice([rng.integers(1 + needs_negative, 13), 12, 11, 10]))
    is_positive = rng.random(size) < rng.uniform(0.1, 0.9)
    first, second = rng.permutation(size)[:2] if size > 1 else (0, 0)
    is_positive[first] = True
    if needs_negative:
        is_positive[second] = False
    return is_positive, random_scores(rng, size, ties)


# --------------------------------------------------------------------------
# the oracle itself
# --------------------------------------------------------------------------


def test_subset_oracle_agrees_with_sklearn(oracle):
    """The vectorized subset oracle equals scikit-learn on sampled subsets."""
    rng = np.random.default_rng(1)
    checked = 0
    for case in range(60):
        is_positive, scores = random_cover_arrays(rng, ties=case % 2 == 0, needs_negative=False)
        masks = oracle.all_subsets(len(scores))
        values = oracle.subset_measures(is_positive, scores, masks)
        for index in rng.choice(len(masks), size=min(6, len(masks)), replace=False):
            y, s = is_positive[masks[index]], scores[masks[index]]
            if not y.any():
                assert np.isnan(values["pr_auc"][index]) and np.isnan(values["arl"][index])
                continue
            precision, recall, _ = metrics.precision_recall_curve(y.astype(int), s)
            assert values["pr_auc"][index] == pytest.approx(metrics.auc(recall, precision), abs=TOL)
            penalties = [(s[~y] > v).sum() + 0.5 * (s[~y] == v).sum() for v in s[y]]
            assert values["arl"][index] == pytest.approx(np.mean(penalties), abs=TOL)
            if y.all():
                assert np.isnan(values["roc_auc"][index])
            else:
                assert values["roc_auc"][index] == pytest.approx(metrics.roc_auc_score(y, s), abs=TOL)
                checked += 1
    assert checked > 150


# --------------------------------------------------------------------------
# values
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(KERNEL_MEASURES))
def test_value_matches_oracle(oracle, name):
    measure = KERNEL_MEASURES[name]()
    rng = np.random.default_rng(2)
    for case in range(300):
        is_positive, scores = random_cover_arrays(rng, case % 2 == 0, measure.min_negatives > 0)
        expected = oracle.subset_measures(is_positive, scores, np.ones((1, len(scores)), bool))[name][0]
        permutation = rng.permutation(len(scores))
        cover = measures.Cover.from_arrays(is_positive[permutation], scores[permutation])
        assert measure.is_defined(cover.positives, cover.negatives)
        assert measure.value(cover) == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize(
    "name, positives, negatives, defined",
    [
        ("roc_auc", 1, 1, True), ("roc_auc", 3, 0, False), ("roc_auc", 0, 3, False),
        ("pr_auc", 1, 0, True), ("pr_auc", 0, 4, False),
        ("arl", 2, 0, True), ("arl", 0, 1, False),
    ],
)  # fmt: skip
def test_definedness(name, positives, negatives, defined):
    assert KERNEL_MEASURES[name]().is_defined(positives, negatives) is defined


# --------------------------------------------------------------------------
# extremes of the kernel measures
# --------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(KERNEL_MEASURES))
@TIES
def test_extremes_are_exact_over_all_subsets(oracle, name, ties):
    """lowest == min and highest == max of the measure over all defined subsets
    (the SPEC claims both bounds tight for ROC AUC, PR AUC and ARL)."""
    measure = KERNEL_MEASURES[name]()
    rng = np.random.default_rng(3 + ties)
    for _ in range(N_COVERS):
        is_positive, scores = random_cover_arrays(rng, ties, measure.min_negatives > 0)
        cover = measures.Cover.from_arrays(is_positive, scores)
        lowest, highest = measure.extremes(cover)
        values = oracle.subset_measures(is_positive, scores, oracle.all_subsets(len(scores)))[name]
        defined = values[~np.isnan(values)]
        context = f"labels={is_positive.astype(int).tolist()} scores={scores.tolist()}"
        assert lowest <= defined.min() + TOL, "invalid lowest: " + context
        assert highest >= defined.max() - TOL, "invalid highest: " + context
        assert lowest == pytest.approx(defined.min(), abs=TOL), "loose lowest: " + context
        assert highest == pytest.approx(defined.max(), abs=TOL), "loose highest: " + context


@pytest.mark.parametrize("name", list(KERNEL_MEASURES))
def test_extremes_are_exact_on_every_small_configuration(oracle, name):
    """Every multiset of 1 to 7 rows with three score levels and two labels:
    a complete proof of validity and tightness on that domain."""
    measure = KERNEL_MEASURES[name]()
    kinds = [(score, label) for score in (0.0, 1.0, 2.0) for label in (False, True)]
    checked = 0
    for size in range(1, 8):
        for combination in itertools.combinations_with_replacement(range(len(kinds)), size):
            scores = np.array([kinds[k][0] for k in combination])
            is_positive = np.array([kinds[k][1] for k in combination])
            if not measure.is_defined(is_positive.sum(), (~is_positive).sum()):
                continue
            values = oracle.subset_measures(is_positive, scores, oracle.all_subsets(size))[name]
            defined = values[~np.isnan(values)]
            lowest, highest = measure.extremes(measures.Cover.from_arrays(is_positive, scores))
            context = f"labels={is_positive.astype(int).tolist()} scores={scores.tolist()}"
            assert lowest == pytest.approx(defined.min(), abs=TOL), context
            assert highest == pytest.approx(defined.max(), abs=TOL), context
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("name", list(KERNEL_MEASURES))
def test_extremes_ignore_the_order_of_tied_rows(name):
    """Bounds depend only on the multiset of (score, label) pairs."""
    measure = KERNEL_MEASURES[name]()
    rng = np.random.default_rng(5)
    for _ in range(200):
        is_positive, scores = random_cover_arrays(rng, True, measure.min_negatives > 0)
        reference = measure.extremes(measures.Cover.from_arrays(is_positive, scores))
        permutation = rng.permutation(len(scores))
        permuted = measures.Cover.from_arrays(is_positive[permutation], scores[permutation])
        assert measure.extremes(permuted) == reference


@pytest.mark.parametrize(
    "labels, scores, lowest",
    [
        # Lemma 4 with ties: the lowest positive tied with one negative, one
        # negative above: points (0,1) (0,0) (1,1/3)
        ([0, 1, 0, 1], [1, 1, 2, 3], 1 / 6),
        # tied, nothing above: (0,1) (1,1/2)
        ([0, 1, 1], [1, 1, 2], 0.75),
        # no negative at or above the lowest positive: PR AUC 1
        ([0, 1, 1], [0, 1, 2], 1.0),
    ],
)
def test_pr_auc_lowest_by_hand(labels, scores, lowest):
    cover = measures.Cover.from_arrays(np.array(labels, bool), np.array(scores, float))
    assert measures.PRAUC().extremes(cover) == (pytest.approx(lowest, abs=TOL), 1.0)


# --------------------------------------------------------------------------
# row-mean measures (attribution mean, Brier score)
# --------------------------------------------------------------------------

ROW_MEAN_MEASURES = {
    "attribution_mean": (measures.attribution_mean, lambda o, y, s: o.attributions(y, s)),
    "brier": (measures.squared_error, lambda o, y, s: (s - y) ** 2),
}


def random_dataset(rng, ties):
    """A data frame of 12 to 20 rows with both classes, scores in [0, 1], a
    non-default index, and a random cover of 1 to 12 of its rows (a mask)."""
    size = int(rng.integers(12, 21))
    is_positive = rng.random(size) < rng.uniform(0.2, 0.8)
    is_positive[:2] = True, False
    is_positive = is_positive[rng.permutation(size)]
    scores = rng.integers(0, 4, size) / 3 if ties else rng.random(size)
    data = pd.DataFrame({"y": is_positive.astype(int), "s": scores}, index=rng.permutation(size) + 100)
    cover = np.zeros(size, dtype=bool)
    cover[rng.choice(size, int(rng.choice([rng.integers(1, 13), 12])), replace=False)] = True
    return data, is_positive, scores, cover


def prepared(factory, data):
    """A row-mean measure prepared on ``data`` and its sorted dataset."""
    dataset = SortedDataset(data, "y", "s", 1)
    measure = factory().prepare(dataset.cover())
    return measure, dataset


@pytest.mark.parametrize("name", list(ROW_MEAN_MEASURES))
@TIES
def test_row_mean_values_and_extremes_over_all_subsets(oracle, name, ties):
    factory, row_values = ROW_MEAN_MEASURES[name]
    rng = np.random.default_rng(6 + ties)
    for _ in range(N_COVERS // 2):
        data, is_positive, scores, cover_mask = random_dataset(rng, ties)
        measure, dataset = prepared(factory, data)
        values = row_values(oracle, is_positive, scores)
        assert measure.value(dataset.cover()) == pytest.approx(values.mean(), abs=TOL)
        rows = np.flatnonzero(cover_mask)
        subsets = oracle.all_subsets(len(rows))
        subset_means = subsets @ values[rows] / subsets.sum(1)
        cover = dataset.cover(dataset.mask_of(cover_mask))
        lowest, highest = measure.extremes(cover)
        assert lowest == pytest.approx(subset_means.min(), abs=TOL)
        assert highest == pytest.approx(subset_means.max(), abs=TOL)
        # the measure itself on sampled subsets: covers must index the same rows
        for index in rng.choice(len(subsets), size=min(20, len(subsets)), replace=False):
            mask = np.zeros(len(data), dtype=bool)
            mask[rows[subsets[index]]] = True
            subset_cover = dataset.cover(dataset.mask_of(mask))
            assert measure.value(subset_cover) == pytest.approx(subset_means[index], abs=TOL)


@pytest.mark.parametrize("name", list(ROW_MEAN_MEASURES))
@pytest.mark.parametrize("size_weight", [0.3, 0.5, 1.0, 2.0])
@TIES
def test_row_mean_size_aware_bound_is_exact(oracle, name, size_weight, ties):
    """``size_aware_bound`` == max over subsets T of |T|^alpha * sign * (mean(T) - reference)."""
    factory, row_values = ROW_MEAN_MEASURES[name]
    rng = np.random.default_rng(8 + ties)
    for case in range(30):
        data, is_positive, scores, cover_mask = random_dataset(rng, ties)
        measure, dataset = prepared(factory, data)
        values = row_values(oracle, is_positive, scores)
        rows = np.flatnonzero(cover_mask)
        subsets = oracle.all_subsets(len(rows))
        sizes = subsets.sum(1)
        subset_means = subsets @ values[rows] / sizes
        cover = dataset.cover(dataset.mask_of(cover_mask))
        reference = values.mean() if case % 2 else rng.uniform(values.min(), values.max())
        for sign in (1, -1):
            expected = np.max(sizes**size_weight * sign * (subset_means - reference))
            bound = measure.size_aware_bound(cover, reference, sign, size_weight)
            assert bound == pytest.approx(expected, abs=1e-9)


def test_row_mean_measure_rejects_bad_row_values():
    data = pd.DataFrame({"y": [0, 1, 1], "s": [0.1, 0.5, 0.9]})
    dataset = SortedDataset(data, "y", "s", 1)
    wrong_shape = measures.RowMeanMeasure(lambda y, s: s[:2], kind="loss", name="short")
    with pytest.raises(ValueError, match="'short' returned shape"):
        wrong_shape.prepare(dataset.cover())
    not_finite = measures.RowMeanMeasure(lambda y, s: s / 0, kind="loss", name="inf")
    with np.errstate(divide="ignore"), pytest.raises(ValueError, match="'inf' returned NaN or inf"):
        not_finite.prepare(dataset.cover())
