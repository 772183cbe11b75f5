"""Scores read as probabilities: what the expected ROC AUC needs.

The expected ROC AUC (:mod:`subroc_ext.metrics.expected_auc`) reads the
scores as the probabilities of the positive class. Scores in [0, 1] that are
calibrated on the search split (:func:`check_calibration`) are used as given;
others through a monotone map fitted on the search split (a
recalibration): Platt's sigmoid, of the logit of scores in [0, 1], or, on
request, a centred isotonic regression. A
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

import contextlib
from dataclasses import dataclass
from typing import Callable

import numpy as np
from scipy.special import expit
from scipy.stats import norm, rankdata
from sklearn.isotonic import IsotonicRegression

from ..metrics.confidence import delong_interval
from ..metrics.expected_auc import expected_auc_of_sorted
from ..metrics.platt import sigmoid_sums
from ..utils.names import CALIBRATIONS

__all__ = ["CALIBRATIONS", "CalibrationCheck", "Probabilities", "check_calibrate", "check_calibration",
           "cross_fitted_probabilities", "fit_probabilities", "maps_without", "spiegelhalter_test"]



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
    """The parameters ``(a, b)`` of Platt's sigmoid ``1 / (1 + exp(-(a z + b)))``
    of standardized scores ``z``, fitted by maximum likelihood to Platt's
    smoothed targets (:func:`_newton`)."""
    positives = is_positive.sum()
    targets = np.where(is_positive, (positives + 1) / (positives + 2), 1 / (len(z) - positives + 2))

    def derivatives(parameters):
        fitted = expit(parameters[0] * z + parameters[1])
        residual, weight = fitted - targets, fitted * (1 - fitted)
        weighted = weight @ z
        return np.array([residual @ z, residual.sum()]), np.array([[weight @ (z * z), weighted],
                                                                    [weighted, weight.sum()]])  # fmt: skip

    return _newton(derivatives, np.zeros(2), len(z))


def _newton(derivatives, parameters, rows, first=None):
    """Newton's method for a sigmoid's parameters (the loss is convex) from
    ``parameters`` (``first``: the derivatives there, where known), its step
    halved while the gradient does not shrink, to a gradient of ``1e-9`` per
    row: a handful of passes over the rows (BFGS took about twenty, 1.2 s at
    a million rows, and the headline fits a map per pattern)."""
    gradient, hessian = derivatives(parameters) if first is None else first
    for _ in range(100):
        if np.abs(gradient).max() <= 1e-9 * max(rows, 1):
            break
        step = np.linalg.lstsq(hessian, gradient, rcond=None)[0]
        for _ in range(50):  # halved while the gradient does not shrink
            trial = parameters - step
            trial_gradient, trial_hessian = derivatives(trial)
            if np.abs(trial_gradient).max() < np.abs(gradient).max():
                break
            step = step / 2
        else:
            break
        parameters, gradient, hessian = trial, trial_gradient, trial_hessian
    if not parameters[0] > 0:
        raise ValueError(
            "calibrate='sigmoid': the scores do not rise with the positive class on the search "
            f"split (fitted slope {parameters[0]:.3g}); the case mix needs scores that rank positives higher"
        )
    return parameters


class _SigmoidsWithout:
    """Platt's sigmoid of ``z`` (:func:`_sigmoid`) fitted on all rows but those
    of a mask, for many masks. A sum over the rows kept is the sum over all
    rows less the sum over the rows left out: the kept rows are never copied,
    and each fit starts from the fit of all rows, where the sums over all
    rows are known, so that its first Newton step reads the rows left out
    alone (a hundred fits of a million rows took 4.3 s with copies and a
    pass at the start)."""

    def __init__(self, z, is_positive):
        self.z, self.is_positive = z, is_positive
        self.start = _sigmoid(z, is_positive)
        self.at_start = sigmoid_sums(z, *self.start)
        self.classes = self._class_sums(z, is_positive)

    @staticmethod
    def _class_sums(z, is_positive):
        """Per class (positives, negatives): the sum of ``z`` and the rows."""
        return np.array([[z[is_positive].sum(), is_positive.sum()], [z[~is_positive].sum(), (~is_positive).sum()]])

    def without(self, left_out):
        """The parameters fitted on the rows outside ``left_out`` (a mask)."""
        z, is_positive = self.z[left_out], self.is_positive[left_out]
        (z_positive, positives), (z_negative, negatives) = self.classes - self._class_sums(z, is_positive)
        # Platt's targets of the rows kept, by class: their part of the gradient
        high, low = (positives + 1) / (positives + 2), 1 / (negatives + 2)
        targets = np.array([high * z_positive + low * z_negative, high * positives + low * negatives])

        def derivatives(parameters, over_all=None):
            sums = (sigmoid_sums(self.z, *parameters) if over_all is None else over_all) - sigmoid_sums(z, *parameters)
            return sums[:2] - targets, np.array([[sums[2], sums[3]], [sums[3], sums[4]]])

        return _newton(derivatives, self.start, int(positives + negatives), derivatives(self.start, self.at_start))


def _sigmoid_map(transform, parameters, description):
    """The :class:`Probabilities` of the sigmoid of ``parameters``
    (:func:`_sigmoid`) of ``transform(scores)``."""
    slope, intercept = parameters
    return Probabilities("sigmoid", description, lambda values: expit(slope * transform(values) + intercept))


#: A promise this close to the ROC AUC delivered is kept, whatever the interval
#: (an interval of a nearly perfect ranking shrinks to a point).
PROMISE_TOLERANCE = 0.005


@dataclass(frozen=True)
class CalibrationCheck:
    """Are scores in [0, 1] calibrated probabilities? One split's answer.

    Attributes
    ----------
    promised : float
        The ROC AUC the scores promise (their expected ROC AUC).
    delivered, low, high : float
        Their ROC AUC and its DeLong 95 % interval.
    p_value : float
        Spiegelhalter's test of calibration.
    alpha : float
        The level of the check.
    """

    promised: float
    delivered: float
    low: float
    high: float
    p_value: float
    alpha: float = 0.05

    @property
    def calibrated(self):
        """The promise lies in the interval of what is delivered (or within
        :data:`PROMISE_TOLERANCE` of it) and the test does not reject."""
        slack = PROMISE_TOLERANCE
        return bool(self.low - slack <= self.promised <= self.high + slack and self.p_value >= self.alpha)

    def text(self):
        """The check in words."""
        return (
            f"they promise a ROC AUC of {self.promised:.3f} and deliver {self.delivered:.3f} "
            f"[{self.low:.3f}, {self.high:.3f}]; Spiegelhalter's calibration test p {self.p_value:.2g}"
        )


def check_calibration(scores, is_positive, alpha=0.05):
    """Check scores in [0, 1] as probabilities on one split.

    A model whose scores are its probabilities promises the ROC AUC it
    delivers, and its labels are draws from them: Spiegelhalter's ``z``
    [3]_, ``sum (y - p)(1 - 2p) / sqrt(sum (1 - 2p)^2 p (1 - p))``, is then
    standard normal. Over- or under-confident scores (the same ranking) miss
    both: the promise of ``p = expit(1.5 logit(q))`` is higher than its ROC AUC.

    Parameters
    ----------
    scores : numpy.ndarray of float
        In [0, 1].
    is_positive : numpy.ndarray of bool
    alpha : float, default=0.05

    Returns
    -------
    CalibrationCheck

    References
    ----------
    .. [3] D. J. Spiegelhalter, "Probabilistic prediction in patient management
       and clinical trials", Statistics in Medicine 5(5), 421-433, 1986.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> p = rng.random(4000)
    >>> y = rng.random(4000) < p
    >>> check_calibration(p, y).calibrated, check_calibration(expit(3 * (p - 0.5) * 4), y).calibrated
    (True, False)
    """
    scores = np.asarray(scores, dtype=float)
    is_positive = np.asarray(is_positive, dtype=bool)
    interval = delong_interval(is_positive, scores)
    delivered, low, high = float(interval.roc_auc), float(interval.low), float(interval.high)
    promised = float(expected_auc_of_sorted(np.sort(scores)))
    return CalibrationCheck(promised, delivered, low, high, spiegelhalter_test(scores, is_positive)[1], alpha)


def spiegelhalter_test(scores, is_positive):
    """Spiegelhalter's test of calibration [3]_: ``(z, two-sided p)`` of
    ``z = sum (y - p)(1 - 2p) / sqrt(sum (1 - 2p)^2 p (1 - p))`` (0 and 1 where
    the variance is 0).

    Examples
    --------
    >>> [round(value, 3) for value in spiegelhalter_test(np.array([0.2, 0.9, 0.6]), np.array([False, True, False]))]
    [-0.226, 0.821]
    """
    scores = np.asarray(scores, dtype=float)
    weight = 1.0 - 2.0 * scores
    variance = float(np.sum(weight**2 * scores * (1.0 - scores)))
    z = float(np.sum((np.asarray(is_positive, dtype=bool) - scores) * weight)) / np.sqrt(variance) if variance > 0 \
        else 0.0  # fmt: skip
    return z, float(2 * norm.sf(abs(z)))


def _clipped_logit(scores):
    """The logit of scores in [0, 1], 0 and 1 clipped to 1e-12 from them."""
    clipped = np.clip(scores, 1e-12, 1 - 1e-12)
    return np.log(clipped) - np.log1p(-clipped)


def _centred_isotonic(scores, is_positive):
    """Centred isotonic regression [4]_: the isotonic fit's blocks of equal
    probability joined at their centres by straight lines.

    Isotonic regression is a step function: every row of a block gets one
    probability, so a narrow slice of the scores (an age band) falls into a
    few ties and its promise (expected ROC AUC) collapses towards 0.5.
    Interpolating between the blocks' centres (their mean score) keeps the
    fit's monotone shape and its probabilities at the centres, and is
    strictly increasing between blocks of different probability.

    References
    ----------
    .. [4] A. P. Oron and N. Flournoy, "Centered isotonic regression: point
       and interval estimation for dose-response studies", Statistics in
       Biopharmaceutical Research 9(3), 258-267, 2017.
    """
    order = np.argsort(scores, kind="stable")
    x = scores[order]
    fitted = IsotonicRegression(y_min=0.0, y_max=1.0).fit_transform(x, is_positive[order])
    starts = np.flatnonzero(np.r_[True, np.diff(fitted) != 0])
    centres = np.add.reduceat(x, starts) / np.diff(np.r_[starts, len(x)])
    return lambda values: np.interp(values, centres, fitted[starts])


#: How a sigmoid of the logit of scores in [0, 1] is described.
_OF_THE_LOGIT = "a sigmoid of the scores' logit fitted on the search split"


def _logit_sigmoid(scores, is_positive, why=""):
    """A sigmoid of the logit of scores in [0, 1] (it undoes over- and
    under-confidence exactly), fitted on the rows given."""
    return _sigmoid_map(_clipped_logit, _sigmoid(_clipped_logit(scores), is_positive), f"{_OF_THE_LOGIT}{why}")


def _not_in_unit(calibrate, name):
    """Why :func:`fit_probabilities` fits a sigmoid of the standardized scores."""
    return "" if calibrate == "sigmoid" else f" (score column {name!r} is not in [0, 1])"


def fit_probabilities(scores, is_positive, calibrate="auto", name="score"):
    """The map from scores to probabilities, fitted on the search split.

    Parameters
    ----------
    scores : numpy.ndarray of float
        The search split's scores (finite).
    is_positive : numpy.ndarray of bool
        Its labels.
    calibrate : {'auto', 'none', 'isotonic', 'sigmoid'}, default='auto'
        'auto': scores in [0, 1] as given where they are calibrated on the
        search split (:func:`check_calibration`), a sigmoid of their logit
        otherwise (it undoes over- and under-confidence exactly; a sigmoid
        of the raw score cannot, and an isotonic map's steps exaggerate the
        promise in narrow slices); other scores through a sigmoid; 'none':
        as given (a one-line ``ValueError`` if they are not in [0, 1]).
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
    if calibrate == "none":
        return Probabilities("none", f"the scores as given (score column {name!r} is in [0, 1])", _identity)
    if calibrate == "auto" and in_unit:
        check = check_calibration(scores, is_positive)
        if check.calibrated:
            return Probabilities("none", f"the scores as given (score column {name!r} is in [0, 1] and "
                                 "calibrated on the search split)", _identity)  # fmt: skip
        return _logit_sigmoid(scores, is_positive, f" (the scores as given are not calibrated there: {check.text()})")
    standardized = _standardizer(scores)
    if calibrate == "isotonic":
        isotonic = _centred_isotonic(standardized(scores), is_positive)
        return Probabilities("isotonic", "an isotonic regression fitted on the search split",
                             lambda values: isotonic(standardized(values)))  # fmt: skip
    return _sigmoid_map(standardized, _sigmoid(standardized(scores), is_positive),
                        f"a sigmoid fitted on the search split{_not_in_unit(calibrate, name)}")  # fmt: skip


def maps_without(scores, is_positive, calibrate="auto", name="score", *, as_given=None):
    """The maps of :func:`fit_probabilities` fitted on the rows outside each of
    many patterns: what a pattern's own rows promise, read through a map their
    labels did not bend (SPEC, "The promise of every measure").

    A failure inside the rows a map is fitted on pulls the map towards its
    labels (a risk halved in 12 % of the rows lowers the probabilities of
    every score) and can make ``calibrate='auto'`` recalibrate scores that are
    calibrated everywhere else; fitted without its rows, the map reads its
    scores as the rest of the data does. A pattern holding more than half of
    the rows of any tenth of the scores (a slice of the strongest predictor
    is a band of them) leaves a map that extrapolates into its own scores
    from the others, where any failure elsewhere bends it (a slice of the
    lowest risks read through a map fitted on the highest, which a failure
    among them flattens, falls short of a promise it never made): it, and a
    pattern whose outside fits no map (a sigmoid that does not rise), gets
    the map of all rows.

    What every pattern shares is prepared once: the tenths of the scores,
    the scores on the scale a sigmoid is fitted on (one standardization for
    all: the fitted map does not depend on it) and the sigmoid of all rows,
    from which each pattern's fit starts (a hundred patterns of a million
    search rows took 13 s fitted from scratch, each ranking the scores again).

    Parameters
    ----------
    scores : numpy.ndarray of float
    is_positive : numpy.ndarray of bool
        The labels of the rows the maps are fitted on (never held-out ones).
    calibrate, name
        As in :func:`fit_probabilities`.
    as_given : bool, optional
        ``calibrate='auto'`` only: whether the scores are read as given (True)
        or through the map 'auto' fits, refitted without each pattern's rows
        (False), decided by the caller on all rows; None: 'auto' decides on
        the rows outside each pattern. On the rows outside a slice of the
        strongest predictor, a narrower band of scores, the calibration
        check passes scores that all rows show miscalibrated.

    Returns
    -------
    callable
        A boolean mask over ``scores`` (a pattern's rows) to its
        :class:`Probabilities`.

    Examples
    --------
    The map fitted without the first 100 rows is the map of the other rows:

    >>> rng = np.random.default_rng(0)
    >>> p = rng.uniform(0.05, 0.95, 1000)
    >>> y = rng.random(1000) < np.where(np.arange(1000) < 100, 1.0, p)
    >>> without = maps_without(p, y, "sigmoid")(np.arange(1000) < 100)
    >>> bool(np.allclose(without(p), fit_probabilities(p[100:], y[100:], "sigmoid")(p)))
    True
    """
    check_calibrate(calibrate)
    scores = np.asarray(scores, dtype=float)
    is_positive = np.asarray(is_positive, dtype=bool)
    in_unit = bool(len(scores)) and scores.min() >= 0 and scores.max() <= 1
    decided = calibrate == "auto" and in_unit and as_given is not None
    if decided and as_given:
        given = Probabilities("none", f"the scores as given (score column {name!r} is in [0, 1] and calibrated on "
                              "the search split)", _identity)  # fmt: skip
        return lambda mask: given
    if decided or calibrate == "sigmoid" or (calibrate == "auto" and not in_unit):
        # a sigmoid of the logit ('auto' decided to recalibrate) or of the standardized scores
        transform = _clipped_logit if decided else _standardizer(scores)
        described = _OF_THE_LOGIT if decided else f"a sigmoid fitted on the search split{_not_in_unit(calibrate, name)}"
        sigmoids = _SigmoidsWithout(transform(scores), is_positive)
        whole = _sigmoid_map(transform, sigmoids.start, described)

        def fitted(mask):
            return _sigmoid_map(transform, sigmoids.without(mask), f"{described} without the pattern's rows")
    else:  # 'none', 'isotonic', or 'auto' deciding on the rows outside each pattern
        whole = fit_probabilities(scores, is_positive, calibrate, name)

        def fitted(mask):
            return fit_probabilities(scores[~mask], is_positive[~mask], calibrate, name)

    tenth = np.minimum((rankdata(scores, method="min") - 1) * 10 // max(len(scores), 1), 9).astype(int)
    per_tenth = np.bincount(tenth, minlength=10)

    def without(mask):
        mask = np.asarray(mask, dtype=bool)
        if mask.any() and (2 * np.bincount(tenth[mask], minlength=10) <= per_tenth).all():
            with contextlib.suppress(ValueError):  # no map fits the outside: all rows'
                return fitted(mask)
        return whole

    return without


#: The folds of :func:`cross_fitted_probabilities`.
FOLDS = 5


def cross_fitted_probabilities(scores, is_positive, calibrate="isotonic", *, folds=FOLDS, random_state=0,
                               name="score"):  # fmt: skip
    """A monotone map fitted on the search split, and the search rows' probabilities cross-fitted.

    The global fix of a calibration search (SPEC, "Calibration: the whole
    first, then where it is still wrong"): a subgroup is miscalibrated only
    where no monotone map of the scores repairs it. Each search row gets the
    map fitted on the other ``folds - 1`` folds (random, seeded), so a
    subgroup's own labels never pull its probabilities towards them; the
    held-out rows get the map fitted on every search row.

    Parameters
    ----------
    scores : numpy.ndarray of float
    is_positive : numpy.ndarray of bool
    calibrate : {'isotonic', 'sigmoid'}, default='isotonic'
        A centred isotonic regression (:func:`fit_probabilities`), or a
        sigmoid of the scores' logit (of the standardized scores where they
        are not in [0, 1]).
    folds : int, default=FOLDS
    random_state : int, default=0
    name : str, default='score'

    Returns
    -------
    (numpy.ndarray, Probabilities)
        The search rows' cross-fitted probabilities (in the order given) and
        the map fitted on all of them.

    Examples
    --------
    Scores that promise twice the odds of what happens:

    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(0.05, 0.5, 4000)
    >>> y = rng.random(4000) < truth
    >>> fixed, fitted = cross_fitted_probabilities(2 * truth / (1 + truth), y)
    >>> round(fixed.mean() - y.mean(), 3), fitted.description
    (0.001, 'an isotonic regression fitted on the search split (cross-fitted in 5 folds there)')
    """
    scores = np.asarray(scores, dtype=float)
    is_positive = np.asarray(is_positive, dtype=bool)
    in_unit = bool(len(scores)) and scores.min() >= 0 and scores.max() <= 1

    def fit(rows):
        if calibrate == "sigmoid" and in_unit:
            return _logit_sigmoid(scores[rows], is_positive[rows])
        return fit_probabilities(scores[rows], is_positive[rows], calibrate, name)

    fold = np.random.default_rng(random_state).permutation(len(scores)) % folds
    fixed = np.empty(len(scores))
    for k in range(folds):
        fixed[fold == k] = fit(fold != k)(scores[fold == k])
    fitted = fit(np.ones(len(scores), dtype=bool))
    return fixed, Probabilities(fitted.method, f"{fitted.description} (cross-fitted in {folds} folds there)",
                                fitted.transform)  # fmt: skip
