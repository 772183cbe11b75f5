"""pysubgroup quality functions for binary soft classifiers.

:class:`SoftClassifierQF` turns any :class:`~subroc_ext.measures.Measure`
into a pysubgroup quality function with

* a direction: ``mode="worse"`` (default; the model performs worse in the
  subgroup than on the whole data), ``"better"`` or ``"both"``;
* the SubROC weight ``w(S) = |S|^size_weight * class_balance^balance_weight``;
* an optimistic estimate valid for every non-negative pair of weights.

:class:`ROCAUCQF`, :class:`PRAUCQF`, :class:`ARLQF` and
:class:`AttributionMeanQF` are drop-in replacements of pysubgroup 0.9.0's
classes of the same name (same positional and keyword arguments, same
qualities) that sort the data once per search and evaluate each candidate
with a few vectorized operations.

Use them with ``subroc_ext.SoftClassifierTarget(label_column, prediction_column)``.
"""

import copy
from typing import NamedTuple

import numpy as np
import pysubgroup as ps

from . import measures as _measures
from ._validation import check_mode, check_weights
from .dataset import SortedDataset
from .weights import max_weight, min_weight, subgroup_weight

__all__ = [
    "SubgroupStatistics",
    "SoftClassifierQF",
    "ROCAUCQF",
    "PRAUCQF",
    "ARLQF",
    "AttributionMeanQF",
]


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
        The performance measure on the cover (NaN where undefined).
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


class SoftClassifierQF(StatisticsQualityFunction):
    """Quality function measuring exceptional classifier performance in a subgroup.

    ``quality(S) = w(S) * q(S)`` where ``q`` compares the measure on the
    subgroup ``m(S)`` to that on the whole data ``m(D)``: for ``mode="worse"``
    ``q = m(D) - m(S)`` for scores and ``m(S) - m(D)`` for losses,
    ``"better"`` negates it and ``"both"`` takes its absolute value. Where the
    measure is undefined the quality is ``-inf``.

    Parameters
    ----------
    measure : subroc_ext.measures.Measure
        The performance measure.
    label_column : str
        Column of the true labels.
    positive_label : object, default=1
        Label value of the positive class (honoured by measure and bound).
    size_weight : float, default=0
        Exponent alpha of the cover size in the weight.
    balance_weight : float, default=0
        Exponent beta of the class balance in the weight.
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for.

    Attributes
    ----------
    optimistic_estimates : bool, default=True
        Compute the optimistic estimate with the statistics. Set it to False
        to time a search without pruning: the measure's extremes and
        size-aware bound are then never computed, and ``raw_bound``,
        ``max_weight`` and ``optimistic_estimate`` are ``inf`` (nothing is
        pruned); every other statistic is unchanged.

    Notes
    -----
    The prediction column comes from the target,
    ``subroc_ext.SoftClassifierTarget(label_column, prediction_column)``. The data is
    sorted by score once in :meth:`calculate_constant_statistics` (and again
    whenever a different DataFrame, or one with a different number of rows,
    is passed), so any index works.

    The prepared data is cached by DataFrame identity. After changing values
    of ``data`` in place (``data.loc[i, "score"] = ...``), call
    :meth:`calculate_constant_statistics` again, as every pysubgroup search
    does when it starts, or pass a copy: a direct :meth:`evaluate` would use
    the data as it was. (Checking every value on each call would cost as
    much as the evaluation itself.)
    """

    optimistic_estimates = True

    def __init__(
        self,
        measure,
        label_column,
        *,
        positive_label=1,
        size_weight=0.0,
        balance_weight=0.0,
        mode="worse",
    ):
        if not isinstance(measure, _measures.Measure):
            raise TypeError(
                f"measure must be a subroc_ext.measures.Measure, got {type(measure).__name__}"
            )
        # A private copy: measures may keep per-dataset state from prepare().
        self.measure = copy.copy(measure)
        self.label_column = label_column
        self.positive_label = positive_label
        self.size_weight, self.balance_weight = check_weights(size_weight, balance_weight)
        self.mode = check_mode(mode)
        self.dataset_value = None
        self._dataset = None

    # -- preparation ---------------------------------------------------------

    def calculate_constant_statistics(self, data, target):
        """Sort ``data`` by score, validate it, and compute the measure on it."""
        target_label = getattr(target, "label_column", self.label_column)
        if target_label != self.label_column:
            raise ValueError(
                f"the target's label column {target_label!r} differs from the quality "
                f"function's label column {self.label_column!r}"
            )
        dataset = SortedDataset(
            data, self.label_column, target.prediction_column, self.positive_label
        )
        whole = dataset.cover()
        if not self.measure.dataset_is_defined(whole.positives, whole.negatives):
            raise ValueError(
                f"{self.measure.name} is undefined on this data: label column "
                f"{self.label_column!r} has {whole.positives} positive(s) (label "
                f"{self.positive_label!r}) and {whole.negatives} negative(s)"
            )
        self.measure.prepare(whole)
        self.dataset_value = self.measure.value(whole)
        self._dataset = dataset

    @property
    def dataset(self):
        """The data prepared by :meth:`calculate_constant_statistics` (None before)."""
        return self._dataset

    def _prepared(self, data, target):
        dataset = self._dataset
        if (
            dataset is None
            or dataset.data is not data
            or len(dataset) != len(data)
            or dataset.columns != (self.label_column, target.prediction_column)
        ):
            self.calculate_constant_statistics(data, target)
        return self._dataset

    # -- pysubgroup protocol -------------------------------------------------

    def calculate_statistics(self, subgroup, target, data, statistics=None):
        """Statistics of ``subgroup`` on ``data``: size, class counts, quality
        and optimistic estimate (see :class:`SubgroupStatistics`)."""
        dataset = self._prepared(data, target)
        return self.statistics_of_cover(dataset.cover(dataset.mask_of(subgroup)))

    # -- the quality and its bound ------------------------------------------

    def raw_quality(self, value):
        """Unweighted relative quality ``q`` of a measure value (vectorized)."""
        difference = np.subtract(value, self.dataset_value)
        if self.mode == "both":
            return np.abs(difference)
        if (self.measure.kind == "score") == (self.mode == "worse"):
            return -difference
        return difference

    def _raw_bound(self, lowest, highest):
        """Largest ``q`` over values in ``[lowest, highest]`` (vectorized)."""
        from_lowest = np.subtract(self.dataset_value, lowest)
        from_highest = np.subtract(highest, self.dataset_value)
        if self.mode == "both":
            return np.maximum(from_lowest, from_highest)
        if (self.measure.kind == "score") == (self.mode == "worse"):
            return from_lowest
        return from_highest

    def signs(self):
        """Signs ``s`` such that ``q = max over s of s * (m(S) - m(D))``."""
        if self.mode == "both":
            return (1, -1)
        return (-1,) if (self.measure.kind == "score") == (self.mode == "worse") else (1,)

    def statistics_of_cover(self, cover):
        """:class:`SubgroupStatistics` of a :class:`~subroc_ext.measures.Cover`."""
        positives, negatives = cover.positives, cover.negatives
        value = lowest = highest = np.nan
        size_aware = np.inf
        if self.measure.is_defined(positives, negatives):
            value = self.measure.value(cover)
        if self.optimistic_estimates and self.measure.is_defined(positives, negatives):
            lowest, highest = self.measure.extremes(cover)
            if self.size_weight > 0:
                size_aware = max(
                    self.measure.size_aware_bound(cover, self.dataset_value, sign, self.size_weight)
                    for sign in self.signs()
                )
        stats = self.statistics_of_counts(
            np.array([positives]), np.array([negatives]), np.array([value]),
            np.array([lowest]), np.array([highest]), np.array([size_aware]),
        )  # fmt: skip
        return SubgroupStatistics(
            int(stats.size_sg[0]), int(positives), int(negatives),
            *(float(field[0]) for field in stats[3:]),
        )  # fmt: skip

    def statistics_of_counts(self, positives, negatives, value, lowest, highest, size_aware):
        """:class:`SubgroupStatistics` of many covers at once, each field an array.

        Parameters
        ----------
        positives, negatives : numpy.ndarray of int
            Class counts of each cover.
        value, lowest, highest : numpy.ndarray of float
            The measure on each cover and its lowest and highest value over the
            cover's defined subsets (anything where the measure is undefined).
        size_aware : numpy.ndarray of float
            The measure's size-aware bound, the larger over :meth:`signs`
            (``inf`` where it has none; only read when ``size_weight > 0``).

        Returns
        -------
        SubgroupStatistics
            With array fields; the search engine and :meth:`statistics_of_cover`
            both compute statistics here, so they agree to the last bit.

        Notes
        -----
        The measure's size-aware bound (``max_k k^alpha * ...``, attribution
        mean and other row means) is clipped at 0 when ``balance_weight > 0``:
        single rows then weigh 0 and score 0, so a negative size-aware bound is
        not valid - contrary to SPEC.md's "stays valid with beta > 0". The
        exhaustive tests in ``tests/test_estimates.py`` fail without the clip
        (labels [0, 1, 0, 1], scores [0, 1, 2, 3], cover = rows 0 and 3).
        """
        defined = self.measure.is_defined(positives, negatives)
        weight = subgroup_weight(positives, negatives, self.size_weight, self.balance_weight)
        with np.errstate(invalid="ignore"):
            raw_quality = np.where(defined, self.raw_quality(value), -np.inf)
            quality = np.where(defined, weight * raw_quality, -np.inf)
        if self.optimistic_estimates:
            raw_bound, largest_weight, estimate = self._estimates(
                defined, positives, negatives, lowest, highest, size_aware
            )
        else:
            raw_bound = largest_weight = estimate = np.full(np.shape(quality), np.inf)
        return SubgroupStatistics(
            positives + negatives, positives, negatives, np.where(defined, value, np.nan),
            raw_quality, weight, quality, raw_bound, largest_weight, estimate,
        )  # fmt: skip

    def _estimates(self, defined, positives, negatives, lowest, highest, size_aware):
        """``raw_bound``, ``max_weight`` and ``optimistic_estimate`` of
        :meth:`statistics_of_counts` (arrays)."""
        alpha, beta = self.size_weight, self.balance_weight
        with np.errstate(invalid="ignore"):
            raw_bound = np.where(defined, self._raw_bound(lowest, highest), -np.inf)
            # Definedness only grows with the cover: no subset of an undefined one is defined.
            largest_weight = np.where(defined, max_weight(positives, negatives, alpha, beta), 0.0)
            from_largest = np.where(largest_weight > 0, largest_weight * raw_bound, 0.0)
            # q < 0 everywhere: the lightest subset is the least negative.
            needs_both = self.measure.min_positives >= 1 and self.measure.min_negatives >= 1
            from_lightest = raw_bound * min_weight(positives, negatives, alpha, beta, needs_both)
            estimate = np.where(raw_bound >= 0, from_largest, from_lightest)
            if alpha > 0:
                estimate = np.minimum(estimate, np.maximum(size_aware, 0.0) if beta > 0 else size_aware)
            estimate = np.where(defined, estimate, -np.inf)
        return raw_bound, largest_weight, estimate

    def __repr__(self):
        return (
            f"{type(self).__name__}(measure={self.measure!r}, label_column="
            f"{self.label_column!r}, positive_label={self.positive_label!r}, "
            f"size_weight={self.size_weight}, balance_weight={self.balance_weight}, "
            f"mode={self.mode!r})"
        )


class ROCAUCQF(SoftClassifierQF):
    """Relative ROC AUC quality function, a drop-in for ``pysubgroup.ROCAUCQF``.

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    subgroup_class_balance_weight : float, default=0
        Exponent beta of the class balance.
    subgroup_size_weight : float, default=0
        Exponent alpha of the cover size.
    positive_label_value : object, default=1
        Label of the positive class (keyword only; pysubgroup has none).
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for.

    Examples
    --------
    >>> import pysubgroup as ps, subroc_ext
    >>> qf = subroc_ext.ROCAUCQF("label", 1, 1)  # the full SubROC weighting
    >>> target = subroc_ext.SoftClassifierTarget("label", "score")
    """

    def __init__(
        self,
        label_column,
        subgroup_class_balance_weight=0,
        subgroup_size_weight=0,
        *,
        positive_label_value=1,
        mode="worse",
    ):
        super().__init__(
            _measures.ROCAUC(),
            label_column,
            positive_label=positive_label_value,
            size_weight=subgroup_size_weight,
            balance_weight=subgroup_class_balance_weight,
            mode=mode,
        )


class _PositiveLabelQF(SoftClassifierQF):
    """Shared constructor of the quality functions with pysubgroup's
    ``(label_column, positive_label_value, balance_weight, size_weight)`` signature."""

    def __init__(
        self,
        label_column,
        positive_label_value,
        subgroup_class_balance_weight=0,
        subgroup_size_weight=0,
        *,
        mode="worse",
    ):
        super().__init__(
            self._make_measure(),
            label_column,
            positive_label=positive_label_value,
            size_weight=subgroup_size_weight,
            balance_weight=subgroup_class_balance_weight,
            mode=mode,
        )


class PRAUCQF(_PositiveLabelQF):
    """Relative PR AUC quality function, a drop-in for ``pysubgroup.PRAUCQF``.

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    positive_label_value : object
        Label of the positive class.
    subgroup_class_balance_weight : float, default=0
        Exponent beta of the class balance.
    subgroup_size_weight : float, default=0
        Exponent alpha of the cover size.
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for.
    """

    _make_measure = staticmethod(_measures.PRAUC)


class ARLQF(_PositiveLabelQF):
    """Relative average ranking loss quality function, a drop-in for ``pysubgroup.ARLQF``.

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    positive_label_value : object
        Label of the positive class.
    subgroup_class_balance_weight : float, default=0
        Exponent beta of the class balance.
    subgroup_size_weight : float, default=0
        Exponent alpha of the cover size.
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for.
    """

    _make_measure = staticmethod(_measures.AverageRankingLoss)


class AttributionMeanQF(_PositiveLabelQF):
    """Relative mean ROC AUC example attribution (computed on the whole data).

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    positive_label_value : object
        Label of the positive class.
    subgroup_class_balance_weight : float, default=0
        Exponent beta of the class balance.
    subgroup_size_weight : float, default=0
        Exponent alpha of the cover size.
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for.
    """

    _make_measure = staticmethod(_measures.attribution_mean)
