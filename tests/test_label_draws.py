"""Tests of :mod:`subroc_ext.metrics.label_draws` and the measures' promise hooks
(``drawn_values``, ``size_free``, ``class_values``): every value against an
independent oracle (scikit-learn, the package's own one-cover kernels, brute
force), with and without ties."""

import numpy as np
import pytest
from sklearn.metrics import auc, precision_recall_curve, roc_auc_score

from subroc_ext.metrics.kernels import example_attributions
from scipy.stats import rankdata

from subroc_ext.metrics import label_draws
from subroc_ext.metrics.label_draws import (
    arl_of_draws, attribution_class_values, drawn_sums, pr_auc_of_draws, roc_auc_of_draws,
)
from subroc_ext.scoring.calibration import brier_score, calibration_gap, log_loss
from subroc_ext.scoring.measures import (
    PRAUC, ROCAUC, AverageRankingLoss, Cover, KernelMeasure, Measure, RowMeanMeasure, attribution_mean,
)


def _draws(seed, n_draws=200, n=12, tied=True):
    rng = np.random.default_rng(seed)
    scores = rng.integers(0, 4, n) / 4 if tied else rng.random(n)
    labels = rng.random((n_draws, n)) < rng.uniform(0.1, 0.9, n)
    labels[0] = False  # one class only: undefined
    labels[1] = True
    return labels, scores


@pytest.mark.parametrize("tied", [True, False])
@pytest.mark.parametrize("seed", range(3))
def test_ranking_measures_of_draws_match_scikit_learn(seed, tied):
    labels, scores = _draws(seed, tied=tied)
    roc, pr, arl = roc_auc_of_draws(labels, scores), pr_auc_of_draws(labels, scores), arl_of_draws(labels, scores)
    for row, y in enumerate(labels):
        if y.all() or not y.any():
            assert np.isnan(roc[row])
            assert np.isnan(pr[row]) == (not y.any())
            continue
        assert roc[row] == pytest.approx(roc_auc_score(y, scores), abs=1e-12)
        precision, recall, _ = precision_recall_curve(y, scores)
        assert pr[row] == pytest.approx(auc(recall, precision), abs=1e-12)
        penalties = [((scores[~y] > s).sum() + 0.5 * (scores[~y] == s).sum()) for s in scores[y]]
        assert arl[row] == pytest.approx(np.mean(penalties), abs=1e-12)
    assert arl[1] == 0.0 and np.isnan(arl[0])  # no negatives: nothing ranked above a positive


@pytest.mark.parametrize("measure", [ROCAUC(), PRAUC(), AverageRankingLoss()], ids=lambda m: m.name)
def test_vectorized_draws_equal_the_measure_on_each_draw(measure):
    labels, scores = _draws(7, n_draws=60)
    expected = Measure.drawn_values(measure, labels, scores)  # the base class: value() draw by draw
    np.testing.assert_allclose(measure.drawn_values(labels, scores), expected, atol=1e-12)


@pytest.mark.parametrize("measure", [ROCAUC(), AverageRankingLoss()], ids=lambda m: m.name)
@pytest.mark.parametrize("tied", [True, False])
def test_values_from_rank_sums_are_the_values_of_the_draws(measure, tied):
    labels, scores = _draws(3, tied=tied)
    positives = labels.sum(axis=1)
    rank_sums = np.array([rankdata(scores)[y].sum() for y in labels])  # each draw's positives, one by one
    expected = Measure.drawn_values(measure, labels, scores)
    np.testing.assert_allclose(measure.rank_sum_values(rank_sums, positives, len(scores) - positives), expected,
                               atol=1e-12)  # fmt: skip
    np.testing.assert_array_equal(measure.rank_sum_values(rank_sums, positives, len(scores) - positives),
                                  measure.drawn_values(labels, scores))  # fmt: skip


@pytest.mark.parametrize("cores", [1, 3])
@pytest.mark.parametrize("rows, draws", [(1, 5), (37, 64), (5_000, 40)])
@pytest.mark.parametrize("seed", range(2))
def test_drawn_sums_are_the_sums_of_the_matrix_of_draws_from_the_same_stream(rows, draws, seed, cores, monkeypatch):
    monkeypatch.setattr(label_draws, "cores", lambda: cores)
    monkeypatch.setattr(label_draws, "PART_LABELS", 64)  # a run of draws per core even on small data
    rng = np.random.default_rng(seed)
    probabilities = rng.uniform(0, 1, rows)
    probabilities[: rows // 10] = [0.0, 1.0][seed]  # rows sure of their label
    ranks = rankdata(rng.integers(0, 50, rows))  # mid-ranks with ties: exact sums
    values = rng.normal(size=rows)
    matrix, compiled = np.random.default_rng(seed + 10), np.random.default_rng(seed + 10)
    labels = matrix.random((draws, rows)) < probabilities
    positives, sums = drawn_sums(compiled, probabilities, ranks, draws)
    np.testing.assert_array_equal(positives, labels.sum(axis=1))
    np.testing.assert_array_equal(sums, labels @ ranks)
    assert compiled.random() == matrix.random()  # the generator advanced alike
    labels = matrix.random((draws, rows)) < probabilities
    np.testing.assert_allclose(drawn_sums(compiled, probabilities, values, draws)[1], labels @ values,
                               rtol=1e-12, atol=1e-9)  # fmt: skip


def test_drawn_sums_have_the_mean_and_variance_of_independent_labels():
    rng = np.random.default_rng(5)
    probabilities, weights = rng.uniform(0.05, 0.95, 300), rng.normal(size=300)
    draws = 20_000
    positives, sums = drawn_sums(np.random.default_rng(6), probabilities, weights, draws)
    for got, mean, variance in (
        (positives, probabilities.sum(), (probabilities * (1 - probabilities)).sum()),
        (sums, (probabilities * weights).sum(), (probabilities * (1 - probabilities) * weights**2).sum()),
    ):  # fmt: skip
        assert abs(got.mean() - mean) <= 5 * np.sqrt(variance / draws)
        assert got.var() == pytest.approx(variance, rel=5 * np.sqrt(2 / draws))


def test_a_user_measure_is_drawn_by_its_value():
    share = KernelMeasure(lambda y, s: float(np.mean(y)), kind="score", name="share")
    labels, scores = _draws(1, n_draws=20)
    np.testing.assert_allclose(share.drawn_values(labels, scores), labels.mean(axis=1))


def test_the_average_ranking_loss_per_negative_is_one_minus_the_roc_auc():
    labels, scores = _draws(2)
    negatives = (~labels).sum(axis=1)
    size_free = AverageRankingLoss().size_free(arl_of_draws(labels, scores), labels.sum(axis=1), negatives)
    np.testing.assert_allclose(size_free, 1 - roc_auc_of_draws(labels, scores))
    assert ROCAUC().size_free(0.7, 3, 4) == 0.7


@pytest.mark.parametrize("seed", range(4))
def test_attribution_class_values_are_the_attributions_with_the_row_relabelled(seed):
    rng = np.random.default_rng(seed)
    n = 9
    scores = rng.integers(0, 3, n) / 3.0  # ties
    is_positive = rng.random(n) < 0.5
    is_positive[:2] = [True, False]
    positive, negative = attribution_class_values(is_positive, scores)
    for i in range(n):
        for label, values in ((True, positive), (False, negative)):
            relabelled = is_positive.copy()
            relabelled[i] = label
            if relabelled.all() or not relabelled.any():
                assert values[i] == 0.0
                continue
            assert values[i] == pytest.approx(example_attributions(relabelled, scores, positive_label=True)[i])


def test_class_values_of_a_row_mean_are_its_values_of_either_label():
    scores = np.array([0.9, 0.2, 0.5])
    for make in (brier_score, log_loss, calibration_gap):
        measure = make()
        positive, negative = measure.class_values(np.array([True, False, True]), scores)
        np.testing.assert_allclose(positive, measure.row_values(np.ones(3, bool), scores))
        np.testing.assert_allclose(negative, measure.row_values(np.zeros(3, bool), scores))


def test_class_values_refuse_row_values_that_read_other_rows_labels():
    shared = RowMeanMeasure(lambda y, s: np.full(len(s), y.mean()), kind="score", name="share")
    with pytest.raises(ValueError, match="'share' depend on other rows' labels"):
        shared.class_values(np.array([True, False, False]), np.array([0.1, 0.2, 0.3]))
    attributions = attribution_mean()
    positive, _ = attributions.class_values(np.array([True, False]), np.array([0.8, 0.1]))
    assert positive.tolist() == [0.5, 0.0]


def test_drawn_values_of_a_cover_agree_with_the_prepared_measure():
    """A RowMeanMeasure's observed labels pick its prepared values exactly."""
    rng = np.random.default_rng(3)
    scores, is_positive = rng.random(30), rng.random(30) < 0.4
    measure = attribution_mean()
    whole = Cover.from_arrays(is_positive, scores)
    prepared = measure.prepare(whole)
    positive, negative = measure.class_values(is_positive, scores)
    observed = np.where(is_positive, positive, negative)
    np.testing.assert_allclose(observed[np.argsort(scores, kind="stable")], prepared.prepared_values, atol=1e-15)


@pytest.mark.parametrize("seed", [0, 1, 2**100 + 7])
def test_the_compiled_stream_is_numpys_pcg64(seed):
    from numba import njit

    from subroc_ext.metrics.pcg64 import next_word, set_state_words, state_words

    @njit
    def words_of(state, count):
        high, low, out = state[0], state[1], np.empty(count, dtype=np.uint64)
        for i in range(count):
            high, low, out[i] = next_word(high, low, state[2], state[3])
        state[0], state[1] = high, low
        return out

    ours, numpys = np.random.PCG64(seed), np.random.PCG64(seed)
    state = state_words(ours)
    np.testing.assert_array_equal(words_of(state, 5_000), numpys.random_raw(5_000))
    set_state_words(ours, state)
    assert ours.state == numpys.state  # written back: the generator goes on where the kernel stopped
    with pytest.raises(TypeError, match="PCG64"):
        state_words(np.random.Philox(seed))


def test_a_words_53_bits_are_below_the_threshold_exactly_when_numpys_uniform_is_below_p():
    from subroc_ext.metrics.pcg64 import uniform_thresholds

    p = np.r_[0.0, 1.0, 0.5, 2.0**-53, np.random.default_rng(0).random(2_000)]
    thresholds = uniform_thresholds(p).astype(np.int64)
    for k in (thresholds[:, None] + np.arange(-2, 2)[None, :]).clip(0, 2**53 - 1).T:  # around each threshold
        np.testing.assert_array_equal(k < thresholds, k * 2.0**-53 < p)
