"""Calibration measures: means of a per-row value of the label and the score read as a probability.

Where does the model promise a risk it does not deliver? With ``p_i`` the
score (a probability, as given) and ``y_i`` the label (1 = positive):

* :func:`calibration_gap`: ``g(S) = mean (y_i - p_i)``, the observed rate
  minus the mean promised one (> 0: risk underestimated; < 0:
  overestimated). Its modes are named ``'under'`` (``g(S) - g(D)``, the
  quality function's ``'worse'``), ``'over'`` (``'better'``) and ``'both'``;
* :func:`brier_score`: ``mean (y_i - p_i)**2`` [1]_;
* :func:`log_loss`: ``mean -[y log p + (1 - y) log(1 - p)]``, ``p`` clipped
  to ``[1e-15, 1 - 1e-15]``.

All three are :class:`ProbabilityMeanMeasure`\\ s, a
:class:`~subroc_ext.scoring.measures.RowMeanMeasure` with the exact top-``k``
bound ``max_k k^alpha (mean of the k largest - c)``, evaluated by the
compiled row-mean kernels, whose randomization test draws random subsets of
the same *size* only: a row's value ``y_i - p_i`` depends on its class, so
subsets with the cover's class counts would test the scores, not the
calibration (a perfectly calibrated subgroup of high risks would look
overestimated against random subsets with as many positives).

References
----------
.. [1] G. W. Brier, "Verification of forecasts expressed in terms of
   probability", Monthly Weather Review 78(1), 1-3, 1950.
.. [2] U. Hébert-Johnson, M. P. Kim, O. Reingold and G. N. Rothblum,
   "Multicalibration: calibration for the (computationally-identifiable)
   masses", ICML 2018.
"""

import numpy as np

from . import cover_kernels
from .compiled_measures import compiled_null_values
from .measures import RowMeanMeasure

__all__ = [
    "CLIP",
    "ProbabilityMeanMeasure",
    "calibration_gap",
    "brier_score",
    "log_loss",
]

#: Probabilities are clipped to ``[CLIP, 1 - CLIP]`` in the log loss.
CLIP = 1e-15


class ProbabilityMeanMeasure(RowMeanMeasure):
    """The mean of a per-row value of labels and probabilities (see the module).

    Parameters
    ----------
    row_values : callable
        ``row_values(label, probability) -> array``, the label boolean.
    kind : {'score', 'loss'}
    name : str
    mode_aliases : dict, optional
        Other names of the modes (``{'under': 'worse'}``).

    Attributes
    ----------
    reads_probabilities : bool
        True: a quality function refuses scores outside [0, 1], naming the
        score column (:func:`subroc_ext.utils.validation.probability_scores`).
    null_by_size : bool
        True: the randomization test's random subsets keep the cover's size,
        not its class counts (:meth:`null_values`).

    Examples
    --------
    >>> from subroc_ext.scoring.measures import Cover
    >>> whole = Cover.from_arrays([True, False, False, False], [0.2, 0.2, 0.1, 0.1])
    >>> gap = calibration_gap().prepare(whole)
    >>> round(gap.value(whole), 3)  # observed 1/4, promised 0.15
    0.1
    """

    compiled_code = cover_kernels.ROW_MEAN
    reads_probabilities = True
    null_by_size = True

    def __init__(self, row_values, *, kind, name, mode_aliases=None):
        super().__init__(row_values, kind=kind, name=name)
        self.mode_aliases = dict(mode_aliases or {})

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
        """The measure on ``n_samples`` uniformly random subsets of ``positives +
        negatives`` rows of ``dataset``, whatever their classes (compiled)."""
        every_row = np.arange(len(dataset.rows), dtype=np.int64)
        pools = every_row, np.zeros(0, dtype=np.int64)
        return compiled_null_values(
            cover_kernels.ROW_MEAN, self, dataset, positives + negatives, 0, n_samples, rng, pools
        )

    def __repr__(self):
        return f"ProbabilityMeanMeasure(name={self.name!r}, kind={self.kind!r})"


def _gap(is_positive, probabilities):
    return is_positive - probabilities


def _squared_error(is_positive, probabilities):
    return (probabilities - is_positive) ** 2


def _log_loss(is_positive, probabilities):
    clipped = np.clip(probabilities, CLIP, 1 - CLIP)
    return -np.where(is_positive, np.log(clipped), np.log1p(-clipped))


def calibration_gap():
    """The calibration gap ``mean (y - p)``: modes 'under' (risk underestimated
    more than on the whole data), 'over' and 'both'.

    Examples
    --------
    >>> calibration_gap().mode_aliases
    {'under': 'worse', 'over': 'better'}
    """
    return ProbabilityMeanMeasure(
        _gap, kind="loss", name="calibration_gap", mode_aliases={"under": "worse", "over": "better"}
    )


def brier_score():
    """The Brier score ``mean (y - p)**2`` (a loss) [1]_.

    References
    ----------
    .. [1] G. W. Brier, "Verification of forecasts expressed in terms of
       probability", Monthly Weather Review 78(1), 1-3, 1950.
    """
    return ProbabilityMeanMeasure(_squared_error, kind="loss", name="brier")


def log_loss():
    """The log loss ``mean -[y log p + (1 - y) log(1 - p)]`` (a loss), ``p``
    clipped to ``[1e-15, 1 - 1e-15]`` as :func:`sklearn.metrics.log_loss` did."""
    return ProbabilityMeanMeasure(_log_loss, kind="loss", name="log_loss")
