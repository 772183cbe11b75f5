"""Tests of :mod:`subroc_ext.inference.resampled_effects`: effects of comparisons and of AUC_mu.

* ``delta`` is the oriented difference of differences (sklearn's ROC AUC as
  the oracle) or of AUC_mu (the brute-force pair count of
  ``multiclass_oracles``); NaN where undefined.
* The paired bootstrap keeps the pairing: two nearly identical models give
  a nearly zero-width interval, far narrower than either model's own spread.
* Seeded simulation: the simultaneous intervals cover the true effects (from
  large samples) in at least the nominal share of validation splits - a
  small version always, 500 splits per setting with ``-m slow``.
* ``steps.test`` and the pipelines add the columns.
"""

import functools

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from multiclass_oracles import oracle_auc_mu
from scipy import stats
from sklearn.metrics import roc_auc_score

import subroc_ext
from subroc_ext.workflow import steps
from subroc_ext.inference.effects import EFFECT_COLUMNS
from subroc_ext.inference.resampled_effects import resampled_effect_intervals

SELECTORS = [ps.EqualitySelector(f"a{i}", v) for i in range(4) for v in (True, False)]
PATTERNS = [ps.Conjunction([s]) for s in SELECTORS] + [
    ps.Conjunction([SELECTORS[2], SELECTORS[4]]),
    ps.Conjunction([SELECTORS[0], SELECTORS[6]]),
]


def attributes(rng, n):
    return {f"a{i}": rng.random(n) < p for i, p in enumerate([0.2, 0.4, 0.5, 0.3])}


def binary_scores(rng, label, strength):
    return 1 / (1 + np.exp(-(strength * (2 * label - 1) + rng.normal(size=len(label)))))


def regression_frame(rng, n):
    """A baseline and a new model of the same rows: the new one is worse where
    a0 holds and better where a1 and a2 do; their noise is shared in part."""
    a = attributes(rng, n)
    label = rng.random(n) < 0.3 + 0.2 * a["a3"]
    shared = rng.normal(size=n)
    signal = 2 * label - 1
    old = 1.5 * signal + shared
    new = (1.5 - 1.0 * a["a0"] + 0.6 * (a["a1"] & a["a2"])) * signal + 0.7 * shared
    new = new + 0.7 * rng.normal(size=n)
    return pd.DataFrame({"label": label.astype(int), "old": old, "new": new, **a})


def drift_frame(rng, n):
    """Two periods of one model: in the current one it is worse where a0 holds."""
    frames = []
    for period, change in (("reference", 0.0), ("current", 1.0)):
        a = attributes(rng, n // 2)
        label = rng.random(n // 2) < 0.3 + 0.2 * a["a3"]
        score = binary_scores(rng, label, 1.5 - change * a["a0"] + 0.3 * a["a1"])
        frames.append(pd.DataFrame({"label": label.astype(int), "score": score, "period": period, **a}))
    return pd.concat(frames, ignore_index=True)


def multiclass_frame(rng, n):
    """Three classes; the scores separate them less where a0 holds."""
    a = attributes(rng, n)
    label = rng.integers(0, 3, n)
    strength = (1.5 - 1.0 * a["a0"] + 0.5 * a["a1"])[:, None]
    logits = strength * np.eye(3)[label] + rng.normal(size=(n, 3))
    probabilities = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return pd.DataFrame({"label": label, **{f"p{k}": probabilities[:, k] for k in range(3)}, **a})


def regression_setting(mode="worse"):
    qf = subroc_ext.ComparisonQF(subroc_ext.scoring.measures.ROCAUC(), "label", mode=mode)
    return regression_frame, qf, subroc_ext.ComparisonTarget("label", "new", "old")


def drift_setting(mode="worse"):
    qf = subroc_ext.ComparisonQF(subroc_ext.scoring.measures.ROCAUC(), "label", mode=mode)
    return drift_frame, qf, subroc_ext.DriftTarget("label", "score", "period")


def multiclass_setting(mode="worse"):
    target = subroc_ext.MultiClassTarget("label", {0: "p0", 1: "p1", 2: "p2"})
    return multiclass_frame, subroc_ext.AUCMuQF("label", target.score_columns, mode=mode), target


def auc(frame, score):
    return roc_auc_score(frame["label"], frame[score])


def oracle_difference(setting, frame, pattern):
    """The signed difference (before orientation) by sklearn or by counting pairs."""
    covered = pattern.covers(frame)
    if setting is regression_setting:
        part, whole = frame[covered], frame
        return (auc(part, "new") - auc(whole, "new")) - (auc(part, "old") - auc(whole, "old"))
    if setting is drift_setting:
        current = frame["period"] == "current"
        return sum(
            sign * (auc(frame[rows & covered], "score") - auc(frame[rows], "score"))
            for sign, rows in ((1, current), (-1, ~current))
        )
    columns = ["p0", "p1", "p2"]
    codes, scores = frame["label"].to_numpy(), frame[columns].to_numpy()
    matrix = 1 - np.eye(3)
    return oracle_auc_mu(codes[covered], scores[covered], matrix) - oracle_auc_mu(codes, scores, matrix)


SETTINGS = [regression_setting, drift_setting, multiclass_setting]


@pytest.mark.parametrize("setting", SETTINGS)
@pytest.mark.parametrize("mode", ["worse", "better", "both"])
def test_delta_is_the_oriented_difference(setting, mode):
    rng = np.random.default_rng(1)
    make, qf, target = setting(mode)
    frame = make(rng, 160 if setting is multiclass_setting else 600)
    patterns = PATTERNS[:3]
    effects = resampled_effect_intervals(patterns, frame, qf, target, n_bootstrap=20, random_state=0)
    difference = np.array([oracle_difference(setting, frame, p) for p in patterns])
    expected = {"worse": -difference, "better": difference, "both": np.abs(difference)}[mode]
    np.testing.assert_allclose(effects["delta"], expected, atol=1e-12)
    assert list(effects.columns) == EFFECT_COLUMNS
    assert (effects["delta_ci_low"] <= effects["delta"]).all()
    assert (effects["delta"] <= effects["delta_ci_high"]).all()


def test_undefined_cover_gives_nan():
    make, qf, target = regression_setting()
    frame = make(np.random.default_rng(2), 400)
    positives = ps.Conjunction([ps.EqualitySelector("label", 1)])  # no negatives: no ROC AUC
    effects = resampled_effect_intervals([positives, PATTERNS[0]], frame, qf, target,
                                         n_bootstrap=20, random_state=0)  # fmt: skip
    assert effects.iloc[0].isna().all()
    assert effects.iloc[1].notna().all()


def test_paired_bootstrap_keeps_the_pairing():
    """A new model that differs from the baseline by a hair: the effect's interval
    is tiny, though each model's AUC on the subgroup varies by far more."""
    rng = np.random.default_rng(3)
    frame = regression_frame(rng, 2000)
    frame["new"] = frame["old"] + 1e-3 * rng.normal(size=len(frame))
    _, qf, target = regression_setting()
    effects = resampled_effect_intervals(PATTERNS[:4], frame, qf, target, n_bootstrap=100,
                                         random_state=0)  # fmt: skip
    widths = effects["delta_ci_high"] - effects["delta_ci_low"]
    assert (widths < 0.005).all(), widths
    own = steps.describe(PATTERNS[:4], frame, subroc_ext.SoftClassifierTarget("label", "old"),
                         intervals=True)  # fmt: skip
    assert ((own["roc_auc_ci_high"] - own["roc_auc_ci_low"]) > 10 * widths).all()


def truth(setting, big):
    """True signed differences from a large sample (the package's own measures)."""
    _, qf, target = setting("better")
    return resampled_effect_intervals(PATTERNS, big, qf, target, n_bootstrap=2,
                                      random_state=0)["delta"].to_numpy()  # fmt: skip


@functools.cache
def large_sample_truth(setting):
    """The truth from 1,000,000 rows: from 200,000 its own error (0.06-0.2
    standard deviations of a 3,000-row estimate) cost the paired setting 1 %
    of coverage."""
    return truth(setting, setting()[0](np.random.default_rng(0), 1_000_000))


def coverage(setting, repetitions, n_rows, n_bootstrap, seed):
    """How many of ``repetitions`` validation splits have every interval covering its truth."""
    make, qf, target = setting("better")
    true = large_sample_truth(setting)
    covered = 0
    for repetition in range(repetitions):
        frame = make(np.random.default_rng([seed, repetition]), n_rows)
        effects = resampled_effect_intervals(PATTERNS, frame, qf, target, n_bootstrap=n_bootstrap,
                                             random_state=repetition)  # fmt: skip
        covered += bool(((effects["delta_ci_low"] <= true) & (true <= effects["delta_ci_high"])).all())
    return covered


@pytest.mark.extended  # a seeded simulation
@pytest.mark.parametrize("setting", SETTINGS)
def test_simultaneous_intervals_cover_the_true_effects(setting):
    covered = coverage(setting, 10, 1000, 60, seed=10)
    assert covered >= stats.binom.ppf(0.005, 10, 0.95), covered  # 7 of 10


@pytest.mark.slow
@pytest.mark.parametrize("setting", SETTINGS)
def test_simultaneous_intervals_cover_the_true_effects_of_500_splits(setting):
    """500 validation splits; the Monte-Carlo margin: coverage may fall below
    0.95 by no more than a one-sided binomial test at level 0.01 allows (0.93)."""
    covered = coverage(setting, 500, 3000, 500, seed=20)
    assert stats.binomtest(covered, 500, 0.95, alternative="less").pvalue > 0.01, covered


def test_steps_test_adds_the_effects_of_comparisons_and_auc_mu():
    make, qf, target = multiclass_setting()
    frame = make(np.random.default_rng(4), 150)
    tested = steps.test(PATTERNS[:3], frame, qf, target, alpha=0.1, n_samples=100, intervals="simultaneous",
                        random_state=3)
    expected = resampled_effect_intervals(PATTERNS[:3], frame, qf, target, confidence=0.9,
                                          random_state=subroc_ext.inference.significance.base_seed(3))  # fmt: skip
    pd.testing.assert_frame_equal(tested[EFFECT_COLUMNS], expected)


def test_bad_arguments_raise():
    make, qf, target = regression_setting()
    frame = make(np.random.default_rng(5), 200)
    with pytest.raises(TypeError, match="qf must be a ComparisonQF or an AUCMuQF"):
        resampled_effect_intervals(PATTERNS, frame, subroc_ext.ROCAUCQF("label"), target)
    with pytest.raises(ValueError, match="confidence must be in"):
        resampled_effect_intervals(PATTERNS, frame, qf, target, confidence=0)


@pytest.mark.parametrize("setting", [regression_setting, drift_setting])
def test_roc_auc_comparison_errors_are_the_brute_force_jackknife(setting):
    """The intervals are delta ± Šidák's c times the class-stratified (and,
    for drift, period-stratified) jackknife standard error, here recomputed
    by leaving each row out and asking sklearn."""
    make, qf, target = setting("better")
    frame = make(np.random.default_rng(7), 60)
    patterns = [PATTERNS[1], PATTERNS[3]]  # a0 false, a1 false: both classes in both periods
    effects = resampled_effect_intervals(patterns, frame, qf, target, random_state=0)
    assert effects.notna().all().all()
    difference = np.array([oracle_difference(setting, frame, p) for p in patterns])
    strata = frame["label"].astype(str)
    if setting is drift_setting:
        strata = strata + frame["period"]
    variance = np.zeros(len(patterns))
    for _, rows in frame.groupby(strata).groups.items():
        left_out = np.array([[oracle_difference(setting, frame.drop(index=row), p) for p in patterns]
                             for row in rows])  # fmt: skip
        variance += (len(rows) - 1) / len(rows) * ((left_out - difference) ** 2).sum(axis=0)
    critical = subroc_ext.inference.effects.sidak_critical(0.95, len(patterns), two_sided=True)
    np.testing.assert_allclose(effects["delta"], difference, atol=1e-12)
    np.testing.assert_allclose(effects["delta_ci_high"] - effects["delta"], critical * np.sqrt(variance),
                               rtol=1e-9)  # fmt: skip
