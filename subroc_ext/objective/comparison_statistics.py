"""Statistics of a comparison subgroup, from one compiled definition.

:class:`~subroc_ext.objective.comparison.ComparisonQF`'s statistics (both sides'
measures, the raw quality ``q = s * (d_B - d_A)``, its bound from each side's
extremes, weights, the optimistic estimate; with generalization awareness
``g`` too) computed by :func:`comparison_statistics_kernel` for one candidate
and for each of a batch (:class:`~subroc_ext.FastSearch`), so both give the
same floats. The formulas are documented in :mod:`subroc_ext.objective.comparison`.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from ..scoring import bounds
from ..scoring.weights import max_weight, subgroup_weight
from .statistics import StatisticsByName

__all__ = [
    "comparison_statistics_kernel",
    "comparison_statistics_of_arrays",
    "ComparisonStatistics",
    "ComparisonGeneralizationAwareStatistics",
]


class _ComparisonFields(NamedTuple):
    size_sg: int
    positives_count: int
    negatives_count: int
    baseline_positives: int
    baseline_negatives: int
    baseline_measure: float
    measure: float
    raw_quality: float
    weight: float
    quality: float
    raw_bound: float
    max_weight: float
    optimistic_estimate: float


class ComparisonStatistics(StatisticsByName, _ComparisonFields):
    """Everything :class:`ComparisonQF` knows about one subgroup.

    Side A is the baseline model (paired) or the reference period
    (unpaired); side B the new model or the current period.

    Attributes
    ----------
    size_sg : int
        The smaller of the two cover sizes (the cover's size when paired), so
        that ``ps.MinSupportConstraint`` demands the minimum support of both.
    positives_count, negatives_count : int
        Class counts of side B's cover.
    baseline_positives, baseline_negatives : int
        Class counts of side A's cover.
    baseline_measure, measure : float
        The measure on side A's and side B's cover (NaN where undefined).
    raw_quality : float
        ``q = s * (d_B - d_A)`` (``-inf`` where either side is undefined).
    weight : float
        ``n^alpha * cb^beta`` of the rows covered in the data searched.
    quality : float
        ``weight * raw_quality``.
    raw_bound, max_weight : float
        Largest ``q`` and weight of any subset (pair of subsets).
    optimistic_estimate : float
        Upper bound of the quality of every specialization (never NaN).
    """

    __slots__ = ()


class _ComparisonGAFields(NamedTuple):
    size_sg: int
    positives_count: int
    negatives_count: int
    baseline_positives: int
    baseline_negatives: int
    baseline_measure: float
    measure: float
    raw_quality: float
    generalization_quality: float
    weight: float
    quality: float
    optimistic_estimate: float


class ComparisonGeneralizationAwareStatistics(StatisticsByName, _ComparisonGAFields):
    """Statistics of :class:`ComparisonQF` under
    :class:`~subroc_ext.GeneralizationAwareQF`: those of
    :class:`ComparisonStatistics` with ``generalization_quality`` (the best
    raw quality of a proper generalization) and ``quality = weight *
    (raw_quality - generalization_quality)``."""

    __slots__ = ()


@njit(cache=True)
def _side_bound(lowest, highest, reference, sign):
    """Largest ``sign * (m - reference)`` of a measure value ``m`` in ``[lowest, highest]``."""
    return bounds.bound_from_extremes(lowest, highest, reference, sign < 0, sign > 0)


@njit(cache=True)
def comparison_statistics_kernel(
    positives_a, negatives_a, value_a, lowest_a, highest_a,
    positives_b, negatives_b, value_b, lowest_b, highest_b, defined, paired,
    reference_a, reference_b, downward, upward, size_weight, balance_weight, needs_both_classes,
    estimates,
):  # fmt: skip
    """The statistics of one comparison cover from both sides' counts and measures (compiled).

    The one definition of :class:`ComparisonQF`'s arithmetic (see the module
    documentation), run on each cover of a batch by
    :meth:`ComparisonQF.statistics_of_counts`.

    Parameters
    ----------
    positives_a, negatives_a, value_a, lowest_a, highest_a
        Side A's class counts, measure and its extremes over the defined subsets.
    positives_b, negatives_b, value_b, lowest_b, highest_b
        The same of side B.
    defined : bool
        Whether the measure is defined on both sides.
    paired : bool
        The weight counts side B's cover (paired) or both together.
    reference_a, reference_b : float
        The measure on the whole of each side.
    downward, upward : bool
        Whether the signs of the mode hold -1 and +1 (both: ``mode='both'``).
    size_weight, balance_weight : float
    needs_both_classes : bool
    estimates : bool
        Compute the bound (else ``raw_bound``, ``max_weight`` and the
        estimate are ``inf``).

    Returns
    -------
    tuple of float
        ``baseline_measure, measure, raw_quality, weight, quality, raw_bound,
        max_weight, optimistic_estimate`` as in :class:`ComparisonStatistics`.
    """
    if paired:
        positives, negatives = positives_b, negatives_b
    else:
        positives, negatives = positives_a + positives_b, negatives_a + negatives_b
    weight = subgroup_weight(positives, negatives, size_weight, balance_weight)
    raw_bound = largest_weight = estimate = np.inf
    if not defined:
        if estimates:
            raw_bound, largest_weight, estimate = -np.inf, 0.0, -np.inf
        return np.nan, np.nan, -np.inf, weight, -np.inf, raw_bound, largest_weight, estimate
    scale = abs(reference_a) + abs(reference_b)  # Δ within rounding of zero is zero
    difference = bounds.beyond_rounding((value_b - reference_b) - (value_a - reference_a), scale)
    if downward and upward:
        raw_quality = abs(difference)
    else:
        raw_quality = -difference if downward else difference
    if estimates:
        raw_bound = -np.inf
        for sign, wanted in ((-1.0, downward), (1.0, upward)):
            if wanted:
                bound = _side_bound(lowest_b, highest_b, reference_b, sign) + _side_bound(
                    lowest_a, highest_a, reference_a, -sign
                )
                raw_bound = np.nan if np.isnan(bound) or np.isnan(raw_bound) else max(raw_bound, bound)
        raw_bound = bounds.beyond_rounding(raw_bound, scale)
        largest_weight = max_weight(positives, negatives, size_weight, balance_weight)
        estimate = bounds.weighted_bound(
            True, positives, negatives, raw_bound, np.inf, size_weight, balance_weight,
            needs_both_classes,
        )  # fmt: skip
        if raw_bound >= 0:  # a subset within rounding of no change has quality 0
            estimate = max(estimate, 0.0)
    return value_a, value_b, raw_quality, weight, weight * raw_quality, raw_bound, largest_weight, estimate


@njit(cache=True)
def comparison_statistics_of_arrays(
    positives_a, negatives_a, value_a, lowest_a, highest_a,
    positives_b, negatives_b, value_b, lowest_b, highest_b, defined, paired,
    reference_a, reference_b, downward, upward, size_weight, balance_weight, needs_both_classes,
    estimates, out,
):  # fmt: skip
    """:func:`comparison_statistics_kernel` of each cover, into the rows of ``out`` (8, K)."""
    for i in range(len(positives_a)):
        fields = comparison_statistics_kernel(
            positives_a[i], negatives_a[i], value_a[i], lowest_a[i], highest_a[i],
            positives_b[i], negatives_b[i], value_b[i], lowest_b[i], highest_b[i], defined[i],
            paired, reference_a, reference_b, downward, upward, size_weight, balance_weight,
            needs_both_classes, estimates,
        )  # fmt: skip
        for j in range(8):
            out[j, i] = fields[j]
