"""Performance measures as pluggable objects: the extension point of subroc-ext.

A :class:`Measure` knows how to compute its value on a subgroup's
:class:`Cover` (rows presorted by score, with their tie counts), when it is
defined, and - for pruning - the lowest and highest value it can take on any
subset of a cover. Quality functions (:mod:`subroc_ext.quality`) add the
reference value, direction (``mode``), weights and optimistic estimates on top,
so a new measure gets all of that for free.

Three ways to bring a measure:

* :class:`KernelMeasure` wraps a plain function ``kernel(y_true, y_score)``
  and, optionally, functions giving its extreme values over subsets. Without
  them the quality function simply does not prune.
* :class:`RowMeanMeasure` wraps a per-row value (a loss such as the squared
  error of the Brier score): its exact, size-aware bound comes for free.
* Subclass :class:`Measure` for full control (the built-ins do).
"""

from typing import Callable

import numpy as np

from . import bitset, cover_kernels, kernels
from ._subsets import class_tables, random_positions

__all__ = [
    "Cover",
    "Measure",
    "ROCAUC",
    "PRAUC",
    "AverageRankingLoss",
    "RowMeanMeasure",
    "KernelMeasure",
    "attribution_mean",
    "brier_score",
]


def _check_kind(kind):
    """Return ``kind`` if it is 'score' or 'loss', else raise ``ValueError``."""
    if kind not in ("score", "loss"):
        raise ValueError(f"kind must be 'score' or 'loss', got {kind!r}")
    return kind


def _compiled_null_values(kind, dataset, positives, negatives, n_samples, rng, row_values=None):
    """Null values of a built-in measure from the compiled sampler
    (:func:`subroc_ext.cover_kernels.null_values`), seeded from ``rng``."""
    positions = np.arange(len(dataset.rows), dtype=np.int64)
    group_start, group_end = cover_kernels.tie_group_bounds(dataset.group_ids)
    out = np.empty(n_samples)
    cover_kernels.null_values(
        kind, int(rng.integers(2**63)), positions[dataset.is_positive],
        positions[~dataset.is_positive], int(positives), int(negatives), group_start, group_end,
        np.zeros(0) if row_values is None else np.ascontiguousarray(row_values, dtype=float), out,
    )  # fmt: skip
    return out


class Cover:
    """The rows of a subgroup, in ascending score order.

    Parameters
    ----------
    is_positive : numpy.ndarray of bool
        Labels of the covered rows, sorted by ascending score.
    all_scores : numpy.ndarray of float
        Scores of the whole presorted dataset (``rows`` index into it).
    group_ids : numpy.ndarray of int
        Their tie-group ids (non-decreasing, equal for equal scores).
    rows : numpy.ndarray of int
        Their positions in the whole presorted dataset, for measures that
        look up per-row values computed once on the whole data.

    Attributes
    ----------
    counts : kernels.TieCounts
        Positives and negatives per distinct score.
    positives, negatives : int
        Class counts.
    """

    __slots__ = ("is_positive", "all_scores", "group_ids", "rows", "counts", "positives", "negatives")

    def __init__(self, is_positive, all_scores, group_ids, rows):
        self.is_positive = is_positive
        self.all_scores = all_scores
        self.group_ids = group_ids
        self.rows = rows
        self.counts = kernels.tie_counts(is_positive, group_ids)
        self.positives = int(self.counts.positives.sum())
        self.negatives = len(rows) - self.positives

    @property
    def scores(self):
        """Scores of the covered rows, ascending."""
        return self.all_scores[self.rows]

    @classmethod
    def from_arrays(cls, is_positive, scores):
        """A cover of all the given rows (any order)."""
        scores = np.asarray(scores, dtype=float)
        order, group_ids = kernels.sort_by_score(scores)
        sorted_scores = scores[order]
        return cls(np.asarray(is_positive, bool)[order], sorted_scores, group_ids, np.arange(len(scores)))


class Measure:
    """Base class of a binary-classifier performance measure.

    Subclasses set the class attributes and implement :meth:`value`; they
    may override :meth:`extremes` (enables pruning), :meth:`prepare` (work
    done once per dataset) and :meth:`size_aware_bound` (a bound that already
    includes the size weight).

    Attributes
    ----------
    name : str
        Short identifier, used in column names.
    kind : {'score', 'loss'}
        Whether higher ('score') or lower ('loss') values mean better performance.
    min_positives, min_negatives : int
        The measure is defined on a subset with at least this many positives
        and negatives (and at least one row).
    """

    name = "measure"
    kind = "score"
    min_positives = 0
    min_negatives = 0

    def prepare(self, cover):
        """Precompute whatever depends on the whole dataset ``cover`` (default: nothing)."""

    def value(self, cover):
        """The measure on ``cover`` (defined there)."""
        raise NotImplementedError

    def extremes(self, cover):
        """Lowest and highest value of the measure on any defined subset of ``cover``.

        The default ``(-inf, inf)`` is always valid and disables pruning.
        """
        return -np.inf, np.inf

    def size_aware_bound(self, cover, reference, sign, size_weight):
        """An upper bound on ``|T|^size_weight * sign * (value(T) - reference)``
        over defined subsets ``T``, or ``inf`` if the measure has none (default)."""
        return np.inf

    def batch_values(self, dataset, positions):
        """The measure on many subsets at once (used for null distributions).

        Parameters
        ----------
        dataset : Cover
            The whole dataset the positions index into (after :meth:`prepare`).
        positions : numpy.ndarray of int, shape (n_subsets, subset_size)
            Each row holds one subset's positions in ``dataset``, ascending.

        Returns
        -------
        numpy.ndarray of float, shape (n_subsets,)
            The default evaluates one subset after another.
        """
        return np.array(
            [
                self.value(
                    Cover(
                        dataset.is_positive[rows], dataset.all_scores,
                        dataset.group_ids[rows], dataset.rows[rows],
                    )  # fmt: skip
                )
                for rows in positions
            ]
        )

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
        """The measure on random subsets of ``dataset`` with fixed class counts.

        This is the null distribution of the randomization test
        (:func:`subroc_ext.significance.randomization_test`).

        Parameters
        ----------
        dataset : Cover
            The whole dataset (after :meth:`prepare`).
        positives, negatives : int
            Class counts of every subset; the measure must be defined there.
        n_samples : int
            Number of subsets. Each is drawn uniformly at random among the
            subsets of ``dataset`` with these class counts, independently of
            the others.
        rng : numpy.random.Generator
            Source of randomness (the values are reproducible from its state).
        batch_elements : int, default=4_000_000
            Rough upper bound on the number of array elements held at once.

        Returns
        -------
        numpy.ndarray of float, shape (n_samples,)

        Notes
        -----
        The default draws each batch of subsets as dataset positions and
        evaluates it with :meth:`batch_values`, so a measure that vectorizes
        :meth:`batch_values` is fast here too. The built-in measures override
        this method with a compiled sampler that evaluates each subset as a
        bitset (:func:`subroc_ext.cover_kernels.null_values`).
        """
        tables = class_tables(self, dataset)
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

    def __repr__(self):
        return f"{type(self).__name__}()"


class ROCAUC(Measure):
    """Area under the ROC curve (ties count one half)."""

    name = "roc_auc"
    min_positives = 1
    min_negatives = 1

    def value(self, cover):
        return kernels.roc_auc_from_counts(cover.counts)

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
        return _compiled_null_values(cover_kernels.ROC_AUC, dataset, positives, negatives, n_samples, rng)

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
    """Area under the linearly interpolated precision-recall curve."""

    name = "pr_auc"
    min_positives = 1

    def value(self, cover):
        return kernels.pr_auc_from_counts(cover.counts)

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
        return _compiled_null_values(cover_kernels.PR_AUC, dataset, positives, negatives, n_samples, rng)

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
    """SCaPE average ranking loss (a loss: lower is better)."""

    name = "arl"
    kind = "loss"
    min_positives = 1

    def value(self, cover):
        return kernels.arl_from_counts(cover.counts)

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
        return _compiled_null_values(cover_kernels.ARL, dataset, positives, negatives, n_samples, rng)

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
        ``row_values(y_true, y_score) -> array`` of one value per row, given
        the whole dataset's labels (bool, True = positive) and scores.
    kind : {'score', 'loss'}
        Whether higher values mean better performance.
    name : str
        Short identifier.
    needs_both_classes : bool, default=False
        Whether ``row_values`` needs both classes in the whole dataset.

    Examples
    --------
    >>> brier = RowMeanMeasure(lambda y, s: (s - y) ** 2, kind="loss", name="brier")
    """

    def __init__(self, row_values, *, kind, name, needs_both_classes=False):
        self.kind = _check_kind(kind)
        self.row_values = row_values
        self.name = name
        self.needs_both_classes = needs_both_classes
        self._values = None
        self._ascending_values = None
        self._value_order = None

    def dataset_is_defined(self, positives, negatives):
        """Whether the per-row values can be computed on a dataset with these counts."""
        if self.needs_both_classes:
            return positives >= 1 and negatives >= 1
        return positives + negatives >= 1

    def prepare(self, cover):
        values = np.asarray(self.row_values(cover.is_positive, cover.scores), dtype=float)
        if values.shape != cover.scores.shape:
            raise ValueError(
                f"row_values of measure {self.name!r} returned shape {values.shape}, "
                f"expected {cover.scores.shape}"
            )
        if not np.all(np.isfinite(values)):
            raise ValueError(f"row_values of measure {self.name!r} returned NaN or inf")
        self._values = np.empty_like(values)
        self._values[cover.rows] = values
        self._value_order = np.argsort(self._values, kind="stable")
        self._ascending_values = self._values[self._value_order]

    def _covered(self, cover):
        return self._values[cover.rows]

    def value(self, cover):
        # A sequential sum in row order, as the search engine's bitset kernel adds.
        values = self._covered(cover)
        return float(np.cumsum(values)[-1] / len(values))

    def null_values(self, dataset, positives, negatives, n_samples, rng, *, batch_elements=4_000_000):
        return _compiled_null_values(
            cover_kernels.ROW_MEAN, dataset, positives, negatives, n_samples, rng,
            row_values=self._values[dataset.rows],
        )  # fmt: skip

    def extremes(self, cover):
        values = self._covered(cover)
        return float(values.min()), float(values.max())

    def size_aware_bound(self, cover, reference, sign, size_weight):
        """``max_k k^alpha * (mean of the k largest sign*values - sign*reference)``."""
        covered = np.zeros(len(self._values), dtype=bool)
        covered[cover.rows] = True
        return float(
            cover_kernels.row_mean_size_aware_bound(
                bitset.pack(covered), self._value_order, self._ascending_values,
                float(reference), float(sign), float(size_weight),
            )  # fmt: skip
        )

    @property
    def prepared_values(self):
        """Per-row values of the prepared dataset, in its (score) order."""
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
        ``kernel(y_true, y_score) -> float`` on a subset's rows sorted by
        ascending score, ``y_true`` boolean (True = positive).
    kind : {'score', 'loss'}
        Whether higher values mean better performance.
    name : str
        Short identifier.
    lowest, highest : callable, optional
        ``f(y_true, y_score) -> float`` giving the lowest (highest) value of
        the measure on any defined subset of the given rows. They must be
        valid bounds; without them there is no pruning in that direction.
    min_positives, min_negatives : int, default=0
        The measure is defined on subsets with at least this many of each class.
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
    (:func:`subroc_ext.kernels.example_attributions`), so the measure is
    defined on any non-empty subgroup, and its mean over all rows is AUC/2.
    """

    def attributions(is_positive, scores):
        order, group_ids = kernels.sort_by_score(scores)
        values = np.empty(len(scores))
        values[order] = kernels.attributions_from_sorted(is_positive[order], group_ids)
        return values

    return RowMeanMeasure(
        attributions, kind="score", name="attribution_mean", needs_both_classes=True
    )


def brier_score():
    """The Brier score, mean squared difference between score and label (a loss).

    Meaningful for scores that are probabilities in [0, 1].
    """
    return RowMeanMeasure(
        lambda is_positive, scores: (scores - is_positive) ** 2, kind="loss", name="brier"
    )
