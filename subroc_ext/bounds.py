"""Optimistic estimates: bounds on the quality of every subset of a cover.

A quality function scores a subgroup ``S`` by ``w(S) * q(S)`` with the raw
quality ``q(S) = max over signs s of s * (m(S) - m(D))`` (one sign for
``mode="worse"`` or ``"better"``, both for ``"both"``; see :func:`signs`).
Pruning needs an upper bound of that over every subset ``T`` of a cover. It
is assembled here from

* the measure's extremes over subsets (:meth:`Measure.extremes`), giving
  :func:`raw_bound`, the largest ``q(T)``;
* the largest and smallest weight of any subset
  (:mod:`subroc_ext.weights`), giving :func:`optimistic_estimate`;
* where the measure has one, a bound that already includes the size weight,
  ``max over T of |T|^alpha * s * (m(T) - m(D))`` (:func:`size_aware_bound`):
  exact for per-row means, or a measure's own ``size_aware_bound`` hook.

Every function works element-wise on arrays, so pysubgroup's algorithms (one
subgroup at a time) and :class:`~subroc_ext.FastSearch` (a batch of children)
get the same floating-point numbers. A bound is never NaN; ``+inf`` means
"unknown". ``tests/test_estimates.py`` proves every bound by enumerating all
subsets of small covers.

References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (Section 3.3, optimistic estimates of weighted relative
   measures).
"""

import numpy as np

from . import cover_kernels
from .weights import max_weight, min_weight

__all__ = [
    "signs",
    "raw_bound",
    "optimistic_estimate",
    "size_aware_bound",
    "row_mean_size_aware_bound",
]


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

    Examples
    --------
    >>> raw_bound(0.5, 0.9, 0.8, signs("score", "worse"))
    0.30000000000000004
    """
    bounds = [
        np.subtract(reference, lowest) if sign < 0 else np.subtract(highest, reference)
        for sign in directions
    ]
    return bounds[0] if len(bounds) == 1 else np.maximum(*bounds)


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
        The estimate is ``-inf`` where the measure is undefined, never NaN.

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
    alpha, beta = size_weight, balance_weight
    with np.errstate(invalid="ignore"):
        largest_weight = np.where(defined, max_weight(positives, negatives, alpha, beta), 0.0)
        from_largest = np.where(largest_weight > 0, largest_weight * raw, 0.0)
        from_lightest = raw * min_weight(positives, negatives, alpha, beta, needs_both_classes)
        estimate = np.where(raw >= 0, from_largest, from_lightest)
        if alpha > 0:
            estimate = np.minimum(estimate, np.maximum(size_aware, 0.0) if beta > 0 else size_aware)
        estimate = np.where(defined, estimate, -np.inf)
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
        :meth:`~subroc_ext.measures.Measure.size_aware_bound` hook: exact
        for a :class:`~subroc_ext.measures.RowMeanMeasure`
        (:func:`row_mean_size_aware_bound`), ``inf`` (unknown) by default.

    Examples
    --------
    >>> from subroc_ext.measures import Cover, brier_score
    >>> whole = Cover.from_arrays([True, False, True], [0.9, 0.8, 0.2])
    >>> brier = brier_score().prepare(whole)
    >>> round(size_aware_bound(brier, whole, 0.3, (1,), 1.0), 3)
    0.68
    """
    return max(float(measure.size_aware_bound(cover, reference, sign, size_weight)) for sign in directions)


def row_mean_size_aware_bound(measure, words, reference, directions, size_weight):
    """:func:`size_aware_bound` of a prepared
    :class:`~subroc_ext.measures.RowMeanMeasure` on a bitset cover
    (:mod:`subroc_ext.bitset`), compiled: the largest of ``k^alpha * (mean of
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
