"""Statistics of a subgroup for the quality functions, from one compiled definition.

A pysubgroup quality function of subroc-ext computes, per candidate, a
namedtuple of statistics (quality, raw bound, optimistic estimate, class
counts, measure, ...) that constraints read and that vectorized Apriori
stacks into arrays (:class:`StatisticsByName`, :class:`SubgroupStatistics`,
:class:`StatisticsQualityFunction`). The arithmetic from a cover's class
counts and measure to its statistics is one compiled function,
:func:`statistics_kernel`: run on one subgroup by
:meth:`~subroc_ext.objective.quality.SoftClassifierQF.calculate_statistics`
(pysubgroup's algorithms, through :func:`cover_statistics` on its bitset
cover) and on each of a batch by :func:`statistics_of_arrays`
(:meth:`~subroc_ext.objective.quality.SoftClassifierQF.statistics_of_counts`,
:class:`~subroc_ext.FastSearch`), so both give the same floats to the last bit.
"""

from typing import NamedTuple

import numpy as np
import pysubgroup as ps
from numba import boolean, float64, njit

from ..scoring import bounds, cover_kernels, joint_bounds
from ..scoring.elementwise import elementwise
from ..scoring.weights import max_weight, subgroup_weight

__all__ = [
    "relative_quality",
    "statistics_kernel",
    "statistics_of_arrays",
    "row_mean_size_aware",
    "cover_statistics",
    "joint_estimate",
    "StatisticsByName",
    "SubgroupStatistics",
    "StatisticsQualityFunction",
]


@elementwise(float64(float64, float64, boolean, boolean))
def relative_quality(value, reference, downward, upward):
    """Unweighted relative quality ``q = max over signs s of s * (value - reference)``
    (compiled, element-wise); a difference within rounding of zero is zero
    (:func:`subroc_ext.scoring.bounds.beyond_rounding` with the scale ``|reference|``).

    Parameters
    ----------
    value : float or numpy.ndarray
        The measure on a subgroup.
    reference : float
        The measure on the whole data.
    downward, upward : bool
        Whether the signs (:func:`subroc_ext.scoring.bounds.signs`) hold -1 and +1.

    Examples
    --------
    >>> relative_quality(0.5, 0.75, True, False), relative_quality(0.5, 0.75, True, True)
    (0.25, 0.25)
    >>> relative_quality(0.1 + 0.2, 0.3, False, True)  # 5.6e-17 in floating point
    0.0
    """
    difference = bounds.beyond_rounding(value - reference, abs(reference))
    if downward and upward:
        return abs(difference)
    return -difference if downward else difference


@njit(cache=True)
def statistics_kernel(
    positives, negatives, defined, value, lowest, highest, size_aware,
    reference, downward, upward, size_weight, balance_weight, needs_both_classes, estimates,
):  # fmt: skip
    """The statistics of one cover from its counts and measure (compiled).

    The one definition of a :class:`SoftClassifierQF`'s arithmetic: the
    quality function runs it on one subgroup (:meth:`SoftClassifierQF.calculate_statistics`),
    :meth:`SoftClassifierQF.statistics_of_counts` on each of a batch, so both
    give the same floating-point numbers.

    Parameters
    ----------
    positives, negatives : int
        Class counts of the cover.
    defined : bool
        Whether the measure is defined on it.
    value, lowest, highest, size_aware : float
        The measure, its extremes over the defined subsets and the size-aware
        bound (read only where defined, and the last three only with
        ``estimates``; the size-aware bound only when ``size_weight > 0``).
    reference : float
        The measure on the whole data.
    downward, upward : bool
        Whether the signs of the mode hold -1 and +1.
    size_weight, balance_weight : float
        The exponents alpha and beta.
    needs_both_classes : bool
        Whether the measure needs both classes.
    estimates : bool
        Compute the bound (else ``raw_bound``, ``max_weight`` and the
        estimate are ``inf``).

    Returns
    -------
    tuple of float
        ``measure, raw_quality, weight, quality, raw_bound, max_weight,
        optimistic_estimate`` as in :class:`SubgroupStatistics`.
    """
    weight = subgroup_weight(positives, negatives, size_weight, balance_weight)
    raw_bound = largest_weight = estimate = np.inf
    if not defined:
        if estimates:
            raw_bound, largest_weight, estimate = -np.inf, 0.0, -np.inf
        return np.nan, -np.inf, weight, -np.inf, raw_bound, largest_weight, estimate
    raw_quality = relative_quality(value, reference, downward, upward)
    if estimates:
        raw_bound = bounds.beyond_rounding(
            bounds.bound_from_extremes(lowest, highest, reference, downward, upward), abs(reference)
        )
        largest_weight = max_weight(positives, negatives, size_weight, balance_weight)
        estimate = bounds.weighted_bound(
            True, positives, negatives, raw_bound, size_aware, size_weight, balance_weight,
            needs_both_classes,
        )  # fmt: skip
        if raw_bound >= 0:  # a subset within rounding of the reference has quality 0
            estimate = max(estimate, 0.0)
    return value, raw_quality, weight, weight * raw_quality, raw_bound, largest_weight, estimate


@njit(cache=True)
def statistics_of_arrays(
    positives, negatives, defined, value, lowest, highest, size_aware,
    reference, downward, upward, size_weight, balance_weight, needs_both_classes, estimates, out,
):  # fmt: skip
    """:func:`statistics_kernel` of each cover, into the rows of ``out`` (7, K)."""
    for i in range(len(positives)):
        fields = statistics_kernel(
            positives[i], negatives[i], defined[i], value[i], lowest[i], highest[i], size_aware[i],
            reference, downward, upward, size_weight, balance_weight, needs_both_classes, estimates,
        )  # fmt: skip
        for j in range(7):
            out[j, i] = fields[j]


@njit(cache=True)
def row_mean_size_aware(words, value_order, ascending_values, reference, downward, upward, size_weight):
    """:func:`subroc_ext.scoring.cover_kernels.row_mean_size_aware_bound` of the
    bitset cover ``words``, the larger over the signs of the mode (compiled)."""
    size_aware = -np.inf
    for sign, wanted in ((1.0, upward), (-1.0, downward)):
        if wanted:
            size_aware = max(size_aware, cover_kernels.row_mean_size_aware_bound(
                words, value_order, ascending_values, reference, sign, size_weight,
            ))  # fmt: skip
    return size_aware


@njit(cache=True)
def cover_statistics(
    words, positive_words, negative_words, group_start, group_end, kind, row_values, value_order,
    ascending_values, min_positives, min_negatives,
    reference, downward, upward, size_weight, balance_weight, needs_both_classes, estimates,
    min_support, joint,
):  # fmt: skip
    """Class counts and :func:`statistics_kernel` of the bitset cover ``words``
    for a measure with compiled kernels, in one call: the search engine's
    kernels (:mod:`subroc_ext.scoring.cover_kernels`) on a single child. For ROC AUC
    and ``joint`` the estimate is tightened by the joint bound (:func:`joint_estimate`)."""
    parent = words.reshape((1, len(words)))
    child = np.zeros(1, dtype=np.int64)
    positives, negatives = np.empty(1, dtype=np.int64), np.empty(1, dtype=np.int64)
    cover_kernels.count_children(words, parent, child, positive_words, negative_words, positives, negatives)
    p, n = positives[0], negatives[0]
    defined = p >= min_positives and n >= min_negatives and p + n >= 1
    value, lowest, highest = np.full(1, np.nan), np.full(1, np.nan), np.full(1, np.nan)
    size_aware = np.inf
    if defined:
        cover_kernels.measure_children(
            words, parent, child, positive_words, negative_words, group_start, group_end, kind,
            row_values, estimates, value, lowest, highest,
        )  # fmt: skip
        if value_order is not None and estimates and size_weight > 0 and kind == cover_kernels.ROW_MEAN:
            size_aware = row_mean_size_aware(words, value_order, ascending_values, reference, downward, upward,
                                             size_weight)  # fmt: skip
    fields = statistics_kernel(
        p, n, defined, value[0], lowest[0], highest[0], size_aware,
        reference, downward, upward, size_weight, balance_weight, needs_both_classes, estimates,
    )  # fmt: skip
    if not (joint and defined and estimates and kind == cover_kernels.ROC_AUC):
        return (p, n) + fields
    joint = np.empty(1)
    joint_bounds.roc_auc_joint_children(
        words, parent, child, positive_words, negative_words, group_start, group_end, reference,
        np.zeros(1), downward, upward, size_weight, balance_weight, min_support, -np.inf,
        np.full(1, fields[6]), joint,
    )  # fmt: skip
    estimate = joint_estimate(fields[3], fields[6], joint[0])
    return (p, n) + fields[:6] + (estimate,)


@njit(cache=True)
def joint_estimate(quality, estimate, joint):
    """The optimistic estimate tightened by a joint bound (compiled):
    ``min(estimate, max(joint, quality))``.

    ``joint`` bounds ``w(T) * (q(T) - offset)`` over the subsets ``T`` with
    at least the minimum support (:mod:`subroc_ext.scoring.joint_bounds`); the
    pattern's own ``quality`` is kept below the estimate because pysubgroup's
    DFS tests the estimate before it evaluates a pattern.

    Examples
    --------
    A non-negative ``estimate`` stays non-negative: subsets whose quality is
    within rounding of zero count 0 (:func:`relative_quality`), which a
    joint bound computed without that rounding may put slightly below.

    >>> joint_estimate(0.5, 2.0, 1.0), joint_estimate(0.5, 2.0, -np.inf), joint_estimate(-1.0, 2.0, -0.5)
    (1.0, 0.5, 0.0)
    """
    return min(estimate, max(joint, quality, 0.0 if estimate >= 0 else -np.inf))


class Columns(NamedTuple):
    """The label and prediction columns, as a pysubgroup target names them."""

    label_column: str
    prediction_column: str


class StatisticsByName:
    """Mixin for statistics namedtuples: also index fields by name
    (``stats["size_sg"]``), as pysubgroup's ``to_table``/``to_dataframe`` do."""

    __slots__ = ()

    def __getitem__(self, key):
        if isinstance(key, str):
            return getattr(self, key)
        return tuple.__getitem__(self, key)


class _SubgroupStatisticsFields(NamedTuple):
    size_sg: int
    positives_count: int
    negatives_count: int
    measure: float
    raw_quality: float
    weight: float
    quality: float
    raw_bound: float
    max_weight: float
    optimistic_estimate: float


class SubgroupStatistics(StatisticsByName, _SubgroupStatisticsFields):
    """Everything a quality function knows about one subgroup.

    Vectorized pysubgroup algorithms stack these fields into arrays, so
    :meth:`SoftClassifierQF.evaluate` and
    :meth:`SoftClassifierQF.optimistic_estimate` only read them.

    Attributes
    ----------
    size_sg, positives_count, negatives_count : int
        Cover size and class counts.
    measure : float
        The performance measure's value on the cover (NaN where undefined).
        The field keeps its 0.1 name: result tables and user code read it
        by name and position.
    raw_quality : float
        Unweighted relative quality ``q`` (``-inf`` where undefined).
    weight : float
        ``w = size^alpha * class_balance^beta``.
    quality : float
        Weighted quality ``w * q`` (``-inf`` where undefined).
    raw_bound : float
        Largest ``q`` of any subset of the cover (``-inf`` if none is defined).
    max_weight : float
        Largest ``w`` of any subset of the cover.
    optimistic_estimate : float
        Upper bound of the quality of any subset of the cover (never NaN).
    """

    __slots__ = ()


class StatisticsQualityFunction(ps.BoundedInterestingnessMeasure):
    """Base of quality functions whose statistics carry ``quality`` and
    ``optimistic_estimate``: both pysubgroup calls just read them, so they
    also work element-wise on the stacked statistics of vectorized Apriori."""

    def evaluate(self, subgroup, target, data, statistics=None):
        """Quality of ``subgroup`` (element-wise on stacked statistics)."""
        if statistics is None:
            statistics = self.calculate_statistics(subgroup, target, data)
        return statistics.quality

    def optimistic_estimate(self, subgroup, target, data, statistics=None):
        """Upper bound of the quality of every specialization of ``subgroup``
        (and of ``subgroup`` itself)."""
        if statistics is None:
            statistics = self.calculate_statistics(subgroup, target, data)
        return statistics.optimistic_estimate
