"""Compiled steps of :class:`~subroc_ext.FastSearch`'s node expansion.

One call per node does what would otherwise be a dozen small NumPy
operations holding the GIL: the class counts of every child
(:func:`subroc_ext.scoring.cover_kernels.count_children`) and the test of which
children may enter the result or lead to a pattern that may. The arithmetic
is that of :class:`subroc_ext.engine.evaluators.BinaryEvaluator` (the same weight
functions, :mod:`subroc_ext.scoring.weights`, on the same floats), so both keep the
same children.

The children at the maximum depth, which are never expanded, and which are
most of a search's candidates, take one call for all the nodes one level
above them that share a parent (:func:`leaves_of_nodes`, each node's
children as :func:`leaf_children`): counts, the bounds from counts, the
measure and the quality, so that the Python code between calls, which holds
the GIL, is a small part of the work. Releasing the GIL for the whole step is what lets
``FastSearch(n_jobs=...)`` threads run side by side.

The steps only other kernels call
(:mod:`subroc_ext.engine.child_kernels`' ``promising_children`` and
``kept_children``, :func:`leaf_children`, and of
:mod:`subroc_ext.scoring.joint_bounds` ``count_bounds`` and
``roc_auc_joint_of_words``) are inlined (``inline="always"``): numba
optimizes and compiles to machine code each kernel together with every
kernel it calls, so a step compiled on its own is compiled again inside
each caller; inlined, only inside them (the demo search's cached kernels: 3.2 MB
of machine code instead of 4.3 MB).
"""

import numpy as np
from numba import njit

from ..objective.generalization import generalization_aware_kernel
from ..objective.statistics import row_mean_size_aware, statistics_kernel
from ..scoring.cover_kernels import FALSE, ROW_MEAN, TRUE, measure_children
from ..scoring.node_bounds import joint_of_words, node_profile
from .child_kernels import kept_children, known_generalization, leaf_quality, promising_children, ranked_in_reach

__all__ = [
    "scored_children", "aware_children", "leaf_children", "leaves_of_nodes", "expand_to_leaves", "raw_qualities",
]  # fmt: skip


@njit(cache=True, nogil=True)
def scored_children(
    parent, selector_words, candidates, positive_words, negative_words, selector_counts, group_start,
    group_end, kind,
    row_values, value_order, ascending_values, value_rank, word_bounds, min_support, min_positives, min_negatives,
    cap, threshold, reference, downward, upward, size_weight, balance_weight, needs_both_classes,
    estimates, expandable, offset, count_bound, aware,
):  # fmt: skip
    """The children of a node that may enter the result or lead to a pattern
    that may, with their statistics, in one call.

    :func:`promising_children`; for ROC AUC and ARL the bound from counts
    (:func:`subroc_ext.scoring.joint_bounds.count_bounds`: a child
    is kept if ``min(w * cap, own bound)`` exceeds ``threshold``, or, when
    ``expandable``, ``max_weight * cap`` does); then the measure and its
    extremes (:func:`subroc_ext.scoring.cover_kernels.measure_children`),
    for a row mean with a size weight the size-aware bound, and
    :func:`subroc_ext.objective.statistics.statistics_kernel` of each child
    kept: the floats of the quality function's own path.

    Parameters
    ----------
    parent, selector_words, candidates, positive_words, negative_words, selector_counts
        As in :func:`promising_children`.
    group_start, group_end, kind, row_values
        As in :func:`subroc_ext.scoring.cover_kernels.measure_children`.
    value_order, ascending_values, value_rank
        A row mean's rows in ascending value order, those values and each
        row's position in that order (for the size-aware bound and the
        node's profile, :func:`subroc_ext.scoring.node_bounds.node_profile`),
        None for the other measures.
    word_bounds : tuple or None
        A row mean's :func:`subroc_ext.scoring.row_mean_bounds.word_extremes`
        (None for the other measures), for the bound from counts per word of
        children that are not ``expandable``
        (:func:`~subroc_ext.engine.child_kernels.kept_children`).
    min_support, min_positives, min_negatives, cap, threshold, expandable
        As in :func:`promising_children`.
    reference, downward, upward, size_weight, balance_weight, needs_both_classes, estimates
        The quality function's settings, as in
        :func:`subroc_ext.objective.statistics.statistics_kernel`.
    offset : float
        What a child's quality subtracts at least (the parent's ``max(q,
        g)`` with generalization awareness, else 0), for the bound from counts.
    count_bound : bool
        Apply the bound from counts (``kind`` in
        :data:`~subroc_ext.scoring.joint_bounds.COUNT_BOUND_KINDS`).
    aware : bool
        Generalization awareness: the children's estimates are then built
        from their raw bound and largest weight
        (:func:`~subroc_ext.objective.generalization.generalization_aware_kernel`),
        so a row mean's size-aware bound, read only by the plain estimate
        (``fields[6]``), is not computed (an ``O(rows)`` walk per child: 40 %
        of a Census calibration search's time).

    Returns
    -------
    children : int64[M]
        The candidates kept.
    positives, negatives : int64[M]
    fields : float64[7, M]
        ``measure, raw_quality, weight, quality, raw_bound, max_weight,
        optimistic_estimate`` of each, as in
        :class:`subroc_ext.objective.statistics.SubgroupStatistics`.
    all_positives, all_negatives : int64[K]
        The class counts of every candidate (upper bounds of those not
        counted, as :func:`promising_children` gives them).
    """
    profile = node_profile(kind, value_rank, ascending_values, parent, positive_words, negative_words, count_bound)
    kept, positives, negatives = kept_children(
        parent, selector_words, candidates, positive_words, negative_words, selector_counts, group_start,
        group_end, kind, value_rank, profile, word_bounds, min_support, min_positives, min_negatives, cap, threshold,
        reference, downward, upward, size_weight, balance_weight, expandable, offset, count_bound, TRUE,
    )  # fmt: skip
    count = len(kept)
    children = candidates[kept]
    values, lowest, highest = np.empty(count), np.empty(count), np.empty(count)
    measure_children(
        parent, selector_words, children, positive_words, negative_words, group_start, group_end,
        kind, row_values, estimates, values, lowest, highest,
    )  # fmt: skip
    size_aware_wanted = expandable and not aware and estimates and size_weight > 0 and kind == ROW_MEAN
    fields = np.empty((7, count))
    for j in range(count):
        size_aware = np.inf
        if value_order is not None and size_aware_wanted:  # None: not compiled
            size_aware = row_mean_size_aware(
                parent & selector_words[children[j]], value_order, ascending_values, reference,
                downward, upward, size_weight,
            )  # fmt: skip
        statistics = statistics_kernel(
            positives[kept[j]], negatives[kept[j]], TRUE, values[j], lowest[j], highest[j], size_aware,
            reference, downward, upward, size_weight, balance_weight, needs_both_classes, estimates,
        )  # fmt: skip
        for f in range(7):
            fields[f, j] = statistics[f]
    return children, positives[kept], negatives[kept], fields, positives, negatives


@njit(cache=True)
def aware_children(candidates, weight, raw_quality, raw_bound, max_weight, parent_best, shorter_rows,
                   threshold, expandable, start, n_selectors):  # fmt: skip
    """Generalization-aware quality and estimate of a node's children from
    what is known of their ``g``, and the node's memo row, in one call
    (holding the GIL: too short to be worth handing it to another thread).

    A child's ``g`` is the largest ``max(q, g)`` of its patterns one selector
    shorter: the node itself (``parent_best``) and the others (``shorter_rows``,
    NaN where not known). Where one is not known, the others bound ``g``
    from below, which bounds the quality and estimate from above
    (:func:`subroc_ext.objective.generalization.generalization_aware_kernel`
    with the bound, the floats of the quality function).

    Parameters
    ----------
    candidates : int64[K]
        The children's last selectors.
    weight, raw_quality, raw_bound, max_weight : float64[K]
        Their statistics.
    parent_best : float
        ``max(q, g)`` of the node.
    shorter_rows : float64[L, S]
        Per selector ``c``, ``max(q, g)`` of the node without its ``i``-th
        selector plus ``c`` (NaN where not known).
    threshold : float
        Children whose quality (``expandable``: or estimate) is not above it
        need no exact ``g``.
    expandable : bool
        Build the node's row.
    start, n_selectors : int
        The row covers selectors ``start`` to ``n_selectors - 1``.

    Returns
    -------
    fields : float64[3, K]
        ``quality, estimate`` and ``max(q, g)`` (``parent_best`` where ``g``
        is not known) of each child.
    pending : int64[M]
        The children whose ``g`` is not known and whose bound does not rule
        them out.
    raw_row, best_row : float64[n_selectors - start]
        With ``expandable``, ``q`` and ``max(q, g)`` of each child by
        selector (NaN where not a child or ``g`` is not known); else empty.
    """
    count = len(candidates)
    fields = np.empty((3, count))
    pending = np.zeros(count, dtype=np.bool_)
    width = n_selectors - start if expandable else 0
    raw_row = np.full(width, np.nan)
    best_row = np.full(width, np.nan)
    for j in range(count):
        lower = parent_best
        known = True
        for i in range(shorter_rows.shape[0]):
            value = shorter_rows[i, candidates[j]]
            if np.isnan(value):
                known = False
            elif value > lower:
                lower = value
        quality, estimate = generalization_aware_kernel(
            weight[j], raw_quality[j], raw_bound[j], max_weight[j], lower
        )  # fmt: skip
        fields[0, j], fields[1, j] = quality, estimate
        fields[2, j] = max(raw_quality[j], lower) if known else parent_best
        pending[j] = not known and (quality > threshold or (expandable and estimate > threshold))
        if expandable:
            raw_row[candidates[j] - start] = raw_quality[j]
            best_row[candidates[j] - start] = fields[2, j] if known else np.nan
    return fields, np.flatnonzero(pending), raw_row, best_row


@njit(cache=True, nogil=True, inline="always")
def leaf_children(
    parent, selector_words, candidates, positive_words, negative_words, selector_counts, group_start,
    group_end, kind,
    row_values, value_rank, profile, word_bounds, min_support, min_positives, min_negatives, cap, threshold,
    reference, downward, upward, size_weight, balance_weight, needs_both_classes, generalization, sibling_best,
    sibling_start, count_bound, profiled,
):  # fmt: skip
    """The children of a node that may enter the result, when none of them
    is expanded (they are at the maximum depth), in one call.

    The steps of :class:`~subroc_ext.engine.evaluators.CompiledEvaluator` for
    such children, on the same floats: :func:`promising_children`, for ROC
    AUC and ARL the bound from counts
    (:func:`subroc_ext.scoring.joint_bounds.count_bounds`), the
    measure of the survivors without its extremes
    (:func:`subroc_ext.scoring.cover_kernels.measure_children`) and their
    quality (:func:`subroc_ext.objective.statistics.statistics_kernel`;
    with generalization awareness :func:`generalization_aware_kernel` with
    a lower bound of each child's ``g``, so an upper bound of its quality).

    Parameters
    ----------
    parent, selector_words, candidates, positive_words, negative_words, selector_counts
        As in :func:`promising_children`.
    group_start, group_end, kind, row_values
        As in :func:`subroc_ext.scoring.cover_kernels.measure_children`.
    value_rank, profile
        A row mean's ranks in ascending value order (None for the other
        measures) and the node's profile
        (:func:`subroc_ext.scoring.node_bounds.node_profile`), for its bound
        from counts.
    word_bounds : tuple or None
        As in :func:`scored_children`.
    min_support, min_positives, min_negatives, cap, threshold
        As in :func:`promising_children`; a child is returned if its quality
        (its bound, with generalization awareness) exceeds ``threshold``.
    reference, downward, upward, size_weight, balance_weight, needs_both_classes
        The quality function's settings, as in
        :func:`subroc_ext.objective.statistics.statistics_kernel`.
    generalization : float
        The parent's ``max(q, g)`` with generalization awareness, ``-inf``
        without.
    sibling_best : float64[S - sibling_start]
        With generalization awareness, per selector ``c`` from
        ``sibling_start`` on, the ``max(q, g)`` of another pattern one
        selector shorter than the child with ``c`` (NaN or ``-inf`` where not
        known): the child's ``g`` is at least this and ``generalization``.
    sibling_start : int
        The selector of ``sibling_best[0]`` (the candidates start at or after it).
    count_bound : bool
        Apply the bounds from counts (``kind`` in
        :data:`~subroc_ext.scoring.joint_bounds.COUNT_BOUND_KINDS` and
        ``cap`` finite).
    profiled : bool
        A row mean's ``profile`` is built (for the bound from class counts;
        the bound from counts per word needs none).

    Returns
    -------
    children : int64[M]
        The candidates returned.
    raw_quality, weight, quality : float64[M]
        Their raw quality ``q``, weight and quality (with generalization
        awareness ``w * (q - g)`` with the lower bound of ``g``).
    evaluated : int
        Children whose measure was computed.
    """
    kept, positives, negatives = kept_children(
        parent, selector_words, candidates, positive_words, negative_words, selector_counts, group_start,
        group_end, kind, value_rank, profile, word_bounds, min_support, min_positives, min_negatives, cap,
        threshold, reference, downward, upward, size_weight, balance_weight, FALSE, max(generalization, 0.0),
        count_bound, profiled,
    )  # fmt: skip
    kept = ranked_in_reach(
        parent, selector_words, candidates, kept, positives, negatives, positive_words, negative_words, group_start,
        kind, reference, downward, upward, size_weight, balance_weight, needs_both_classes, generalization,
        sibling_best, sibling_start, threshold,
    )  # fmt: skip
    count = len(kept)
    if not count:  # none to measure: the arrays below not made (most nodes, once the threshold is high)
        return kept, np.empty(0), np.empty(0), np.empty(0), 0
    values, lowest, highest = np.empty(count), np.empty(count), np.empty(count)
    measure_children(
        parent, selector_words, candidates[kept], positive_words, negative_words, group_start,
        group_end, kind, row_values, FALSE, values, lowest, highest,
    )  # fmt: skip
    raw_quality, weight, quality = np.empty(count), np.empty(count), np.empty(count)
    entering = np.zeros(count, dtype=np.bool_)
    for j in range(count):
        i = kept[j]
        known = known_generalization(generalization, sibling_best, sibling_start, candidates[i])
        raw_quality[j], weight[j], quality[j] = leaf_quality(
            positives[i], negatives[i], values[j], known, reference, downward, upward, size_weight, balance_weight,
            needs_both_classes,
        )  # fmt: skip
        entering[j] = quality[j] > threshold
    return candidates[kept][entering], raw_quality[entering], weight[entering], quality[entering], count


@njit(cache=True, nogil=True)
def leaves_of_nodes(
    grandparent, nodes, estimates, qualities, caps, generalizations, sibling_best, sibling_start,
    live_threshold, joint_gate, next_start, selector_words, positive_words, negative_words, selector_counts,
    group_start, group_end, kind, row_values, value_rank, ascending_values, word_bounds, min_support,
    min_positives, min_negatives, reference, downward, upward, size_weight, balance_weight, needs_both_classes,
    count_bound,
):  # fmt: skip
    """:func:`leaf_children` of several sibling nodes one level above the
    maximum depth, in one call.

    Node ``j`` is ``grandparent AND selector nodes[j]``; its candidates are
    the selectors from ``next_start[nodes[j]]`` on (one per later
    attribute). A node is skipped when its estimate no longer exceeds
    ``live_threshold[0]``, which other threads may raise while this runs
    (a quality that at least ``k`` patterns reach: a stale value prunes
    less, never more); the node's children must exceed the value it has
    when the node starts. For ROC AUC and row means (``joint_gate > 0``) the
    estimate of a node within ``joint_gate`` times that value is first
    tightened by the joint bound of its cover
    (:func:`subroc_ext.scoring.joint_bounds.roc_auc_joint_bound`,
    :func:`subroc_ext.scoring.row_mean_bounds.row_mean_joint_bound`, offset by
    the node's ``max(q, g)``), as
    :meth:`~subroc_ext.engine.evaluators.CompiledEvaluator.tightened` does
    for nodes that are queued, here only for the nodes still open when
    their turn comes.

    Parameters
    ----------
    grandparent : uint64[W]
        Cover of the nodes' common parent.
    nodes : int64[J]
        The nodes' last selectors, in the order to expand them.
    estimates, qualities, caps, generalizations : float64[J]
        Per node: its optimistic estimate, its quality, the cap of its
        children's raw quality gain and its ``max(q, g)`` (``-inf`` without
        generalization awareness).
    sibling_best, sibling_start
        As in :func:`leaf_children`, for the children of every node: the
        ``max(q, g)`` of ``grandparent``'s pattern plus each selector.
    live_threshold : float64[1]
        The search's current threshold (read before each node).
    joint_gate : float
        Tighten estimates up to this multiple of the threshold by the joint
        bound (ROC AUC and row means with optimistic estimates), 0 for never.
    next_start : int64[S]
        First selector of the attributes after each selector's own.
    selector_words, positive_words, negative_words, selector_counts, group_start, group_end, kind, row_values
        As in :func:`leaf_children`.
    value_rank, ascending_values, word_bounds
        As in :func:`scored_children`: a row mean's leaves are bounded by
        their counts per word; a node whose joint bound is computed is
        profiled once for it and its leaves' bounds from class counts.
    min_support, min_positives, min_negatives, reference, downward, upward
        As in :func:`leaf_children`.
    size_weight, balance_weight, needs_both_classes
        As in :func:`leaf_children`.
    count_bound : bool
        ``kind`` has a bound from counts
        (:data:`~subroc_ext.scoring.joint_bounds.COUNT_BOUND_KINDS`; it
        applies where ``caps`` is finite).

    Returns
    -------
    node : int64[M]
        Index into ``nodes`` of each returned child's node.
    children, raw_quality, weight, quality
        As returned by :func:`leaf_children`, for all nodes.
    counted, evaluated : int
        Children whose class counts, and whose measure, were computed.
    """
    n_selectors = len(selector_words)
    room = 0
    for j in range(len(nodes)):
        room += n_selectors - next_start[nodes[j]]
    node = np.empty(room, dtype=np.int64)
    children = np.empty(room, dtype=np.int64)
    raw_quality, weight, quality = np.empty(room), np.empty(room), np.empty(room)
    found = counted = evaluated = 0
    cpos, cneg = np.empty_like(grandparent), np.empty_like(grandparent)  # scratch of the joint bound
    for j in range(len(nodes)):
        live = live_threshold[0]
        estimate = estimates[j]
        if not estimate > live:
            continue
        candidates = np.arange(next_start[nodes[j]], n_selectors)
        if not len(candidates):
            continue
        parent = grandparent & selector_words[nodes[j]]
        cap = caps[j]
        joint_wanted = joint_gate > 0 and estimate <= joint_gate * live
        bounded = count_bound and cap < np.inf
        # a row mean's leaves have their bound per word; the profile only where the joint bound reads it too
        profiled = joint_wanted or word_bounds is None
        profile = node_profile(kind, value_rank, ascending_values, parent, positive_words, negative_words,
                               joint_wanted or (bounded and profiled))  # fmt: skip
        if joint_wanted:
            joint = joint_of_words(kind, value_rank, profile, parent, positive_words, negative_words, group_start,
                                   group_end, reference, max(generalizations[j], 0.0), downward, upward,
                                   size_weight, balance_weight, min_support, live, estimate, cpos, cneg)  # fmt: skip
            if not min(estimate, max(joint, qualities[j])) > live:
                continue
        kept, raw, weights, leaf_qualities, measured = leaf_children(
            parent, selector_words, candidates, positive_words, negative_words, selector_counts,
            group_start, group_end, kind, row_values, value_rank, profile, word_bounds, min_support, min_positives,
            min_negatives, cap, live, reference, downward, upward, size_weight, balance_weight, needs_both_classes,
            generalizations[j], sibling_best, sibling_start, bounded, profiled,
        )  # fmt: skip
        counted += len(candidates)
        evaluated += measured
        for i in range(len(kept)):  # a loop, as in child_kernels.promising_children
            node[found], children[found] = j, kept[i]
            raw_quality[found], weight[found], quality[found] = raw[i], weights[i], leaf_qualities[i]
            found += 1
    return (node[:found], children[:found], raw_quality[:found], weight[:found], quality[:found],
            counted, evaluated)  # fmt: skip


@njit(cache=True, nogil=True)
def expand_to_leaves(parent, candidates, cap, threshold, offset, parent_best, shorter_rows, start,
                     live_threshold, data, settings):  # fmt: skip
    """A node two levels above the maximum depth in one call: its children
    (:func:`scored_children`; with generalization awareness
    :func:`aware_children`) and, unless some child's ``g`` must first be
    found outside (``pending``), their children, the leaves
    (:func:`leaves_of_nodes`, the children in order of decreasing estimate,
    those above ``live_threshold[0]``).

    Parameters
    ----------
    parent, candidates, cap, threshold, offset
        As in :func:`scored_children` (the node's children are expandable).
    parent_best, shorter_rows, start
        As in :func:`aware_children` (unused without generalization awareness).
    live_threshold : float64[1]
        As in :func:`leaves_of_nodes`.
    data : tuple
        ``selector_words, positive_words, negative_words, selector_counts,
        group_start, group_end, row_values, value_order, ascending_values,
        next_start, value_rank, word_bounds`` (as in :func:`scored_children` and
        :func:`leaves_of_nodes`).
    settings : tuple
        ``kind, min_support, min_positives, min_negatives, reference,
        downward, upward, size_weight, balance_weight, needs_both_classes,
        estimates, count_bound, joint_gate, aware``: the quality function's
        settings, whether ``kind`` has a bound from counts, the joint gate of
        :func:`leaves_of_nodes` and generalization awareness.

    Returns
    -------
    children, fields
        As in :func:`scored_children`.
    quality, estimate, bests : float64[M]
        The children's quality, estimate and ``max(q, g)`` (as
        :func:`aware_children` gives them; the statistics' own quality and
        estimate and ``-inf`` without generalization awareness).
    pending : int64[P]
        As in :func:`aware_children` (empty without generalization awareness).
    raw_row, best_row : float64[S - start]
        As in :func:`aware_children` (empty without generalization awareness).
    nodes : int64[J]
        The children whose leaves were searched, in that order (empty when
        ``pending`` is not).
    leaves : tuple
        What :func:`leaves_of_nodes` returns for them.
    """
    (selector_words, positive_words, negative_words, selector_counts, group_start, group_end, row_values,
     value_order, ascending_values, next_start, value_rank, word_bounds) = data  # fmt: skip
    (kind, min_support, min_positives, min_negatives, reference, downward, upward, size_weight,
     balance_weight, needs_both_classes, estimates_on, count_bound, joint_gate, aware) = settings  # fmt: skip
    children, _, _, fields, positives, negatives = scored_children(
        parent, selector_words, candidates, positive_words, negative_words, selector_counts, group_start,
        group_end, kind, row_values, value_order, ascending_values, value_rank, word_bounds, min_support,
        min_positives, min_negatives, cap, threshold, reference, downward, upward, size_weight, balance_weight,
        needs_both_classes, estimates_on, TRUE, offset, count_bound and cap < np.inf, aware,
    )  # fmt: skip
    # a leaf parent AND child AND c has at most the rows of parent AND c: counted (or bounded) just now
    sibling_counts = selector_counts.copy()
    sibling_counts[0, candidates] = positives
    sibling_counts[1, candidates] = negatives
    if aware:
        aware_fields, pending, raw_row, best_row = aware_children(
            children, fields[2], fields[1], fields[4], fields[5], parent_best, shorter_rows, threshold, TRUE,
            start, len(selector_words),
        )  # fmt: skip
        quality, estimate, bests = aware_fields[0], aware_fields[1], aware_fields[2]
        caps = np.maximum(fields[4] - bests, 0.0)
    else:
        quality, estimate = fields[3].copy(), fields[6].copy()
        bests = np.full(len(children), -np.inf)
        pending = np.empty(0, dtype=np.int64)
        raw_row, best_row = np.empty(0), np.empty(0)
        caps = np.maximum(fields[4], 0.0)
    order = np.argsort(-estimate, kind="mergesort")  # stable: ties in selector order
    if len(pending):
        order = order[:0]
    order = order[estimate[order] > live_threshold[0]]
    nodes = children[order]
    leaves = leaves_of_nodes(
        parent, nodes, estimate[order], quality[order], caps[order], bests[order], best_row, start,
        live_threshold, joint_gate, next_start, selector_words, positive_words, negative_words,
        sibling_counts, group_start, group_end, kind, row_values, value_rank, ascending_values, word_bounds,
        min_support, min_positives, min_negatives, reference, downward, upward, size_weight, balance_weight,
        needs_both_classes, count_bound,
    )  # fmt: skip
    return children, fields, quality, estimate, bests, pending, raw_row, best_row, nodes, leaves


@njit(cache=True, nogil=True)
def raw_qualities(parent, selector_words, candidates, positive_words, negative_words, selector_counts,
                  group_start, group_end, kind, row_values, min_positives, min_negatives, reference, downward,
                  upward, size_weight, balance_weight, needs_both_classes):  # fmt: skip
    """The raw quality ``q`` of ``parent AND selector`` for each candidate
    selector (``-inf`` where the measure is undefined), in one call: the class
    counts and where the measure is defined (:func:`promising_children`
    without a bound), the measure without extremes and
    :func:`subroc_ext.objective.statistics.statistics_kernel`'s ``q``, the
    floats of the quality function (the arguments as in :func:`leaf_children`)."""
    count = len(candidates)
    keep, positives, negatives = promising_children(
        parent, selector_words, candidates, positive_words, negative_words, selector_counts, 0, min_positives,
        min_negatives, np.inf, -np.inf, size_weight, balance_weight, FALSE,
    )  # fmt: skip
    defined = np.flatnonzero(keep)
    values, lowest, highest = np.empty(len(defined)), np.empty(len(defined)), np.empty(len(defined))
    measure_children(
        parent, selector_words, candidates[defined], positive_words, negative_words, group_start, group_end,
        kind, row_values, FALSE, values, lowest, highest,
    )  # fmt: skip
    out = np.full(count, -np.inf)
    for j in range(len(defined)):
        i = defined[j]
        out[i] = statistics_kernel(
            positives[i], negatives[i], TRUE, values[j], np.nan, np.nan, np.inf, reference, downward, upward,
            size_weight, balance_weight, needs_both_classes, FALSE,
        )[1]  # fmt: skip
    return out
