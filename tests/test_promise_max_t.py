"""Tests of :mod:`subroc_ext.inference.promise_max_t`: the promise tested over the whole search, without a holdout."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn.metrics import roc_auc_score

import subroc_ext
from subroc_ext.inference.promise_max_t import PROMISE_WEIGHT, promise_max_t
from subroc_ext.metrics.expected_auc import expected_roc_auc
from subroc_ext.objective.case_mix import CaseMixQF, CaseMixTarget

from synthetic import risk_frame

TARGET = CaseMixTarget("y", "p", "probability")


def _tested(data, subgroups, *, depth=2, **keywords):
    frame = data.assign(probability=data["p"])
    space = subroc_ext.make_search_space(frame, ignore=["y", "p", "probability"])
    return promise_max_t(subgroups, frame, TARGET, positive_label=1, selectors=space, depth=depth,
                         min_support=20, **keywords)  # fmt: skip


def _subgroup(*selectors):
    return ps.Conjunction(list(selectors))


PLANT = _subgroup(ps.EqualitySelector("g", "c"), ps.EqualitySelector("h", "x"))
OLD = _subgroup(ps.IntervalSelector("age", 70, float("inf")))
YOUNG = _subgroup(ps.IntervalSelector("age", float("-inf"), 40))


def test_a_shuffled_group_falls_short_and_slices_of_the_risk_do_not():
    """800 rows, scores the true probabilities of age except in g = c AND h = x
    (about 90 rows, shuffled): the plant is significant over the whole search;
    the slices of age rank worse than the whole data, as their scores promise."""
    data = risk_frame(1, n=800, planted=True)
    tested = _tested(data, [OLD, PLANT, YOUNG], random_state=0)
    assert tested["significant"].tolist() == [False, True, False]
    assert tested["p_value"][1] <= 0.05 and (tested["p_value"][[0, 2]] > 0.5).all()
    # the statistic is the case-mix quality weighted by sqrt(n * cb)
    qf = CaseMixQF("y", size_weight=PROMISE_WEIGHT, balance_weight=PROMISE_WEIGHT)
    frame = data.assign(probability=data["p"])
    qf.calculate_constant_statistics(frame, TARGET)
    statistics = qf.calculate_statistics(PLANT, TARGET, frame)
    assert tested["statistic"][1] == pytest.approx(statistics.quality, abs=1e-12)
    cover = (data["g"] == "c") & (data["h"] == "x")
    positives, negatives = int(data.loc[cover, "y"].sum()), int((data.loc[cover, "y"] == 0).sum())
    weight = np.sqrt(cover.sum() * min(positives, negatives) / max(positives, negatives))
    assert statistics.quality == pytest.approx(weight * statistics.raw_quality, rel=1e-12)


def test_the_same_p_values_on_threads_and_a_stable_order():
    data = risk_frame(2, n=600, planted=True)
    one = _tested(data, [YOUNG, PLANT], random_state=3, depth=2)
    two = _tested(data, [YOUNG, PLANT], random_state=3, depth=2, n_jobs=2)
    assert one.equals(two) and one.attrs["null_searches"] == two.attrs["null_searches"] > 0
    assert _tested(data, [PLANT, YOUNG], random_state=3)["p_value"].tolist() == one["p_value"][::-1].tolist()


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _two_groups(seed, inside_truth, inside_scores, outside):
    """2,000 rows; in g = c the labels follow ``inside_truth(z)`` and the scores
    are ``inside_scores(z)``, elsewhere both are ``outside(z)``: the frame,
    the group, and the ROC AUC and promise of the whole data and of g = c."""
    rng = np.random.default_rng(seed)
    n = 2000
    g, z = rng.choice(list("abcd"), n), rng.normal(0, 1, n)
    inside = g == "c"
    truth = np.where(inside, inside_truth(z), outside(z))
    data = pd.DataFrame({"g": g, "y": (rng.random(n) < truth).astype(int),
                         "p": np.where(inside, inside_scores(z), outside(z))})  # fmt: skip
    measured = [(roc_auc_score(data["y"][rows], data["p"][rows]), expected_roc_auc(data["p"][rows].to_numpy()))
                for rows in (np.ones(n, bool), inside)]  # fmt: skip
    return data, _subgroup(ps.EqualitySelector("g", "c")), measured


def test_beyond_the_whole_data_asks_for_worse_than_the_whole_data_too():
    """In g = c the scores promise far more than the labels deliver (they are
    over-confident), yet its rows rank better than the whole data: short of
    its promise (significant), not worse than the whole data (not
    significant with ``beyond_whole``). Its statistic is then ``w`` times
    the ROC AUC drop against the whole data."""
    data, group, [(auc, promise), (auc_c, promise_c)] = _two_groups(
        3, lambda z: _sigmoid(2 * z), lambda z: _sigmoid(6 * z), lambda z: _sigmoid(1.5 * z))
    assert promise_c - auc_c > promise - auc + 0.03 and auc_c > auc + 0.03  # the premise: short, yet better
    plain = _tested(data, [group], depth=1, random_state=0)
    beyond = _tested(data, [group], depth=1, random_state=0, beyond_whole=[True])
    assert plain["significant"].tolist() == [True] and beyond["significant"].tolist() == [False]
    weight = plain["statistic"][0] / ((promise_c - auc_c) - (promise - auc))
    assert beyond["statistic"][0] == pytest.approx(weight * (auc - auc_c), rel=1e-9)
    assert beyond["p_value"][0] == 1.0
    with pytest.raises(ValueError, match="default quality function"):
        _tested(data, [group], depth=1, beyond_whole=[True], quality_function=CaseMixQF("y"))


@pytest.mark.parametrize("mode", ["better", "both"])
def test_beyond_the_whole_data_in_the_direction_of_the_mode(mode):
    """Mirrored: under-confident scores in g = c promise less than its rows
    deliver. Where its rows still rank worse than the whole data, they are
    above their promise (significant) but not better than the whole data
    (not significant with ``beyond_whole``); where they rank better, they
    are significant either way, with the statistic ``w`` times the smaller
    of the two gains."""
    steep, flat = (lambda z: _sigmoid(2 * z)), (lambda z: _sigmoid(0.3 * z))
    data, group, [(auc, promise), (auc_c, promise_c)] = _two_groups(4, lambda z: _sigmoid(1.0 * z), flat, steep)
    assert auc_c - promise_c > auc - promise + 0.05 and auc_c < auc - 0.03  # above its promise, yet worse
    plain = _tested(data, [group], depth=1, random_state=0, mode=mode)
    beyond = _tested(data, [group], depth=1, random_state=0, mode=mode, beyond_whole=[True])
    assert plain["significant"].tolist() == [True] and beyond["significant"].tolist() == [False]
    assert beyond["statistic"][0] < 0

    data, group, [(auc, promise), (auc_c, promise_c)] = _two_groups(4, lambda z: _sigmoid(3 * z), flat, steep)
    gain = min((auc_c - promise_c) - (auc - promise), auc_c - auc)
    assert gain > 0.05  # above its promise and better than the whole data
    plain = _tested(data, [group], depth=1, random_state=0, mode=mode)
    beyond = _tested(data, [group], depth=1, random_state=0, mode=mode, beyond_whole=[True])
    assert plain["significant"].tolist() == beyond["significant"].tolist() == [True]
    weight = plain["statistic"][0] / ((auc_c - promise_c) - (auc - promise))
    assert beyond["statistic"][0] == pytest.approx(weight * gain, rel=1e-9)


def _any_significant(seed):
    data = risk_frame(100 + seed, n=400)
    space = subroc_ext.make_search_space(data, ignore=["y", "p"])
    tested = _tested(data, list(space), depth=1, random_state=seed)
    return bool(tested["significant"].any())


def test_on_true_probabilities_few_data_sets_have_a_significant_pattern():
    """No failure anywhere (the scores are the true probabilities): the test
    of every depth-1 pattern rejects in at most a few of 12 data sets (the
    family-wise error is 0.05 per data set; 4 or more of 12 has probability
    0.2%)."""
    assert sum(_any_significant(seed) for seed in range(12)) <= 3


@pytest.mark.extended  # 200 data sets (about 3 minutes)
def test_on_true_probabilities_the_family_wise_error_is_at_most_alpha():
    """200 data sets without a failure: the share with any significant pattern
    is at most alpha plus two standard errors (0.05 + 0.031)."""
    rate = np.mean([_any_significant(seed) for seed in range(200)])
    assert rate <= 0.081
