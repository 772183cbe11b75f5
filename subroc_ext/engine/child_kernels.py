"""Which of a node's children are worth measuring (compiled): their class
counts, and the bounds from counts that rule children out before their
measure (the first steps of :mod:`subroc_ext.engine.search_kernels`'
kernels, inlined into them).
"""

import numpy as np
from numba import njit

from ..scoring.bitset import popcount
from ..scoring.cover_kernels import count_children
from ..scoring.node_bounds import children_count_bounds, children_word_bounds
from ..scoring.weights import max_weight, subgroup_weight

__all__ = ["promising_children", "kept_children"]


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
