"""Tests of :mod:`subroc_ext.inputs.probabilities`: scores read as probabilities,
as given or through a monotone map fitted on the search split."""

import numpy as np
import pytest
from scipy.special import expit, logit

from subroc_ext.inputs.probabilities import check_calibration, fit_probabilities
from subroc_ext.metrics.kernels import roc_auc_score


def logistic_data(seed, n=20_000):
    rng = np.random.default_rng(seed)
    truth = expit(rng.normal(scale=1.5, size=n))
    return truth, rng.random(n) < truth


def test_scores_in_the_unit_interval_are_used_as_given():
    truth, labels = logistic_data(0, 200)
    for calibrate, why in (("auto", " and calibrated on the search split"), ("none", "")):
        probabilities = fit_probabilities(truth, labels, calibrate, name="p")
        assert probabilities.method == "none"
        assert probabilities.description == f"the scores as given (score column 'p' is in [0, 1]{why})"
        assert probabilities(truth).tolist() == truth.tolist()


@pytest.mark.parametrize("slope", [1.5, 0.6])
def test_over_and_under_confident_scores_are_recalibrated(slope):
    """Scores in [0, 1] that rank like the truth but are over- (logit x 1.5) or
    under-confident (x 0.6): 'auto' finds them uncalibrated, says why, and fits
    a sigmoid of their logit, whose probabilities are the truth's to sampling error."""
    truth, labels = logistic_data(3, 5_000)
    scores = expit(slope * logit(truth))
    check = check_calibration(scores, labels)
    assert not check.calibrated
    assert (check.promised > check.high) if slope > 1 else (check.promised < check.low)
    probabilities = fit_probabilities(scores, labels, "auto", name="p")
    assert probabilities.method == "sigmoid"
    assert probabilities.description.startswith(
        "a sigmoid of the scores' logit fitted on the search split (the scores as given are not calibrated there: "
        f"they promise a ROC AUC of {check.promised:.3f} and deliver {check.delivered:.3f}"
    )
    assert np.abs(probabilities(scores) - truth).mean() < 0.01 < 0.03 < np.abs(scores - truth).mean()


def test_the_calibration_check_rarely_rejects_calibrated_scores():
    """Two checks at 5 % each (the promise inside the AUC's 95 % interval and
    Spiegelhalter's test): calibrated scores are taken as given in most of 200
    datasets (a false alarm costs only an isotonic fit), over-confident ones
    (logit x 1.3) are caught in most."""
    alarms = caught = 0
    for seed in range(200):
        truth, labels = logistic_data(100 + seed, 2_000)
        alarms += not check_calibration(truth, labels).calibrated
        caught += not check_calibration(expit(1.3 * logit(truth)), labels).calibrated
    assert alarms <= 20
    assert caught >= 150


@pytest.mark.parametrize("calibrate", ["auto", "sigmoid", "isotonic"])
def test_a_monotone_map_recovers_the_probabilities_of_a_margin(calibrate):
    """Scores that are an affine map of the true log-odds: the sigmoid finds the
    probabilities again (to sampling error), isotonic regression roughly; the
    map never reverses an order, so the ranking (ROC AUC of the scores) is kept."""
    truth, labels = logistic_data(1)
    margin = 3 * logit(truth) - 2
    probabilities = fit_probabilities(margin, labels, calibrate)
    assert probabilities.method == ("isotonic" if calibrate == "isotonic" else "sigmoid")
    p = probabilities(margin)
    assert ((p >= 0) & (p <= 1)).all()
    order = np.argsort(margin)
    assert (np.diff(p[order]) >= 0).all()
    tolerance = 0.03 if calibrate != "isotonic" else 0.1
    assert np.abs(p - truth).max() < tolerance
    if calibrate != "isotonic":  # strictly monotone: not one pair of rows changes order
        assert roc_auc_score(labels, p) == roc_auc_score(labels, margin)
    new = fit_probabilities(margin, labels, calibrate)(np.array([-1e6, 1e6]))  # beyond the fitted range
    assert new.tolist() == pytest.approx([0.0, 1.0], abs=0.05)


def test_scores_that_cannot_be_probabilities_are_a_one_line_error():
    truth, labels = logistic_data(2, 500)
    with pytest.raises(ValueError) as error:
        fit_probabilities(logit(truth), labels, "none", name="margin")
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("score column 'margin' cannot be read as probabilities: its values run from")
    assert "calibrate='sigmoid' or 'isotonic'" in message
    with pytest.raises(ValueError, match="calibrate must be one of"):
        fit_probabilities(truth, labels, "platt")
    with pytest.raises(ValueError, match="do not rise with the positive class"):
        fit_probabilities(-logit(truth), labels, "sigmoid")


@pytest.mark.parametrize("calibrate", ["sigmoid", "isotonic"])
@pytest.mark.parametrize("scale, offset", [(1e300, 0.0), (1e-300, 0.0), (1.0, 1e15), (-9e306, 0.0)])
def test_the_map_does_not_depend_on_the_scale_of_the_scores(calibrate, scale, offset):
    """Scores times 1e300 or 1e-300, or shifted by 1e15 (steps of 0.125 there), give
    the probabilities of the scores themselves, without an overflow warning (1e300 had
    overflowed the sigmoid's standardization into NaN probabilities, or into "the
    scores do not rise with the positive class" at a ROC AUC of 0.88). The last case
    runs from -1.2e308 to 1.6e308 (their difference is no float) and is read upside down
    (scale < 0), so its map falls: checked on the reversed labels."""
    truth, labels = logistic_data(3, 2000)
    margin = 3 * logit(truth) - 2
    labels = labels if scale > 0 else ~labels
    with np.errstate(all="raise"):
        scores = margin * scale + offset
        got = fit_probabilities(scores, labels, calibrate)(scores)
    unscaled = (scores - offset) / abs(scale)  # the margin, to the resolution the scores keep
    assert np.isfinite(got).all()
    assert got == pytest.approx(fit_probabilities(unscaled, labels, calibrate)(unscaled), abs=1e-6)


def _platt_by_hand(scores, labels):
    """Platt's sigmoid of the logit of ``scores`` fitted by scikit-learn's
    logistic regression on Platt's smoothed targets (each row twice: as a
    positive weighted by its target, as a negative by one minus it)."""
    from sklearn.linear_model import LogisticRegression

    positives = labels.sum()
    targets = np.where(labels, (positives + 1) / (positives + 2), 1 / (len(labels) - positives + 2))
    x = np.tile(logit(scores), 2)[:, None]
    fitted = LogisticRegression(C=1e12, tol=1e-12, max_iter=10_000).fit(
        x, np.r_[np.ones(len(scores)), np.zeros(len(scores))], sample_weight=np.r_[targets, 1 - targets])
    return lambda values: fitted.predict_proba(logit(values)[:, None])[:, 1]


def test_the_map_fitted_without_a_pattern_is_the_map_of_the_other_rows():
    """Over-confident scores (logit x 1.5) in 3,000 rows, the risk of the first
    300 halved: the map fitted without them is Platt's sigmoid fitted by hand
    on the other 2,700 (scikit-learn), and it reads their scores as the rest
    of the data does: its probabilities there are those of the truth, not
    bent towards their halved risk (the map of all rows is)."""
    from subroc_ext.inputs.probabilities import maps_without

    truth, _ = logistic_data(3, 3000)
    scores = expit(1.5 * logit(truth))
    pattern = np.arange(3000) < 300
    labels = np.random.default_rng(4).random(3000) < np.where(pattern, truth / 2, truth)
    for as_given in (None, False):  # 'auto' decides on the rows outside, or the caller decided to map
        without = maps_without(scores, labels, "auto", as_given=as_given)(pattern)
        assert without.method == "sigmoid"
        np.testing.assert_allclose(without(scores), _platt_by_hand(scores[~pattern], labels[~pattern])(scores),
                                   atol=2e-5)  # fmt: skip
    whole = fit_probabilities(scores, labels)
    bent, kept = (np.mean(m(scores[pattern]) - truth[pattern]) for m in (whole, without))
    assert bent == pytest.approx(-0.0256, abs=1e-3)  # a tenth of the rows' risk halved: all risks 2.6 points lower
    assert kept == pytest.approx(0.0056, abs=1e-3)


def test_the_map_without_a_pattern_falls_back_to_the_map_of_all_rows():
    """A pattern of more than half of the rows, or of a band of the scores (more
    than half of the rows of a tenth of them), reads the map of all rows. With
    ``as_given`` decided by the caller (``calibrate='auto'``), calibrated
    scores stay as given for every pattern, and miscalibrated ones (labels
    outside the middle band drawn from less extreme risks than the scores
    promise) are read through Platt's sigmoid of the logit fitted on the rows
    outside the pattern (by hand: scikit-learn), or on all rows."""
    from subroc_ext.inputs.probabilities import maps_without

    truth, _ = logistic_data(5, 4000)
    labels = np.random.default_rng(6).random(4000) < truth
    most = np.arange(4000) < 2500
    np.testing.assert_array_equal(maps_without(truth, labels, "sigmoid")(most)(truth),
                                  fit_probabilities(truth, labels, "sigmoid")(truth))  # fmt: skip
    middle = (truth > 0.3) & (truth < 0.7)
    assert fit_probabilities(truth, labels).method == "none"
    assert maps_without(truth, labels, "auto", as_given=True)(middle)(truth).tolist() == truth.tolist()
    squeezed = np.where(middle, truth, expit(0.8 * logit(truth)))
    labels = np.random.default_rng(7).random(4000) < squeezed
    assert fit_probabilities(truth, labels).method == "sigmoid"
    spread = np.arange(4000) % 7 == 0  # rows at every level of the scores: mapped without them
    np.testing.assert_allclose(maps_without(truth, labels, "auto", as_given=False)(spread)(truth),
                               _platt_by_hand(truth[~spread], labels[~spread])(truth), atol=2e-5)  # fmt: skip
    high = truth > 0.7  # a band of the highest scores (a fifth of the rows): the map of all rows
    assert 0 < high.mean() < 0.5
    for band in (most, high):
        np.testing.assert_allclose(maps_without(truth, labels, "auto", as_given=False)(band)(truth),
                                   _platt_by_hand(truth, labels)(truth), atol=2e-5)  # fmt: skip


def test_sigmoids_fitted_without_rows_from_the_sums_of_all_are_those_fitted_on_the_rest():
    """``_SigmoidsWithout`` sums over all rows less the rows left out, starting
    from the fit of all rows: its parameters are those of Platt's sigmoid
    fitted from scratch on a copy of the other rows (to 1e-7), for masks of a
    tenth and of half of the rows, tied scores included."""
    from subroc_ext.inputs.probabilities import _sigmoid, _SigmoidsWithout

    rng = np.random.default_rng(21)
    z = np.round(rng.normal(size=20_000), 1)
    y = rng.random(20_000) < expit(1.3 * z - 0.4)
    sigmoids = _SigmoidsWithout(z, y)
    np.testing.assert_allclose(sigmoids.start, _sigmoid(z, y))
    for mask in (rng.random(20_000) < 0.1, z > 0, np.zeros(20_000, bool)):
        np.testing.assert_allclose(sigmoids.without(mask), _sigmoid(z[~mask], y[~mask]), rtol=1e-7, atol=1e-9)
