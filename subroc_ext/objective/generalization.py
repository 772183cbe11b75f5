"""Generalization-aware quality (SubROC's variant for weighted scores).

A pattern that merely inherits its exceptionality from a shorter pattern is
redundant. :class:`GeneralizationAwareQF` scores a pattern ``S`` by

    phi_ga(S) = w(S) * (q(S) - g(S)),

where ``q`` is the wrapped quality function's raw (unweighted) relative
quality and ``g(S)`` the largest raw quality of any proper generalization of
``S`` (any subset of its selectors, the empty pattern with ``q = 0``
included). For a specialization ``T`` of ``S``, ``g(T) >= G(S) = max(q(S), g(S))``
and ``q(T) <= R(S)``, the wrapped function's raw bound, so
``W_max(S) * (R(S) - G(S))`` (or 0 when negative) bounds ``phi_ga(T)``.
The optimistic estimate is the larger of that and ``phi_ga(S)`` itself,
because pysubgroup's DFS tests the estimate before it evaluates a pattern.
For ROC AUC it is tightened by the joint bound of ``w(T) * (q(T) - G(S))``
over the subsets with at least the wrapped function's ``min_support`` rows
(:mod:`subroc_ext.scoring.joint_bounds`).
References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (generalization-aware quality and its optimistic estimate).
"""

from itertools import combinations
from typing import NamedTuple

import numpy as np
import pysubgroup as ps
from numba import njit

from ..scoring.bounds import beyond_rounding
from .quality import SoftClassifierQF
from .statistics import StatisticsByName, StatisticsQualityFunction, joint_estimate

__all__ = [
    "GeneralizationAwareQF",
    "GeneralizationAwareStatistics",
    "generalization_aware_arrays",
    "generalization_aware_kernel",
    "generalization_aware_quality",
]


@njit(cache=True)
def generalization_aware_kernel(weight, raw_quality, raw_bound, max_weight, generalization):
    """:func:`generalization_aware_quality` of one pattern (compiled; the one
    definition of the arithmetic, which the vectorized form runs on each element).

    Examples
    --------
    >>> generalization_aware_kernel(2.0, 0.25, 0.5, 4.0, 0.125)
    (0.25, 1.0)
    >>> generalization_aware_kernel(2.0, 0.1 + 0.2, 0.5, 4.0, 0.3)[0]  # no gain, up to rounding
    0.0
    """
    gain = raw_quality - generalization
    if np.isfinite(gain):  # a gain within rounding of zero is none (f(x) <= max(x, 0): the estimate holds)
        gain = beyond_rounding(gain, max(abs(raw_quality), abs(generalization)))
    quality = -np.inf if raw_quality == -np.inf else weight * gain
    if raw_bound == -np.inf:
        return quality, -np.inf
    margin = raw_bound - max(raw_quality, generalization)
    below = max_weight * margin if margin > 0 and max_weight > 0 else 0.0
    estimate = max(below, quality)
    return quality, np.inf if np.isnan(estimate) else estimate


@njit(cache=True)
def generalization_aware_arrays(weight, raw_quality, raw_bound, max_weight, generalization, out):
    """:func:`generalization_aware_kernel` over arrays, compiled: each pattern's
    quality into ``out[0]`` and its optimistic estimate into ``out[1]``."""
    for i in range(len(weight)):
        out[0, i], out[1, i] = generalization_aware_kernel(
            weight[i], raw_quality[i], raw_bound[i], max_weight[i], generalization[i]
        )


def generalization_aware_quality(weight, raw_quality, raw_bound, max_weight, generalization, joint=None):
    """Quality ``w * (q - g)`` and its optimistic estimate (vectorized).

    Parameters
    ----------
    weight, raw_quality, raw_bound, max_weight : float or numpy.ndarray
        The wrapped quality function's statistics of a pattern ``S``
        (``-inf`` raw quality and bound where the measure is undefined).
    generalization : float or numpy.ndarray
        ``g(S)``, the best raw quality of a proper generalization.
    joint : float or numpy.ndarray, optional
        A joint bound of ``w(T) * (q(T) - max(q(S), g(S)))`` over the subsets
        (:meth:`~subroc_ext.SoftClassifierQF.joint_bound`) that tightens the
        estimate (:func:`~subroc_ext.objective.statistics.joint_estimate`), as
        :meth:`GeneralizationAwareQF.calculate_statistics` does.

    Returns
    -------
    (quality, estimate)
        Floats for scalar arguments, else arrays of the broadcast shape:
        :func:`generalization_aware_kernel` of each element. ``-inf`` where
        undefined, never NaN. Specializations ``T`` of ``S`` satisfy
        ``w(T) * (q(T) - g(T)) <= W_max(S) * (R(S) - max(q(S), g(S)))``, or 0
        when that margin is not positive; the estimate is the larger of that
        and the pattern's own quality, because pysubgroup's DFS checks the
        estimate before it evaluates a pattern.
    """
    arguments = (weight, raw_quality, raw_bound, max_weight, generalization)
    if not any(isinstance(argument, np.ndarray) and argument.ndim for argument in arguments):
        quality, estimate = generalization_aware_kernel(*map(float, arguments))
        return quality, estimate if joint is None else joint_estimate(quality, estimate, float(joint))
    arrays = [np.asarray(argument, dtype=float) for argument in arguments]
    shape = np.broadcast_shapes(*(array.shape for array in arrays))
    # flat, writeable inputs: arrays of the shape as they are, the others broadcast (copied)
    flat = [array.ravel() if array.shape == shape else np.broadcast_to(array, shape).ravel() for array in arrays]
    out = np.empty((2, flat[0].size))
    generalization_aware_arrays(*flat, out)
    if joint is not None:
        out[1] = np.minimum(out[1], np.maximum(np.broadcast_to(joint, shape).ravel(), out[0]))
    return out[0].reshape(shape), out[1].reshape(shape)


class _GeneralizationAwareFields(NamedTuple):
    size_sg: int
    positives_count: int
    negatives_count: int
    measure: float
    raw_quality: float
    generalization_quality: float
    weight: float
    quality: float
    optimistic_estimate: float


class GeneralizationAwareStatistics(StatisticsByName, _GeneralizationAwareFields):
    """Statistics of a subgroup under :class:`GeneralizationAwareQF`.

    Attributes
    ----------
    size_sg, positives_count, negatives_count : int
        Cover size and class counts.
    measure : float
        The performance measure on the cover.
    raw_quality : float
        Unweighted relative quality ``q``.
    generalization_quality : float
        ``g``: the best raw quality of a proper generalization.
    weight : float
        ``w = size^alpha * class_balance^beta``.
    quality : float
        ``w * (q - g)`` (``-inf`` where the measure is undefined).
    optimistic_estimate : float
        Upper bound of ``quality`` over all specializations.
    """

    __slots__ = ()


def _pattern_key(selectors):
    """The memo key of a pattern: its selectors' descriptions, as a set.

    Not the selector objects: pysubgroup keeps one object per description,
    and such an object pickles only once, so a memo holding selectors could
    be sent to a cluster only once. pysubgroup's selectors are equal exactly
    when their descriptions are.
    """
    return frozenset(repr(selector) for selector in selectors)


class GeneralizationAwareQF(StatisticsQualityFunction):
    """Generalization-aware wrapper of a :class:`~subroc_ext.SoftClassifierQF`,
    an :class:`~subroc_ext.AUCMuQF` or a :class:`~subroc_ext.ComparisonQF`.

    Parameters
    ----------
    qf : SoftClassifierQF, AUCMuQF or ComparisonQF
        The quality function to wrap; its measure, mode and weights are used
        (its statistics carry ``raw_quality``, ``raw_bound``, ``weight`` and
        ``max_weight``).

    Examples
    --------
    >>> import subroc_ext
    >>> qf = subroc_ext.GeneralizationAwareQF(subroc_ext.ROCAUCQF("label", 1, 1))
    """

    def __init__(self, qf):
        if not isinstance(qf, SoftClassifierQF) and not hasattr(qf, "generalization_aware_statistics"):
            raise TypeError(
                f"qf must be a subroc_ext SoftClassifierQF, AUCMuQF or ComparisonQF, got "
                f"{type(qf).__name__}"
            )
        self.qf = qf
        self._best_raw = {}
        self._data = None

    def calculate_constant_statistics(self, data, target):
        """Prepare the wrapped function on ``data`` and clear the pattern cache."""
        self.qf.calculate_constant_statistics(data, target)
        self._best_raw = {}
        self._data = data

    def _prepared(self, data, target):
        if self._data is not data:
            self.calculate_constant_statistics(data, target)

    def _wrapped_statistics(self, subgroup, target, data):
        """The wrapped function's statistics (a SoftClassifierQF's without its
        joint bound: this class computes its own, with the offset ``max(q, g)``)."""
        if isinstance(self.qf, SoftClassifierQF):
            return self.qf.calculate_statistics(subgroup, target, data, joint=False)
        return self.qf.calculate_statistics(subgroup, target, data)

    def _raw_quality(self, selectors, target, data):
        stats = self._wrapped_statistics(ps.Conjunction(list(selectors)), target, data)
        return stats.raw_quality

    def _best_raw_quality(self, selectors, target, data):
        """``max(q(X), g(X))`` for the pattern with these selectors (memoized)."""
        key = _pattern_key(selectors)
        if key not in self._best_raw:
            if not key:
                best = 0.0
            else:
                best = max(
                    self._raw_quality(selectors, target, data),
                    self._generalization_quality(selectors, target, data),
                )
            self._best_raw[key] = best
        return self._best_raw[key]

    def _generalization_quality(self, selectors, target, data):
        """``g``: the best raw quality of a proper generalization (0 for the empty one)."""
        return max(
            self._best_raw_quality(subset, target, data)
            for subset in combinations(selectors, len(selectors) - 1)
        )

    def calculate_statistics(self, subgroup, target, data, statistics=None):
        """Statistics of ``subgroup``, including its generalizations' best quality."""
        self._prepared(data, target)
        stats = self._wrapped_statistics(subgroup, target, data)
        selectors = tuple(getattr(subgroup, "selectors", ()))
        if selectors:
            generalization = self._generalization_quality(selectors, target, data)
            self._best_raw.setdefault(
                _pattern_key(selectors), max(stats.raw_quality, generalization)
            )
        else:  # the empty pattern (or a plain mask) has no proper generalization
            generalization = 0.0
        quality, estimate = generalization_aware_kernel(
            float(stats.weight), float(stats.raw_quality), float(stats.raw_bound),
            float(stats.max_weight), float(generalization),
        )  # fmt: skip
        if isinstance(self.qf, SoftClassifierQF) and estimate > quality:
            # specializations have g >= max(q, g) of this pattern: the joint bound with that offset
            offset = max(stats.raw_quality, generalization)
            joint = self.qf.joint_bound(subgroup, target, data, offset, stop_at=estimate)
            estimate = joint_estimate(quality, estimate, joint)
        if hasattr(self.qf, "generalization_aware_statistics"):  # AUCMuQF, ComparisonQF
            return self.qf.generalization_aware_statistics(
                stats, generalization, float(quality), float(estimate)
            )
        return GeneralizationAwareStatistics(
            stats.size_sg, stats.positives_count, stats.negatives_count, stats.measure,
            stats.raw_quality, generalization, stats.weight, float(quality), float(estimate),
        )  # fmt: skip

    def __repr__(self):
        return f"GeneralizationAwareQF({self.qf!r})"
