"""Tests of :mod:`subroc_ext.inference.promise_max_t`: the promise tested over the whole search, without a holdout."""

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn.metrics import roc_auc_score

import subroc_ext
from subroc_ext.inference.promise_max_t import PROMISE_WEIGHT, promise_margins, promise_max_t
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


def test_a_margin_asks_for_worse_than_the_whole_data_too():
    """In g = c the scores promise far more than the labels deliver (they are
    over-confident), yet its rows rank better than the whole data: short of
    its promise (significant without a margin), not worse than the whole data
    (not significant with :func:`promise_margins`'s margin). With the margin
    the statistic is ``w * (q_cm - m)``, which is ``w`` times the ROC AUC drop
    against the whole data."""
    rng = np.random.default_rng(3)
    n = 2000
    g, z = rng.choice(list("abcd"), n), rng.normal(0, 1, n)
    inside = g == "c"
    truth = np.where(inside, _sigmoid(2 * z), _sigmoid(1.5 * z))
    data = pd.DataFrame({"g": g, "y": (rng.random(n) < truth).astype(int),
                         "p": np.where(inside, _sigmoid(6 * z), _sigmoid(1.5 * z))})  # fmt: skip
    group = _subgroup(ps.EqualitySelector("g", "c"))
    auc, promise = roc_auc_score(data["y"], data["p"]), expected_roc_auc(data["p"].to_numpy())
    auc_c = roc_auc_score(data["y"][inside], data["p"][inside])
    promise_c = expected_roc_auc(data["p"][inside].to_numpy())
    assert promise_c - auc_c > promise - auc + 0.03 and auc_c > auc + 0.03  # the premise: short, yet better
    margins = promise_margins([promise_c], promise)
    assert margins[0] == pytest.approx(promise_c - promise, abs=1e-12)
    plain = _tested(data, [group], depth=1, random_state=0)
    margined = _tested(data, [group], depth=1, random_state=0, margins=margins)
    assert plain["significant"].tolist() == [True] and margined["significant"].tolist() == [False]
    weight = plain["statistic"][0] / ((promise_c - auc_c) - (promise - auc))
    assert margined["statistic"][0] == pytest.approx(weight * (auc - auc_c), rel=1e-9)
    assert margined["p_value"][0] == 1.0
    with pytest.raises(ValueError, match="mode must be 'worse'"):
        _tested(data, [group], depth=1, margins=margins, mode="both")


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
