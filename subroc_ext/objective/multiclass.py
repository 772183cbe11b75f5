"""Subgroup discovery for multi-class soft classifiers with AUC_mu.

:class:`AUCMuQF` scores a subgroup ``S`` by how much a K-class classifier's
AUC_mu (Kleiman & Page; see :mod:`subroc_ext.scoring.auc_mu`) on ``S`` differs from
that on the whole data ``D``, exactly as SPEC.md does for the binary measures:

* raw quality ``q(S) = AUC_mu(D) - AUC_mu(S)`` for ``mode="worse"``, its
  negation for ``"better"``, its absolute value for ``"both"``; ``-inf``
  where AUC_mu is undefined (a class without a row in ``S``);
* weight ``w(S) = n(S)^alpha * cb_K(S)^beta`` with the K-class balance
  ``cb_K = min_k n_k / max_k n_k`` (0 when a class is absent), see
  :mod:`subroc_ext.scoring.multiclass_weights`;
* quality ``w(S) * q(S)``.

Optimistic estimate. AUC_mu is the mean of the K(K-1)/2 pair AUCs
``S(i, j)``, each a binary ROC AUC on the pair's projected score, so on every
subset ``T`` of ``S`` where it is defined it lies between ``L(S)``, the mean of
the pairs' lowest binary AUC over subsets (0 if a class-i row is projected
strictly below a class-j row, else 1/2 if two tie, else 1; SPEC's ROC AUC
bound), and ``H(S)``, the mean of the pairs' highest. Hence
``q(T) <= R(S)``, ``R = AUC_mu(D) - L`` (worse), ``H - AUC_mu(D)`` (better)
or the larger of the two (both). With the largest and smallest weights
``W_max(S)``, ``W_min(S)`` of a subset holding every class,
``oe(S) = W_max * R`` when ``R >= 0`` and ``W_min * R`` otherwise bounds
``w(T) q(T)`` for every such ``T``. The bound is valid for every mode and
weight (checked by enumerating every subset of small random covers in
``tests/test_multiclass.py``) and tight for K = 2 without weights; for
K > 2 it can be loose, because the pairs' extremes need not be reached by
one common subset.

Use with ``MultiClassTarget(label_column, score_columns)`` and any pysubgroup
algorithm (BestFirstSearch, DFS, SimpleDFS, Apriori) or :class:`~subroc_ext.FastSearch`, with
:class:`~subroc_ext.GeneralizationAwareQF` and with
:func:`~subroc_ext.randomization_test`, whose null subsets keep the count of
every class.

References
----------
.. [1] R. Kleiman and D. Page, "AUC_mu: A Performance Metric for Multi-Class
   Machine Learning Models", ICML 2019.
"""

from typing import NamedTuple

import numpy as np
import pysubgroup as ps

from ..scoring.auc_mu import PairProjections, check_multiclass_arrays, check_partition_matrix
from ..scoring.multiclass_weights import (
    multiclass_max_weight,
    multiclass_min_weight,
    multiclass_weight,
)
from ..utils.subsets import sample_subsets
from ..utils.validation import check_columns, check_mode, check_weights
from .statistics import StatisticsByName, StatisticsQualityFunction

__all__ = [
    "MultiClassTarget",
    "AUCMuQF",
    "MultiClassStatistics",
    "MultiClassGeneralizationAwareStatistics",
    "sample_class_rows",
]


def _score_mapping(score_columns):
    """``{class label: score column}`` from a list of columns (named like the
    classes) or a mapping, validated."""
    if isinstance(score_columns, str):
        raise TypeError("score_columns must be a list of column names or a mapping, not a string")
    if hasattr(score_columns, "items"):
        mapping = dict(score_columns.items())
    else:
        mapping = {column: column for column in score_columns}
    columns = list(mapping.values())
    if len(mapping) < 2:
        raise ValueError(f"score_columns must name K >= 2 score columns, got {columns!r}")
    if len(set(columns)) != len(columns):
        raise ValueError(f"score_columns repeats a column: {columns!r}")
    return mapping


class MultiClassTarget:
    """Label column and one score column per class, for :class:`AUCMuQF`.

    Parameters
    ----------
    label_column : str
        Column of the true classes.
    score_columns : list of str or dict
        One score column per class: a list of columns named like the classes
        they score, or a mapping ``{class label: column}``.

    Examples
    --------
    >>> MultiClassTarget("grade", {"low": "p_low", "high": "p_high"})
    MultiClassTarget('grade', {'low': 'p_low', 'high': 'p_high'})
    """

    statistic_types = ()

    def __init__(self, label_column, score_columns):
        self.label_column = label_column
        self.score_columns = _score_mapping(score_columns)

    def get_target_columns(self, data):
        """The label and score columns of ``data``."""
        return data.loc[:, [self.label_column, *self.score_columns.values()]]

    def calculate_statistics(self, subgroup, data, statistics=None):
        """For pysubgroup compatibility: statistics come from the quality function."""
        return statistics

    def __repr__(self):
        return f"MultiClassTarget({self.label_column!r}, {self.score_columns!r})"


class _MultiClassFields(NamedTuple):
    size_sg: int
    class_counts: tuple
    measure: float
    raw_quality: float
    weight: float
    quality: float
    raw_bound: float
    max_weight: float
    optimistic_estimate: float


class MultiClassStatistics(StatisticsByName, _MultiClassFields):
    """Everything :class:`AUCMuQF` knows about one subgroup.

    Attributes
    ----------
    size_sg : int
        Cover size.
    class_counts : tuple of int
        Rows of each class, in score-column order.
    measure : float
        AUC_mu on the cover (NaN where a class is absent).
    raw_quality : float
        Unweighted relative quality ``q`` (``-inf`` where undefined).
    weight : float
        ``n^alpha * cb_K^beta``.
    quality : float
        ``weight * raw_quality`` (``-inf`` where undefined).
    raw_bound : float
        Upper bound of ``q`` on every subset of the cover (``-inf`` if none is defined).
    max_weight : float
        Largest weight of a subset holding every class.
    optimistic_estimate : float
        Upper bound of the quality of every subset of the cover (never NaN).
    """

    __slots__ = ()


class _MultiClassGAFields(NamedTuple):
    size_sg: int
    class_counts: tuple
    measure: float
    raw_quality: float
    generalization_quality: float
    weight: float
    quality: float
    optimistic_estimate: float


class MultiClassGeneralizationAwareStatistics(StatisticsByName, _MultiClassGAFields):
    """Statistics of :class:`AUCMuQF` under :class:`~subroc_ext.GeneralizationAwareQF`.

    The fields of :class:`MultiClassStatistics`, with ``generalization_quality``
    (the best raw quality of a proper generalization) and ``quality = weight *
    (raw_quality - generalization_quality)``.
    """

    __slots__ = ()


def sample_class_rows(rng, codes, counts, n_samples):
    """Uniform random subsets with ``counts[k]`` rows of each class ``k``.

    Parameters
    ----------
    rng : numpy.random.Generator
    codes : numpy.ndarray of int, shape (n,)
        Class index of each row.
    counts : sequence of int
        Rows to draw from each class.
    n_samples : int

    Returns
    -------
    list of (numpy.ndarray of int, bool)
        Per class k, ``(rows, left_out)``: ``rows`` of shape
        ``(n_samples, r)`` are positions of class-k rows, the subset's rows
        (``r = counts[k]``) or, when more than half the class is drawn, the
        class's rows left out of the subset (``left_out`` True). The
        complement of a uniform ``r``-subset is a uniform subset of the
        rest, and each class is drawn independently
        (:func:`subroc_ext.utils.subsets.sample_subsets`), so every subset
        with these class counts is equally likely.

    Examples
    --------
    One of the three class-0 rows (drawn) and both class-1 rows (none left
    out), four times:

    >>> draws = sample_class_rows(np.random.default_rng(0), np.array([0, 0, 0, 1, 1]), (1, 2), 4)
    >>> [(rows.shape, left_out) for rows, left_out in draws]
    [((4, 1), False), ((4, 0), True)]
    >>> set(draws[0][0].ravel()) <= {0, 1, 2}
    True
    """
    draws = []
    for k, count in enumerate(counts):
        rows = np.flatnonzero(codes == k)
        left_out = 2 * int(count) > len(rows)
        size = len(rows) - int(count) if left_out else int(count)
        draws.append((rows[sample_subsets(rng, len(rows), size, n_samples)], left_out))
    return draws


class AUCMuQF(StatisticsQualityFunction):
    """Relative AUC_mu quality function for K-class soft classifiers.

    Parameters
    ----------
    label_column : str
        Column of the true classes.
    score_columns : list of str or dict
        One score column per class (named like the classes, or a mapping
        ``{class label: column}``); their order fixes the class order of the
        partition matrix and of ``class_counts``.
    subgroup_class_balance_weight : float, default=0
        Exponent beta of the K-class balance ``min count / max count``.
    subgroup_size_weight : float, default=0
        Exponent alpha of the cover size.
    partition_matrix : array-like of shape (K, K), optional
        Costs ``A[i, j]`` of predicting class i for truth j, in score-column
        order or as a DataFrame indexed by the class labels (default: argmax).
    mode : {'worse', 'better', 'both'}, default='worse'
        Which exceptional performance to look for.

    Examples
    --------
    >>> import pandas as pd, pysubgroup as ps, subroc_ext
    >>> qf = subroc_ext.AUCMuQF("y", ["a", "b", "c"], 1, 1)
    >>> target = subroc_ext.MultiClassTarget("y", ["a", "b", "c"])

    The model confuses classes a and b in group ``g == 'y'``:

    >>> data = pd.DataFrame({
    ...     "g": list("xxxyyy"), "y": list("abcabc"),
    ...     "a": [.8, .1, .1, .1, .8, .1], "b": [.1, .8, .1, .8, .1, .1], "c": [.1, .1, .8, .1, .1, .8],
    ... })
    >>> qf.calculate_constant_statistics(data, target)
    >>> round(qf.dataset_value, 4)
    0.8333
    >>> statistics = qf.calculate_statistics(ps.Conjunction([ps.EqualitySelector("g", "y")]), target, data)
    >>> statistics.class_counts, round(statistics.measure, 4), round(statistics.quality, 4)
    ((1, 1, 1), 0.6667, 0.5)

    References
    ----------
    .. [1] R. Kleiman and D. Page, "AUC_mu: A Performance Metric for
       Multi-Class Machine Learning Models", ICML 2019.
    """

    def __init__(
        self,
        label_column,
        score_columns,
        subgroup_class_balance_weight=0,
        subgroup_size_weight=0,
        *,
        partition_matrix=None,
        mode="worse",
    ):
        self.label_column = label_column
        self.score_columns = _score_mapping(score_columns)
        self.classes = list(self.score_columns)
        self.size_weight, self.balance_weight = check_weights(
            subgroup_size_weight, subgroup_class_balance_weight
        )
        self.partition_matrix = check_partition_matrix(
            partition_matrix, len(self.classes), self.classes
        )
        self.mode = check_mode(mode)
        self.dataset_value = None
        self._data = None
        self._projections = None
        self._selector_masks = {}

    # -- preparation ---------------------------------------------------------

    def calculate_constant_statistics(self, data, target):
        """Validate ``data``, sort every class pair by its projected score and
        compute AUC_mu on the whole data."""
        for name, ours in (("label column", self.label_column), ("score columns", self.score_columns)):
            theirs = getattr(target, name.replace(" ", "_"), ours)
            if theirs != ours:
                raise ValueError(
                    f"the target's {name} {theirs!r} differ from the quality function's {ours!r}"
                )
        columns = list(self.score_columns.values())
        check_columns(data, [self.label_column, *columns])
        codes, values, _ = check_multiclass_arrays(
            data[self.label_column], data[columns], self.classes,
            label_name=f"label column {self.label_column!r}",
        )  # fmt: skip
        projections = PairProjections(codes, values, self.partition_matrix)
        counts = projections.class_counts()
        if (counts == 0).any():
            missing = [c for c, n in zip(self.classes, counts) if n == 0]
            raise ValueError(
                f"AUC_mu is undefined on this data: class(es) {missing!r} have no row "
                f"in label column {self.label_column!r}"
            )
        self._projections = projections
        self.dataset_value = projections.value()
        self._data = data
        self._selector_masks = {}

    @property
    def projections(self):
        """The :class:`~subroc_ext.scoring.auc_mu.PairProjections` of the prepared data (None before)."""
        return self._projections

    def _prepared(self, data, target):
        if self._data is not data:
            self.calculate_constant_statistics(data, target)
        return self._projections

    def __getstate__(self):
        """Pickled without the selector cover cache, rebuilt on demand: what
        the workers of a cluster receive."""
        return {**self.__dict__, "_selector_masks": {}}

    def selector_mask(self, selector):
        """Boolean cover of one selector in the data's row order (cached).

        The cache is keyed by the selector's description, never by the
        selector object: pysubgroup keeps one object per description, and
        such an object pickles only once (its ``__getnewargs_ex__`` deletes
        what it needs), so a quality function holding selectors could be
        sent to a cluster only once. pysubgroup's selectors are equal exactly
        when their descriptions are.
        """
        key = repr(selector)
        mask = self._selector_masks.get(key)
        if mask is None:
            mask = np.asarray(selector.covers(self._data), dtype=bool)
            self._selector_masks[key] = mask
        return mask

    def mask_of(self, subgroup):
        """Boolean cover of ``subgroup`` in the data's row order (by position).

        Accepts what pysubgroup passes (a ``Conjunction``, a
        ``BitSet_Conjunction``, ``slice(None)``), a boolean mask or integer
        positions, or any object with ``covers(data)``.
        """
        n = len(self._data)
        if isinstance(subgroup, ps.Conjunction) and not hasattr(subgroup, "representation"):
            mask = np.ones(n, dtype=bool)
            for selector in subgroup.selectors:
                mask = mask & self.selector_mask(selector)
            return mask
        if isinstance(subgroup, slice) or hasattr(subgroup, "representation"):
            subgroup = np.arange(n)[subgroup] if isinstance(subgroup, slice) else np.asarray(subgroup)
        if isinstance(subgroup, np.ndarray):
            if subgroup.dtype == bool:
                return subgroup
            mask = np.zeros(n, dtype=bool)
            mask[subgroup] = True
            return mask
        return np.asarray(subgroup.covers(self._data), dtype=bool)

    # -- pysubgroup protocol -------------------------------------------------

    def calculate_statistics(self, subgroup, target, data, statistics=None):
        """:class:`MultiClassStatistics` of ``subgroup`` on ``data``."""
        self._prepared(data, target)
        return self.statistics_of_mask(self.mask_of(subgroup))

    # -- the quality and its bound ------------------------------------------

    def raw_quality(self, value):
        """Unweighted relative quality ``q`` of AUC_mu values (vectorized)."""
        difference = np.subtract(value, self.dataset_value)
        if self.mode == "both":
            return np.abs(difference)
        return -difference if self.mode == "worse" else difference

    def raw_bound(self, lowest, highest):
        """Largest ``q`` of an AUC_mu value in ``[lowest, highest]``."""
        candidates = {
            "worse": (self.dataset_value - lowest,),
            "better": (highest - self.dataset_value,),
            "both": (self.dataset_value - lowest, highest - self.dataset_value),
        }[self.mode]
        return float(max(candidates))

    def statistics_of_mask(self, mask):
        """:class:`MultiClassStatistics` of the rows in a boolean ``mask``."""
        counts = self._projections.class_counts(mask)
        size, class_counts = int(counts.sum()), tuple(int(c) for c in counts)
        weight = multiclass_weight(counts, self.size_weight, self.balance_weight)
        if counts.min() == 0:
            # Every subset lacks that class too: nothing below is defined.
            return MultiClassStatistics(
                size, class_counts, np.nan, -np.inf, weight, -np.inf, -np.inf, 0.0, -np.inf
            )
        value, lowest, highest = self._projections.value_and_extremes(mask)
        raw_quality = float(self.raw_quality(value))
        raw_bound = self.raw_bound(lowest, highest)
        largest_weight = multiclass_max_weight(counts, self.size_weight, self.balance_weight)
        if raw_bound >= 0:
            estimate = largest_weight * raw_bound
        else:  # q < 0 on every subset: the lightest subset is the least negative
            estimate = raw_bound * multiclass_min_weight(
                counts, self.size_weight, self.balance_weight
            )
        return MultiClassStatistics(
            size, class_counts, value, raw_quality, weight, weight * raw_quality,
            raw_bound, largest_weight, float(estimate),
        )  # fmt: skip

    # -- hooks of GeneralizationAwareQF and randomization_test ---------------

    def generalization_aware_statistics(self, stats, generalization_quality, quality, estimate):
        """The statistics :class:`~subroc_ext.GeneralizationAwareQF` reports."""
        return MultiClassGeneralizationAwareStatistics(
            stats.size_sg, stats.class_counts, stats.measure, stats.raw_quality,
            generalization_quality, stats.weight, quality, estimate,
        )  # fmt: skip

    def null_key(self, stats):
        """What the randomization test's null distribution depends on: the class counts."""
        return stats.class_counts

    def count_record(self, stats):
        """Class counts as table columns ``count_<class>``."""
        return {f"count_{c}": n for c, n in zip(self.classes, stats.class_counts)}

    def null_raw_qualities(self, class_counts, n_samples, rng, *, batch_elements=4_000_000):
        """Raw qualities of random subsets of the prepared data with these class counts.

        Parameters
        ----------
        class_counts : tuple of int
            Rows of each class in every subset (each at least 1).
        n_samples : int
        rng : numpy.random.Generator
        batch_elements : int, default=4_000_000
            Rough bound on the sampled rows held at once.

        Returns
        -------
        numpy.ndarray of float, shape (n_samples,)
        """
        codes = self._projections.codes
        batch = max(1, batch_elements // max(len(codes) // 2, 1))
        values = []
        for start in range(0, n_samples, batch):
            rows = sample_class_rows(rng, codes, class_counts, min(batch, n_samples - start))
            values.append(self._projections.batch_values(rows))
        return self.raw_quality(np.concatenate(values))

    def __repr__(self):
        return (
            f"AUCMuQF({self.label_column!r}, {self.score_columns!r}, "
            f"subgroup_class_balance_weight={self.balance_weight}, "
            f"subgroup_size_weight={self.size_weight}, mode={self.mode!r})"
        )
