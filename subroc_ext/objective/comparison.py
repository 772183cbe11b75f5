"""Quality functions comparing two rankings: where did it get worse?

:class:`ComparisonQF` scores a subgroup by how much worse (or better) a
ranking does in it than another, relative to the whole data, in two settings:

* **paired** (:class:`ComparisonTarget`): a new model and a baseline model
  scored the same rows. ``A`` is the baseline, ``B`` the new model, and both
  measures are computed on the pattern's one cover.
* **unpaired** (:class:`DriftTarget`): one model scored a reference period and
  a current period (one frame, a column telling the periods apart). ``A`` is
  the reference, ``B`` the current period, and a pattern covers rows in both.

With ``d_X(S) = m(S ∩ X) - m(X)`` the change of the measure ``m`` in the
subgroup relative to the whole of ``X``, the raw quality is

    q(S) = s * (d_B(S) - d_A(S))

with the sign ``s`` of :func:`subroc_ext.scoring.bounds.signs` (``mode="worse"``:
``s = -1`` for scores, ``+1`` for losses, so ``q`` is large where ``B`` falls
behind ``A``; ``"better"`` flips it; ``"both"`` takes ``|d_B - d_A|``). For a
score-type measure and ``mode="worse"`` that is SPEC's
``Δ(S) = [m_A(S) - m_B(S)] - [m_A(D) - m_B(D)]``. Where the measure is
undefined on either cover the quality is ``-inf``.

Weights, as in the single-model quality ``w * q``, come from the rows the
pattern covers in the data searched: the one cover (paired), or both covers
together (unpaired: ``w = (n_A + n_B)^alpha * cb(P_A + P_B, N_A + N_B)^beta``,
so a pattern weighs what it would weigh in a search of both periods pooled;
it does not favour either period, and a tiny cover in one period is kept out
by the minimum support, which applies to each period: ``size_sg`` is the
smaller of the two cover sizes, so ``ps.MinSupportConstraint`` demands it of
both). Generalization awareness wraps the function in
:class:`~subroc_ext.GeneralizationAwareQF` exactly as for one model.

Optimistic estimate. For every subset ``T`` of a pattern's cover on which
both measures are defined (paired), and for every pair of subsets
``T_A ⊆ S ∩ A``, ``T_B ⊆ S ∩ B`` (unpaired, a superset of what
specializations can reach), ``s * (d_B(T) - d_A(T))`` is at most
``max over T of s * d_B(T) + max over T of -s * d_A(T)``, each from that
side's extremes over subsets (:meth:`Measure.extremes`,
:func:`subroc_ext.scoring.bounds.raw_bound`). This is SPEC's bound, valid for every
measure, mode and weight. The two extremes need not come from one subset,
but for ROC AUC (``mode='worse'``, no weights) they do whenever the cover
holds a positive scored above a negative by A and below it by B: that pair
alone reaches it, so no tighter raw bound exists there. Weights follow the
rules of :func:`subroc_ext.scoring.bounds.optimistic_estimate` (the weight counts of
every subset are at most the cover's). ``tests/test_comparison.py`` proves it by
enumerating every subset (pair of subsets) of small covers, ties included.

References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (relative measures, weights, optimistic estimates).
"""

import numpy as np
import pysubgroup as ps

from ..inputs.sorted_data import SortedDataset
from ..scoring import bounds
from ..scoring import measures as _measures
from ..scoring.null_sampling import null_values, paired_null_values
from ..utils.validation import check_columns, check_mode, check_weights, shown
from .comparison_statistics import (
    ComparisonGeneralizationAwareStatistics,
    ComparisonStatistics,
    comparison_statistics_of_arrays,
)
from .statistics import StatisticsQualityFunction

__all__ = ["ComparisonTarget", "DriftTarget", "ComparisonQF"]


class ComparisonTarget:
    """Label, new-model score and baseline score columns: two models on the same rows.

    Parameters
    ----------
    label_column : str
        Column of the true labels.
    prediction_column : str
        The new model's scores (higher = more likely positive).
    baseline_column : str
        The baseline (old) model's scores.

    Examples
    --------
    >>> ComparisonTarget("y", "new", "old")
    ComparisonTarget('y', 'new', baseline='old')
    """

    statistic_types = ()

    def __init__(self, label_column, prediction_column, baseline_column):
        self.label_column = label_column
        self.prediction_column = prediction_column
        self.baseline_column = baseline_column

    def get_attributes(self):
        """The target's columns (pysubgroup excludes them from selectors)."""
        return (self.label_column, self.prediction_column, self.baseline_column)

    def get_target_columns(self, data):
        """The target's columns of ``data``."""
        return data.loc[:, list(self.get_attributes())]

    def calculate_statistics(self, subgroup, data, statistics=None):
        """For pysubgroup compatibility: statistics come from the quality function."""
        return {} if statistics is None else statistics

    def __repr__(self):
        return (
            f"ComparisonTarget({self.label_column!r}, {self.prediction_column!r}, "
            f"baseline={self.baseline_column!r})"
        )


class DriftTarget(ComparisonTarget):
    """Label, score and period columns: one model in a reference and a current period.

    Parameters
    ----------
    label_column, prediction_column : str
        Label and score columns (the same in both periods).
    period_column : str
        Column telling the periods apart.
    current : object, default='current'
        The value of ``period_column`` on the current period's rows; every
        other row belongs to the reference period.

    Examples
    --------
    >>> DriftTarget("y", "p", "period")
    DriftTarget('y', 'p', period='period', current='current')
    """

    def __init__(self, label_column, prediction_column, period_column, current="current"):
        super().__init__(label_column, prediction_column, period_column)
        self.period_column = period_column
        self.current = current

    def __repr__(self):
        return (
            f"DriftTarget({self.label_column!r}, {self.prediction_column!r}, "
            f"period={self.period_column!r}, current={self.current!r})"
        )


# -- the rows of both sides ---------------------------------------------------


class _Sides:
    """Both sides of a comparison, each a :class:`SortedDataset`, and a
    common row order (the *canonical* order: covers are masks over it).

    Attributes
    ----------
    datasets : (SortedDataset, SortedDataset)
        Side A (baseline / reference) and side B (new model / current).
    indices : (numpy.ndarray, numpy.ndarray)
        For each side, the canonical position of each of its sorted rows, so
        that ``mask[indices[k]]`` is a canonical mask on side ``k``'s rows.
    positions : numpy.ndarray of int
        The data's row position of each canonical row.
    names : (str, str)
        Names of the sides in messages and tables.
    paired : bool
    """

    def __init__(self, data, datasets, indices, positions, names, paired):
        self.data = data
        self.datasets = datasets
        self.indices = indices
        self.positions = positions
        self.names = names
        self.paired = paired
        self._masks = {}

    def __len__(self):
        return len(self.positions)

    def __getstate__(self):
        """Pickled without the selector cache (its keys do not always pickle)."""
        return {**self.__dict__, "_masks": {}}

    @classmethod
    def paired_sides(cls, data, target, positive_label):
        """The baseline's and the new model's scores of the same rows; the
        canonical order is the new model's score order."""
        label = target.label_column
        new = SortedDataset(data, label, target.prediction_column, positive_label)
        baseline = SortedDataset(data, label, target.baseline_column, positive_label)
        rank = np.empty(len(new), dtype=np.int64)
        rank[new.order] = np.arange(len(new))
        indices = (rank[baseline.order], np.arange(len(new)))
        return cls(data, (baseline, new), indices, new.order, ("baseline", "new"), True)

    @classmethod
    def period_sides(cls, data, target, positive_label):
        """The reference and the current period's rows; the canonical order
        is the reference's score order followed by the current's."""
        check_columns(data, [target.period_column])
        is_current = (data[target.period_column] == target.current).to_numpy(dtype=bool)
        positions = (np.flatnonzero(~is_current), np.flatnonzero(is_current))
        names = ("reference", "current")
        for rows, name in zip(positions, names):
            if not len(rows):
                raise ValueError(
                    f"the {name} period has no rows: period column {target.period_column!r} "
                    f"{'never' if name == 'current' else 'always'} equals {shown(target.current)}"
                )
        datasets = tuple(
            SortedDataset(data.iloc[rows], target.label_column, target.prediction_column, positive_label)
            for rows in positions
        )
        n_reference = len(positions[0])
        indices = (np.arange(n_reference), np.arange(n_reference, len(data)))
        canonical = np.concatenate([rows[d.order] for rows, d in zip(positions, datasets)])
        return cls(data, datasets, indices, canonical, names, False)

    def selector_mask(self, selector):
        """Canonical cover of one selector (cached)."""
        mask = self._masks.get(selector)
        if mask is None:
            if self.paired:
                mask = self.datasets[1].selector_mask(selector)
            else:
                mask = np.concatenate([d.selector_mask(selector) for d in self.datasets])
            self._masks[selector] = mask
        return mask

    def mask_of(self, subgroup):
        """Canonical cover of ``subgroup``: what pysubgroup passes (a
        ``Conjunction``, a ``BitSet_Conjunction``, ``slice(None)``), a boolean
        mask or integer positions in the data's row order, or any object with
        ``covers(data)``."""
        representation = getattr(subgroup, "representation", None)
        if isinstance(subgroup, ps.Conjunction) and (
            representation is None or isinstance(representation, set)
        ):
            mask = np.ones(len(self), dtype=bool)
            for selector in subgroup.selectors:
                mask &= self.selector_mask(selector)
            return mask
        if isinstance(subgroup, slice):
            subgroup = np.arange(len(self))[subgroup]
        elif representation is not None:
            subgroup = np.asarray(subgroup)
        elif not isinstance(subgroup, np.ndarray):
            subgroup = np.asarray(subgroup.covers(self.data), dtype=bool)
        if subgroup.dtype != bool:
            rows = subgroup
            subgroup = np.zeros(len(self), dtype=bool)
            subgroup[rows] = True
        return subgroup[self.positions]

    def covers(self, mask):
        """The :class:`~subroc_ext.scoring.measures.Cover` of a canonical mask on each side."""
        return tuple(d.cover(mask[index]) for d, index in zip(self.datasets, self.indices))


# -- statistics ---------------------------------------------------------------


# -- the quality function -----------------------------------------------------


class ComparisonQF(StatisticsQualityFunction):
    """Quality function of subgroups where one ranking falls behind another.

    Paired with a :class:`ComparisonTarget` (new model vs baseline on the
    same rows), unpaired with a :class:`DriftTarget` (current vs reference
    period); see the module documentation for the quality and its bound.

    Parameters
    ----------
    measure : subroc_ext.scoring.measures.Measure
        Any measure (built-in or user-defined); prepared on each side's whole
        data (e.g. the attributions of each model, or of each period).
    label : str
        Label column.
    positive_label : object, default=1
    size_weight, balance_weight : float, default=0
        Weight exponents alpha and beta.
    mode : {'worse', 'better', 'both'}, default='worse'
        ``'worse'``: the new model (current period) falls behind.
    baseline_measure : Measure, optional
        A different measure of the same kind on side A (by default
        ``measure``): :class:`~subroc_ext.objective.case_mix.CaseMixQF` puts the
        expected ROC AUC there. The quality is defined where both are.

    Attributes
    ----------
    optimistic_estimates : bool, default=True
        As for :class:`~subroc_ext.SoftClassifierQF`: False computes no bound.
    dataset_values : (float, float)
        The measure on the whole of side A and side B (None before
        :meth:`calculate_constant_statistics`).
    dataset_value : float
        ``m_B(D) - m_A(D)`` (None before).
    sides : object
        Both sides' data, sorted by score once (None before).

    Examples
    --------
    The new model ranks group ``b`` at random, the baseline does not:

    >>> import pandas as pd, pysubgroup as ps
    >>> from subroc_ext.scoring.measures import ROCAUC
    >>> data = pd.DataFrame({"g": list("aaaabbbb"), "y": [0, 1] * 4,
    ...                      "old": [.1, .9, .2, .8, .1, .9, .2, .8],
    ...                      "new": [.1, .9, .2, .8, .6, .3, .7, .4]})
    >>> qf = ComparisonQF(ROCAUC(), "y")
    >>> target = ComparisonTarget("y", "new", "old")
    >>> qf.calculate_constant_statistics(data, target)
    >>> qf.dataset_values
    (1.0, 0.75)
    >>> stats = qf.calculate_statistics(ps.Conjunction([ps.EqualitySelector("g", "b")]), target, data)
    >>> stats.baseline_measure, stats.measure, stats.quality
    (1.0, 0.0, 0.75)
    """

    optimistic_estimates = True

    def __init__(self, measure, label, *, positive_label=1, size_weight=0.0, balance_weight=0.0,
                 mode="worse", baseline_measure=None):  # fmt: skip
        self.measure = _measures.check_measure_type(measure)
        self.baseline_measure = measure if baseline_measure is None else _measures.check_measure_type(
            baseline_measure
        )
        if self.baseline_measure.kind != measure.kind:
            raise ValueError(
                f"baseline_measure must be of measure's kind ({measure.kind!r}), got "
                f"{self.baseline_measure.kind!r}"
            )
        self.label = label
        self.positive_label = positive_label
        self.size_weight, self.balance_weight = check_weights(size_weight, balance_weight)
        self.mode = check_mode(mode)
        self.dataset_values = None
        self.dataset_value = None
        self.prepared_measures = None
        self.sides = None
        self._data = None
        self._target = None

    # -- preparation ---------------------------------------------------------

    def calculate_constant_statistics(self, data, target):
        """Sort both sides of ``data`` by score, validate them, and compute the
        measure on each side's whole data."""
        if not isinstance(target, ComparisonTarget):
            raise TypeError(
                f"ComparisonQF needs a ComparisonTarget or a DriftTarget, got {target!r}"
            )
        if target.label_column != self.label:
            raise ValueError(
                f"the target's label column {target.label_column!r} differs from the quality "
                f"function's label column {self.label!r}"
            )
        if isinstance(target, DriftTarget):
            sides = _Sides.period_sides(data, target, self.positive_label)
        else:
            sides = _Sides.paired_sides(data, target, self.positive_label)
        prepared, values = [], []
        wholes = sides.covers(np.ones(len(sides), dtype=bool))
        for cover, name, measure in zip(wholes, sides.names, self.measures):
            if not measure.dataset_is_defined(cover.positives, cover.negatives):
                raise ValueError(
                    f"{measure.name} is undefined on the {name} data: label column "
                    f"{self.label!r} has {cover.positives} positive(s) (label "
                    f"{shown(self.positive_label)}) and {cover.negatives} negative(s) there"
                )
            measure = measure.prepare(cover)
            prepared.append(measure)
            values.append(float(measure.value(cover)))
        self.prepared_measures = tuple(prepared)
        self.dataset_values = tuple(values)
        self.dataset_value = values[1] - values[0]
        self.sides = sides
        self._data = data
        self._target = target

    def _prepared(self, data, target):
        if self._data is not data or self._target is not target:
            self.calculate_constant_statistics(data, target)

    @property
    def measures(self):
        """The measures of side A and side B (the same one unless ``baseline_measure``)."""
        return self.baseline_measure, self.measure

    @property
    def needs_both_classes(self):
        """Whether every defined cover holds both classes (either measure needs them)."""
        return any(m.min_positives >= 1 and m.min_negatives >= 1 for m in self.measures)

    def defined(self, side_a, side_b):
        """Whether both measures are defined on covers with these class counts
        (``(positives, negatives)`` of each side; vectorized)."""
        return np.asarray(self.baseline_measure.is_defined(*side_a), dtype=bool) & np.asarray(
            self.measure.is_defined(*side_b), dtype=bool
        )

    @property
    def paired(self):
        """Whether the last data prepared was paired (None before)."""
        return None if self.sides is None else self.sides.paired

    def selector_mask(self, selector):
        """Canonical cover of one selector (what :class:`~subroc_ext.FastSearch` packs)."""
        return self.sides.selector_mask(selector)

    # -- pysubgroup protocol -------------------------------------------------

    def calculate_statistics(self, subgroup, target, data, statistics=None):
        """:class:`ComparisonStatistics` of ``subgroup`` on ``data``."""
        self._prepared(data, target)
        return self.statistics_of_mask(self.sides.mask_of(subgroup))

    # -- the quality and its bound ------------------------------------------

    def signs(self):
        """:func:`subroc_ext.scoring.bounds.signs` of the measure's kind and the mode
        (``q = max over s of s * (d_B - d_A)``)."""
        return bounds.signs(self.measure.kind, self.mode)

    def raw_quality(self, baseline_value, value):
        """``q`` of side A's and side B's measure values (vectorized)."""
        reference_a, reference_b = self.dataset_values
        difference = np.subtract(value, reference_b) - np.subtract(baseline_value, reference_a)
        if self.mode == "both":
            return np.abs(difference)
        return -difference if self.signs() == (-1,) else difference

    def weight_counts(self, counts_a, counts_b):
        """Positives and negatives the weight counts: the one cover's (paired)
        or both covers' together (unpaired)."""
        if self.sides.paired:
            return counts_b
        return counts_a[0] + counts_b[0], counts_a[1] + counts_b[1]

    def statistics_of_mask(self, mask):
        """:class:`ComparisonStatistics` of a canonical mask."""
        measures = self.prepared_measures
        columns = []
        for measure, cover in zip(measures, self.sides.covers(mask)):
            value = lowest = highest = np.nan
            if measure.is_defined(cover.positives, cover.negatives):
                value = measure.value(cover)
                if self.optimistic_estimates:
                    lowest, highest = measure.extremes(cover)
            columns.append(
                [np.array([x]) for x in (cover.positives, cover.negatives, value, lowest, highest)]
            )
        stats = self.statistics_of_counts(*columns)
        counts = (int(stats[i][0]) for i in range(5))
        return ComparisonStatistics(*counts, *(float(field[0]) for field in stats[5:]))

    def statistics_of_counts(self, side_a, side_b):
        """:class:`ComparisonStatistics` of many covers at once, each field an array.

        Parameters
        ----------
        side_a, side_b : sequence of numpy.ndarray
            For each side: positives, negatives, the measure, and its lowest
            and highest value over the defined subsets of each cover (anything
            where the measure is undefined on it).

        Returns
        -------
        ComparisonStatistics
            With array fields; :meth:`statistics_of_mask` and
            :class:`~subroc_ext.FastSearch` both compute statistics here.
        """
        positives_a, negatives_a, *floats_a = side_a
        positives_b, negatives_b, *floats_b = side_b
        positives_a, negatives_a, positives_b, negatives_b = (
            np.asarray(counts, dtype=np.int64) for counts in (positives_a, negatives_a, positives_b, negatives_b)
        )
        defined = self.defined((positives_a, negatives_a), (positives_b, negatives_b))
        directions = self.signs()
        out = np.empty((8, len(positives_a)))
        comparison_statistics_of_arrays(
            positives_a, negatives_a, *(np.asarray(x, dtype=float) for x in floats_a),
            positives_b, negatives_b, *(np.asarray(x, dtype=float) for x in floats_b),
            defined, bool(self.sides.paired), *map(float, self.dataset_values),
            -1 in directions, 1 in directions, float(self.size_weight), float(self.balance_weight),
            self.needs_both_classes, bool(self.optimistic_estimates), out,
        )  # fmt: skip
        size = np.minimum(positives_a + negatives_a, positives_b + negatives_b)
        return ComparisonStatistics(size, positives_b, negatives_b, positives_a, negatives_a, *out)

    # -- hooks of GeneralizationAwareQF and randomization_test ---------------

    def generalization_aware_statistics(self, stats, generalization_quality, quality, estimate):
        """The statistics :class:`~subroc_ext.GeneralizationAwareQF` reports."""
        return ComparisonGeneralizationAwareStatistics(
            *stats[:8], generalization_quality, stats.weight, quality, estimate
        )

    def null_key(self, stats):
        """What the randomization test's null distribution depends on: the
        cover's size and negatives (paired), or both of each period (unpaired)."""
        size_b = stats.positives_count + stats.negatives_count
        if self.sides.paired:
            return (size_b, stats.negatives_count)
        size_a = stats.baseline_positives + stats.baseline_negatives
        return (size_a, stats.baseline_negatives, size_b, stats.negatives_count)

    def count_record(self, stats):
        """Class counts as table columns."""
        if self.sides.paired:
            return {"positives": stats.positives_count, "negatives": stats.negatives_count}
        return {
            "reference_positives": stats.baseline_positives,
            "reference_negatives": stats.baseline_negatives,
            "current_positives": stats.positives_count,
            "current_negatives": stats.negatives_count,
        }

    def null_raw_qualities(self, key, n_samples, rng, *, batch_elements=4_000_000):
        """Raw qualities ``q`` of random subsets with the class counts of ``key``
        (:meth:`null_key`).

        Paired: random subsets of the rows with the cover's size and negatives,
        each evaluated for both models
        (:func:`subroc_ext.scoring.null_sampling.paired_null_values`). Unpaired:
        independent random subsets of each period's rows with that period's
        size and negatives (:func:`subroc_ext.scoring.null_sampling.null_values`).

        Returns
        -------
        numpy.ndarray of float, shape (n_samples,)
        """
        measures = self.prepared_measures
        wholes = self.sides.covers(np.ones(len(self.sides), dtype=bool))
        if self.sides.paired:
            size, negatives = key
            baseline_rows = np.empty(len(self.sides), dtype=np.int64)
            baseline_rows[self.sides.indices[0]] = np.arange(len(self.sides))
            values = paired_null_values(
                measures, wholes, baseline_rows, size - negatives, negatives, n_samples, rng,
                batch_elements=batch_elements,
            )  # fmt: skip
        else:
            values = [
                null_values(measure, whole, size - negatives, negatives, n_samples, rng,
                            batch_elements=batch_elements)
                for measure, whole, (size, negatives) in zip(measures, wholes, (key[:2], key[2:]))
            ]  # fmt: skip
        return self.raw_quality(*values)

    def __repr__(self):
        baseline = "" if self.baseline_measure is self.measure else f", baseline_measure={self.baseline_measure!r}"
        return (
            f"{type(self).__name__}(measure={self.measure!r}, label={self.label!r}, "
            f"positive_label={self.positive_label!r}, size_weight={self.size_weight}, "
            f"balance_weight={self.balance_weight}, mode={self.mode!r}{baseline})"
        )
