"""The whole data's calibration: the fits against statsmodels, the tests'
null alarms and power by seeded simulation, and the sentence's direction."""

import numpy as np
import pytest
from scipy.special import expit, logit

from subroc_ext.inference.whole_calibration import whole_calibration, wilson_interval
from subroc_ext.reporting.whole_calibration import calibration_sentence


def _truth(rng, n):
    return expit(rng.normal(-1.0, 1.0, n))


def test_the_fits_are_statsmodels_logistic_regressions_and_the_wilson_interval():
    import statsmodels.api as sm
    from statsmodels.stats.proportion import proportion_confint

    rng = np.random.default_rng(0)
    p = _truth(rng, 2000)
    y = rng.random(2000) < expit(logit(p) * 0.8 + 0.3)
    said = whole_calibration(y, p, alpha=0.1)
    x = logit(p)
    large = sm.GLM(y.astype(float), np.ones((2000, 1)), family=sm.families.Binomial(), offset=x).fit()
    assert said.intercept == pytest.approx(large.params[0], rel=1e-6)
    assert (said.intercept_low, said.intercept_high) == pytest.approx(tuple(large.conf_int(0.1)[0]), rel=1e-5)
    slope = sm.GLM(y.astype(float), sm.add_constant(x), family=sm.families.Binomial()).fit()
    assert said.slope == pytest.approx(slope.params[1], rel=1e-6)
    assert (said.slope_low, said.slope_high) == pytest.approx(tuple(slope.conf_int(0.1)[1]), rel=1e-5)
    # Cox's test: the likelihood ratio of the fitted line against p itself, two degrees of freedom
    from scipy.stats import chi2

    given = np.sum(y * np.log(p) + (1 - y) * np.log1p(-p))
    assert said.p_value == pytest.approx(chi2.sf(2 * (slope.llf - given), 2), rel=1e-6)
    assert (said.observed_low, said.observed_high) == pytest.approx(
        proportion_confint(y.sum(), 2000, alpha=0.1, method="wilson"), rel=1e-9)  # fmt: skip
    assert wilson_interval(np.array([3, 0]), np.array([10, 5]))[0][1] == 0.0


def test_calibrated_scores_raise_the_warning_at_the_level_and_distortions_are_told_apart():
    """Seeded simulation: 400 calibrated datasets of 1,000 rows raise the
    warning about ``alpha`` of the time; a shift of the logit by +-1 is said
    as over- or underestimated everywhere (the slope in its interval), a
    slope of 1.6 (scores too extreme) and of 1/1.6 (too timid) by the spread."""
    rng = np.random.default_rng(1)
    alarms = 0
    for _ in range(400):
        p = _truth(rng, 1000)
        alarms += not whole_calibration(rng.random(1000) < p, p).calibrated
    assert alarms / 400 == pytest.approx(0.05, abs=0.025)
    said = {}
    for name, distort in {"up": lambda z: z + 1, "down": lambda z: z - 1, "extreme": lambda z: 1.6 * z,
                          "timid": lambda z: z / 1.6}.items():  # fmt: skip
        told = []
        for _ in range(50):
            p = _truth(rng, 2000)
            result = whole_calibration(rng.random(2000) < p, expit(distort(logit(p))))
            told.append((result.in_the_large, result.spread))
        said[name] = told
    assert sum(large == "over" for large, _ in said["up"]) == 50
    assert sum(large == "under" for large, _ in said["down"]) == 50
    assert sum(spread == "" for _, spread in said["up"] + said["down"]) >= 90  # a slope of 1: its 95 % interval
    assert sum(spread == "too extreme" for _, spread in said["extreme"]) == 50
    assert sum(spread == "too timid" for _, spread in said["timid"]) == 50


def test_one_class_has_no_slope_and_no_warning():
    said = whole_calibration(np.zeros(50, bool), np.full(50, 0.01))
    assert np.isnan(said.slope) and np.isnan(said.p_value) and said.calibrated
    record = said.record()
    assert record["slope"] is None and record["p_value"] is None
    assert "no calibration slope (one class or one score only)" in calibration_sentence(record)
    one_score = whole_calibration(np.arange(100) < 30, np.full(100, 0.5))  # 30 % where 50 % are promised
    assert np.isnan(one_score.slope) and one_score.in_the_large == "over"
    assert one_score.intercept == pytest.approx(np.log(30 / 70))


def test_the_sentence_says_each_direction():
    rng = np.random.default_rng(2)
    p = expit(rng.normal(0.0, 1.0, 4000))  # risks around 1/2: too timid scores keep the mean
    y = rng.random(4000) < p
    timid = calibration_sentence(whole_calibration(y, expit(logit(p) / 1.6)).record())
    assert timid.startswith("Calibration on the whole data (4,000 rows): its risks are too timid (calibration "
                            "slope 1.")  # fmt: skip
    assert ": high risks underestimated, low ones overestimated); on average promised " in timid
    both = calibration_sentence(whole_calibration(y, expit(1.6 * logit(p) + 1)).record())
    assert both.startswith("Calibration on the whole data (4,000 rows): the model overestimates the risk on "
                           "average (promised ")  # fmt: skip
    assert ") and its risks are too extreme (calibration slope 0.6" in both
    fixed = calibration_sentence(whole_calibration(y, p).record(), "after a fix")
    assert ": not shown miscalibrated: promised " in fixed and fixed.endswith("; after a fix.")
