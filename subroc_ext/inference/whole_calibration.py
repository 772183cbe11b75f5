"""The calibration of the whole data: an expert's first look, before any subgroup.

Before asking where a model's promised risk is wrong, an expert asks whether
it is wrong everywhere (SPEC, "Calibration: the whole first, then where it
is still wrong"). With ``p_i`` the scores read as probabilities and ``y_i``
the labels, :func:`whole_calibration` measures, on all rows given:

* **calibration-in-the-large**: the mean promised risk against the observed
  share of positives, with the share's Wilson interval [3]_, and the
  intercept ``a`` of the logistic recalibration with offset,
  ``logit P(y = 1) = a + logit p`` [1]_ (``a < 0``: the risk is
  overestimated). Its test is the score test of ``a = 0``,
  ``z = sum (y - p) / sqrt(sum p (1 - p))``;
* **the calibration slope** ``b`` of ``logit P(y = 1) = c + b logit p`` [1]_:
  ``b < 1``, the scores are too extreme (high risks overestimated, low ones
  underestimated: an over-fitted model); ``b > 1``, too timid;
* **Cox's test** of both at once, ``c = 0`` and ``b = 1``: the likelihood
  ratio against ``p`` itself, on two degrees of freedom [1]_; it decides
  whether the scores are miscalibrated at all (one test, so calibrated
  scores raise a warning with probability ``alpha``);
* **Spiegelhalter's test** [2]_, reported beside it (the ROC AUC runs'
  check, :func:`~subroc_ext.inputs.probabilities.spiegelhalter_test`).

The direction is said only where Cox's test rejects: in the large where its
score test rejects too, the spread where the slope's interval excludes 1.
:mod:`subroc_ext.reporting.whole_calibration` words it.

References
----------
.. [1] D. R. Cox, "Two further applications of a model for binary
   regression", Biometrika 45(3/4), 562-565, 1958.
.. [2] D. J. Spiegelhalter, "Probabilistic prediction in patient management
   and clinical trials", Statistics in Medicine 5(5), 421-433, 1986.
.. [3] E. B. Wilson, "Probable inference, the law of succession, and
   statistical inference", Journal of the American Statistical Association
   22(158), 209-212, 1927.
"""

from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats
from scipy.special import expit, log_expit

from ..inputs.probabilities import spiegelhalter_test

__all__ = ["LOGIT_CLIP", "WholeCalibration", "whole_calibration", "whole_calibration_of", "wilson_interval"]

#: Probabilities are kept ``LOGIT_CLIP`` from 0 and 1 before their logit (a
#: score of exactly 0 with a positive label would make every fit infinite).
LOGIT_CLIP = 1e-6


def wilson_interval(positives, size, confidence=0.95):
    """The Wilson score interval [3]_ of a share ``positives / size`` (arrays or numbers).

    Examples
    --------
    >>> [round(float(end), 4) for end in wilson_interval(8, 100)]
    [0.0411, 0.15]
    """
    positives, size = np.asarray(positives, dtype=float), np.asarray(size, dtype=float)
    share = positives / size
    z = stats.norm.ppf(0.5 + confidence / 2)
    centre = (share + z**2 / (2 * size)) / (1 + z**2 / size)
    spread = z / (1 + z**2 / size) * np.sqrt(share * (1 - share) / size + z**2 / (4 * size**2))
    return centre - spread, centre + spread


@dataclass(frozen=True)
class WholeCalibration:
    """The whole data's calibration (see the module); NaN where undefined.

    Attributes
    ----------
    rows : int
    promised, observed : float
        The mean probability and the share of positives.
    observed_low, observed_high : float
        The share's Wilson interval at ``1 - alpha``.
    intercept, intercept_low, intercept_high : float
        Calibration-in-the-large ``a`` (logit scale) and its Wald interval.
    large_p_value : float
        The score test of ``a = 0``.
    slope, slope_low, slope_high : float
        The calibration slope ``b`` and its Wald interval.
    p_value : float
        Cox's test of ``c = 0, b = 1``.
    spiegelhalter_p_value : float
    alpha : float
    """

    rows: int
    promised: float
    observed: float
    observed_low: float
    observed_high: float
    intercept: float
    intercept_low: float
    intercept_high: float
    large_p_value: float
    slope: float
    slope_low: float
    slope_high: float
    p_value: float
    spiegelhalter_p_value: float
    alpha: float = 0.05

    @property
    def calibrated(self):
        """Cox's test does not reject at ``alpha`` (no whole-data warning)."""
        return not self.p_value < self.alpha

    @property
    def in_the_large(self):
        """'over' or 'under' (the risk is over- or underestimated on average, both
        tests reject), or '' (not shown)."""
        if self.calibrated or not self.large_p_value < self.alpha:
            return ""
        return "over" if self.observed < self.promised else "under"

    @property
    def spread(self):
        """'too extreme' (slope below 1), 'too timid' (above 1), or '' (not shown,
        or Cox's test does not reject)."""
        if self.calibrated or not (self.slope_high < 1 or self.slope_low > 1):
            return ""
        return "too extreme" if self.slope_high < 1 else "too timid"

    def record(self):
        """A JSON-safe dict: every field, ``calibrated``, ``in_the_large`` and ``spread``."""
        return {**{key: (value if not isinstance(value, float) or np.isfinite(value) else None)
                   for key, value in asdict(self).items()},
                "calibrated": self.calibrated, "in_the_large": self.in_the_large, "spread": self.spread}  # fmt: skip


def _logistic(columns, y, offset):
    """Maximum likelihood of ``logit P(y) = columns @ theta + offset`` (Newton's method,
    halving steps): ``theta``, its covariance and the log-likelihood."""
    theta = np.zeros(columns.shape[1])

    def likelihood(parameters):
        eta = columns @ parameters + offset
        return float(np.sum(y * log_expit(eta) + (1 - y) * log_expit(-eta)))

    current = likelihood(theta)
    for _ in range(100):
        mu = expit(columns @ theta + offset)
        hessian = columns.T @ (columns * (mu * (1 - mu))[:, None])
        step = np.linalg.solve(hessian, columns.T @ (y - mu))
        for _ in range(30):
            trial = likelihood(theta + step)
            if trial >= current - 1e-12:
                break
            step = step / 2
        theta, previous, current = theta + step, current, trial
        if abs(current - previous) < 1e-10 * (1 + abs(current)):
            break
    mu = expit(columns @ theta + offset)
    covariance = np.linalg.inv(columns.T @ (columns * (mu * (1 - mu))[:, None]))
    return theta, covariance, current


def whole_calibration(is_positive, probabilities, alpha=0.05):
    """Calibration-in-the-large, slope and Cox's test of all rows given.

    Parameters
    ----------
    is_positive : numpy.ndarray of bool
    probabilities : numpy.ndarray of float
        In [0, 1].
    alpha : float, default=0.05
        The level of the tests and ``1 - alpha`` that of the intervals.

    Returns
    -------
    WholeCalibration
        The slope, intercept and Cox's test are NaN where the rows hold one
        class only (no warning); the slope where they hold one score only
        (Cox's test is then that of the intercept).

    Examples
    --------
    A model that promises 22 % where 8 % happen:

    >>> rng = np.random.default_rng(0)
    >>> truth = rng.uniform(0.02, 0.14, 5000)
    >>> y = rng.random(5000) < truth
    >>> said = whole_calibration(y, expit(np.log(truth / (1 - truth)) + 1.2))
    >>> said.calibrated, said.in_the_large, said.spread, round(said.promised, 2), round(said.observed, 2)
    (False, 'over', '', 0.22, 0.08)
    >>> whole_calibration(y, truth).calibrated
    True
    """
    y = np.asarray(is_positive, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    rows, positives = len(y), float(y.sum())
    low, high = wilson_interval(positives, rows, 1 - alpha)
    surplus, spread = float(np.sum(y - p)), float(np.sqrt(np.sum(p * (1 - p))))
    z = surplus / spread if spread > 0 else (0.0 if abs(surplus) < 1e-9 else np.sign(surplus) * np.inf)
    large_p = float(2 * stats.norm.sf(abs(z)))
    nan = (np.nan,) * 3
    intercept, slope, cox_p = nan, nan, np.nan
    if 0 < positives < rows:
        clipped = np.clip(p, LOGIT_CLIP, 1 - LOGIT_CLIP)
        logit = np.log(clipped) - np.log1p(-clipped)
        quantile = stats.norm.ppf(1 - alpha / 2)
        (a,), covariance, fitted = _logistic(np.ones((rows, 1)), y, logit)
        intercept = (a, a - quantile * np.sqrt(covariance[0, 0]), a + quantile * np.sqrt(covariance[0, 0]))
        free = 1  # one score for every row: no slope, Cox's test of the intercept alone
        if np.ptp(logit) > 0:
            (_, b), covariance, fitted = _logistic(np.column_stack([np.ones(rows), logit]), y, np.zeros(rows))
            slope, free = (b, b - quantile * np.sqrt(covariance[1, 1]), b + quantile * np.sqrt(covariance[1, 1])), 2
        given = float(np.sum(y * log_expit(logit) + (1 - y) * log_expit(-logit)))
        cox_p = float(stats.chi2.sf(max(2 * (fitted - given), 0.0), free))
    return WholeCalibration(
        rows, float(p.mean()), positives / rows, float(low), float(high), *map(float, intercept), large_p,
        *map(float, slope), cox_p, spiegelhalter_test(p, y.astype(bool))[1], alpha,
    )  # fmt: skip


def whole_calibration_of(*datasets, alpha=0.05):
    """:meth:`WholeCalibration.record` of all rows of the ``datasets``
    (``SortedDataset``\\ s; None ignored), or None where their scores are not
    all in [0, 1] (they are no probabilities)."""
    datasets = [dataset for dataset in datasets if dataset is not None]
    scores = np.concatenate([dataset.scores for dataset in datasets])
    if not len(scores) or scores.min() < 0 or scores.max() > 1:
        return None
    is_positive = np.concatenate([dataset.is_positive for dataset in datasets])
    return whole_calibration(is_positive, scores, alpha).record()
