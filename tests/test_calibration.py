"""The calibration measures (:mod:`subroc_ext.scoring.calibration`): values,
optimistic estimates proven on every subset of small covers, searches equal
to brute force, on threads, as pysubgroup quality functions, check_measure,
the size-only null and the refusal of scores that are no probabilities."""

import itertools

import numpy as np
import pandas as pd
import pysubgroup as ps
import pytest
from sklearn import metrics

import subroc_ext
from search_helpers import TARGET, assert_same_top_k, brute_force_top_k, listed, run
from synthetic import scored_frame
from subroc_ext.scoring import calibration
from subroc_ext.scoring.measures import Cover
from subroc_ext.scoring.null_sampling import null_values

TOL = 1e-9
WEIGHTS = [(0, 0), (0, 1), (1, 1), (0.3, 1), (1, 0.3), (0.5, 0.5), (2, 0)]  # (alpha, beta)
MODES = {
    "calibration_gap": ("under", "over", "both"),
    "brier": ("worse", "better", "both"),
    "log_loss": ("worse", "better", "both"),
}
QFS = {"calibration_gap": subroc_ext.CalibrationGapQF, "brier": subroc_ext.BrierQF,
       "log_loss": subroc_ext.LogLossQF}  # fmt: skip


def row_values(name, y, p):
    """The per-row value of each measure, written out (the oracle)."""
    if name == "calibration_gap":
        return y - p
    if name == "brier":
        return (y - p) ** 2
    q = np.clip(p, 1e-15, 1 - 1e-15)
    return -(y * np.log(q) + (1 - y) * np.log(1 - q))


def oracle_qualities(values, labels, masks, reference, mode, alpha, beta):
    """SPEC's ``n^alpha * cb^beta * q`` of every subset (rows of ``masks``)."""
    sizes = masks.sum(1)
    difference = masks @ values / sizes - reference
    raw = {"both": np.abs(difference), "over": -difference, "better": -difference}.get(mode, difference)
    positives = masks @ labels
    negatives = sizes - positives
    larger = np.maximum(positives, negatives)
    balance = np.where(larger > 0, np.minimum(positives, negatives) / np.maximum(larger, 1), 0.0)
    return np.power(sizes, float(alpha)) * np.power(balance, float(beta)) * raw


def small_case(seed):
    """Labels and probabilities of 8 to 14 rows: ties and repeated (label,
    probability) pairs in every other one, 0 and 1 among the probabilities now and then."""
    rng = np.random.default_rng([44, seed])
    size = int(rng.integers(8, 15))
    if seed % 2 == 0:
        p = rng.choice(np.linspace(0, 1, int(rng.integers(2, 6))), size)
    else:
        p = rng.random(size)
    y = (rng.random(size) < rng.uniform(0.2, 0.8)).astype(float)
    y[:2] = 1, 0
    return y, p


def qf_on(name, mode, alpha, beta, y, p):
    qf = QFS[name]("label", 1, beta, alpha, mode=mode)
    qf.calculate_constant_statistics(pd.DataFrame({"label": y.astype(int), "score": p}), TARGET)
    return qf


@pytest.mark.parametrize("name", list(MODES))
def test_values_match_the_formulas_and_scikit_learn(name):
    y, p = small_case(1)
    p[0], p[1] = 1.0, 1.0  # a positive promised 1, a negative promised 1: the clip
    qf = qf_on(name, MODES[name][0], 0, 0, y, p)
    expected = {"calibration_gap": y.mean() - p.mean(), "brier": metrics.brier_score_loss(y, p),
                "log_loss": row_values("log_loss", y, p).mean()}[name]  # fmt: skip
    assert qf.dataset_value == pytest.approx(expected, rel=1e-12)
    assert np.isfinite(qf.dataset_value)
    if name == "log_loss":  # promised 1: a positive costs (almost) nothing, a negative -log(1e-15)
        rest = row_values(name, y[2:], p[2:]).sum()
        assert qf.dataset_value == pytest.approx((-np.log1p(-(1 - 1e-15)) + rest) / len(y), rel=1e-12)
        assert -np.log1p(-(1 - 1e-15)) == pytest.approx(-np.log(1e-15), rel=1e-4)


@pytest.mark.parametrize("name", list(MODES))
@pytest.mark.parametrize("alpha, beta", WEIGHTS)
def test_estimate_bounds_every_subset_and_is_tight_without_balance(name, alpha, beta):
    """The optimistic estimate of each cover is at least the quality of every
    subset (all ``2**k``), equal to the best where ``beta == 0``."""
    reached_negative = 0
    for seed in range(16):
        y, p = small_case(seed)
        values = row_values(name, y, p)
        rng = np.random.default_rng(seed)
        for mode in MODES[name]:
            qf = qf_on(name, mode, alpha, beta, y, p)
            assert qf.dataset_value == pytest.approx(values.mean(), abs=1e-12)
            for _ in range(3):
                rows = np.sort(rng.choice(len(y), int(rng.integers(1, min(len(y), 11) + 1)), replace=False))
                if rng.random() < 0.2:  # one class only now and then
                    rows = rows[y[rows] == y[rows[0]]]
                masks = np.array(list(itertools.product([False, True], repeat=len(rows))))[1:]
                qualities = oracle_qualities(values[rows], y[rows], masks, values.mean(), mode, alpha, beta)
                mask = np.zeros(len(y), dtype=bool)
                mask[rows] = True
                stats = qf.statistics_of_cover(qf.dataset.cover(qf.dataset.mask_of(mask)))
                context = f"seed={seed} mode={mode} y={y[rows]} p={p[rows]}"
                assert stats.quality == pytest.approx(qualities[-1], abs=TOL), context
                assert not np.isnan(stats.optimistic_estimate), context
                assert stats.optimistic_estimate >= qualities.max() - TOL, "INVALID: " + context
                if beta == 0:
                    assert stats.optimistic_estimate == pytest.approx(qualities.max(), abs=TOL), context
                reached_negative += qualities.max() < 0
    if beta == 0:  # the negative-raw-bound case was exercised
        assert reached_negative > 0


@pytest.mark.parametrize("name", list(MODES))
def test_modes_under_and_over_are_worse_and_better_and_other_measures_refuse_them(name):
    y, p = small_case(3)
    data = pd.DataFrame({"label": y.astype(int), "score": p, "g": np.arange(len(y)) % 3})
    if name == "calibration_gap":
        for alias, mode in (("under", "worse"), ("over", "better")):
            assert subroc_ext.CalibrationGapQF("label", 1, mode=alias).mode == mode
        under = subroc_ext.CalibrationGapQF("label", 1, mode="under")
        under.calculate_constant_statistics(data, TARGET)
        stats = under.calculate_statistics(ps.EqualitySelector("g", 0), TARGET, data)
        gap = (y - p)[data.g == 0].mean() - (y - p).mean()
        assert stats.raw_quality == pytest.approx(gap)
    else:
        with pytest.raises(ValueError, match=r"mode must be one of \('worse', 'better', 'both'\), got 'under'"):
            QFS[name]("label", 1, mode="under")
    with pytest.raises(ValueError, match="got 'under'"):
        subroc_ext.ROCAUCQF("label", mode="under")


@pytest.mark.parametrize("name", list(MODES))
def test_scores_outside_zero_one_are_refused_naming_the_column(name):
    data = pd.DataFrame({"label": [1, 0, 1, 0], "logit": [-2.0, 0.5, 3.0, 0.2]})
    qf = QFS[name]("label", 1)
    with pytest.raises(ValueError) as error:
        qf.calculate_constant_statistics(data, subroc_ext.SoftClassifierTarget("label", "logit"))
    message = str(error.value)
    assert "score column 'logit'" in message and f"measure {name!r}" in message
    assert "from -2 to 3, outside [0, 1]" in message and "calibrate the scores first" in message
    assert "\n" not in message


def test_null_values_are_random_subsets_of_the_same_size_whatever_their_class():
    """The size-only null: every subset of 3 of 6 rows is equally likely
    (the exact distribution over all 20), with any class counts asked for."""
    y = np.array([True, True, False, False, False, True])
    p = np.array([0.1, 0.9, 0.3, 0.3, 0.6, 0.5])
    whole = Cover.from_arrays(y, p)
    gap = calibration.calibration_gap().prepare(whole)
    drawn = null_values(gap, whole, 3, 0, 20_000, np.random.default_rng(0))
    expected = [np.mean((y - p)[list(c)]) for c in itertools.combinations(range(6), 3)]
    assert set(np.round(drawn, 12)) <= set(np.round(expected, 12))
    for value in set(np.round(expected, 12)):
        share = np.mean(np.isclose(drawn, value)) / np.mean(np.isclose(expected, value))
        assert share == pytest.approx(1.0, abs=0.1)
    same = null_values(gap, whole, 1, 2, 2000, np.random.default_rng(1))  # (size, class) keys agree
    np.testing.assert_array_equal(same, null_values(gap, whole, 3, 0, 2000, np.random.default_rng(1)))


@pytest.mark.parametrize("name", list(MODES))
def test_check_measure_accepts_the_measures_and_catches_a_wrong_bound(name):
    make = {"calibration_gap": calibration.calibration_gap, "brier": calibration.brier_score,
            "log_loss": calibration.log_loss}[name]  # fmt: skip
    report = subroc_ext.check_measure(make(), n_datasets=8, max_rows=8, tight=True)
    assert report.ok, report

    class TooLow(calibration.ProbabilityMeanMeasure):
        """The mean of the k largest values with k = 1 only: too low for alpha > 0."""

        def size_aware_bound(self, cover, reference, sign, size_weight):
            values = sign * (self.prepared_values[cover.rows] - reference)
            return float(values.max())

    wrong = TooLow(make().row_values, kind="loss", name=name)
    report = subroc_ext.check_measure(wrong, n_datasets=12, max_rows=8, weights=[(1, 0)])
    assert not report.ok
    assert {violation.check for violation in report.violations} >= {"size_aware_bound"}


SEARCHES = [("calibration_gap", "under", (1, 1)), ("calibration_gap", "over", (0.5, 0)),
            ("calibration_gap", "both", (0, 0)), ("brier", "worse", (1, 0.3)),
            ("log_loss", "both", (1, 1)), ("log_loss", "better", (2, 0))]  # fmt: skip


@pytest.mark.parametrize("name, mode, weights", SEARCHES)
@pytest.mark.parametrize("ties", ["none", "heavy"])
def test_fast_search_equals_best_first_search_brute_force_and_threads(name, mode, weights, ties):
    data = scored_frame(7, 300, attributes=5, ties=ties)
    selectors = ps.create_selectors(data, nbins=3, ignore=["label", "score"])
    settings_ = {"depth": 2, "min_support": 10, "k": 12}

    def qf():
        return QFS[name]("label", 1, weights[1], weights[0], mode=mode)

    fast = run(subroc_ext.FastSearch(), qf(), data, selectors, **settings_)
    assert len(fast) == 12
    assert_same_top_k(fast, run(ps.BestFirstSearch(), qf(), data, selectors, **settings_), 12)
    assert_same_top_k(fast, brute_force_top_k(qf(), data, selectors, 2, 10, 12, False), 12)
    task = ps.SubgroupDiscoveryTask(data, TARGET, selectors, qf(), result_set_size=12, depth=2,
                                    constraints=[ps.MinSupportConstraint(10)])  # fmt: skip
    one = listed(subroc_ext.FastSearch().execute(task))
    assert listed(subroc_ext.FastSearch(n_jobs=3).execute(task)) == one
