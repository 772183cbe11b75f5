"""The absolute check of calibration in a subgroup: do its labels match the probabilities?

The randomization test (:mod:`subroc_ext.inference.significance`) asks
whether a subgroup's calibration gap is exceptional *relative to the whole
data*. This asks whether the subgroup is miscalibrated at all: if the
probabilities ``p_i`` are right, the labels are independent draws
``y_i ~ Bernoulli(p_i)``, so ``sum (y_i - p_i)`` has mean 0 and variance
``sum p_i (1 - p_i)`` (its null is Poisson-binomial [1]_). The statistic
``z = sum (y_i - p_i) / sqrt(sum p_i (1 - p_i))`` is compared with the
standard normal (a two-sided p-value): the test of calibration-in-the-large
[1]_ [2]_ on the subgroup's rows. The p-values are per row, not corrected for
multiplicity.

References
----------
.. [1] D. R. Cox, "Two further applications of a model for binary
   regression", Biometrika 45(3/4), 562-565, 1958.
.. [2] D. J. Spiegelhalter, "Probabilistic prediction in patient management
   and clinical trials", Statistics in Medicine 5(5), 421-433, 1986.
"""

import numpy as np
import pandas as pd
from scipy import stats

__all__ = ["CALIBRATION_COLUMNS", "calibration_check"]

#: The columns of :func:`calibration_check` (before the suffix).
CALIBRATION_COLUMNS = ["promised", "observed", "calibration_z", "calibration_p"]


def calibration_check(masks, is_positive, probabilities, *, suffix=""):
    """Promised and observed rate and the calibration test of each cover.

    Parameters
    ----------
    masks : numpy.ndarray of bool, shape (n_subgroups, n_rows)
        The covers.
    is_positive : numpy.ndarray of bool, shape (n_rows,)
    probabilities : numpy.ndarray of float, shape (n_rows,)
        The scores read as probabilities (in [0, 1]).
    suffix : str, default=''
        Appended to each column name (``'_validation'``).

    Returns
    -------
    pandas.DataFrame
        :data:`CALIBRATION_COLUMNS`: ``promised`` (mean probability),
        ``observed`` (share of positives), ``calibration_z`` and
        ``calibration_p`` (two-sided, normal approximation; an empty cover
        gets NaN, a cover whose probabilities are all 0 or 1 gets ``z = 0``
        and ``p = 1`` where its labels match them, else ``p = 0``).

    Examples
    --------
    >>> masks = np.array([[True, True, True, True], [True, True, False, False]])
    >>> table = calibration_check(masks, np.array([True, True, False, True]), np.full(4, 0.5))
    >>> table.round(3).to_dict("list")  # doctest: +NORMALIZE_WHITESPACE
    {'promised': [0.5, 0.5], 'observed': [0.75, 1.0], 'calibration_z': [1.0, 1.414],
     'calibration_p': [0.317, 0.157]}
    """
    masks = np.atleast_2d(np.asarray(masks, dtype=bool))
    y = np.asarray(is_positive, dtype=float)
    p = np.asarray(probabilities, dtype=float)
    sizes = masks.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        observed = masks @ y / sizes
        promised = masks @ p / sizes
        surplus = masks @ (y - p)
        spread = np.sqrt(masks @ (p * (1 - p)))
        z = np.where(spread > 0, surplus / spread, np.where(np.abs(surplus) > 1e-9, np.sign(surplus) * np.inf, 0.0))
    z = np.where(sizes > 0, z, np.nan)
    columns = [promised, observed, z, 2 * stats.norm.sf(np.abs(z))]
    return pd.DataFrame({name + suffix: column for name, column in zip(CALIBRATION_COLUMNS, columns)})
