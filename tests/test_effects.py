"""Tests of :mod:`subroc_ext.inference.effects`: effect sizes with simultaneous intervals.

* ``delta`` is the measure on the subgroup minus on the whole split, oriented
  as the mode; NaN where undefined.
* The max-t critical value is the known one for independent coordinates;
  the DeLong intervals agree with the bootstrap ones (the jackknife terms:
  ``tests/test_influence.py``).
* Seeded simulation: the simultaneous intervals cover the true effects (from
  a sample of a million rows) in at least the nominal share of validation
  splits - a small version always, 500 searches with ``-m slow``; the same
  for the jackknife intervals of PR AUC and ARL and the bootstrap intervals
  of the attribution mean and a user measure (500 validation splits each
  with ``-m slow``).
"""

import functools
import warnings

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

import subroc_ext
from subroc_ext.inference import effects, jackknife
from subroc_ext.inference.effects import effect_intervals, effect_range
from subroc_ext.inference.jackknife import ScaledJackknife, _max_t_critical
from subroc_ext.scoring import measures
from subroc_ext.workflow import steps

TARGET = subroc_ext.SoftClassifierTarget("label", "score")


def draw(rng, n):
    """A model that is worse where a0 holds and better where a1 and a2 do; a4 is noise."""
    a = {f"a{i}": rng.random(n) < p for i, p in enumerate([0.2, 0.4, 0.5, 0.3, 0.1])}
    label = rng.random(n) < 0.3 + 0.2 * a["a3"]
    strength = 1.5 - 1.0 * a["a0"] + 0.6 * (a["a1"] & a["a2"])
    score = 1 / (1 + np.exp(-(strength * (2 * label - 1) + rng.normal(size=n))))
    return pd.DataFrame({"label": label.astype(int), "score": score, **a})


SELECTORS = [ps.EqualitySelector(f"a{i}", v) for i in range(5) for v in (True, False)]
PATTERNS = [ps.Conjunction([s]) for s in SELECTORS] + [
    ps.Conjunction([SELECTORS[2], SELECTORS[4]]),
    ps.Conjunction([SELECTORS[0], SELECTORS[6]]),
]


def true_effects(patterns, big):
    """ROC AUC effects (mode 'better') of ``patterns`` on the large sample ``big``."""
    whole = roc_auc_score(big["label"], big["score"])
    return np.array([
        roc_auc_score(big.loc[covered, "label"], big.loc[covered, "score"]) - whole
        for covered in (pattern.covers(big) for pattern in patterns)
    ])  # fmt: skip


@pytest.fixture(scope="module")
def truth():
    """True ROC AUC effects of PATTERNS, from a million rows."""
    return true_effects(PATTERNS, draw(np.random.default_rng(0), 1_000_000))


@pytest.mark.parametrize("name", list(steps.MEASURES))
@pytest.mark.parametrize("mode", ["worse", "better", "both"])
def test_delta_is_the_difference_to_the_whole_split_oriented_as_the_mode(name, mode):
    data = draw(np.random.default_rng(1), 800)
    patterns = [*PATTERNS[:4], ps.Conjunction([ps.EqualitySelector("label", 1)])]  # one class only
    qf = subroc_ext.make_quality_function(name, "label", mode=mode)
    effects = effect_intervals(patterns, data, qf, TARGET, n_bootstrap=30, random_state=0)
    described, whole = steps.describe(patterns, data, TARGET), steps.dataset_values(data, TARGET)
    difference = described[name] - whole[name]
    if name == "arl":  # against the test's null: random subsets of its class counts, N(S) (1 - AUC(V)) on average
        difference = described["arl"] - described["negatives"] * (1 - whole["roc_auc"])
    kind = steps.MEASURES[name]().kind
    if mode == "both":
        expected = difference.abs()
    else:
        expected = difference * (1 if (mode == "worse") == (kind == "loss") else -1)
    np.testing.assert_allclose(effects["delta"], expected, rtol=1e-12, atol=1e-15)
    bounded = effects["delta_ci_low"].notna()
    assert (effects.loc[bounded, "delta_ci_low"] <= effects.loc[bounded, "delta"]).all()
    assert (effects.loc[bounded, "delta"] <= effects.loc[bounded, "delta_ci_high"]).all()
    assert bounded[:-1].all()
    if name == "roc_auc":  # undefined without negatives
        assert effects.iloc[-1].isna().all()
    elif name in ("pr_auc", "arl"):  # defined, but the jackknife needs two rows of each class
        assert effects["delta"].notna().all() and not bounded.iloc[-1]
    else:
        assert bounded.iloc[-1]


@pytest.mark.parametrize("name", list(steps.MEASURES))
def test_a_subgroup_covering_the_whole_split_has_no_interval(name):
    data = draw(np.random.default_rng(8), 600)
    everything = ps.Conjunction([])
    qf = subroc_ext.make_quality_function(name, "label")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        effects = effect_intervals([*PATTERNS[:3], everything], data, qf, TARGET, n_bootstrap=30,
                                   random_state=0)  # fmt: skip
    assert effects.iloc[-1].tolist()[0] == 0 and effects.iloc[-1, 1:].isna().all()
    assert effects.iloc[:-1].notna().all().all()


def test_mode_both_mirrors_the_interval_of_a_negative_difference():
    data = draw(np.random.default_rng(2), 1000)
    worse, better, both = (
        effect_intervals(PATTERNS, data, subroc_ext.ROCAUCQF("label", mode=mode), TARGET,
                         random_state=0)
        for mode in ("worse", "better", "both")
    )  # fmt: skip
    np.testing.assert_allclose(better[["delta", "delta_ci_high"]], -worse[["delta", "delta_ci_low"]])
    up = better["delta"] >= 0
    pd.testing.assert_frame_equal(both[up], better[up])
    pd.testing.assert_frame_equal(both[~up], worse[~up])


def test_max_t_critical_value_of_independent_coordinates():
    rng = np.random.default_rng(4)
    assert _max_t_critical(np.eye(1), 0.95, rng) == pytest.approx(stats.norm.ppf(0.975), abs=0.03)
    # max of k independent |Z|: P(|Z| <= c)^k = 0.95
    expected = stats.norm.ppf(0.5 + 0.95 ** (1 / 10) / 2)
    assert _max_t_critical(np.eye(10), 0.95, rng) == pytest.approx(expected, abs=0.04)
    # identical coordinates are one
    assert _max_t_critical(np.ones((5, 5)), 0.95, rng) == pytest.approx(stats.norm.ppf(0.975), abs=0.03)


class BootstrappedROCAUC(measures.ROCAUC):
    """ROC AUC evaluated as a user measure: its effects come from the bootstrap."""


def test_jackknife_covariance_from_the_nonzero_changes_is_the_dense_one():
    """:class:`ScaledJackknife` keeps only each subgroup's nonzero changes per
    stratum; its covariance is, bit for bit, the stratified jackknife
    covariance of the dense coordinates (rows over several blocks, strata
    interleaved, subgroups with changes on few rows, on none, on all)."""
    rng = np.random.default_rng(5)
    n = 3 * (1 << 15) + 17
    strata = [rng.random(n) < 0.3]
    strata.append(~strata[0])
    masks = [rng.random(n) < share for share in (0.001, 0.2, 0.7, 1.0)] + [np.zeros(n, bool)]
    terms = [np.where(mask, rng.normal(size=n), 0.0) for mask in masks]
    values = rng.uniform(0.2, 0.8, len(masks))
    whole_value, whole_terms = 0.6, rng.normal(size=n)
    margins = np.full(len(masks) + 1, 1e-6)
    spread = ScaledJackknife(lambda: zip(values, terms), whole_value, whole_terms, margins, strata,
                             np.random.default_rng(0))  # fmt: skip
    _, whole_slope, _ = jackknife._scaled(whole_value, margins[-1])
    _, slopes, _ = jackknife._scaled(values, margins[:-1])
    whole_coordinate = whole_slope * whole_terms
    dense = np.column_stack([(slopes[:, None] * np.array(terms) - whole_coordinate).T, whole_coordinate])
    expected = jackknife.stratified_jackknife_covariance(dense, strata)
    assert np.array_equal(spread.covariance, expected)
    oracle = sum((m.sum() - 1) / m.sum() * np.cov(dense[m].T, bias=True) * m.sum() for m in strata)
    np.testing.assert_allclose(spread.covariance, oracle, rtol=1e-9, atol=1e-12)
    # the standard errors come from one subgroup at a time; they are the covariance's diagonal
    np.testing.assert_allclose(spread.error, np.sqrt(np.diag(expected)), rtol=1e-12, atol=1e-15)
    assert spread.varies.tolist() == [True] * 4 + [True, True]  # the empty one: minus the whole's


def test_jackknife_keeps_the_changes_only_for_simultaneous_intervals():
    """The marginal intervals read each subgroup's changes once and keep
    none; only the simultaneous critical value reads them again."""
    rng = np.random.default_rng(6)
    n = 500
    strata = [rng.random(n) < 0.4]
    strata.append(~strata[0])
    terms = [np.where(rng.random(n) < 0.3, rng.normal(size=n), 0.0) for _ in range(3)]
    calls = []

    def parts():
        calls.append(1)
        return zip([0.4, 0.5, 0.6], terms)

    spread = ScaledJackknife(parts, 0.55, rng.normal(size=n), np.full(4, 1e-6), strata, np.random.default_rng(0))
    low, high = spread.ends(spread.marginal_critical(np.full(3, 0.9)))
    assert len(calls) == 1 and "covariance" not in vars(spread)
    assert (low < high).all()
    assert spread.simultaneous_critical(0.9) > spread.marginal_critical(0.9)
    assert len(calls) == 2


def test_delong_and_bootstrap_intervals_agree():
    data = draw(np.random.default_rng(5), 3000)
    delong = effect_intervals(PATTERNS, data, subroc_ext.ROCAUCQF("label"), TARGET, random_state=0)
    qf = subroc_ext.SoftClassifierQF(BootstrappedROCAUC(), "label")
    boot = effect_intervals(PATTERNS, data, qf, TARGET, n_bootstrap=400, random_state=0)
    np.testing.assert_allclose(boot["delta"], delong["delta"])
    widths = [frame["delta_ci_high"] - frame["delta_ci_low"] for frame in (delong, boot)]
    # the DeLong intervals are wider, as they also hold the whole split's AUC in a box
    assert ((widths[1] < widths[0]) & (widths[1] > 0.5 * widths[0])).all()


def coverage(truth, repetitions, n_rows, seed):
    """Share of validation splits where every interval covers its true effect."""
    covered = 0
    for repetition in range(repetitions):
        data = draw(np.random.default_rng([seed, repetition]), n_rows)
        effects = effect_intervals(PATTERNS, data, subroc_ext.ROCAUCQF("label", mode="better"),
                                   TARGET, random_state=repetition)  # fmt: skip
        covered += bool(((effects["delta_ci_low"] <= truth) & (truth <= effects["delta_ci_high"])).all())
    return covered


@pytest.mark.extended  # a seeded simulation
def test_simultaneous_intervals_cover_the_true_effects(truth):
    covered = coverage(truth, 100, 2000, seed=10)
    assert covered >= stats.binom.ppf(0.005, 100, 0.95)  # 88 of 100


@pytest.mark.slow
def test_simultaneous_intervals_cover_the_true_effects_of_500_searches():
    """500 searches on fresh data: the top 10 subgroups of each (depth 2), their
    true effects from a million rows."""
    big = draw(np.random.default_rng(0), 1_000_000)
    known = {}
    covered = 0
    for search in range(500):
        data = draw(np.random.default_rng([20, search]), 4000)
        found = steps.search(data.iloc[:2000], subroc_ext.ROCAUCQF("label", mode="worse"), TARGET,
                             depth=2, min_support=50, result_set_size=10)  # fmt: skip
        validation = data.iloc[2000:]
        effects = effect_intervals(found.subgroups, validation, subroc_ext.ROCAUCQF("label"), TARGET,
                                   random_state=search)  # fmt: skip
        missing = [s for s in found.subgroups if str(s) not in known]
        known.update({str(s): -v for s, v in zip(missing, true_effects(missing, big))})
        truth = np.array([known[str(s)] for s in found.subgroups])
        covered += bool(((effects["delta_ci_low"] <= truth) & (truth <= effects["delta_ci_high"])).all())
    assert stats.binomtest(covered, 500, 0.95, alternative="less").pvalue > 0.01, covered


JACKKNIFED = ["pr_auc", "arl"]
BOOTSTRAPPED = ["attribution_mean", "user"]


def measure_setting(name):
    """The quality function of a measure other than the ROC AUC, oriented so
    that delta = m(S) - m(V); 'user' is the ROC AUC as a user measure."""
    if name == "user":
        return subroc_ext.SoftClassifierQF(BootstrappedROCAUC(), "label", mode="better")
    return subroc_ext.make_quality_function(name, "label", mode="worse" if name == "arl" else "better")


@functools.cache
def big_differences(n_big):
    """Every built-in measure's m(S) - m(V) of PATTERNS on ``n_big`` rows."""
    big = draw(np.random.default_rng(0), n_big)
    whole = steps.dataset_values(big, TARGET)
    described = steps.describe(PATTERNS, big, TARGET)
    return {name: (described[name] - whole[name]).to_numpy() for name in steps.MEASURES}


def signed_truth(name, data, n_big):
    """True signed differences m(S) - m(V) from ``n_big`` rows; the ARL's
    against the test's null, ``N(S) (AUC(V) - AUC(S))``, with ``N(S)`` the
    negatives of ``S`` in ``data`` (its class counts held, as the test holds
    them)."""
    if name == "arl":
        return -big_differences(n_big)["roc_auc"] * steps.describe(PATTERNS, data, TARGET)["negatives"].to_numpy()
    return big_differences(n_big)["roc_auc" if name == "user" else name]


def measure_coverage(name, repetitions, n_rows, n_bootstrap, seed, n_big):
    """How many validation splits have every interval covering its truth."""
    covered = 0
    for repetition in range(repetitions):
        data = draw(np.random.default_rng([seed, repetition]), n_rows)
        truth = signed_truth(name, data, n_big)
        effects = effect_intervals(PATTERNS, data, measure_setting(name), TARGET,
                                   n_bootstrap=n_bootstrap, random_state=repetition)  # fmt: skip
        covered += bool(((effects["delta_ci_low"] <= truth) & (truth <= effects["delta_ci_high"])).all())
    return covered


@pytest.mark.extended  # a seeded simulation
@pytest.mark.parametrize("name", JACKKNIFED)
def test_jackknife_intervals_cover_the_true_effects(name):
    covered = measure_coverage(name, 100, 1000, 2, seed=30, n_big=200_000)
    assert covered >= stats.binom.ppf(0.005, 100, 0.95), covered  # 88 of 100


@pytest.mark.slow
@pytest.mark.parametrize("name", JACKKNIFED)
def test_jackknife_intervals_cover_the_true_effects_of_500_splits(name):
    """500 validation splits of 2,000 rows, truth from 1,000,000 rows: at least
    the nominal 475. Measured: PR AUC 490 (98.0 %), ARL 494 (98.8 %; its effect
    against the whole split's ARL before issue 55); with the
    truth from 4,000,000 rows the same. The class-stratified bootstrap's max-t
    intervals they replace covered 468 and 457 (93.6 %, 91.4 %; truth from
    200,000 rows), the jackknife's without the logit/log scale about 450."""
    covered = measure_coverage(name, 500, 2000, 2, seed=40, n_big=1_000_000)
    assert covered >= 0.95 * 500, covered


@pytest.mark.parametrize("name", BOOTSTRAPPED)
def test_bootstrap_intervals_cover_the_true_effects(name):
    covered = measure_coverage(name, 10, 1000, 60, seed=30, n_big=200_000)
    assert covered >= stats.binom.ppf(0.005, 10, 0.95), covered  # 7 of 10


@pytest.mark.slow
@pytest.mark.parametrize("name", BOOTSTRAPPED)
def test_bootstrap_intervals_cover_the_true_effects_of_500_splits(name):
    """500 validation splits of 2,000 rows, 500 replicates each, truth from
    1,000,000 rows. The Monte-Carlo margin: a one-sided binomial test of
    coverage >= 0.95 at level 0.01 must not reject (it rejects below 465 of
    500, 0.93). Measured: attribution mean 475 (95.0 %), user 479 (95.8 %)."""
    covered = measure_coverage(name, 500, 2000, 500, seed=40, n_big=1_000_000)
    assert stats.binomtest(covered, 500, 0.95, alternative="less").pvalue > 0.01, covered


def test_bad_arguments_raise():
    data = draw(np.random.default_rng(6), 200)
    qf = subroc_ext.ROCAUCQF("label")
    with pytest.raises(ValueError, match="confidence must be in"):
        effect_intervals(PATTERNS, data, qf, TARGET, confidence=1.0)
    with pytest.raises(ValueError, match="n_bootstrap must be an integer >= 2"):
        effect_intervals(PATTERNS, data, qf, TARGET, n_bootstrap=1)
    with pytest.raises(TypeError, match="qf must be a subroc_ext SoftClassifierQF"):
        effect_intervals(PATTERNS, data, object(), TARGET)


def test_steps_test_adds_the_effects_at_confidence_one_minus_alpha():
    data = draw(np.random.default_rng(7), 1500)
    qf = subroc_ext.ROCAUCQF("label")
    tested = steps.test(PATTERNS, data, qf, TARGET, alpha=0.1, intervals="simultaneous", random_state=3)
    seed = subroc_ext.inference.significance.base_seed(3)
    expected = effect_intervals(PATTERNS, data, qf, TARGET, confidence=0.9, random_state=seed)
    low, high = effect_range(qf)  # the interval inside the values the effect can take
    expected = expected.assign(delta_ci_low=expected["delta_ci_low"].clip(low, high),
                               delta_ci_high=expected["delta_ci_high"].clip(low, high))  # fmt: skip
    assert (expected["delta_ci_low"] != effect_intervals(PATTERNS, data, qf, TARGET, confidence=0.9,
                                                         random_state=seed)["delta_ci_low"]).any()
    pd.testing.assert_frame_equal(tested[list(expected.columns)], expected)
    assert list(tested.columns[-6:]) == ["p_value_exact", "delta", "delta_ci_low", "delta_ci_high", "verdict",
                                         "verdict_note"]  # fmt: skip
