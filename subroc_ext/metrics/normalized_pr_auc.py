"""The normalized PR AUC: the PR AUC above the least any ranking of the same class counts reaches.

A PR AUC cannot fall below a floor that depends on the prevalence alone
(Boyd, Costa, Davis and Page [1]_, "the unachievable region"): with ``P``
positives and ``N`` negatives, the worst ranking (every positive below every
negative) has the smallest area, so a subgroup with rarer positives has a
lower PR AUC whatever the model does. The normalized PR AUC removes that floor,

    (PR AUC - min(P, N)) / (1 - min(P, N)),

0 for the worst ranking of these counts, 1 for a perfect one.

Which PR AUC, and which floor. The package's PR AUC is the trapezoidal area
under the curve through ``(recall 0, precision 1)`` and one point per
distinct score (:func:`~subroc_ext.metrics.kernels.pr_auc_from_counts`). Among
rankings without ties between the classes, its smallest value for ``P``
positives and ``N >= 1`` negatives is the reversed ranking's, whose points
after the negatives are ``(i / P, i / (N + i))``; the trapezoids sum to

    min(P, N) = AP_min(P, N) - 1 / (2 (N + P)),
    AP_min(P, N) = (1 / P) sum_{i=1..P} i / (N + i) = 1 - (N / P) (H_{N+P} - H_N),

with ``AP_min`` Boyd et al.'s minimum of the interpolation-free average
precision and ``H_k`` the harmonic numbers. As the rows grow at prevalence
``pi = P / (N + P)``, both tend to SPEC's closed form
``1 + (1 - pi) ln(1 - pi) / pi`` (Boyd et al.'s eq. for the continuous curve);
the finite floor is used here because the closed form lies above the
package's worst areas for small subgroups (one positive, one negative: 0.307
against 0.25), which would give them negative normalized values.

Ties joining both classes in one score go below that floor: the package's
curve (as scikit-learn's ``auc(recall, precision)``) joins a tie group's
points by a straight line, the interpolation Davis and Goadrich [2]_ warn
against in PR space, so a negative on top and every other row tied reaches
``P / (2 (N + P))``. Boyd et al.'s floor is that of rankings, not of this
artefact, so the normalized PR AUC counts a value below the floor as the
floor: ``max(0, (PR AUC - min) / (1 - min))``. It lies in [0, 1] for every
subgroup with both classes, 0 for the reversed ranking, 1 for a perfect one,
and is undefined (NaN) without a positive or a negative (the floor of
``N = 0`` is 1).

Both functions are compiled, so the search kernels
(:mod:`subroc_ext.scoring.cover_kernels`), the measure's Python value and the
label draws get the same floating-point numbers.

References
----------
.. [1] K. Boyd, V. Santos Costa, J. Davis and C. D. Page, "Unachievable
   region in precision-recall space and its effect on empirical
   evaluation", ICML 2012.
.. [2] J. Davis and M. Goadrich, "The relationship between precision-recall
   and ROC curves", ICML 2006.
"""

import numpy as np
from numba import njit

__all__ = ["smallest_pr_auc", "normalized_pr_auc", "pr_auc_floor_limit"]


@njit(cache=True, nogil=True)
def smallest_pr_auc(positives, negatives):
    """The least PR AUC (trapezoidal, through ``(0, 1)``) of any ranking of
    ``positives >= 1`` positives and ``negatives >= 1`` negatives (compiled):
    every positive below every negative.

    Examples
    --------
    >>> smallest_pr_auc(1, 1), round(smallest_pr_auc(2, 1), 4)  # (0 + 1/2) / 2; 1/8 + 7/24
    (0.25, 0.4167)
    """
    p, n = float(positives), float(negatives)
    harmonic = 0.0  # H_{N+P} - H_N, small terms first
    for i in range(int(positives), 0, -1):
        harmonic += 1.0 / (n + i)
    return 1.0 - (n / p) * harmonic - 0.5 / (n + p)


@njit(cache=True, nogil=True)
def normalized_pr_auc(value, positives, negatives):
    """``(value - floor) / (1 - floor)`` with :func:`smallest_pr_auc` of the
    counts, at least 0 (a tie group of both classes can take ``value`` below
    the floor of rankings) and at most 1 (the last bit of rounding); NaN
    without a positive or a negative (compiled).

    Examples
    --------
    >>> normalized_pr_auc(0.25, 1, 1), normalized_pr_auc(1.0, 3, 5)
    (0.0, 1.0)
    """
    if positives < 1 or negatives < 1:
        return np.nan
    floor = smallest_pr_auc(positives, negatives)
    return min(max((value - floor) / (1.0 - floor), 0.0), 1.0)


def pr_auc_floor_limit(prevalence):
    """Boyd et al.'s floor of the PR AUC at prevalence ``pi`` on many rows:
    ``1 + (1 - pi) ln(1 - pi) / pi`` (``pi`` in (0, 1)), the limit of
    :func:`smallest_pr_auc` at that prevalence.

    Examples
    --------
    >>> round(pr_auc_floor_limit(0.5), 4), round(smallest_pr_auc(5000, 5000), 4)
    (0.3069, 0.3069)
    """
    pi = np.asarray(prevalence, dtype=float)
    return 1.0 + (1.0 - pi) * np.log1p(-pi) / pi
