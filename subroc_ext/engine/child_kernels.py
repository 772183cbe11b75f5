"""Which of a node's children are worth measuring (compiled): their class
counts, and the bounds from counts that rule children out before their
measure (the first steps of :mod:`subroc_ext.engine.search_kernels`'
kernels, inlined into them), and for the children at the maximum depth by
a ranking measure, the bound from their class counts per word
(:func:`ranked_in_reach`).
"""

import numpy as np
from numba import njit

from ..objective.generalization import generalization_aware_kernel
from ..objective.statistics import statistics_kernel
from ..scoring.bitset import popcount
from ..scoring.cover_kernels import ARL, FALSE, ROC_AUC, TRUE, count_children, rank_measure
from ..scoring.node_bounds import children_count_bounds, children_word_bounds
from ..scoring.weights import max_weight, subgroup_weight

__all__ = [
    "promising_children", "kept_children", "twice_wins_range", "ranked_in_reach", "leaf_quality", "known_generalization",
]  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def promising_children(
    parent, selector_words, candidates, positive_words, negative_words, selector_counts, min_support,
    min_positives, min_negatives, cap, threshold, size_weight, balance_weight, expandable,
):  # fmt: skip
    """Class counts of every child and whether it is worth evaluating.

    Parameters
    ----------
    parent, selector_words, candidates, positive_words, negative_words
        As in :func:`subroc_ext.scoring.cover_kernels.count_children`.
    selector_counts : int64[2, S]
        Positives and negatives of every selector, or of any cover holding
        ``parent``'s rows that have the selector (:func:`expand_to_leaves`
        passes those of the parent's parent with each selector, counted one
        level up): a child has at most those and its parent's, so a child
        whose largest possible weight
        (:func:`subroc_ext.scoring.weights.max_weight`) cannot reach the
        threshold is ruled out without counting.
    min_support : int
        Smallest cover a pattern may have.
    min_positives, min_negatives : int
        The measure is defined on covers with at least these class counts
        (and at least one row), as
        :meth:`subroc_ext.scoring.measures.Measure.is_defined`.
    cap : float
        Bound of every child's raw quality gain (``inf``: no bound, keep
        every defined child).
    threshold : float
        Keep a child if ``weight * cap`` exceeds it, or (``expandable``) its
        largest subset weight times ``cap`` does.
    size_weight, balance_weight : float
    expandable : bool

    Returns
    -------
    keep : bool[K]
    positives, negatives : int64[K]
        Class counts of the children; for those ruled out without counting,
        the upper bounds that ruled them out (the smaller of the parent's and
        the selector's counts).

    Examples
    --------
    >>> from subroc_ext.scoring.bitset import pack
    >>> is_positive = np.array([True, False, True, False, True])
    >>> selectors = pack(np.array([[True, True, True, False, False],
    ...                            [False, False, True, True, True]]))
    >>> counts = np.array([[2, 2], [1, 1]])  # positives, negatives of each selector
    >>> keep, p, n = promising_children(
    ...     pack(np.ones(5, bool)), selectors, np.array([0, 1]), pack(is_positive),
    ...     pack(~is_positive), counts, 3, 1, 1, np.inf, 0.0, 1.0, 1.0, False)
    >>> keep.tolist(), p.tolist(), n.tolist()
    ([True, True], [2, 2], [1, 1])
    """
    k = len(candidates)
    positives = np.empty(k, dtype=np.int64)
    negatives = np.empty(k, dtype=np.int64)
    bounded = np.isfinite(cap)
    # a child has at most the rows of each class that both its parent and its selector have
    parent_positives = parent_negatives = 0
    for w in range(len(parent)):
        parent_positives += popcount(parent[w] & positive_words[w])
        parent_negatives += popcount(parent[w] & negative_words[w])
    possible = np.empty(k, dtype=np.bool_)
    for i in range(k):
        p = min(parent_positives, selector_counts[0, candidates[i]])
        n = min(parent_negatives, selector_counts[1, candidates[i]])
        positives[i], negatives[i] = p, n
        ok = p + n >= min_support and p >= min_positives and n >= min_negatives and p + n >= 1
        if ok and bounded:  # max_weight bounds every subset's weight (a margin for rounding)
            ok = max_weight(float(p), float(n), size_weight, balance_weight) * cap * (1.0 + 1e-12) > threshold
        possible[i] = ok
    counted = np.flatnonzero(possible)
    some_positives, some_negatives = np.empty(len(counted), np.int64), np.empty(len(counted), np.int64)
    count_children(parent, selector_words, candidates[counted], positive_words, negative_words, some_positives,
                   some_negatives)  # fmt: skip
    for j in range(len(counted)):  # a loop: an array assigned to an index compiles a 3 s error message
        positives[counted[j]], negatives[counted[j]] = some_positives[j], some_negatives[j]
    keep = np.zeros(k, dtype=np.bool_)
    for i in counted:
        p, n = positives[i], negatives[i]
        ok = p + n >= min_support and p >= min_positives and n >= min_negatives and p + n >= 1
        if ok and bounded:
            ok = subgroup_weight(float(p), float(n), size_weight, balance_weight) * cap > threshold
            if expandable and not ok:
                ok = max_weight(float(p), float(n), size_weight, balance_weight) * cap > threshold
        keep[i] = ok
    return keep, positives, negatives


@njit(cache=True, nogil=True, inline="always")
def kept_children(
    parent, selector_words, candidates, positive_words, negative_words, selector_counts, group_start,
    group_end, kind, value_rank, profile, word_bounds, min_support, min_positives, min_negatives, cap, threshold,
    reference, downward, upward, size_weight, balance_weight, expandable, offset, count_bound, profiled,
):  # fmt: skip
    """:func:`promising_children`, then (``count_bound``) the bounds from
    counts, with ``offset``: a child stays if ``min(w * cap, its bound)``
    exceeds ``threshold`` or, when ``expandable``, ``max_weight * cap`` does.

    The bound is the smaller of the bound from class counts
    (:func:`subroc_ext.scoring.node_bounds.children_count_bounds`; for a row
    mean from the parent's ``profile``, only where ``profiled``: built) and,
    for a row mean's children that are not ``expandable`` (``word_bounds``
    not None), the bound from class counts per word
    (:func:`subroc_ext.scoring.node_bounds.children_word_bounds`). The
    indices of the children kept into ``candidates``, and the class counts of
    all."""
    keep, positives, negatives = promising_children(
        parent, selector_words, candidates, positive_words, negative_words, selector_counts,
        min_support, min_positives, min_negatives, cap, threshold, size_weight, balance_weight, expandable,
    )  # fmt: skip
    kept = np.flatnonzero(keep)
    if not (count_bound and len(kept)):
        return kept, positives, negatives
    own = np.full(len(kept), np.inf)
    if profiled:
        children_count_bounds(kind, value_rank, profile, parent, positive_words, negative_words, group_start,
                              group_end, positives[kept], negatives[kept], reference, offset, downward, upward,
                              size_weight, balance_weight, own)  # fmt: skip
    if not expandable:
        per_word = np.empty(len(kept))
        if children_word_bounds(kind, word_bounds, parent, selector_words, candidates[kept], positive_words,
                                negative_words, positives[kept], negatives[kept], reference, offset, downward, upward,
                                size_weight, balance_weight, per_word):  # fmt: skip
            own = np.minimum(own, per_word)
    still = np.empty(len(kept), dtype=np.bool_)
    for j in range(len(kept)):
        p, n = float(positives[kept[j]]), float(negatives[kept[j]])
        still[j] = min(subgroup_weight(p, n, size_weight, balance_weight) * cap, own[j]) > threshold
        if expandable and not still[j]:
            still[j] = max_weight(p, n, size_weight, balance_weight) * cap > threshold
    return kept[still], positives, negatives


@njit(cache=True, nogil=True, inline="always")
def known_generalization(generalization, sibling_best, sibling_start, candidate):
    """The lower bound of ``g`` of a child at the maximum depth with the
    selector ``candidate``: ``generalization`` (its node's ``max(q, g)``;
    ``-inf`` without generalization awareness) or, with generalization
    awareness, ``sibling_best``'s ``max(q, g)`` of the candidate (NaN where
    not known; :func:`~subroc_ext.engine.search_kernels.leaf_children`),
    the larger."""
    sibling = candidate - sibling_start
    if generalization > -np.inf and 0 <= sibling < len(sibling_best) and sibling_best[sibling] > generalization:
        return sibling_best[sibling]
    return generalization


@njit(cache=True, nogil=True, inline="always")
def leaf_quality(positives, negatives, value, known, reference, downward, upward, size_weight, balance_weight,
                 needs_both_classes):  # fmt: skip
    """``raw_quality, weight, quality`` of a child at the maximum depth with
    the measure ``value``: :func:`~subroc_ext.objective.statistics.statistics_kernel`'s,
    with generalization awareness (``known > -inf``) the quality
    ``w * (q - g)`` with ``known`` for ``g``
    (:func:`~subroc_ext.objective.generalization.generalization_aware_kernel`).
    Each step is non-decreasing in ``q``, and ``q`` in the distance of
    ``value`` from the reference, so the quality of a value between two
    others is at most the larger of theirs."""
    fields = statistics_kernel(
        positives, negatives, TRUE, value, np.nan, np.nan, np.inf, reference, downward, upward, size_weight,
        balance_weight, needs_both_classes, FALSE,
    )  # fmt: skip
    quality = fields[3]
    if known > -np.inf:
        quality = generalization_aware_kernel(fields[2], fields[1], np.inf, np.inf, known)[0]
    return fields[1], fields[2], quality


@njit(cache=True, nogil=True, inline="always")
def twice_wins_range(parent, selector_words, candidate, positive_words, negative_words, fresh):
    """Bounds of ``2U`` (twice the Mann-Whitney count, as
    :func:`~subroc_ext.scoring.cover_kernels.measure_children` computes it)
    of ``parent AND`` the selector ``candidate`` from its class counts per
    word, in one pass.

    The rows are in ascending score order, and word ``v`` is ``fresh[v]``
    where its first row starts a tie group. A positive in word ``v`` is in
    a higher tie group than every negative before the last fresh word at or
    before ``v``, so each such pair counts 2; a negative likewise beats every
    positive before that word, so each such pair counts 0. Every other pair
    counts 0, 1 or 2. (The selector's words are indexed, not taken as a
    view: a view's reference count costs two atomic operations.)"""
    won = lost = 0
    positives = negatives = 0
    positives_below = negatives_below = 0  # before the last fresh word
    for w in range(len(parent)):
        if fresh[w]:
            positives_below, negatives_below = positives, negatives
        child = parent[w] & selector_words[candidate, w]
        p = np.int64(popcount(child & positive_words[w]))
        n = np.int64(popcount(child & negative_words[w]))
        won += p * negatives_below
        lost += n * positives_below
        positives += p
        negatives += n
    return 2 * won, 2 * (positives * negatives - lost)


@njit(cache=True, nogil=True, inline="always")
def ranked_in_reach(parent, selector_words, candidates, kept, positives, negatives, positive_words, negative_words,
                    group_start, kind, reference, downward, upward, size_weight, balance_weight, needs_both_classes,
                    generalization, sibling_best, sibling_start, threshold):  # fmt: skip
    """The children ``kept`` (indices into ``candidates``, at the maximum
    depth) whose quality may exceed ``threshold`` by the bounds of their
    ROC AUC or ARL from their class counts per word (:func:`twice_wins_range`),
    before their measure: for any other measure, or no threshold, all.

    The measure is :func:`~subroc_ext.scoring.cover_kernels.rank_measure`
    of ``2U``, monotone in it, so the child's quality is at most the larger
    :func:`leaf_quality` of the two bounds (``g`` bounded from below as
    :func:`~subroc_ext.engine.search_kernels.leaf_children` bounds it, by
    :func:`known_generalization`): a child whose both are at most
    ``threshold`` is one that ``leaf_children`` would measure and then drop.
    On Census at depth 4 the words are 390 and a child's rows a few hundred,
    so few pairs share a word and the bounds are within a fraction of a
    percent of the AUC: most children measured before are dropped here."""
    if not (kind == ROC_AUC or kind == ARL) or threshold == -np.inf or not len(kept):
        return kept
    fresh = np.empty(len(parent), dtype=np.bool_)
    for w in range(len(parent)):
        fresh[w] = group_start[w * 64] == w * 64
    reach = np.ones(len(kept), dtype=np.bool_)
    for j in range(len(kept)):
        i = kept[j]
        p, n = positives[i], negatives[i]
        if p == 0 or (n == 0 and kind == ROC_AUC):
            continue  # no measure: left to the measure's own path
        low, high = twice_wins_range(parent, selector_words, candidates[i], positive_words, negative_words, fresh)
        known = known_generalization(generalization, sibling_best, sibling_start, candidates[i])
        out_low = leaf_quality(p, n, rank_measure(kind, low, p, n), known, reference, downward, upward,
                               size_weight, balance_weight, needs_both_classes)[2] <= threshold  # fmt: skip
        out_high = leaf_quality(p, n, rank_measure(kind, high, p, n), known, reference, downward, upward,
                                size_weight, balance_weight, needs_both_classes)[2] <= threshold  # fmt: skip
        reach[j] = not (out_low and out_high)  # NaN: kept
    return kept[reach]
