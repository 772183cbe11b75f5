"""Tests of :mod:`subroc_ext.inputs.probabilities`: scores read as probabilities,
as given or through a monotone map fitted on the search split."""

import numpy as np
import pytest
from scipy.special import expit, logit

from subroc_ext.inputs.probabilities import fit_probabilities
from subroc_ext.metrics.kernels import roc_auc_score


def logistic_data(seed, n=20_000):
    rng = np.random.default_rng(seed)
    truth = expit(rng.normal(scale=1.5, size=n))
    return truth, rng.random(n) < truth


def test_scores_in_the_unit_interval_are_used_as_given():
    truth, labels = logistic_data(0, 200)
    for calibrate in ("auto", "none"):
        probabilities = fit_probabilities(truth, labels, calibrate, name="p")
        assert probabilities.method == "none"
        assert probabilities.description == "the scores as given (score column 'p' is in [0, 1])"
        assert probabilities(truth).tolist() == truth.tolist()


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
