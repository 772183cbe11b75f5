"""Scores read as probabilities: what the expected ROC AUC needs.

The expected ROC AUC (:mod:`subroc_ext.metrics.expected_auc`) reads the
scores as the probabilities of the positive class. Scores in [0, 1] are used
as given; others, or any on request, go through a monotone map fitted on the
search split (a recalibration): isotonic regression or Platt's sigmoid. A
monotone map leaves every ROC AUC unchanged and only moves the expected one.
The method assumes the scores are the probabilities up to such a map; a
table says which map was used (:attr:`Probabilities.description`).

References
----------
.. [1] J. Platt, "Probabilistic outputs for support vector machines and
   comparisons to regularized likelihood methods", Advances in Large Margin
   Classifiers, 1999 (the sigmoid and its smoothed targets).
.. [2] B. Zadrozny and C. Elkan, "Transforming classifier scores into
   accurate multiclass probability estimates", KDD 2002 (isotonic regression).
"""

from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.isotonic import IsotonicRegression

from ..utils.names import CALIBRATIONS

__all__ = ["CALIBRATIONS", "Probabilities", "check_calibrate", "fit_probabilities"]



def check_calibrate(calibrate):
    """``calibrate`` itself, or a one-line ``ValueError`` naming the choices."""
    if calibrate not in CALIBRATIONS:
        raise ValueError(f"calibrate must be one of {CALIBRATIONS}, got {calibrate!r}")
    return calibrate


@dataclass(frozen=True)
class Probabilities:
    """A monotone map from scores to probabilities, fitted once.

    Attributes
    ----------
    method : {'none', 'isotonic', 'sigmoid'}
        'none': the scores are the probabilities.
    description : str
        One sentence for tables and reports (which map, fitted where, why).
    """

    method: str
    description: str
    transform: Callable

    def __call__(self, scores):
        """The probabilities of ``scores`` (array-like), in [0, 1]."""
        return np.clip(np.asarray(self.transform(np.asarray(scores, dtype=float)), dtype=float), 0.0, 1.0)


def _identity(scores):
    return scores


def _standardizer(scores):
    """An increasing affine map of ``scores`` onto a median of 0 and a standard
    deviation of 1 (1 if all are equal), that neither overflows nor underflows
    at any scale: scores of 1e300, of 1e-300, or 1e15 plus small steps give the
    same map as the scores themselves."""
    centre = np.partition(scores, len(scores) // 2)[len(scores) // 2] / 2
    half = scores / 2 - centre  # halves: no difference of two floats overflows
    extent = np.abs(half).max()
    extent = extent if extent > 0 else 1.0
    spread = (half / extent).std()
    spread = spread if spread > 0 else 1.0

    def standardized(values):
        with np.errstate(over="ignore"):  # far beyond the fitted range: +-inf, read as 0 or 1
            return (values / 2 - centre) / extent / spread

    return standardized


def _sigmoid(z, is_positive):
    """Platt's sigmoid ``1 / (1 + exp(-(a z + b)))`` of standardized scores ``z``,
    fitted by maximum likelihood to Platt's smoothed targets."""
    positives = is_positive.sum()
    targets = np.where(is_positive, (positives + 1) / (positives + 2), 1 / (len(z) - positives + 2))

    def loss(parameters):
        logit = parameters[0] * z + parameters[1]
        value = -(targets * log_expit(logit) + (1 - targets) * log_expit(-logit)).sum()
        residual = expit(logit) - targets
        return value, np.array([residual @ z, residual.sum()])

    slope, intercept = minimize(loss, np.zeros(2), jac=True, method="BFGS").x
    if not slope > 0:
        raise ValueError(
            "calibrate='sigmoid': the scores do not rise with the positive class on the search "
            f"split (fitted slope {slope:.3g}); the case mix needs scores that rank positives higher"
        )
    return lambda values: expit(slope * values + intercept)


def fit_probabilities(scores, is_positive, calibrate="auto", name="score"):
    """The map from scores to probabilities, fitted on the search split.

    Parameters
    ----------
    scores : numpy.ndarray of float
        The search split's scores (finite).
    is_positive : numpy.ndarray of bool
        Its labels.
    calibrate : {'auto', 'none', 'isotonic', 'sigmoid'}, default='auto'
        'auto': scores in [0, 1] as given, a sigmoid otherwise; 'none': as
        given (a one-line ``ValueError`` if they are not in [0, 1]).
    name : str, default='score'
        The score column, for messages.

    Returns
    -------
    Probabilities

    Examples
    --------
    >>> scores, labels = np.array([-2.0, -1.0, 0.5, 3.0]), np.array([False, True, False, True])
    >>> fit_probabilities(scores, labels).description
    "a sigmoid fitted on the search split (score column 'score' is not in [0, 1])"
    >>> fit_probabilities(scores, labels, "none")
    Traceback (most recent call last):
    ...
    ValueError: score column 'score' cannot be read as probabilities: its values run from -2 to 3, outside [0, 1]; pass calibrate='sigmoid' or 'isotonic' (--calibrate on the command line)
    """
    check_calibrate(calibrate)
    scores = np.asarray(scores, dtype=float)
    is_positive = np.asarray(is_positive, dtype=bool)
    in_unit = bool(len(scores)) and scores.min() >= 0 and scores.max() <= 1
    if calibrate == "none" and not in_unit:
        raise ValueError(
            f"score column {name!r} cannot be read as probabilities: its values run from "
            f"{scores.min():.3g} to {scores.max():.3g}, outside [0, 1]; pass calibrate='sigmoid' "
            "or 'isotonic' (--calibrate on the command line)"
        )
    if calibrate in ("none", "auto") and in_unit:
        return Probabilities("none", f"the scores as given (score column {name!r} is in [0, 1])", _identity)
    standardized = _standardizer(scores)
    if calibrate == "isotonic":
        fitted = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(standardized(scores), is_positive)
        return Probabilities("isotonic", "an isotonic regression fitted on the search split",
                             lambda values: fitted.predict(standardized(values)))  # fmt: skip
    why = "" if calibrate == "sigmoid" else f" (score column {name!r} is not in [0, 1])"
    sigmoid = _sigmoid(standardized(scores), is_positive)
    return Probabilities("sigmoid", f"a sigmoid fitted on the search split{why}",
                         lambda values: sigmoid(standardized(values)))  # fmt: skip
