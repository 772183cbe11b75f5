"""The children of a search node, evaluated in batches for :class:`~subroc_ext.FastSearch`.

:func:`evaluator` picks one per quality function: for a
:class:`~subroc_ext.SoftClassifierQF` with a built-in measure
(:class:`CompiledEvaluator`) one compiled call per node
(:mod:`subroc_ext.engine.search_kernels`: the class counts of every child,
the bound from counts, for ROC AUC the bound from counts of
:mod:`subroc_ext.scoring.joint_bounds`, then the measure, extremes and
statistics of the survivors), and one per group of sibling nodes for the
children at the maximum depth; with a user's measure
(:class:`PythonEvaluator`) the same steps through the measure's methods;
:class:`ComparisonEvaluator` for two models or periods,
:class:`MultiClassEvaluator` for AUC_mu. Each returns the children that may
enter the result or lead to a pattern that may, with their statistics.
"""

from functools import cached_property
from types import SimpleNamespace

import numpy as np

from ..objective.comparison import ComparisonQF
from ..objective.multiclass import AUCMuQF
from ..objective.statistics import SubgroupStatistics
from ..scoring import bitset, bounds, cover_kernels, joint_bounds, row_mean_bounds
from ..scoring.compiled_measures import compiled_kind, compiled_row_values
from ..scoring.weights import max_weight, subgroup_weight
from . import batch_kernels, search_kernels

__all__ = [
    "evaluator",
    "class_counts",
    "thread_safe",
    "BinaryEvaluator",
    "CompiledEvaluator",
    "PythonEvaluator",
    "ComparisonEvaluator",
    "MultiClassEvaluator",
]


def evaluator(qf, space):
    if isinstance(qf, AUCMuQF):
        return MultiClassEvaluator(qf, space)
    if isinstance(qf, ComparisonQF):
        return ComparisonEvaluator(qf, space)
    kind = compiled_kind(qf.prepared_measure)
    if kind is None:
        return PythonEvaluator(qf, space)
    return CompiledEvaluator(qf, space, kind)


def class_counts(parent, words, candidates, positive_words, negative_words):
    """Positives and negatives of ``parent AND selector`` for each candidate (compiled)."""
    positives = np.empty(len(candidates), dtype=np.int64)
    negatives = np.empty(len(candidates), dtype=np.int64)
    cover_kernels.count_children(
        parent, words, candidates, positive_words, negative_words, positives, negatives
    )
    return positives, negatives


class BinaryEvaluator:
    """Statistics of the children of a node for a :class:`SoftClassifierQF`
    (the subclasses compute them); what both kinds share."""

    def __init__(self, qf, space):
        self.qf = qf
        self.space = space
        is_positive = qf.dataset.is_positive
        self.positive_words = bitset.pack(is_positive)
        self.negative_words = bitset.pack(~is_positive)

    def counts(self, parent, candidates):
        return class_counts(
            parent, self.space.words, candidates, self.positive_words, self.negative_words
        )

    def children(self, parent, candidates, cap, threshold, min_support, expandable, offset=0.0, aware=False):
        """The candidates that may enter the result or lead to a pattern that
        may, and their statistics (arrays; None when there are none).

        ``cap`` bounds the raw quality gain of every child (``inf`` if unknown):
        a child weighing ``w`` cannot exceed ``w * cap``. ``offset`` is what a
        child's quality subtracts at least (the parent's ``max(q, g)`` with
        generalization awareness, else 0), for a bound from class counts.
        ``aware``: the search is generalization-aware, so the statistics'
        ``optimistic_estimate`` is not read and a row mean's size-aware bound
        not computed (``optimistic_estimate`` then a looser valid bound).
        """
        raise NotImplementedError

    def tightened(self, parent, candidates, quality, estimate, offset, threshold, min_support):
        """``estimate`` of the children, tightened where it exceeds ``threshold``
        by the joint bound with ``offset[i]`` of child ``i`` (``max(q, g)``
        with generalization awareness; 0 when ``offset`` is None;
        :mod:`subroc_ext.scoring.joint_bounds`); the estimate unchanged for measures
        without one."""
        return estimate

    def raw_qualities(self, parent, candidates):
        """``q`` of ``parent AND selector`` for each candidate selector (``-inf``
        where the measure is undefined)."""
        positives, negatives = self.counts(parent, candidates)
        defined = np.asarray(self.qf.measure.is_defined(positives, negatives), dtype=bool)
        out = np.full(len(candidates), -np.inf)
        if defined.any():
            value, _, _ = self.measure(parent, candidates[defined], extremes=False)
            out[defined] = self.qf.raw_quality(value)
        return out


class CompiledEvaluator(BinaryEvaluator):
    """The built-in measures: every step of a node's children in one compiled
    call (:func:`subroc_ext.engine.search_kernels.scored_children`, or
    :func:`~subroc_ext.engine.search_kernels.leaves_of_nodes` for the
    children at the maximum depth of several nodes), on the quality
    function's own kernel data."""

    def __init__(self, qf, space, kind):
        self.qf = qf
        self.space = space
        self.kind = kind
        (self.positive_words, self.negative_words, self.group_start, self.group_end, _, self.row_values,
         self.value_order, self.ascending_values, *_) = qf._kernel_data  # fmt: skip
        self.value_rank = None  # each row's position in the value order: a row mean's node profiles
        self.word_bounds = None  # a row mean's extremes per word: its leaves' bound from counts per word
        if self.value_order is not None:
            self.value_rank = np.empty_like(self.value_order)
            self.value_rank[self.value_order] = np.arange(len(self.value_order))
            self.word_bounds = row_mean_bounds.word_extremes(self.row_values, self.positive_words, self.negative_words)
        self.settings = qf._settings()  # fixed for the search
        # positives and negatives of every selector
        self.selector_counts = np.array(class_counts(
            space.all_rows, space.words, np.arange(len(space.words)), self.positive_words, self.negative_words
        ))  # fmt: skip

    def children(self, parent, candidates, cap, threshold, min_support, expandable, offset=0.0, aware=False):
        measure = self.qf.measure
        children, positives, negatives, fields, _, _ = search_kernels.scored_children(
            parent, self.space.words, candidates, self.positive_words, self.negative_words,
            self.selector_counts, self.group_start, self.group_end, self.kind, self.row_values,
            self.value_order, self.ascending_values, self.value_rank, self.word_bounds, min_support,
            measure.min_positives, measure.min_negatives, float(cap), float(threshold), *self.settings, expandable, float(offset),
            bool(np.isfinite(cap) and self.kind in joint_bounds.COUNT_BOUND_KINDS), aware,
        )  # fmt: skip
        if not len(children):
            return children, None
        return children, SubgroupStatistics(positives + negatives, positives, negatives, *fields)

    def leaves(self, grandparent, nodes, estimates, qualities, caps, generalizations, sibling_best, sibling_start,
               live_threshold, min_support):  # fmt: skip
        """The children at the maximum depth that may enter the result, below
        sibling nodes, in one compiled call
        (:func:`subroc_ext.engine.search_kernels.leaves_of_nodes`, whose
        arguments and results these are; the nodes' estimates tightened
        there as :meth:`tightened` would)."""
        measure = self.qf.measure
        reference, downward, upward, alpha, beta, needs_both_classes, _ = self.settings
        return search_kernels.leaves_of_nodes(
            grandparent, nodes, estimates, qualities, caps, generalizations, sibling_best, sibling_start,
            live_threshold, self._joint_gate(), self.space.next_start, self.space.words, self.positive_words,
            self.negative_words, self.selector_counts, self.group_start, self.group_end, self.kind, self.row_values,
            self.value_rank, self.ascending_values, self.word_bounds, min_support, measure.min_positives,
            measure.min_negatives, reference, downward, upward, alpha, beta,
            needs_both_classes, self.kind in joint_bounds.COUNT_BOUND_KINDS,
        )  # fmt: skip

    def expand_nodes(self, patterns, caps, thresholds, bests, shorter_rows, starts, live_threshold, top, floor,
                     min_support, aware):  # fmt: skip
        """Nodes' children and their children at the maximum depth in one
        compiled call (:func:`subroc_ext.engine.batch_kernels.expand_nodes_to_leaves`,
        whose arguments and results these are)."""
        measure = self.qf.measure
        reference, downward, upward, alpha, beta, needs_both_classes, estimates_on = self.settings
        settings = (
            self.kind, int(min_support), measure.min_positives, measure.min_negatives, reference, downward,
            upward, alpha, beta, needs_both_classes, estimates_on,
            self.kind in joint_bounds.COUNT_BOUND_KINDS, self._joint_gate(), aware,
        )  # fmt: skip
        return batch_kernels.expand_nodes_to_leaves(
            patterns, caps, thresholds, bests, shorter_rows, starts, live_threshold, top, float(floor), self.data,
            settings,
        )  # fmt: skip

    @cached_property
    def data(self):
        """The arrays of :func:`~subroc_ext.engine.search_kernels.expand_to_leaves`
        (and its batch)."""
        return (
            self.space.words, self.positive_words, self.negative_words, self.selector_counts,
            self.group_start, self.group_end, self.row_values, self.value_order, self.ascending_values,
            self.space.next_start, self.value_rank, self.word_bounds,
        )  # fmt: skip

    def _joint_gate(self):
        """The joint gate of the compiled leaves (0: no joint bound)."""
        joint = self.kind in (cover_kernels.ROC_AUC, cover_kernels.ROW_MEAN)
        return self.joint_gate if joint and self.settings[-1] else 0.0

    def raw_qualities(self, parent, candidates):
        """``q`` of each child in one compiled call
        (:func:`subroc_ext.engine.search_kernels.raw_qualities`)."""
        measure = self.qf.measure
        reference, downward, upward, alpha, beta, needs_both_classes, _ = self.settings
        return search_kernels.raw_qualities(
            parent, self.space.words, candidates, self.positive_words, self.negative_words,
            self.selector_counts, self.group_start, self.group_end, self.kind, self.row_values,
            measure.min_positives, measure.min_negatives, reference, downward, upward, alpha, beta,
            needs_both_classes,
        )  # fmt: skip

    def measure(self, parent, candidates, extremes=True):
        """The measure and (``extremes``) its extremes over subsets of each child
        (:func:`subroc_ext.scoring.cover_kernels.measure_children`)."""
        count = len(candidates)
        value, lowest, highest = np.empty(count), np.empty(count), np.empty(count)
        cover_kernels.measure_children(
            parent, self.space.words, candidates, self.positive_words, self.negative_words,
            self.group_start, self.group_end, self.kind, self.row_values, extremes,
            value, lowest, highest,
        )  # fmt: skip
        return value, lowest, highest

    #: The joint bound is computed for children whose estimate exceeds the
    #: k-th best quality by at most this factor: it seldom cuts a larger one
    #: below it (Census depth 3, ROC AUC, alpha = beta = 1, GA: 22% of the
    #: children above the k-th best, 87% of those it prunes).
    joint_gate = 2.0

    def tightened(self, parent, candidates, quality, estimate, offset, threshold, min_support):
        qf = self.qf
        room = np.flatnonzero((estimate > threshold) & (estimate <= self.joint_gate * threshold))
        if self.kind != cover_kernels.ROC_AUC or not qf.optimistic_estimates or not len(room):
            return estimate
        joint, directions = np.empty(len(room)), qf.signs()
        offsets = np.zeros(len(room)) if offset is None else np.asarray(offset, dtype=float)[room]
        joint_bounds.roc_auc_joint_children(
            parent, self.space.words, candidates[room], self.positive_words, self.negative_words,
            self.group_start, self.group_end, float(qf.dataset_value), offsets,
            -1 in directions, 1 in directions, float(qf.size_weight), float(qf.balance_weight),
            int(min_support), float(threshold), estimate[room], joint,
        )  # fmt: skip
        estimate = np.array(estimate, dtype=float)
        estimate[room] = np.minimum(estimate[room], np.maximum(joint, quality[room]))
        return estimate


class PythonEvaluator(BinaryEvaluator):
    """Any other measure: the class counts of all children (compiled), the
    bound from counts, then the measure's own methods on each surviving
    child's cover and the statistics of all of them."""

    def children(self, parent, candidates, cap, threshold, min_support, expandable, offset=0.0, aware=False):
        qf = self.qf
        positives, negatives = self.counts(parent, candidates)
        keep = (positives + negatives >= min_support) & qf.measure.is_defined(positives, negatives)
        if np.isfinite(cap):
            alpha, beta = qf.size_weight, qf.balance_weight
            promising = subgroup_weight(positives, negatives, alpha, beta) * cap > threshold
            if expandable:
                promising |= max_weight(positives, negatives, alpha, beta) * cap > threshold
            keep &= promising
        candidates, positives, negatives = candidates[keep], positives[keep], negatives[keep]
        if not len(candidates):
            return candidates, None
        value, lowest, highest = self.measure(parent, candidates, qf.optimistic_estimates)
        if expandable and not aware and qf.size_weight > 0 and qf.optimistic_estimates:
            size_aware = self.size_aware(parent, candidates)
        else:
            size_aware = np.full(len(candidates), np.inf)
        return candidates, qf.statistics_of_counts(
            positives, negatives, value, lowest, highest, size_aware
        )

    def _covers(self, parent, candidates):
        for selector in candidates:
            mask = bitset.unpack(parent & self.space.words[selector], self.space.n_rows)
            yield self.qf.dataset.cover(mask)

    def measure(self, parent, candidates, extremes=True):
        measure = self.qf.prepared_measure
        rows = [
            (measure.value(c), *(measure.extremes(c) if extremes else (np.nan, np.nan)))
            for c in self._covers(parent, candidates)
        ]
        value, lowest, highest = np.array(rows, dtype=float).reshape(-1, 3).T
        return value, lowest, highest

    def size_aware(self, parent, candidates):
        qf = self.qf
        return np.array(
            [
                bounds.size_aware_bound(
                    qf.prepared_measure, cover, qf.dataset_value, qf.signs(), qf.size_weight
                )
                for cover in self._covers(parent, candidates)
            ],
            dtype=float,
        )


class ComparisonEvaluator:
    """Statistics of the children of a node for a :class:`ComparisonQF`: class
    counts of both sides (compiled), the bound from counts, then each side's
    measure on the survivors and their statistics
    (:meth:`ComparisonQF.statistics_of_counts`).

    The built-in measures run compiled on one view per side: unpaired, each
    period reads only the words holding its rows (the canonical order is the
    reference's rows, then the current's, each in score order: a parent is
    sliced, the selectors' bitsets are sliced once, the tie groups and row
    values shifted to the slice); paired, the new model's side is the search
    space itself and the baseline's a copy of every selector's bitset in the
    baseline's score order (a parent is permuted once per node, compiled:
    :func:`bitset.permute`), and both sides share one cover, so its class
    counts are counted once. Any other measure is evaluated by its own
    methods on each side's cover.
    """

    def __init__(self, qf, space):
        self.qf = qf
        self.space = space
        sides = qf.sides
        self.paired = sides.paired
        n_words = space.words.shape[1]
        # unpaired: side k's rows lie in words [start, stop) (one word may hold both periods)
        n_reference = len(sides.datasets[0])
        self.word_ranges = [(0, n_words)] * 2 if self.paired else [
            (0, -(-n_reference // 64)), (n_reference // 64, n_words)
        ]  # fmt: skip
        self.count_views = []  # per side: (selector words, positive words, negative words) of its range
        for dataset, index, (start, stop) in zip(sides.datasets, sides.indices, self.word_ranges):
            positive = np.zeros(len(sides), dtype=bool)
            positive[index[dataset.is_positive]] = True
            negative = np.zeros(len(sides), dtype=bool)
            negative[index[~dataset.is_positive]] = True
            words = space.words if (start, stop) == (0, n_words) else np.ascontiguousarray(space.words[:, start:stop])
            self.count_views.append((words, bitset.pack(positive)[start:stop], bitset.pack(negative)[start:stop]))
        self.kinds = [compiled_kind(measure) for measure in qf.prepared_measures]
        self.views = None if None in self.kinds else self._compiled_views()

    def _compiled_views(self):
        """Per side: (word range, new position of each row of the range or
        None, selector words, class words, group bounds, row values) for
        :func:`cover_kernels.measure_children`."""
        sides, measures = self.qf.sides, self.qf.prepared_measures

        def row_values(measure, shift=0):
            values = compiled_row_values(measure)
            return values if values is None else np.ascontiguousarray(np.concatenate([np.zeros(shift), values]))

        if not sides.paired:
            views = []
            for dataset, measure, (start, stop), (words, *class_words) in zip(
                sides.datasets, measures, self.word_ranges, self.count_views
            ):
                shift = len(sides.datasets[0]) - 64 * start if dataset is sides.datasets[1] else 0
                # the dtype tie_group_bounds gives the rows of both periods: another
                # dtype would have numba compile measure_children once more
                position = cover_kernels.position_dtype(shift + len(dataset))
                bounds = [np.concatenate([np.zeros(shift, position), b.astype(position) + position(shift)])
                          for b in cover_kernels.tie_group_bounds(dataset.group_ids)]  # fmt: skip
                views.append(((start, stop), None, words, class_words, *bounds, row_values(measure, shift)))
            return views
        baseline, new = sides.datasets
        to_baseline = sides.indices[0]  # canonical position of each baseline-ordered row
        words = np.stack([
            bitset.pack(bitset.unpack(selector, len(sides))[to_baseline]) for selector in self.space.words
        ]) if len(self.space.words) else self.space.words  # fmt: skip
        in_baseline_order = np.empty(len(sides), dtype=np.int64)  # baseline position of each canonical row
        in_baseline_order[to_baseline] = np.arange(len(sides))
        everything = self.word_ranges[0]
        return [
            (everything, in_baseline_order, words,
             (bitset.pack(baseline.is_positive), bitset.pack(~baseline.is_positive)),
             *cover_kernels.tie_group_bounds(baseline.group_ids), row_values(measures[0])),
            (everything, None, self.space.words, self.count_views[1][1:],
             *cover_kernels.tie_group_bounds(new.group_ids), row_values(measures[1])),
        ]  # fmt: skip

    def counts(self, parent, candidates):
        """``[(positives, negatives)]`` of each side's part of every child (paired:
        the one cover's, counted once)."""
        counted = [
            class_counts(parent[start:stop], view[0], candidates, *view[1:])
            for (start, stop), view in zip(self.word_ranges[: 1 if self.paired else 2], self.count_views)
        ]  # fmt: skip
        return counted * 2 if self.paired else counted

    def measure(self, parent, candidates, extremes=True):
        """``[(value, lowest, highest)]`` of each side on every child (arrays)."""
        if self.views is None:
            return self._measure_in_python(parent, candidates, extremes)
        measured = []
        for kind, ((first, stop), position, words, (positive, negative), start, end, values) in zip(
            self.kinds, self.views
        ):
            view_parent = parent[first:stop]
            if position is not None:
                view_parent = np.empty_like(parent)
                bitset.permute(parent, position, view_parent)
            out = [np.empty(len(candidates)) for _ in range(3)]
            cover_kernels.measure_children(
                view_parent, words, candidates, positive, negative, start, end, kind, values,
                extremes, *out,
            )  # fmt: skip
            measured.append(out)
        return measured

    def _measure_in_python(self, parent, candidates, extremes):
        rows = []
        for selector in candidates:
            mask = bitset.unpack(parent & self.space.words[selector], self.space.n_rows)
            row = []
            for measure, cover in zip(self.qf.prepared_measures, self.qf.sides.covers(mask)):
                defined = measure.is_defined(cover.positives, cover.negatives)
                value = measure.value(cover) if defined else np.nan
                low, high = measure.extremes(cover) if defined and extremes else (np.nan, np.nan)
                row.append((value, low, high))
            rows.append(row)
        table = np.array(rows, dtype=float).reshape(-1, 2, 3)
        return [[table[:, side, column] for column in range(3)] for side in range(2)]

    def children(self, parent, candidates, cap, threshold, min_support, expandable):
        """As :meth:`BinaryEvaluator.children`; the minimum support applies to each side."""
        qf = self.qf
        (pa, na), (pb, nb) = self.counts(parent, candidates)
        keep = (np.minimum(pa + na, pb + nb) >= min_support) & qf.defined((pa, na), (pb, nb))
        if np.isfinite(cap):
            alpha, beta = qf.size_weight, qf.balance_weight
            positives, negatives = qf.weight_counts((pa, na), (pb, nb))
            promising = subgroup_weight(positives, negatives, alpha, beta) * cap > threshold
            if expandable:
                promising |= max_weight(positives, negatives, alpha, beta) * cap > threshold
            keep &= promising
        candidates, pa, na, pb, nb = (x[keep] for x in (candidates, pa, na, pb, nb))
        if not len(candidates):
            return candidates, None
        side_a, side_b = self.measure(parent, candidates, qf.optimistic_estimates)
        return candidates, qf.statistics_of_counts((pa, na, *side_a), (pb, nb, *side_b))

    def raw_qualities(self, parent, candidates):
        """``q`` of ``parent AND selector`` for each candidate selector (``-inf``
        where the measure is undefined on either side)."""
        (pa, na), (pb, nb) = self.counts(parent, candidates)
        defined = self.qf.defined((pa, na), (pb, nb))
        out = np.full(len(candidates), -np.inf)
        if defined.any():
            (value_a, _, _), (value_b, _, _) = self.measure(parent, candidates[defined], extremes=False)
            out[defined] = self.qf.raw_quality(value_a, value_b)
        return out


class MultiClassEvaluator:
    """Statistics of children for :class:`AUCMuQF`: sizes compiled, then the
    quality function's own statistics of each child at least the minimum
    support large (no bound from class counts)."""

    def __init__(self, qf, space):
        self.qf = qf
        self.space = space
        self.nothing = np.zeros_like(space.all_rows)

    def children(self, parent, candidates, cap, threshold, min_support, expandable):
        sizes = np.empty(len(candidates), dtype=np.int64)
        unused = np.empty(len(candidates), dtype=np.int64)
        cover_kernels.count_children(
            parent, self.space.words, candidates, self.space.all_rows, self.nothing, sizes, unused,
        )  # fmt: skip
        candidates = candidates[sizes >= min_support]
        if not len(candidates):
            return candidates, None
        stats = [self._statistics(parent, selector) for selector in candidates]
        fields = ("weight", "raw_quality", "raw_bound", "max_weight", "quality", "optimistic_estimate")
        return candidates, SimpleNamespace(  # one array per field
            **{name: np.array([getattr(s, name) for s in stats], dtype=float) for name in fields}
        )

    def _statistics(self, parent, selector):
        mask = bitset.unpack(parent & self.space.words[selector], self.space.n_rows)
        return self.qf.statistics_of_mask(mask)

    def raw_qualities(self, parent, candidates):
        return np.array([self._statistics(parent, c).raw_quality for c in candidates], dtype=float)


def thread_safe(evaluator):
    """Whether ``evaluator`` runs only subroc-ext's own code (no user measure's)."""
    if isinstance(evaluator, PythonEvaluator):
        return False
    return not (isinstance(evaluator, ComparisonEvaluator) and evaluator.views is None)
