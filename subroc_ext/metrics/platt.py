"""What Newton's method sums over the rows to fit Platt's sigmoid, in one pass.

Fitting ``f = 1 / (1 + exp(-(a z + b)))`` to Platt's smoothed targets by
Newton's method (:mod:`~subroc_ext.inputs.probabilities`) needs, at each
step, five sums over the rows: ``f z``, ``f``, ``w z^2``, ``w z`` and ``w``
with ``w = f (1 - f)``. NumPy makes five temporary arrays of the rows for
them; the headline fits a sigmoid for each of a hundred patterns of up to a
million search rows (:func:`~subroc_ext.inputs.probabilities.maps_without`),
where :func:`sigmoid_sums` reads each row once.

References
----------
.. [1] J. Platt, "Probabilistic outputs for support vector machines and
   comparisons to regularized likelihood methods", Advances in Large Margin
   Classifiers, 1999.
"""

import math

import numpy as np
from numba import njit

__all__ = ["sigmoid_sums"]


@njit(cache=True, nogil=True)
def sigmoid_sums(z, slope, intercept):
    """``[sum f z, sum f, sum w z^2, sum w z, sum w]`` over the rows of ``z``,
    ``f`` the sigmoid of ``slope z + intercept`` and ``w = f (1 - f)``.

    Examples
    --------
    >>> z = np.array([-1.0, 0.0, 2.0])
    >>> f = 1 / (1 + np.exp(-(0.5 * z + 0.1)))
    >>> w = f * (1 - f)
    >>> bool(np.allclose(sigmoid_sums(z, 0.5, 0.1), [f @ z, f.sum(), w @ z**2, w @ z, w.sum()]))
    True
    """
    sums = np.zeros(5)
    for value in z:
        x = slope * value + intercept
        if x >= 0:
            fitted = 1.0 / (1.0 + math.exp(-x))
        else:
            e = math.exp(x)
            fitted = e / (1.0 + e)
        weight = fitted * (1.0 - fitted)
        sums[0] += fitted * value
        sums[1] += fitted
        sums[2] += weight * value * value
        sums[3] += weight * value
        sums[4] += weight
    return sums
