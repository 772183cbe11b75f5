"""Optimistic estimates: bounds on the quality of every subset of a cover.

A quality function scores a subgroup ``S`` by ``w(S) * q(S)`` with the raw
quality ``q(S) = max over signs s of s * (m(S) - m(D))`` (one sign for
``mode="worse"`` or ``"better"``, both for ``"both"``; see :func:`signs`).
Pruning needs an upper bound of that over every subset ``T`` of a cover. It
is assembled here from

* the measure's extremes over subsets (:meth:`Measure.extremes`), giving
  :func:`raw_bound`, the largest ``q(T)``;
* the largest and smallest weight of any subset
  (:mod:`subroc_ext.scoring.weights`), giving :func:`optimistic_estimate`;
* where the measure has one, a bound that already includes the size weight,
  ``max over T of |T|^alpha * s * (m(T) - m(D))`` (:func:`size_aware_bound`):
  exact for per-row means, or a measure's own ``size_aware_bound`` hook;
* for ROC AUC, the weight and the raw quality bounded jointly and only over
  subsets of at least the minimum support (:mod:`subroc_ext.scoring.joint_bounds`),
  which the quality functions and FastSearch apply on top of these.

The arithmetic is compiled once per idea (:func:`bound_from_extremes`,
:func:`weighted_bound`, with the weights of :mod:`subroc_ext.scoring.weights`) and
works element-wise on scalars and arrays, so pysubgroup's algorithms (one
subgroup at a time) and :class:`~subroc_ext.FastSearch` (a batch of children)
get the same floating-point numbers. A bound is never NaN; ``+inf`` means
"unknown". ``tests/test_estimates.py`` proves every bound by enumerating all
subsets of small covers.

A difference of two measure values within rounding of zero is zero
(:func:`beyond_rounding`, :data:`ROUNDING`): a subgroup whose measure equals
the whole data's in exact arithmetic has quality 0, not the 2e-15 that two
sums in different orders leave, and is never reported as a finding. Qualities
and bounds are rounded alike, so no bound falls below a quality.

References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (Section 3.3, optimistic estimates of weighted relative
   measures).
"""

import numpy as np
from numba import boolean, float64, njit

from . import cover_kernels
from .elementwise import elementwise
from .weights import max_weight, min_weight

__all__ = [
    "ROUNDING",
    "beyond_rounding",
    "signs",
    "bound_from_extremes",
    "raw_bound",
    "weighted_bound",
    "optimistic_estimate",
    "size_aware_bound",
    "row_mean_size_aware_bound",
]


#: Relative rounding error of a measure value: the bound ``n u`` on the relative
#: error of a sum of ``n <= 2**22`` non-negative terms computed one after the
#: other, with the unit roundoff ``u = 2**-53`` (Higham 2002, eq. 4.4), for
#: each of the two sums behind a difference (``2**-30``, about 1e-9).
ROUNDING = 2.0**-30


@njit(cache=True)
def beyond_rounding(difference, scale):
    """``difference``, or 0 where it is within rounding of zero (compiled).

    Within rounding means ``|difference| <= ROUNDING * scale``, where
    ``scale`` is the magnitude of the values subtracted, taken from the whole
    data's (the reference), so that the same cut applies to a subgroup and
    to every bound over its subsets: the map is monotone, and a bound above
    a quality stays above it.

    Parameters
    ----------
    difference : float
    scale : float
        E.g. ``|m(D)|``; 0 leaves every difference as it is.

    References
    ----------
    .. [1] N. J. Higham, "Accuracy and Stability of Numerical Algorithms",
       2nd ed., SIAM, 2002 (Section 4.2, summation).

    Examples
    --------
    >>> beyond_rounding((0.1 + 0.2) - 0.3, 0.3), beyond_rounding(1e-6, 0.3)
    (0.0, 1e-06)
    """
    if difference != difference:  # NaN, tested quietly (an ordered comparison would warn)
        return difference
    return 0.0 if abs(difference) <= ROUNDING * scale else difference


def signs(kind, mode):
    """Signs ``s`` such that ``q = max over s of s * (m(S) - m(D))``.

    Parameters
    ----------
    kind : {'score', 'loss'}
        The measure's kind.
    mode : {'worse', 'better', 'both'}
        The direction searched for.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> signs("score", "worse"), signs("loss", "worse"), signs("score", "both")
    ((-1,), (1,), (1, -1))
    """
    if mode == "both":
        return (1, -1)
    return (-1,) if (kind == "score") == (mode == "worse") else (1,)


@elementwise(float64(float64, float64, float64, boolean, boolean))
def bound_from_extremes(lowest, highest, reference, downward, upward):
    """Largest raw quality ``q`` of a measure value in ``[lowest, highest]``
    (compiled, element-wise; :func:`raw_bound` with the signs as two flags).

    Parameters
    ----------
    lowest, highest : float or numpy.ndarray
        The measure's extremes over the defined subsets of each cover.
    reference : float
        The measure on the whole data, ``m(D)``.
    downward, upward : bool
        Whether the signs hold -1 (``q`` grows as the measure falls) and +1.

    Examples
    --------
    >>> bound_from_extremes(0.5, 0.9, 0.8, True, False)
    0.30000000000000004
    """
    if downward and upward:
        return max(reference - lowest, highest - reference)
    return reference - lowest if downward else highest - reference


def raw_bound(lowest, highest, reference, directions):
    """Largest raw quality ``q`` of a measure value in ``[lowest, highest]`` (vectorized).

    Parameters
    ----------
    lowest, highest : float or numpy.ndarray
        The measure's extremes over the defined subsets of each cover.
    reference : float
        The measure on the whole data, ``m(D)``.
    directions : tuple of int
        :func:`signs` of the quality function.

    Returns
    -------
    float or numpy.ndarray
        :func:`bound_from_extremes` with ``-1 in directions, 1 in directions``.

    Examples
    --------
    >>> raw_bound(0.5, 0.9, 0.8, signs("score", "worse"))
    0.30000000000000004
    """
    return bound_from_extremes(lowest, highest, reference, -1 in directions, 1 in directions)


@elementwise(float64(boolean, float64, float64, float64, float64, float64, float64, boolean))
def weighted_bound(defined, positives, negatives, raw, size_aware, size_weight, balance_weight,
                   needs_both_classes):  # fmt: skip
    """The optimistic estimate of one cover (compiled, element-wise): the
    ``estimate`` of :func:`optimistic_estimate`, which documents the parameters.

    Never NaN: where the arithmetic gives NaN (an infinite raw bound times a
    zero weight, a measure's NaN extremes) the estimate is ``inf``, unknown.

    Examples
    --------
    >>> weighted_bound(True, 2, 2, 0.25, np.inf, 1.0, 0.0, True)
    1.0
    """
    if not defined:
        return -np.inf
    alpha, beta = size_weight, balance_weight
    if raw >= 0:
        largest_weight = max_weight(positives, negatives, alpha, beta)
        estimate = largest_weight * raw if largest_weight > 0 else 0.0
    else:
        estimate = raw * min_weight(positives, negatives, alpha, beta, needs_both_classes)
    if alpha > 0:
        estimate = min(estimate, max(size_aware, 0.0) if beta > 0 else size_aware)
    return np.inf if np.isnan(estimate) else estimate


def optimistic_estimate(
    defined, positives, negatives, raw, size_aware, size_weight, balance_weight, needs_both_classes
):
    """Largest weight and optimistic estimate of the quality of any subset (vectorized).

    Parameters
    ----------
    defined : numpy.ndarray of bool
        Whether the measure is defined on each cover (definedness only grows
        with the cover: no subset of an undefined one is defined).
    positives, negatives : numpy.ndarray of int
        Class counts of each cover.
    raw : numpy.ndarray of float
        :func:`raw_bound` of each cover.
    size_aware : numpy.ndarray of float
        :func:`size_aware_bound` of each cover (``inf`` where unknown; only
        read when ``size_weight > 0``).
    size_weight, balance_weight : float
        The exponents alpha and beta of the weight.
    needs_both_classes : bool
        Whether the measure needs both classes (the lightest defined subset
        then has two rows).

    Returns
    -------
    (max_weight, estimate) : numpy.ndarray of float
        The largest weight (0 where the measure is undefined) and
        :func:`weighted_bound`: ``-inf`` where the measure is undefined, never NaN.

    Notes
    -----
    With ``q <= R`` on every subset: ``W_max * R`` bounds the quality when
    ``R >= 0``; when ``R < 0`` every subset's quality is negative and the
    lightest defined subset's ``W_min * R`` is the largest. The size-aware
    bound is clipped at 0 when ``balance_weight > 0``: single rows then weigh
    0 and score 0, so a negative size-aware bound is not valid - contrary to
    SPEC.md's "stays valid with beta > 0". The exhaustive tests in
    ``tests/test_estimates.py`` fail without the clip (labels [0, 1, 0, 1],
    scores [0, 1, 2, 3], cover = rows 0 and 3).

    Examples
    --------
    >>> weight, estimate = optimistic_estimate(
    ...     np.array([True]), np.array([2]), np.array([2]), np.array([0.25]),
    ...     np.array([np.inf]), 1.0, 0.0, True)
    >>> weight.tolist(), estimate.tolist()
    ([4.0], [1.0])
    """
    largest_weight = np.where(defined, max_weight(positives, negatives, size_weight, balance_weight), 0.0)
    estimate = weighted_bound(
        defined, positives, negatives, raw, size_aware, size_weight, balance_weight, needs_both_classes
    )
    return largest_weight, estimate


def size_aware_bound(measure, cover, reference, directions, size_weight):
    """Upper bound on ``|T|^size_weight * s * (m(T) - reference)`` over the
    defined subsets ``T`` of ``cover`` and the signs ``s`` in ``directions``.

    Parameters
    ----------
    measure : Measure
        Prepared on the whole data (:meth:`Measure.prepare`).
    cover : Cover
    reference : float
        The measure on the whole data.
    directions : tuple of int
        :func:`signs` of the quality function.
    size_weight : float
        The exponent alpha (> 0).

    Returns
    -------
    float
        The largest over the signs of the measure's
        :meth:`~subroc_ext.scoring.measures.Measure.size_aware_bound` hook: exact
        for a :class:`~subroc_ext.scoring.measures.RowMeanMeasure`
        (:func:`row_mean_size_aware_bound`), ``inf`` (unknown) by default.

    Examples
    --------
    >>> from subroc_ext.scoring.measures import Cover, squared_error
    >>> whole = Cover.from_arrays([True, False, True], [0.9, 0.8, 0.2])
    >>> squared = squared_error().prepare(whole)
    >>> round(size_aware_bound(squared, whole, 0.3, (1,), 1.0), 3)
    0.68
    """
    return max(float(measure.size_aware_bound(cover, reference, sign, size_weight)) for sign in directions)


def row_mean_size_aware_bound(measure, words, reference, directions, size_weight):
    """:func:`size_aware_bound` of a prepared
    :class:`~subroc_ext.scoring.measures.RowMeanMeasure` on a bitset cover
    (:mod:`subroc_ext.scoring.bitset`), compiled: the largest of ``k^alpha * (mean of
    the k largest s * values - s * reference)`` over ``k`` and the signs ``s``.

    Among subsets of ``k`` rows the largest mean is that of the ``k`` largest
    values, so the bound is exact (``tests/test_measures.py`` enumerates).
    """
    return max(
        float(
            cover_kernels.row_mean_size_aware_bound(
                words, measure.value_order, measure.ascending_values,
                float(reference), float(sign), float(size_weight),
            )  # fmt: skip
        )
        for sign in directions
    )
