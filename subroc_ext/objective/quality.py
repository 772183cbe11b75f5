"""pysubgroup quality functions for binary soft classifiers.

:class:`SoftClassifierQF` turns any :class:`~subroc_ext.scoring.measures.Measure`
into a pysubgroup quality function with

* a direction: ``mode="worse"`` (default; the model performs worse in the
  subgroup than on the whole data), ``"better"`` or ``"both"``;
* the SubROC weight ``w(S) = |S|^size_weight * class_balance^balance_weight``;
* an optimistic estimate valid for every non-negative pair of weights.

:class:`ROCAUCQF`, :class:`PRAUCQF`, :class:`ARLQF` and
:class:`AttributionMeanQF` are drop-in replacements of pysubgroup 0.9.0's
classes of the same name (same positional and keyword arguments, same
qualities) that sort the data once per search and evaluate each candidate
in one compiled call on its bitset cover (about 6 µs on Adult's 12,211 rows).

The arithmetic from a cover's class counts and measure to its statistics is
one compiled function, :func:`subroc_ext.objective.statistics.statistics_kernel`: run on
one subgroup by :meth:`SoftClassifierQF.calculate_statistics` (pysubgroup's
algorithms) and on each of a batch by :meth:`SoftClassifierQF.statistics_of_counts`
(:class:`~subroc_ext.FastSearch`), so both give the same floats to the last bit.

Use them with ``subroc_ext.SoftClassifierTarget(label, score)``.
"""

import warnings

import numpy as np

from ..inputs.sorted_data import SortedDataset
from ..scoring import bitset, bounds, cover_kernels, joint_bounds
from ..scoring import measures as _measures
from ..scoring.compiled_measures import compiled_kind, compiled_row_values
from ..utils.deprecation import REMOVED_IN, renamed_keywords
from ..utils.validation import check_mode, check_weights, probability_scores, shown
from .statistics import (
    Columns,
    StatisticsQualityFunction,
    SubgroupStatistics,
    cover_statistics,
    joint_estimate,
    relative_quality,
    statistics_kernel,
    statistics_of_arrays,
)

__all__ = [
    "SoftClassifierQF",
    "ROCAUCQF",
    "PositiveLabelQF",
    "PRAUCQF",
    "ARLQF",
    "AttributionMeanQF",
]


class SoftClassifierQF(StatisticsQualityFunction):
    """Quality function measuring exceptional classifier performance in a subgroup.

    ``quality(S) = w(S) * q(S)`` where ``q`` compares the measure on the
    subgroup ``m(S)`` to that on the whole data ``m(D)``: for ``mode="worse"``
    ``q = m(D) - m(S)`` for scores and ``m(S) - m(D)`` for losses,
    ``"better"`` negates it and ``"both"`` takes its absolute value. Where the
    measure is undefined the quality is ``-inf``.

    Parameters
    ----------
    measure : subroc_ext.scoring.measures.Measure
        The performance measure (never changed: the quality function
        evaluates the measure returned by its ``prepare``).
    label : str
        Column of the true labels (``label_column`` is a deprecated alias).
    positive_label : object, default=1
        Label value of the positive class (honoured by measure and bound).
    size_weight : float, default=0
        Exponent alpha of the cover size in the weight.
    balance_weight : float, default=0
        Exponent beta of the class balance in the weight.
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for (or one of the measure's
        ``mode_aliases``, such as the calibration gap's 'under' and 'over',
        stored as the mode it names).

    Attributes
    ----------
    optimistic_estimates : bool, default=True
        Compute the optimistic estimate with the statistics. Set it to False
        to time a search without pruning: the measure's extremes and
        size-aware bound are then never computed, and ``raw_bound``,
        ``max_weight`` and ``optimistic_estimate`` are ``inf`` (nothing is
        pruned); every other statistic is unchanged.
    min_support : int, default=1
        The fewest rows of a subgroup the search reports. ROC AUC's estimate
        bounds only subsets of at least this size (:mod:`subroc_ext.scoring.joint_bounds`),
        so set it to the ``ps.MinSupportConstraint`` of a pysubgroup search
        (never larger; :class:`~subroc_ext.FastSearch` reads the constraint itself).
    dataset_value : float
        The measure on the whole data (None before
        :meth:`calculate_constant_statistics`).
    prepared_measure : Measure
        The measure prepared on the data (None before).

    Notes
    -----
    The score column comes from the target,
    ``subroc_ext.SoftClassifierTarget(label, score)``. The data is
    sorted by score once in :meth:`calculate_constant_statistics` (and again
    whenever a different DataFrame, or one with a different number of rows,
    is passed), so any index works.

    The prepared data is cached by DataFrame identity. After changing values
    of ``data`` in place (``data.loc[i, "score"] = ...``), call
    :meth:`calculate_constant_statistics` again, as every pysubgroup search
    does when it starts, or pass a copy: a direct :meth:`evaluate` would use
    the data as it was. (Checking every value on each call would cost as
    much as the evaluation itself.)

    References
    ----------
    .. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
       "SubROC: AUC-based discovery of exceptional subgroup performance for binary
       classifiers", 2025 (relative measures, the weight, optimistic estimates).

    Examples
    --------
    >>> import pandas as pd, pysubgroup as ps, subroc_ext
    >>> from subroc_ext.scoring.measures import ROCAUC
    >>> data = pd.DataFrame({"label": [0, 1, 0, 1], "score": [0.1, 0.35, 0.4, 0.8],
    ...                      "group": ["a", "a", "a", "b"]})
    >>> qf = SoftClassifierQF(ROCAUC(), "label")
    >>> target = subroc_ext.SoftClassifierTarget("label", "score")
    >>> qf.calculate_constant_statistics(data, target)
    >>> qf.dataset_value
    0.75
    >>> stats = qf.calculate_statistics(ps.EqualitySelector("group", "a"), target, data)
    >>> stats.measure, stats.quality
    (0.5, 0.25)
    """

    optimistic_estimates = True
    min_support = 1

    @renamed_keywords(label_column="label")
    def __init__(
        self,
        measure,
        label,
        *,
        positive_label=1,
        size_weight=0.0,
        balance_weight=0.0,
        mode="worse",
    ):
        self.measure = _measures.check_measure_type(measure)
        self.label = label
        self.positive_label = positive_label
        self.size_weight, self.balance_weight = check_weights(size_weight, balance_weight)
        self.mode = check_mode(mode, self.measure.mode_aliases)
        self.dataset_value = None
        self.prepared_measure = None
        self._dataset = None
        self._kernel_data = None
        self._bound = None
        self._prepared_on = None  # the bound dataset and the measure the constant statistics are of

    @property
    def label_column(self):
        """Deprecated alias of :attr:`label` (removed in subroc-ext 0.3)."""
        warnings.warn(
            f"SoftClassifierQF.label_column is deprecated and will be removed in subroc-ext "
            f"{REMOVED_IN}; use SoftClassifierQF.label",
            FutureWarning,
            stacklevel=2,
        )
        return self.label

    # -- preparation ---------------------------------------------------------

    def calculate_constant_statistics(self, data, target):
        """Sort ``data`` by score, validate it, and compute the measure on it."""
        target_label = getattr(target, "label_column", self.label)
        if target_label != self.label:
            raise ValueError(
                f"the target's label column {target_label!r} differs from the quality "
                f"function's label column {self.label!r}"
            )
        dataset = self._bound
        if not (
            dataset is not None
            and dataset.data is data
            and dataset.columns == (self.label, target.prediction_column)
        ):
            dataset = SortedDataset(data, self.label, target.prediction_column, self.positive_label)
        elif self._prepared_on is not None and self._prepared_on[0] is dataset and \
                self._prepared_on[1] is self.measure:  # the bound rows, unchanged by contract: done
            return
        if self.measure.reads_probabilities:
            probability_scores(dataset.scores, target.prediction_column, self.measure.name)
        whole = dataset.cover()
        if not self.measure.dataset_is_defined(whole.positives, whole.negatives):
            raise ValueError(
                f"{self.measure.name} is undefined on this data: label column "
                f"{self.label!r} has {whole.positives} positive(s) (label "
                f"{shown(self.positive_label)}) and {whole.negatives} negative(s)"
            )
        prepared = self.measure.prepare(whole)
        if prepared is None:  # a measure written for 0.1, which prepared itself in place
            warnings.warn(
                f"{type(self.measure).__name__}.prepare() returned None; since subroc-ext 0.2 "
                f"it returns the prepared measure (preparing in place stops working in "
                f"{REMOVED_IN})",
                FutureWarning,
                stacklevel=2,
            )
            prepared = self.measure
        self.prepared_measure = prepared
        self.dataset_value = prepared.value(whole)
        self._dataset = dataset
        self._kernel_data = self._compiled_kernel_data(prepared, dataset)
        self._prepared_on = (dataset, self.measure) if dataset is self._bound else None

    @staticmethod
    def _compiled_kernel_data(prepared, dataset):
        """What :func:`cover_statistics` needs of the data for a measure with
        compiled kernels (:func:`subroc_ext.scoring.compiled_measures.compiled_kind`), else None."""
        kind = compiled_kind(prepared)
        if kind is None:
            return None
        row_values = compiled_row_values(prepared)
        value_order = ascending_values = None  # the size-aware bound of a row mean's: not compiled
        if kind == cover_kernels.ROW_MEAN:
            value_order = np.ascontiguousarray(prepared.value_order, dtype=np.int64)
            ascending_values = np.ascontiguousarray(prepared.ascending_values, dtype=float)
        return (
            bitset.pack(dataset.is_positive), bitset.pack(~dataset.is_positive),
            *cover_kernels.tie_group_bounds(dataset.group_ids), kind, row_values, value_order,
            ascending_values, prepared.min_positives, prepared.min_negatives,
        )  # fmt: skip

    def use_dataset(self, dataset):
        """Prepare on a :class:`~subroc_ext.inputs.sorted_data.SortedDataset` sorted already.

        Later ``calculate_constant_statistics(dataset.data, target)`` calls
        (every search and test makes one) reuse it and the statistics
        computed on it (while the measure is the same object) instead of
        checking and sorting the frame again; so do not change that frame in
        place afterwards. Returns ``self``.
        """
        if dataset.positive_label != self.positive_label or dataset.columns[0] != self.label:
            raise ValueError(
                f"the dataset's label column {dataset.columns[0]!r} and positive label "
                f"{shown(dataset.positive_label)} differ from the quality function's "
                f"({self.label!r}, {shown(self.positive_label)})"
            )
        self._bound = dataset
        self.calculate_constant_statistics(dataset.data, Columns(*dataset.columns))
        return self

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
            or dataset.columns != (self.label, target.prediction_column)
        ):
            self.calculate_constant_statistics(data, target)
        return self._dataset

    # -- pysubgroup protocol -------------------------------------------------

    def calculate_statistics(self, subgroup, target, data, statistics=None, *, joint=True):
        """Statistics of ``subgroup`` on ``data``: size, class counts, quality
        and optimistic estimate (see :class:`SubgroupStatistics`).

        For the built-in measures one compiled call on the subgroup's bitset
        cover (the search engine's kernels and :func:`statistics_kernel`);
        for any other measure its own methods on the cover
        (:meth:`statistics_of_cover`). Both give the numbers of
        :meth:`statistics_of_counts` to the last bit. ``joint=False`` skips
        the joint ROC AUC bound (the estimate is then that of
        :func:`statistics_kernel` alone): :class:`~subroc_ext.GeneralizationAwareQF`
        computes its own, with its offset.
        """
        dataset = self._prepared(data, target)
        if self._kernel_data is None:
            return self.statistics_of_cover(dataset.cover(dataset.mask_of(subgroup)))
        p, n, *fields = cover_statistics(
            dataset.words_of(subgroup), *self._kernel_data, *self._settings(), int(self.min_support), joint
        )
        return SubgroupStatistics(p + n, p, n, *fields)

    # -- the quality and its bound ------------------------------------------

    def signs(self):
        """Signs ``s`` such that ``q = max over s of s * (m(S) - m(D))``
        (:func:`subroc_ext.scoring.bounds.signs` of the measure's kind and the mode)."""
        return bounds.signs(self.measure.kind, self.mode)

    def raw_quality(self, value, positives=None, negatives=None):
        """Unweighted relative quality ``q`` of a measure value (vectorized;
        :func:`relative_quality`): against the whole data's value, or, given
        the class counts of the subset, against the measure's
        :meth:`~subroc_ext.scoring.measures.Measure.reference` for them (the
        ARL's: its mean over random subsets of those counts, the
        randomization test's own null)."""
        directions = self.signs()
        reference = self.dataset_value
        if positives is not None:
            whole = self._dataset.cover()
            reference = self.prepared_measure.reference(self.dataset_value, positives, negatives, whole.positives,
                                                        whole.negatives)  # fmt: skip
        return relative_quality(value, reference, -1 in directions, 1 in directions)

    def _settings(self):
        """The quality function's arguments of :func:`statistics_kernel`, read
        at each call (:func:`subroc_ext.engine.counting.without_estimates` switches
        the estimates off on a copy)."""
        directions = self.signs()
        measure = self.measure
        return (
            float(self.dataset_value), -1 in directions, 1 in directions, float(self.size_weight),
            float(self.balance_weight), measure.min_positives >= 1 and measure.min_negatives >= 1,
            bool(self.optimistic_estimates),
        )  # fmt: skip

    def statistics_of_cover(self, cover):
        """:class:`SubgroupStatistics` of a :class:`~subroc_ext.scoring.measures.Cover`,
        from the measure's own methods (:meth:`~subroc_ext.scoring.measures.Measure.value`,
        :meth:`~subroc_ext.scoring.measures.Measure.extremes`, the size-aware bound)."""
        measure = self.prepared_measure
        positives, negatives = cover.positives, cover.negatives
        value = lowest = highest = np.nan
        size_aware = np.inf
        defined = bool(measure.is_defined(positives, negatives))
        if defined:
            value = measure.value(cover)
            if self.optimistic_estimates:
                lowest, highest = measure.extremes(cover)
                if self.size_weight > 0:
                    size_aware = bounds.size_aware_bound(
                        measure, cover, self.dataset_value, self.signs(), self.size_weight
                    )
        fields = statistics_kernel(
            positives, negatives, defined, float(value), float(lowest), float(highest),
            float(size_aware), *self._settings(),
        )  # fmt: skip
        if defined:
            joint = self.joint_bound_of_cover(cover, 0.0)
            fields = fields[:6] + (joint_estimate(fields[3], fields[6], joint),)
        return SubgroupStatistics(positives + negatives, positives, negatives, *fields)

    def joint_bound(self, subgroup, target, data, offset, stop_at=np.inf):
        """:meth:`joint_bound_of_cover` of ``subgroup``'s cover on ``data``, compiled
        on its bitset (what :class:`~subroc_ext.GeneralizationAwareQF` asks with
        ``offset = max(q, g)``); it may stop early at any value ``>= stop_at``."""
        dataset = self._prepared(data, target)
        if not self.optimistic_estimates or compiled_kind(self.prepared_measure) != cover_kernels.ROC_AUC:
            return np.inf
        words = dataset.words_of(subgroup)
        positive_words, negative_words, group_start, group_end = self._kernel_data[:4]
        directions, out = self.signs(), np.empty(1)
        joint_bounds.roc_auc_joint_children(
            words, words.reshape(1, -1), np.zeros(1, dtype=np.int64), positive_words, negative_words,
            group_start, group_end, float(self.dataset_value), np.full(1, float(offset)),
            -1 in directions, 1 in directions, float(self.size_weight), float(self.balance_weight),
            int(self.min_support), -np.inf, np.full(1, float(stop_at)), out,
        )  # fmt: skip
        return float(out[0])

    def joint_bound_of_cover(self, cover, offset):
        """Upper bound of ``w(T) * (q(T) - offset)`` over the subsets ``T`` of
        ``cover`` with at least :attr:`min_support` rows where the measure is
        defined (:mod:`subroc_ext.scoring.joint_bounds`; ROC AUC only, ``inf`` for
        other measures or without :attr:`optimistic_estimates`)."""
        if not self.optimistic_estimates or compiled_kind(self.prepared_measure) != cover_kernels.ROC_AUC:
            return np.inf
        return joint_bounds.roc_auc_joint_bound_of_cover(
            cover, self.dataset_value, offset, self.signs(), self.size_weight, self.balance_weight,
            int(self.min_support),
        )  # fmt: skip

    def statistics_of_counts(self, positives, negatives, value, lowest, highest, size_aware, joint=None):
        """:class:`SubgroupStatistics` of many covers at once, each field an array.

        Parameters
        ----------
        positives, negatives : numpy.ndarray of int
            Class counts of each cover.
        value, lowest, highest : numpy.ndarray of float
            The measure on each cover and its lowest and highest value over the
            cover's defined subsets (anything where the measure is undefined).
        size_aware : numpy.ndarray of float
            :func:`subroc_ext.scoring.bounds.size_aware_bound` of each cover (``inf``
            where unknown; only read when ``size_weight > 0``).
        joint : numpy.ndarray of float, optional
            :meth:`joint_bound_of_cover` of each cover with offset 0, which
            tightens the estimate (:func:`joint_estimate`), as
            :meth:`calculate_statistics` does for ROC AUC.

        Returns
        -------
        SubgroupStatistics
            With array fields: :func:`statistics_kernel` of each cover, the
            arithmetic the quality function runs on one subgroup, so the
            search engine and :meth:`calculate_statistics` agree to the last
            bit. The bounds come from :func:`subroc_ext.scoring.bounds.bound_from_extremes`
            and :func:`subroc_ext.scoring.bounds.weighted_bound`.
        """
        positives = np.asarray(positives, dtype=np.int64)
        negatives = np.asarray(negatives, dtype=np.int64)
        defined = np.asarray(self.measure.is_defined(positives, negatives), dtype=bool)
        out = np.empty((7, len(positives)))
        as_float = [np.asarray(array, dtype=float) for array in (value, lowest, highest, size_aware)]
        statistics_of_arrays(positives, negatives, defined, *as_float, *self._settings(), out)
        if joint is not None:
            out[6] = np.minimum(out[6], np.maximum(joint, out[3]))  # joint_estimate, element-wise
        return SubgroupStatistics(positives + negatives, positives, negatives, *out)

    def __repr__(self):
        return (
            f"{type(self).__name__}(measure={self.measure!r}, label="
            f"{self.label!r}, positive_label={self.positive_label!r}, "
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


class PositiveLabelQF(SoftClassifierQF):
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


class PRAUCQF(PositiveLabelQF):
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


class ARLQF(PositiveLabelQF):
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


class AttributionMeanQF(PositiveLabelQF):
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
