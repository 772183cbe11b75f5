"""Tests of :mod:`subroc_ext.inference.promise_family`: the studentised max-T of the promise over the family."""

import itertools

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from subroc_ext.inference.promise_family import PromiseFamily, promise_family, promise_family_test
from subroc_ext.metrics.kernels import sort_by_score


def _rows(seed, n=240, ties=False):
    """Rows in score order: probabilities, tie ids, labels drawn from them."""
    rng = np.random.default_rng(seed)
    p = np.sort(rng.uniform(0.05, 0.95, n))
    if ties:
        p = np.sort(np.round(p, 1))
    _, group_ids = sort_by_score(p)
    return p, group_ids, rng.random(n) < p


def _pair_promise(p, mask):
    """``E[U] / E[P N]`` by brute force over the pairs of the cover (scores = p)."""
    q = p[mask]
    above = (q[:, None] > q[None, :]) + 0.5 * (q[:, None] == q[None, :])
    weights = q[:, None] * (1 - q[None, :])
    np.fill_diagonal(weights, 0.0)
    return (weights * above).sum() / weights.sum()


@pytest.mark.parametrize("ties", [False, True])
def test_aucs_match_sklearn_and_the_promise_the_pairs(ties):
    p, group_ids, y = _rows(0, ties=ties)
    rng = np.random.default_rng(1)
    masks = rng.random((6, len(p))) < rng.uniform(0.2, 0.9, (6, 1))
    family = PromiseFamily.of_masks(masks, group_ids, p)
    labels = rng.random((len(p), 5)) < p[:, None]
    aucs = family.aucs(labels)
    for i, mask in enumerate(masks):
        assert family.promise[i] == pytest.approx(_pair_promise(p, mask), rel=1e-12)
        for b in range(labels.shape[1]):
            assert aucs[i, b] == pytest.approx(roc_auc_score(labels[mask, b], p[mask]), rel=1e-12)


def test_the_scale_is_the_label_draws_standard_deviation():
    """The delta method's sigma against 4,000 label draws, covers of 40-200 rows."""
    p, group_ids, _ = _rows(2, n=400)
    rng = np.random.default_rng(3)
    masks = np.array([rng.random(len(p)) < share for share in (0.1, 0.25, 0.5)])
    family = PromiseFamily.of_masks(masks, group_ids, p)
    aucs = family.aucs(rng.random((len(p), 4000)) < p[:, None])
    assert np.nanmean(aucs, axis=1) == pytest.approx(family.promise, abs=0.01)
    assert np.nanstd(aucs, axis=1) / family.scale == pytest.approx(np.ones(3), abs=0.08)


@pytest.mark.parametrize("n, depth", [(200, 2), (64, 3), (130, 3), (700, 2)])
def test_the_family_is_every_distinct_conjunction_with_enough_cases(n, depth):
    """Against every conjunction enumerated, a cover's rows counted in NumPy
    (the family counts bits and sums its expected cases by bytes of words;
    rows that fill no whole word, and exactly one word)."""
    p, group_ids, _ = _rows(4, n=n)
    rng = np.random.default_rng(5)
    selectors = rng.random((7, len(p))) < rng.uniform(0.3, 0.8, (7, 1))
    selectors[6] = selectors[5]  # an identical cover, once
    family = promise_family(selectors, group_ids, p, depth=depth, min_support=n // 7, min_expected=8)
    expected = set()
    for size in range(1, depth + 1):
        for chosen in itertools.combinations(range(len(selectors)), size):
            cover = np.logical_and.reduce(selectors[list(chosen)])
            if cover.sum() >= n // 7 and p[cover].sum() >= 8 and (1 - p[cover]).sum() >= 8:
                expected.add(cover.tobytes())
    covers = [np.isin(np.arange(len(p)), family.rows[family.starts[i]:family.starts[i + 1]]) for i in range(len(family))]
    assert len(covers) == len(expected) and {cover.tobytes() for cover in covers} == expected
    assert promise_family(selectors, group_ids, p, depth=depth, min_support=30, max_cells=100) is None


def _planted(seed, n=300, planted=True):
    """Rows in score order of scores that are the probabilities, but shuffled in
    a group of 12 % (``planted``); selectors: that group, three random groups,
    and four bands of the score."""
    rng = np.random.default_rng([56, seed])
    truth = rng.uniform(0.03, 0.97, n)
    y = rng.random(n) < truth
    group = rng.random(n) < 0.12
    scores = truth.copy()
    if planted:
        scores[group] = rng.permutation(scores[group])
    order, group_ids = sort_by_score(scores)
    bands = [scores < q for q in np.quantile(scores, [0.25, 0.5])] + \
        [scores >= q for q in np.quantile(scores, [0.5, 0.75])]  # fmt: skip
    selectors = np.array([group, *(rng.random((3, n)) < 0.3), *bands])[:, order]
    return selectors, group_ids, scores[order], y[order]


def test_no_selector_is_an_empty_family():
    p, group_ids, _ = _rows(6, n=50)
    assert len(promise_family([], group_ids, p, depth=2, min_support=5)) == 0


def test_without_a_holdout_a_table_without_a_search_space_is_empty():
    """ID-like columns only (the hostile probe of issue 59): no pattern, no failure, no error."""
    import warnings

    import pandas as pd

    from subroc_ext import find_subgroups

    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"id": range(600), "code": [f"c{i}" for i in range(600)], "y": rng.integers(0, 2, 600)})
    frame["p"] = np.clip(0.6 * frame["y"] + 0.4 * rng.random(600), 0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        table = find_subgroups(frame, label="y", score="p", validation=None, progress=False)
    assert len(table) == 0 and table.attrs["counts"]["found"] == 0


def test_a_shuffled_group_is_found_and_the_bands_of_the_risk_are_not():
    selectors, group_ids, p, y = _planted(0)
    family = promise_family(selectors, group_ids, p, depth=2, min_support=20)
    tested = promise_family_test(selectors, family, y, group_ids, p, random_state=0)
    assert tested["significant"].tolist() == [True] + [False] * 7
    assert tested.attrs["family"] == len(family)


def test_beyond_whole_never_raises_the_statistic():
    selectors, group_ids, p, y = _planted(1)
    family = promise_family(selectors, group_ids, p, depth=2, min_support=20)
    plain = promise_family_test(selectors, family, y, group_ids, p, random_state=0)
    beyond = promise_family_test(selectors, family, y, group_ids, p, beyond_whole=np.ones(8, bool), random_state=0)
    assert (beyond["statistic"] <= plain["statistic"] + 1e-12).all()
    assert (beyond["p_value"] >= plain["p_value"]).all()


def test_a_cover_outside_the_family_is_not_tested():
    selectors, group_ids, p, y = _planted(2)
    family = promise_family(selectors, group_ids, p, depth=1, min_support=20)
    few = np.zeros(len(p), dtype=bool)
    few[:15] = True
    tested = promise_family_test([few, selectors[0]], family, y, group_ids, p, random_state=0)
    assert tested["testable"].tolist() == [False, True] and tested["p_value"].iloc[0] == 1.0


def test_the_family_wise_error_on_null_data():
    """60 null data sets (scores the true probabilities), every cover of the
    family tested: any significant in at most 8 (alpha 0.05: 3 expected; the
    one-sided binomial 99.5 % bound is 8)."""
    alarms = 0
    for seed in range(60):
        selectors, group_ids, p, y = _planted(seed, n=200, planted=False)
        family = promise_family(selectors, group_ids, p, depth=2, min_support=20)
        masks = np.array([np.isin(np.arange(len(p)), family.rows[family.starts[i]:family.starts[i + 1]])
                          for i in range(len(family))])  # fmt: skip
        tested = promise_family_test(masks, family, y, group_ids, p, mode="both", random_state=seed, max_draws=400)
        alarms += bool(tested["significant"].any())
    assert alarms <= 8
