"""Tests of :mod:`subroc_ext.inference.promise`: the label-draw test of a subgroup's promise."""

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy.stats import rankdata
from sklearn.metrics import roc_auc_score

from subroc_ext.inference import promise as promise_module
from subroc_ext.inference.promise import FIRST_ROUND, Promise, _Subgroup, promise_test
from subroc_ext.scoring.calibration import brier_score, calibration_gap, log_loss
from subroc_ext.scoring.measures import PRAUC, ROCAUC, AverageRankingLoss, attribution_mean
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


def _enumerated_mean(measure, scores, probabilities):
    """E[M] over every label vector of the rows, each weighted by its probability
    (undefined vectors left out, the rest renormalized)."""
    total = weight_sum = 0.0
    for labels in itertools.product([False, True], repeat=len(scores)):
        labels = np.array(labels)
        value = Promise(measure, labels, scores, probabilities).drawn_values(np.ones(len(scores), bool), labels[None])[0]
        if np.isnan(value):
            continue
        weight = np.prod(np.where(labels, probabilities, 1 - probabilities))
        total, weight_sum = total + weight * value, weight_sum + weight
    return total / weight_sum


@pytest.mark.parametrize("make", [brier_score, log_loss, calibration_gap], ids=lambda m: m.__name__)
def test_a_row_mean_promises_its_enumerated_mean_exactly(make):
    rng = np.random.default_rng(4)
    scores = np.round(rng.uniform(0.05, 0.95, 8), 1)
    probabilities = np.clip(scores + rng.normal(0, 0.1, 8), 0.02, 0.98)
    promise = Promise(make(), rng.random(8) < 0.5, scores, probabilities)
    assert promise.promised(np.ones(8, bool)) == pytest.approx(_enumerated_mean(make(), scores, probabilities))


def test_the_formulas_of_the_promise_of_calibrated_scores():
    """SPEC: Brier mean p(1 - p), log loss the mean binary entropy, calibration gap 0."""
    p = np.array([0.1, 0.3, 0.5, 0.8])
    every = np.ones(4, bool)
    y = np.array([True, False, True, False])
    assert Promise(brier_score(), y, p, p).promised(every) == pytest.approx(np.mean(p * (1 - p)))
    assert Promise(log_loss(), y, p, p).promised(every) == pytest.approx(
        np.mean(-(p * np.log(p) + (1 - p) * np.log(1 - p))))
    assert Promise(calibration_gap(), y, p, p).promised(every) == pytest.approx(0.0)
    assert Promise(ROCAUC(), y, p, p).promised(every) == pytest.approx(expected_roc_auc(p))


@pytest.mark.parametrize("measure", [PRAUC(), AverageRankingLoss()], ids=lambda m: m.name)
def test_a_promise_by_draws_is_its_enumerated_mean_up_to_the_draws_error(measure):
    rng = np.random.default_rng(5)
    scores = np.round(rng.uniform(0.05, 0.95, 10), 1)
    promise = Promise(measure, rng.random(10) < 0.5, scores, scores)
    exact = _enumerated_mean(measure, scores, scores)
    spread = np.nanstd(promise._expectation_draws(np.ones(10, bool), promise.drawn_values))
    assert promise.promised(np.ones(10, bool)) == pytest.approx(exact, abs=4 * spread / np.sqrt(256))


def _case_mix_rows(seed, n=2000):
    """Calibrated probabilities of one strong predictor: its slices differ in
    prevalence, spread and closeness to one half, and keep every promise."""
    rng = np.random.default_rng([57, seed])
    x = rng.normal(size=n)
    p = 1 / (1 + np.exp(-(2.0 * x - 0.5)))
    y = rng.random(n) < p
    return x, p, y, [x > 1.0, x < -0.8, (x > -0.3) & (x < 0.5)]


@pytest.mark.parametrize("make", [PRAUC, AverageRankingLoss, attribution_mean, brier_score, log_loss,
                                  calibration_gap], ids=lambda m: m.__name__)  # fmt: skip
def test_slices_of_true_probabilities_keep_every_measures_promise(make):
    """The null of rule 2 for every measure: the label-draw test rejects a
    slice of the predictor of calibrated scores at most alpha of the time."""
    rejected = np.array([
        promise_test(masks, y, p, p, measure=make(), method="bonferroni", max_samples=1_000,
                     random_state=seed)["p_value"] <= 0.05
        for seed in range(60)
        for _, p, y, masks in [_case_mix_rows(seed)]
    ])  # fmt: skip
    assert rejected.mean(axis=0).max() <= 0.05 + 2.5 * np.sqrt(0.05 * 0.95 / 60)


@pytest.mark.parametrize("make", [PRAUC, AverageRankingLoss, attribution_mean, log_loss],
                         ids=lambda m: m.__name__)  # fmt: skip
def test_every_measure_finds_scores_that_are_noise_in_a_slice(make):
    rng = np.random.default_rng(8)
    n = 3000
    p = rng.uniform(0.05, 0.95, n)
    y = rng.random(n) < p
    scores = np.where(np.arange(n) < 300, rng.permutation(p), p)  # the first 300 rows: noise
    first, rest = np.arange(n) < 300, np.arange(n) >= 2700
    tested = promise_test([first, rest], y, scores, scores, measure=make())
    assert tested["significant"].tolist() == [True, False]


@pytest.mark.parametrize("seed", range(3))
def test_the_chernoff_bound_is_above_the_enumerated_chance_of_reaching(seed):
    """Every label vector of 10 rows enumerated: the chance that the drawn ROC
    AUC is at most the cut, or undefined, never exceeds the bound."""
    from subroc_ext.inference.promise import _log_chernoff
    from scipy.stats import rankdata

    rng = np.random.default_rng(seed)
    scores = np.round(rng.uniform(0.05, 0.95, 10), 1)  # ties: mid-ranks
    probabilities = np.clip(scores + rng.normal(0, 0.05, 10), 0.02, 0.98)
    ranks = rankdata(scores)
    for cut in (0.5, 0.6, 0.7, 0.8, 0.95):
        chance = 0.0
        for labels in itertools.product([0, 1], repeat=10):
            labels = np.array(labels)
            weight = np.prod(np.where(labels == 1, probabilities, 1 - probabilities))
            if labels.min() == labels.max() or roc_auc_score(labels, scores) <= cut:
                chance += weight
        assert chance <= np.exp(_log_chernoff(ranks, probabilities, cut)) * (1 + 1e-9) + 1e-15, cut


def test_a_subgroup_far_short_of_its_promise_decides_without_draws_as_with_them(monkeypatch):
    rng = np.random.default_rng(9)
    n = 40_000
    p = rng.uniform(0.05, 0.95, n)
    y = rng.random(n) < p
    scores = np.where(np.arange(n) < 8_000, rng.random(n), p)  # noise in the first 8,000 rows
    masks = [np.arange(n) < 8_000, np.arange(n) < 12_000, np.arange(n) >= 30_000]
    screened = promise_test(masks, y, scores, scores, max_samples=20_000, random_state=2)
    subgroups = [_Subgroup(mask, Promise(ROCAUC(), y, scores, scores), "worse", 0.0, 2, 20_000) for mask in masks]
    assert [s.surely_unreached for s in subgroups] == [True, True, False]
    assert screened["significant"].tolist() == [True, True, False]
    monkeypatch.setattr(promise_module, "LOG_UNREACHED", -np.inf)  # every draw drawn: the same counts and p-values
    pd.testing.assert_frame_equal(promise_test(masks, y, scores, scores, max_samples=20_000, random_state=2),
                                  screened)


def test_rounds_screened_one_by_one_decide_as_drawn_ones(monkeypatch):
    """A subgroup whose bound is too loose for every draw the test might ask
    (``max_samples``) but tight enough for the rounds it does ask is not drawn
    in them (six subgroups drew 4,096 labels of each of up to 800,000 rows at
    2 M rows): the same p-values as with every draw drawn."""
    rng = np.random.default_rng(9)
    n = 40_000
    p = rng.uniform(0.05, 0.95, n)
    y = rng.random(n) < p
    scores = np.where(np.arange(n) < 8_000, rng.random(n), p)  # noise in the first 8,000 rows
    rows = np.arange(n)
    mixed = [(rows < 300) | ((rows >= 30_000) & (rows < 30_000 + extra)) for extra in (200, 300)]
    masks = [rows < 8_000, *mixed, rows >= 30_000]
    promise = Promise(ROCAUC(), y, scores, scores)
    subgroups = [_Subgroup(mask, promise, "worse", promise.shortfall, 2, 10**7) for mask in masks]
    assert [s.surely_unreached for s in subgroups] == [True, False, False, False]
    log_reach = np.array([s.log_reach for s in subgroups[1:3]]) - promise_module.LOG_UNREACHED
    assert (log_reach + np.log(1024) < 0).tolist() == [True, False]  # all rounds asked of the first: screened
    assert (log_reach + np.log(FIRST_ROUND) < 0).tolist() == [True, True]  # the second's first round only
    drawn = []
    original = _Subgroup._drawn
    monkeypatch.setattr(_Subgroup, "_drawn", lambda self, rng, draws, *rows: drawn.append(int(self.mask.sum())) or
                        original(self, rng, draws, *rows))  # fmt: skip
    screened = promise_test(masks, y, scores, scores, max_samples=10**7, random_state=2)
    assert screened["significant"].tolist() == [True, True, True, False]
    assert screened["draws"].tolist()[1:3] == [1024, 1024] and set(drawn) == {600, 10_000}
    monkeypatch.setattr(promise_module, "LOG_UNREACHED", -np.inf)  # every draw drawn: the same p-values
    drawn.clear()
    pd.testing.assert_frame_equal(promise_test(masks, y, scores, scores, max_samples=10**7, random_state=2),
                                  screened)
    assert set(drawn) == {8_000, 500, 600, 10_000}


def test_draws_stopped_at_the_last_exceedance_give_the_same_p_values(monkeypatch):
    """Draws after the h-th exceedance are not drawn: the p-values are those of every draw drawn."""
    _, p, y, masks = _range_restricted(2)
    stopped = promise_test(masks, y, p, p, method="bonferroni", random_state=4)
    original = _Subgroup.reaches
    monkeypatch.setattr(_Subgroup, "reaches", lambda self, draws, batch, needed=None: original(self, draws, batch))
    pd.testing.assert_frame_equal(promise_test(masks, y, p, p, method="bonferroni", random_state=4), stopped)


@pytest.mark.parametrize("measure", [ROCAUC(), AverageRankingLoss(), brier_score(), calibration_gap()],
                         ids=lambda m: m.name)  # fmt: skip
def test_draws_without_a_matrix_of_labels_give_the_p_values_of_the_matrix(measure, monkeypatch):
    """The compiled draws (a weighted sum per draw) are the matrix's draws: the same p-values."""
    rng = np.random.default_rng(8)
    n = 3000
    p = rng.uniform(0.05, 0.95, n)
    y = rng.random(n) < p
    scores = np.where(np.arange(n) < 300, rng.permutation(p), p)  # the first 300 rows: noise
    masks = [np.arange(n) < k for k in (300, 600, 1200)] + [(p > c) & (p < c + 0.3) for c in (0.1, 0.4, 0.6)]
    tested = promise_test(masks, y, scores, scores, measure=measure, random_state=5, max_samples=20_000)
    assert tested["significant"].any() and (tested["draws"] > 1_000).any()
    assert Promise(measure, y, scores, scores).draw_weights(masks[0]) is not None
    monkeypatch.setattr(_Subgroup, "_drawn", lambda self, rng, draws, mask, probabilities, weights: self.promise.drawn(
        mask, rng.random((draws, len(probabilities))) < probabilities))  # a matrix of labels
    pd.testing.assert_frame_equal(promise_test(masks, y, scores, scores, measure=measure, random_state=5,
                                               max_samples=20_000), tested)  # fmt: skip


@pytest.mark.parametrize("ties", [True, False])
def test_mid_ranks_are_rankdata_of_the_subset(ties):
    """``Promise.mid_ranks`` (one sort of all rows) equals SciPy's ``rankdata``
    of each subset's scores, bit for bit, ties included; an empty subset has none."""
    rng = np.random.default_rng(ties)
    scores = rng.integers(0, 30, 2_000) / 29 if ties else rng.random(2_000)
    promise = Promise(ROCAUC(), rng.random(2_000) < 0.3, scores, np.full(2_000, 0.3))
    for share in (0.01, 0.3, 0.9, 1.0):
        mask = rng.random(2_000) < share
        assert promise.mid_ranks(mask).tolist() == rankdata(scores[mask]).tolist()
    assert promise.mid_ranks(np.zeros(2_000, dtype=bool)).tolist() == []


def test_a_mask_read_through_its_own_probabilities_is_tested_as_if_they_were_the_promises():
    """Scores that are the true risks except in the first 300 of 3,000 rows,
    where they promise 70 % of it, read through probabilities 10 % lower
    everywhere. The first rows read through their own probabilities
    (:meth:`Promise.reading`, here the scores themselves, as a map fitted
    without them would read them) are tested as by a promise of those
    probabilities with the whole data's shortfall of the promise they were
    read from; the other mask keeps the promise of all rows."""
    rng = np.random.default_rng(8)
    truth = rng.uniform(0.05, 0.95, 3000)
    y = rng.random(3000) < truth
    first = np.arange(3000) < 300
    scores = np.where(first, 0.7 * truth, truth)
    lower = Promise(brier_score(), y, scores, 0.9 * scores, seed=2)
    own = lower.reading(lambda values: values)  # the scores themselves, as a map fitted without them reads them
    assert (own.measure, own.seed, own.scores is lower.scores) == (lower.measure, 2, True)
    read = lower.test([first, ~first], readings=[own, lower], max_samples=20_000)
    as_if = Promise(brier_score(), y, scores, scores, seed=2)
    as_if.shortfall = lower.shortfall  # the whole data's, of the promise the rows were read from
    assert lower.shortfall == pytest.approx(-0.0150, abs=1e-4)
    assert read["p_value"].iloc[0] == as_if.test([first], max_samples=20_000)["p_value"].iloc[0] == \
        pytest.approx(10 / 132)  # fmt: skip
    assert read["p_value"].iloc[1] == lower.test([~first], max_samples=20_000)["p_value"].iloc[0] == 1.0
    assert lower.test([first], max_samples=20_000)["p_value"].iloc[0] == pytest.approx(10 / 264)


def _enumerated_reach(scores, probabilities, cut, mode, expected=None):
    """P(a draw's Brier score, negated, reaches ``cut``): every label vector of
    the rows enumerated ('worse': at most ``cut``; 'better': at least;
    'both': at least ``cut`` from ``expected``)."""
    total = 0.0
    for labels in itertools.product([0, 1], repeat=len(scores)):
        labels = np.array(labels)
        value = -np.mean((labels - scores) ** 2)
        weight = np.prod(np.where(labels == 1, probabilities, 1 - probabilities))
        reached = {"worse": value <= cut + 1e-12, "better": value >= cut - 1e-12}.get(mode)
        total += weight * (abs(value - expected) >= cut - 1e-12 if reached is None else reached)
    return total


@pytest.mark.parametrize("mode, exact", [("worse", (0.0298, 0.1583)), ("better", (0.0101, 0.2318)),
                                         ("both", (0.0298, 0.1583))])  # fmt: skip
def test_beyond_the_whole_data_the_draws_reach_the_distance_beyond_both(mode, exact):
    """Nine rows whose promised Brier score (``e``, negated: higher better) is
    better than the whole data's (``w``), and 3 positives where their scores
    of 0.08 promise 0.7 ('better': scores of 0.4 that promise worse than the
    whole data, no positive): beyond the whole data, a draw reaches the
    statistic when it falls as far from the promise as the observed value
    lies beyond both (worse: ``min(e - c, w) - o``), as often as enumerating
    the 512 label vectors says; without, beyond the promise alone. The
    whole data's value is the nearer bar: beyond both is less likely by
    chance, and the p-values of :meth:`Promise.test` say so."""
    rng = np.random.default_rng(3)
    scores, risk = (0.4, 0.02) if mode == "better" else (0.08, 0.4)
    p = np.r_[np.full(9, scores), rng.uniform(0.05, 0.95, 200)]
    y = rng.random(209) < np.r_[np.full(9, risk), p[9:]]
    mask = np.arange(209) < 9
    promise = Promise(brier_score(), y, p, p)
    e, o, w, c = promise.expected(mask), promise.observed(mask), promise.whole, promise.shortfall
    assert int(y[mask].sum()) == (0 if mode == "better" else 3)
    for whole, enumerated in zip((None, w), exact):
        subgroup = _Subgroup(mask, promise, mode, c, 0, whole=whole)
        low, high = min(e - abs(c), w if whole else np.inf), max(e + abs(c), w if whole else -np.inf)
        cut = {"worse": o + max(c, 0, (e - w) if whole else 0), "better": o - max(-c, 0, (w - e) if whole else 0),
               "both": max(low - o, o - high)}[mode]  # fmt: skip
        assert subgroup.cut == pytest.approx(cut, abs=1e-11)
        assert _enumerated_reach(p[mask], p[mask], cut, mode, e) == pytest.approx(enumerated, abs=1e-4)
        share = subgroup.reaches(20_000, 0).mean()
        assert abs(share - enumerated) <= 4 * np.sqrt(enumerated * (1 - enumerated) / 20_000) + 1e-4
    tested = promise.test([mask, mask], mode=mode, beyond_whole=[False, True])["p_value"].to_numpy()
    assert tested == pytest.approx({"better": [0.0106, 0.1724]}.get(mode, [0.0289, 0.25]), abs=1e-4)


def test_untested_members_of_the_family_count_in_the_correction_as_p_values_of_one():
    """Three rows' Brier scores tested in a family of ten (seven more not
    tested, p-value 1), the first 150 rows' promised risk 55 % of the truth:
    Benjamini-Yekutieli over the ten, weighted, on the p-values drawn (each
    drawn until its decision in the larger family is known); fewer rows are
    rejected than in a family of the three alone, whose correction is
    looser (the rows chosen from a larger family by the same labels)."""
    from statsmodels.stats.multitest import multipletests

    rng = np.random.default_rng(2)
    p = rng.uniform(0.05, 0.95, 2000)
    y = rng.random(2000) < p
    scores = np.where(np.arange(2000) < 150, 0.55 * p, p)
    masks = [np.arange(2000) < 150, np.arange(2000) < 300, (np.arange(2000) >= 1000) & (np.arange(2000) < 1200)]
    promise = Promise(brier_score(), y, scores, scores, seed=4)
    weights = np.array([1.5, 1.2, 0.3])
    alone = promise.test(masks, weights=weights, max_samples=20_000)
    family = promise.test(masks, weights=weights, untested=7, max_samples=20_000)
    padded = np.r_[np.minimum(family["p_value"].to_numpy() / weights, 1), np.ones(7)]
    np.testing.assert_allclose(family["p_value_corrected"].to_numpy(),
                               multipletests(padded, alpha=0.05, method="fdr_by")[1][:3])  # fmt: skip
    np.testing.assert_allclose(family["p_value_corrected"].to_numpy(), [0.04757, 0.07432, 1.0], atol=1e-5)
    assert alone["significant"].tolist() == [True, True, False]
    assert family["significant"].tolist() == [True, False, False]


def test_readings_share_the_rows_sort_and_read_only_the_rows_asked():
    """A reading made before its promise has sorted its rows sorts them once,
    for both (100 readings of a million held-out rows each sorted them again
    and kept the sort: 2.5 GB at 2 M rows), and maps the scores of the rows
    asked only, giving the values of a promise built on the mapped scores."""
    rng = np.random.default_rng(3)
    scores = rng.uniform(0.05, 0.95, 500)
    y = rng.random(500) < scores
    promise = Promise(ROCAUC(), y, scores, scores, seed=1)
    asked = []

    def lower(values):
        asked.append(len(values))
        return 0.8 * values

    read = promise.reading(lower)
    assert read._by_score is promise._by_score
    mask = scores > 0.6
    as_built = Promise(ROCAUC(), y, scores, 0.8 * scores, seed=1)
    assert read.expected(mask) == as_built.expected(mask)
    assert asked == [int(mask.sum())]
    assert read.test([mask], max_samples=2_000)["p_value"].tolist() == \
        as_built.test([mask], max_samples=2_000)["p_value"].tolist()  # fmt: skip
