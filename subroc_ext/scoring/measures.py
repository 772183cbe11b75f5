"""Performance measures as pluggable objects: the extension point of subroc-ext.

A :class:`Measure` evaluates: its value on a subgroup's :class:`Cover` (rows
presorted by score, with their tie counts), when it is defined, and - for
pruning - the lowest and highest value it can take on any subset of a cover.
Everything else is built on top, in one module per idea:
:mod:`subroc_ext.objective.quality` adds the reference value, direction (``mode``) and
weights, :mod:`subroc_ext.scoring.bounds` the optimistic estimates, and
:mod:`subroc_ext.scoring.null_sampling` the null distributions of the randomization
test. So a new measure gets all of that from one class.

Three ways to bring a measure:

* :class:`KernelMeasure` wraps a plain function ``kernel(label, score)``
  and, optionally, functions giving its extreme values over subsets. Without
  them the quality function simply does not prune.
* :class:`RowMeanMeasure` wraps a per-row value (a loss such as the squared
  error of the Brier score): its exact, size-aware bound comes for free.
* Subclass :class:`Measure` for full control (the built-ins do).

Whichever way: :func:`subroc_ext.check_measure` checks the bounds and hooks
of a new measure against its value on every subset of small data.

References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (the measures, their extremes over subsets: Lemmas 1-4).
"""

import copy
from typing import Callable

import numpy as np

from ..metrics import kernels, label_draws
from ..utils.subsets import ClassTables, random_positions
from . import bitset, bounds, cover_kernels
from .compiled_measures import compiled_kind, compiled_null_values
from .cover import Cover

__all__ = ["Cover", "Measure", "check_measure_type", "ROCAUC", "PRAUC", "AverageRankingLoss", "RowMeanMeasure",
           "KernelMeasure", "attribution_mean", "squared_error"]  # fmt: skip


def _check_kind(kind):
    """Return ``kind`` if it is 'score' or 'loss', else raise ``ValueError``."""
    if kind not in ("score", "loss"):
        raise ValueError(f"kind must be 'score' or 'loss', got {kind!r}")
    return kind


class Measure:
    """Base class of a binary-classifier performance measure.

    Subclasses set the class attributes and implement :meth:`value`; they
    may override :meth:`extremes` (enables pruning) and :meth:`prepare`
    (work done once per dataset, returned as a new measure).

    Three more methods are hooks for speed only, with correct defaults that
    live in the module of their idea; override them in the subclass, so that
    the measure still is one class:

    * :meth:`size_aware_bound`: a bound that already includes the size
      weight (:mod:`subroc_ext.scoring.bounds`; default: none);
    * :meth:`batch_values`: the measure on many subsets at once (default:
      :meth:`value` on each);
    * :meth:`null_values`: a whole null distribution of the randomization
      test (:mod:`subroc_ext.scoring.null_sampling`; default: random subsets
      evaluated by :meth:`batch_values`, compiled for the built-ins).

    Attributes
    ----------
    name : str
        Short identifier, used in column names.
    kind : {'score', 'loss'}
        Whether higher ('score') or lower ('loss') values mean better performance.
    min_positives, min_negatives : int
        The measure is defined on a subset with at least this many positives
        and negatives (and at least one row).
    reads_probabilities, null_by_size : bool
        False; True for the calibration measures (:mod:`subroc_ext.scoring.calibration`).
    mode_aliases : dict
        Other names of the modes (``'under'`` for the calibration gap).

    Examples
    --------
    >>> class Accuracy(Measure):
    ...     name = "accuracy"
    ...     def value(self, cover):
    ...         return float(np.mean((cover.scores >= 0.5) == cover.is_positive))
    ...     def extremes(self, cover):
    ...         return 0.0, 1.0
    >>> Accuracy().value(Cover.from_arrays([True, False, True], [0.9, 0.6, 0.2]))
    0.3333333333333333
    """

    name = "measure"
    kind = "score"
    min_positives = 0
    min_negatives = 0
    reads_probabilities = False
    null_by_size = False
    mode_aliases = {}

    def prepare(self, cover):
        """This measure ready for the dataset ``cover`` (the whole data).

        Returns a measure to evaluate covers of that dataset with; ``self``
        is never changed. The default has nothing to precompute and returns
        ``self``; :class:`RowMeanMeasure` returns a copy holding the per-row
        values.
        """
        return self

    def value(self, cover):
        """The measure on ``cover`` (defined there)."""
        raise NotImplementedError

    def extremes(self, cover):
        """Lowest and highest value of the measure on any defined subset of ``cover``.

        The default ``(-inf, inf)`` is always valid and disables pruning.
        """
        return -np.inf, np.inf

    def size_aware_bound(self, cover, reference, sign, size_weight):
        """Hook: an upper bound on ``|T|^size_weight * sign * (value(T) - reference)``
        over defined subsets ``T`` of ``cover``; ``inf`` (none) by default.

        Read by :func:`subroc_ext.scoring.bounds.size_aware_bound`.
        """
        return np.inf

    def batch_values(self, dataset, positions):
        """Hook: the measure on many subsets of ``dataset`` at once.

        Parameters
        ----------
        dataset : Cover
            The whole dataset the positions index into (this measure is
            prepared on it).
        positions : numpy.ndarray of int, shape (n_subsets, subset_size)
            Each row holds one subset's positions in ``dataset``, ascending.

        Returns
        -------
        numpy.ndarray of float, shape (n_subsets,)
            By default :meth:`value` on one subset after another.
        """
        return np.array([self.value(dataset.subset(rows)) for rows in positions], dtype=float)

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
        """Hook: the measure on random subsets of ``dataset`` with fixed class counts.

        By default the compiled sampler for a built-in measure
        (:mod:`~subroc_ext.scoring.compiled_measures`), else batches of
        random positions (:func:`subroc_ext.utils.subsets.random_positions`)
        evaluated by :meth:`batch_values`; see
        :func:`subroc_ext.scoring.null_sampling.null_values` for the parameters.
        """
        kind = compiled_kind(self)
        if kind is not None:
            return compiled_null_values(kind, self, dataset, positives, negatives, n_samples, rng)
        tables = ClassTables(dataset.is_positive)
        batches = random_positions(tables, positives, negatives, n_samples, rng, batch_elements)
        values = [np.asarray(self.batch_values(dataset, positions), dtype=float) for positions in batches]
        return np.concatenate(values) if values else np.zeros(0)

    def is_defined(self, positives, negatives):
        """Whether the measure is defined on a set with these class counts (vectorized)."""
        return (
            (positives >= self.min_positives)
            & (negatives >= self.min_negatives)
            & (positives + negatives >= 1)
        )

    def dataset_is_defined(self, positives, negatives):
        """Whether the measure can be used on a whole dataset with these counts."""
        return self.is_defined(positives, negatives)

    def drawn_values(self, labels, scores):
        """Hook: the measure on the same rows under many draws of their labels.

        Parameters
        ----------
        labels : numpy.ndarray of bool, shape (n_draws, n_rows)
            One draw of the rows' labels per row (True = positive).
        scores : numpy.ndarray of float, shape (n_rows,)
            The rows' scores, in any order (the columns of ``labels``).

        Returns
        -------
        numpy.ndarray of float, shape (n_draws,)
            The measure on each draw, NaN where undefined. By default
            :meth:`value` on one draw after another; the built-in ranking
            measures are vectorized (:mod:`subroc_ext.metrics.label_draws`).
            A measure that reads per-row values of the whole data
            (:class:`RowMeanMeasure`) gives its :meth:`RowMeanMeasure.class_values` instead.
        """
        labels = np.asarray(labels, dtype=bool)
        positives = labels.sum(axis=1)
        values = np.full(len(labels), np.nan)
        for i in np.flatnonzero(self.is_defined(positives, labels.shape[1] - positives)):
            values[i] = self.value(Cover.from_arrays(labels[i], scores))
        return values

    def rank_sum_values(self, rank_sums, positives, negatives):
        """Hook: the measure on label draws from their positives' mid-rank sums
        and class counts (ROC AUC, ARL; see ``label_draws.drawn_sums``); by
        default not such a measure (:meth:`drawn_values` is used)."""
        raise NotImplementedError

    def size_free(self, values, positives, negatives):
        """Hook: the measure on a scale that does not grow with the rows, so that
        a subgroup's value and the whole data's compare (its promise's test,
        :mod:`subroc_ext.inference.promise`): the values themselves by default;
        the average ranking loss per negative."""
        return values

    def reference(self, whole_value, positives, negatives, whole_positives, whole_negatives):
        """Hook: what the measure on a subset of these class counts is compared
        with (the effect ``m(S) - reference``): the whole data's value by
        default; where the measure grows with the rows (the ARL) its mean over
        random subsets of these class counts, the test's own null. Between its
        values at no rows and at all rows (``effects.effect_range``)."""
        return np.zeros(np.shape(negatives)) + whole_value

    def size_free_measure(self):
        """Hook: the measure a size-free search ranks by (``size_free=True`` of
        :func:`subroc_ext.make_quality_function`): itself by default."""
        return self

    def __repr__(self):
        return f"{type(self).__name__}()"


class ROCAUC(Measure):
    """Area under the ROC curve (ties count one half).

    References
    ----------
    .. [1] T. Fawcett, "An introduction to ROC analysis", Pattern Recognition
       Letters 27(8), 861-874, 2006.
    .. [2] Siegl et al., SubROC, 2025: the extremes over subsets.

    Examples
    --------
    >>> cover = Cover.from_arrays([False, True, False, True], [0.1, 0.35, 0.4, 0.8])
    >>> ROCAUC().value(cover), ROCAUC().extremes(cover)
    (0.75, (0.0, 1.0))
    """

    name = "roc_auc"
    min_positives = 1
    min_negatives = 1
    compiled_code = cover_kernels.ROC_AUC

    def value(self, cover):
        return kernels.roc_auc_from_counts(cover.counts)

    def drawn_values(self, labels, scores):
        return label_draws.roc_auc_of_draws(labels, scores)

    def rank_sum_values(self, rank_sums, positives, negatives):
        return label_draws.roc_auc_of_rank_sums(rank_sums, positives, negatives)

    def extremes(self, cover):
        """0 if a positive is scored strictly below a negative, else 1/2 if a
        positive ties a negative, else 1 - and the mirror image for the highest."""
        has_positive = cover.counts.positives > 0
        has_negative = cover.counts.negatives > 0
        last = len(has_positive) - 1
        lowest_positive = has_positive.argmax()
        highest_positive = last - has_positive[::-1].argmax()
        lowest_negative = has_negative.argmax()
        highest_negative = last - has_negative[::-1].argmax()
        has_tie = (has_positive & has_negative).any()
        lowest = 0.0 if lowest_positive < highest_negative else (0.5 if has_tie else 1.0)
        highest = 1.0 if highest_positive > lowest_negative else (0.5 if has_tie else 0.0)
        return lowest, highest


class PRAUC(Measure):
    """Area under the linearly interpolated precision-recall curve.

    References
    ----------
    .. [1] J. Davis and M. Goadrich, "The relationship between precision-recall
       and ROC curves", ICML 2006.
    .. [2] Siegl et al., SubROC, 2025: the lowest value over subsets (Lemma 4).

    Examples
    --------
    >>> cover = Cover.from_arrays([False, True, False, True], [0.1, 0.35, 0.4, 0.8])
    >>> round(PRAUC().value(cover), 4), PRAUC().extremes(cover)
    (0.7917, (0.25, 1.0))
    """

    name = "pr_auc"
    min_positives = 1
    compiled_code = cover_kernels.PR_AUC

    def value(self, cover):
        return kernels.pr_auc_from_counts(cover.counts)

    def drawn_values(self, labels, scores):
        return label_draws.pr_auc_of_draws(labels, scores)

    def extremes(self, cover):
        """Lowest: the lowest-scored positive with every negative scored at or
        above it (paper's Lemma 4); highest: 1, reached by positives alone."""
        counts = cover.counts
        lowest_positive = np.flatnonzero(counts.positives)[0]
        tied = counts.negatives[lowest_positive]
        above = counts.negatives[lowest_positive + 1 :].sum()
        precision = 1.0 / (1.0 + tied + above)
        # The curve starts at (recall 0, precision 1); negatives strictly above
        # the positive first drag it down to precision 0 at recall 0.
        start = 0.0 if above > 0 else 1.0
        return (start + precision) / 2.0, 1.0


class AverageRankingLoss(Measure):
    """SCaPE average ranking loss (a loss: lower is better).

    References
    ----------
    .. [1] W. Duivesteijn and J. Thaele, "Understanding where your classifier
       does (not) work - the SCaPE model class for EMM", ICDM 2014.
    .. [2] Siegl et al., SubROC, 2025: ties counting one half; the extremes.

    Examples
    --------
    >>> cover = Cover.from_arrays([False, True, False, True], [0.1, 0.35, 0.4, 0.8])
    >>> AverageRankingLoss().value(cover), AverageRankingLoss().extremes(cover)
    (0.5, (0.0, 1.0))
    """

    name = "arl"
    kind = "loss"
    min_positives = 1
    compiled_code = cover_kernels.ARL

    def value(self, cover):
        return kernels.arl_from_counts(cover.counts)

    def drawn_values(self, labels, scores):
        return label_draws.arl_of_draws(labels, scores)

    def rank_sum_values(self, rank_sums, positives, negatives):
        return label_draws.arl_of_rank_sums(rank_sums, positives, negatives)

    def size_free(self, values, positives, negatives):
        """Per negative: ``ARL / N = 1 - AUC`` (NaN without negatives), which
        does not grow with the negatives a subgroup holds."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(negatives > 0, np.asarray(values, dtype=float) / negatives, np.nan)

    def reference(self, whole_value, positives, negatives, whole_positives, whole_negatives):
        """``N(S) / N(D) * ARL(D)``: the mean ARL of random subsets of the whole
        data with ``P(S)`` positives and ``N(S)`` negatives. ``ARL = N (1 -
        AUC)``, and each of a random subset's positive-negative pairs is a
        random pair of the whole data's, misordered with probability ``1 -
        AUC(D)`` (a tie counting one half), so ``E[ARL(T)] = N(S) (1 -
        AUC(D))``. The effect ``ARL(S) - reference = N(S) (AUC(D) - AUC(S))``
        is 0 in expectation at every size, as the test's null."""
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(np.asarray(whole_negatives) > 0,
                            whole_value * np.asarray(negatives, dtype=float) / whole_negatives, 0.0)  # fmt: skip

    def size_free_measure(self):
        """The ROC AUC: the ARL per negative is ``1 - AUC`` (ranking by the one,
        worse or better, is ranking by the other)."""
        return ROCAUC()

    def extremes(self, cover):
        """Lowest: 0 (positives alone); highest: the largest penalty of one
        positive, that of the lowest-scored one, keeping the negatives at or
        above it (tied ones counting one half)."""
        counts = cover.counts
        lowest_positive = np.flatnonzero(counts.positives)[0]
        above = counts.negatives[lowest_positive + 1 :].sum()
        return 0.0, float(above + 0.5 * counts.negatives[lowest_positive])


class RowMeanMeasure(Measure):
    """The mean of a per-row value, computed once on the whole dataset.

    Its extremes and size-aware bound are exact: among subsets of ``k`` rows
    the largest mean is that of the ``k`` largest values.

    Parameters
    ----------
    row_values : callable
        ``row_values(label, score) -> array`` of one value per row, given
        the whole dataset's labels (bool, True = positive) and scores.
    kind : {'score', 'loss'}
        Whether higher values mean better performance.
    name : str
        Short identifier.
    needs_both_classes : bool, default=False
        Whether ``row_values`` needs both classes in the whole dataset.
    class_values : callable, optional
        ``class_values(label, score) -> (if_positive, if_negative)``: each
        row's value were it positive, and were it negative, the other rows'
        labels as given (:meth:`class_values`); needed only when a row's
        value depends on other rows' labels.

    Examples
    --------
    >>> brier = RowMeanMeasure(lambda y, s: (s - y) ** 2, kind="loss", name="brier")
    >>> whole = Cover.from_arrays([True, False], [0.8, 0.4])
    >>> round(brier.prepare(whole).value(whole), 3)
    0.1
    """

    compiled_code = cover_kernels.ROW_MEAN

    def __init__(self, row_values, *, kind, name, needs_both_classes=False, class_values=None):
        self.kind = _check_kind(kind)
        self.row_values = row_values
        self.name = name
        self.needs_both_classes = needs_both_classes
        self._class_values = class_values
        self._values = None
        self._ascending_values = None
        self._value_order = None

    def dataset_is_defined(self, positives, negatives):
        """Whether the per-row values can be computed on a dataset with these counts."""
        if self.needs_both_classes:
            return positives >= 1 and negatives >= 1
        return positives + negatives >= 1

    def prepare(self, cover):
        """A copy of this measure holding the per-row values of the dataset ``cover``."""
        values = np.asarray(self.row_values(cover.is_positive, cover.scores), dtype=float)
        if values.shape != cover.scores.shape:
            raise ValueError(
                f"row_values of measure {self.name!r} returned shape {values.shape}, "
                f"expected {cover.scores.shape}"
            )
        if not np.all(np.isfinite(values)):
            raise ValueError(f"row_values of measure {self.name!r} returned NaN or inf")
        prepared = copy.copy(self)
        prepared._values = np.empty_like(values)
        prepared._values[cover.rows] = values
        prepared._value_order = np.argsort(prepared._values, kind="stable")
        prepared._ascending_values = prepared._values[prepared._value_order]
        return prepared

    def class_values(self, is_positive, scores):
        """Each row's value were it positive, and were it negative (the other
        rows' labels as given): the promise of the measure
        (:mod:`subroc_ext.inference.promise`) is their mean weighted by the rows'
        probabilities, and a draw of the labels picks one of each row's two.

        By default ``row_values`` of all rows positive and of all negative,
        which is right when a row's value depends on its own label and score
        alone (checked: a ``ValueError`` otherwise, asking for ``class_values``).

        Examples
        --------
        >>> brier = RowMeanMeasure(lambda y, s: (s - y) ** 2, kind="loss", name="brier")
        >>> [v.round(2).tolist() for v in brier.class_values(np.array([True, False]), np.array([0.8, 0.4]))]
        [[0.04, 0.36], [0.64, 0.16]]
        """
        is_positive, scores = np.asarray(is_positive, dtype=bool), np.asarray(scores, dtype=float)
        if self._class_values is not None:
            return tuple(np.asarray(v, dtype=float) for v in self._class_values(is_positive, scores))
        positive, negative = (np.asarray(self.row_values(np.full(len(scores), label), scores), dtype=float)
                              for label in (True, False))  # fmt: skip
        for labels in (is_positive, ~is_positive):
            if not np.allclose(np.where(labels, positive, negative), self.row_values(labels, scores), equal_nan=True):
                raise ValueError(f"the row values of measure {self.name!r} depend on other rows' labels: give "
                                 "RowMeanMeasure(class_values=...) for its promise")  # fmt: skip
        return positive, negative

    def _covered(self, cover):
        if self._values is None:
            raise RuntimeError(
                f"measure {self.name!r} has no per-row values yet: evaluate the measure "
                "returned by prepare(whole_dataset_cover)"
            )
        return self._values[cover.rows]

    def value(self, cover):
        # A sequential sum in row order, as the search engine's bitset kernel adds.
        values = self._covered(cover)
        return float(np.cumsum(values)[-1] / len(values))

    def extremes(self, cover):
        values = self._covered(cover)
        return float(values.min()), float(values.max())

    def size_aware_bound(self, cover, reference, sign, size_weight):
        """Exact: ``max_k k^alpha * (mean of the k largest sign*values - sign*reference)``
        (:func:`subroc_ext.scoring.bounds.row_mean_size_aware_bound`)."""
        covered = np.zeros(len(self._values), dtype=bool)
        covered[cover.rows] = True
        return bounds.row_mean_size_aware_bound(
            self, bitset.pack(covered), reference, (sign,), size_weight
        )

    @property
    def prepared_values(self):
        """Per-row values of the prepared dataset, in its (score) order (None
        before :meth:`prepare`)."""
        return self._values

    @property
    def value_order(self):
        """Rows of the prepared dataset in ascending order of their value."""
        return self._value_order

    @property
    def ascending_values(self):
        """The per-row values in ascending order."""
        return self._ascending_values

    def __repr__(self):
        return f"RowMeanMeasure(name={self.name!r}, kind={self.kind!r})"


class KernelMeasure(Measure):
    """A measure given by a plain function of labels and scores.

    Parameters
    ----------
    kernel : callable
        ``kernel(label, score) -> float`` on a subset's rows sorted by
        ascending score, ``label`` boolean (True = positive).
    kind : {'score', 'loss'}
        Whether higher values mean better performance.
    name : str
        Short identifier.
    lowest, highest : callable, optional
        ``f(label, score) -> float`` giving the lowest (highest) value of
        the measure on any defined subset of the given rows. They must be
        valid bounds; without them there is no pruning in that direction.
    min_positives, min_negatives : int, default=0
        The measure is defined on subsets with at least this many of each class.

    Examples
    --------
    >>> tpr = KernelMeasure(lambda y, s: np.mean(s[y] >= 0.5), kind="score", name="tpr",
    ...                     min_positives=1)
    >>> tpr.value(Cover.from_arrays([True, True, False], [0.9, 0.3, 0.6]))
    0.5
    """

    def __init__(
        self,
        kernel: Callable,
        *,
        kind,
        name,
        lowest=None,
        highest=None,
        min_positives=0,
        min_negatives=0,
    ):
        self.kind = _check_kind(kind)
        self.kernel = kernel
        self.name = name
        self.lowest = lowest
        self.highest = highest
        self.min_positives = min_positives
        self.min_negatives = min_negatives

    def value(self, cover):
        return float(self.kernel(cover.is_positive, cover.scores))

    def extremes(self, cover):
        low = -np.inf if self.lowest is None else float(self.lowest(cover.is_positive, cover.scores))
        high = np.inf if self.highest is None else float(self.highest(cover.is_positive, cover.scores))
        return low, high

    def __repr__(self):
        return f"KernelMeasure(name={self.name!r}, kind={self.kind!r})"


def attribution_mean():
    """The mean normalized example attribution of ROC AUC (a score).

    Attributions are computed once on the whole dataset
    (:func:`subroc_ext.metrics.kernels.example_attributions`), so the measure is
    defined on any non-empty subgroup, and its mean over all rows is AUC/2.
    """

    def attributions(is_positive, scores):
        order, group_ids = kernels.sort_by_score(scores)
        values = np.empty(len(scores))
        values[order] = kernels.attributions_from_sorted(is_positive[order], group_ids)
        return values

    return RowMeanMeasure(attributions, kind="score", name="attribution_mean", needs_both_classes=True,
                          class_values=label_draws.attribution_class_values)  # fmt: skip


def squared_error():
    """The mean squared difference between score and label (a loss), a plain
    row mean of the scores as they are: the Brier score of scores that are
    probabilities, which :func:`subroc_ext.scoring.calibration.brier_score`
    checks they are (and reads through the calibration map).
    """
    return RowMeanMeasure(
        lambda is_positive, scores: (scores - is_positive) ** 2, kind="loss", name="squared_error"
    )


def check_measure_type(measure):
    """``measure`` itself if it is a :class:`Measure`; else a ``TypeError`` naming its type."""
    if not isinstance(measure, Measure):
        raise TypeError(f"measure must be a subroc_ext.Measure, got {type(measure).__name__}")
    return measure
