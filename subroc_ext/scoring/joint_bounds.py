"""Joint, minimum-support-aware optimistic estimates of the ROC AUC quality,
and bounds from class counts of the ROC AUC and ARL qualities.

:mod:`subroc_ext.scoring.bounds` bounds the weighted quality of every subset ``T`` of
a cover ``C`` by the largest weight times the largest raw quality, two
maxima that different subsets reach (the lowest AUC needs a few badly ordered
pairs, the largest weight many rows). This module bounds them together and
honours the minimum support ``m``:

    J(C) = max over T of w(T) * (q(T) - offset)

over the subsets ``T`` of ``C`` with ``p >= 1`` positives, ``n >= 1``
negatives and ``p + n >= m`` rows; ``offset`` is 0 for the plain quality and
``max(q(S), g(S))`` of the pattern under generalization awareness (a
specialization's ``g`` is at least that, :mod:`subroc_ext.objective.generalization`).

Derivation
----------
1. *Extreme subsets of given class counts.* Among subsets with exactly ``p``
   positives and ``n`` negatives, the lowest AUC is that of the ``p``
   lowest-scored positives and the ``n`` highest-scored negatives,
   ``A_low(p, n)``: replacing a positive by a lower-scored one, or a
   negative by a higher-scored one, never raises a pair's indicator
   ``[s_i > s_j] + 1/2 [s_i = s_j]``. Likewise the highest AUC is
   ``A_high(p, n)``, the ``p`` highest positives against the ``n`` lowest
   negatives. Only scores matter, so ties in any order give the same value.
2. *Monotone in both counts.* Adding to the lowest ``p`` positives the next
   one up adds a positive that beats every chosen negative at least as often
   as any chosen positive does, so the mean cannot fall; adding to the
   highest ``n`` negatives the next one down adds a negative that every chosen
   positive beats at least as often: ``A_low`` is non-decreasing in ``p``
   and in ``n``, and by the mirror argument ``A_high`` is non-increasing.
3. *Blocks.* The counts are split into blocks ``[p0, p1] x [n0, n1]``
   (every count while a class has at most ``exact_up_to`` rows, then widths
   growing geometrically). Within a block, the minimum support leaves
   ``p >= max(p0, m - n1)`` and ``n >= max(n0, m - p1)``, so by 2. the raw
   quality minus ``offset`` is at most ``v``, its value at that corner. The
   weight ``(p + n)^alpha * cb^beta`` is, for fixed ``p``, increasing in ``n``
   up to ``n = p`` and then first decreasing, then (for ``alpha > beta``)
   increasing; so its maximum over a rectangle is at a corner or at the
   diagonal point ``(k, k)``, ``k = min(p1, n1)``. The block's bound is the
   largest weight times ``v`` when ``v >= 0``; else the smallest weight times
   ``v`` (the exact weight of a one-point block, ``max(m, p0 + n0)^alpha``
   when ``beta = 0``, and 0 otherwise, all weights being non-negative).
4. ``J`` is the largest block bound over the blocks and the signs of the
   mode (``"both"``: the larger of the two directions). With one-point blocks
   (classes of at most ``exact_up_to`` rows) it is exact: the subset of 1.
   that reaches it exists. ``-inf`` when no subset has ``m`` rows and both
   classes.
5. *Bounds from class counts, ROC AUC and ARL* (:func:`count_bounds`). A
   child ``C`` of a pattern with ``p`` positives and ``n`` negatives is one
   of the subsets of 1., so ``A_low(p, n) <= AUC(C) <= A_high(p, n)`` and
   ``w(C) * (q(C) - offset)`` is at most ``w(p, n)`` times the larger gain
   of the mode at those extremes. The average ranking loss, with ``U`` the
   Mann-Whitney count (ties one half) and ``AUC = U / (p n)``, is
   ``ARL = (p n - U) / p = n (1 - AUC)``: at fixed counts a decreasing function of ``U``, so
   its extremes over those subsets are ``n (1 - A_high(p, n))`` and
   ``n (1 - A_low(p, n))``, reached by the same two subsets, and its bound
   is built the same way (with ``ARL = 0`` for ``n = 0``, where ROC AUC is
   undefined). Each extreme is computed from its integer ``2U`` by the
   measure's own expression
   (:func:`subroc_ext.scoring.cover_kernels.rank_measure`), and rounding is
   monotone, so no subset's computed quality exceeds the bound.

The cost is ``O(words + min(P, N))`` for the profile of the cover's smaller
class (:func:`roc_auc_profile`), then ``O(log min(P, N))`` per block (prefix
sums and a binary search), at most about ``log_1.5 P * log_1.5 N`` blocks, of
which those that cannot beat the best so far are skipped row by row.
``tests/test_joint_bounds.py`` proves validity and tightness by enumerating
every subset of small covers, and that a slightly tightened copy is caught.
The bounds from counts take one profile of the parent, then ``O(log min(P,
N))`` per child.

References
----------
.. [1] T. Siegl, K. Coskun, B. Hiller, A. Mirzaei, F. Lemmerich and M. Becker,
   "SubROC: AUC-based discovery of exceptional subgroup performance for binary
   classifiers", 2025 (Appendix A: the lowest and highest AUC of a subset;
   this module refines them per class counts).
"""

import numpy as np
from numba import njit

from .bitset import count_below, highest_bit, lowest_bit, popcount, prefix_counts
from .cover_kernels import ARL, ROC_AUC, ROW_MEAN, rank_measure
from .weights import power, subgroup_weight

__all__ = [
    "COUNT_BOUND_KINDS",
    "EXACT_UP_TO",
    "GRID_DIVISOR",
    "roc_auc_profile",
    "roc_auc_joint_bound",
    "roc_auc_joint_children",
    "roc_auc_joint_of_words",
    "roc_auc_joint_bound_of_cover",
    "count_bounds",
]

#: Classes with at most this many rows get one block per count (an exact bound).
EXACT_UP_TO = 12
#: Above it, a block starting at count ``v`` spans ``max(1, v // GRID_DIVISOR)`` counts.
GRID_DIVISOR = 2
#: Measures (:mod:`subroc_ext.scoring.cover_kernels` codes) with a bound from class counts
#: (:func:`count_bounds`; a row mean's is :func:`subroc_ext.scoring.row_mean_bounds.row_mean_count_bounds`).
COUNT_BOUND_KINDS = (ROC_AUC, ARL, ROW_MEAN)


@njit(cache=True)
def roc_auc_profile(cpos, cneg, group_start, group_end):
    """The profile of a cover's smaller class (compiled): for each of its rows,
    the rows of the other class below its tie group's start and end, in an
    order that makes both non-decreasing.

    With fewer positives: each positive in ascending score order and the
    cover negatives below it. With fewer negatives the roles swap on the
    negated scores (AUC is unchanged when both the labels and the order are
    reversed): each negative in descending score order and the cover
    positives above it (strictly above its group, and at or above its
    start). :func:`roc_auc_joint_bound` is symmetric in the two class
    counts, so it gives the same number either way, at ``O(min(P, N))``.

    Parameters
    ----------
    cpos, cneg : uint64[W]
        The cover's positive and negative rows (rows in ascending score order).
    group_start, group_end : int64[n]
        Tie group bounds of every row (:func:`subroc_ext.scoring.cover_kernels.tie_group_bounds`).

    Returns
    -------
    (below_start, below_end, others) : (int64[k], int64[k], int)
        ``k = min(P, N)``; ``others`` is the other class's count.
    """
    pre_neg = np.empty(len(cneg) + 1, dtype=np.int64)
    negatives = prefix_counts(cneg, pre_neg)
    pre_pos = np.empty(len(cpos) + 1, dtype=np.int64)
    positives = prefix_counts(cpos, pre_pos)
    swap = negatives < positives
    size = negatives if swap else positives
    below_start = np.empty(size, dtype=np.int64)
    below_end = np.empty(size, dtype=np.int64)
    i = 0
    if not swap:
        for w in range(len(cpos)):
            x = cpos[w]
            while x:
                row = w * 64 + lowest_bit(x)
                x &= x - np.uint64(1)
                below_start[i] = count_below(cneg, pre_neg, group_start[row])
                below_end[i] = count_below(cneg, pre_neg, group_end[row])
                i += 1
        return below_start, below_end, negatives
    for w in range(len(cneg) - 1, -1, -1):
        x = cneg[w]
        while x:
            bit = highest_bit(x)
            x &= ~(np.uint64(1) << np.uint64(bit))
            row = w * 64 + bit
            below_start[i] = positives - count_below(cpos, pre_pos, group_end[row])
            below_end[i] = positives - count_below(cpos, pre_pos, group_start[row])
            i += 1
    return below_start, below_end, positives


@njit(cache=True, inline="always")
def _sum_excess(values, prefix, count, floor):
    """``sum over i < count of max(0, values[i] - floor)`` for non-decreasing ``values``."""
    first = min(np.searchsorted(values, floor, side="right"), count)
    return (prefix[count] - prefix[first]) - floor * (count - first)


@njit(cache=True, inline="always")
def _sum_capped(values, prefix, start, cap):
    """``sum over i >= start of min(values[i], cap)`` for non-decreasing ``values``."""
    size = len(values)
    split = max(np.searchsorted(values, cap, side="right"), start)
    return (prefix[split] - prefix[start]) + cap * (size - split)


@njit(cache=True, inline="always")
def _extreme_twice(below_start, below_end, prefix_start, prefix_end, others, p, n, direction):
    """Twice the Mann-Whitney count of the subset reaching ``A_low(p, n)``
    (direction 0) or ``A_high(p, n)`` (1), from a profile and its prefix
    sums; ``p`` counts the profile's class, ``n`` the other."""
    if direction == 0:  # the p lowest of the profile's class against the n highest others
        skipped = others - n
        twice = _sum_excess(below_start, prefix_start, p, skipped)
        return twice + _sum_excess(below_end, prefix_end, p, skipped)
    # the p highest of the profile's class against the n lowest others
    start = len(below_start) - p
    return _sum_capped(below_start, prefix_start, start, n) + _sum_capped(below_end, prefix_end, start, n)


@njit(cache=True, inline="always")
def _extreme_gain(below_start, below_end, prefix_start, prefix_end, others, p, n, direction, reference,
                  offset):  # fmt: skip
    """``reference - A_low(p, n) - offset`` (direction 0, worse) or
    ``A_high(p, n) - reference - offset`` (1, better)
    (:func:`_extreme_twice`)."""
    twice = _extreme_twice(below_start, below_end, prefix_start, prefix_end, others, p, n, direction)
    pairs = 2.0 * p * n
    if direction == 0:
        return (reference - twice / pairs) - offset
    return (twice / pairs - reference) - offset


@njit(cache=True)
def _prefix_sums(values):
    prefix = np.zeros(len(values) + 1, dtype=np.int64)
    for i in range(len(values)):
        prefix[i + 1] = prefix[i] + values[i]
    return prefix


@njit(cache=True)
def _block_starts(count, exact_up_to, divisor):
    starts = [1]
    value = 1
    while True:
        value += 1 if count <= exact_up_to else max(1, value // divisor)
        if value > count:
            break
        starts.append(value)
    starts.append(count + 1)  # sentinel: the end of the last block
    return np.array(starts, dtype=np.int64)


@njit(cache=True, inline="always")
def _largest_weight(p0, p1, n0, n1, alpha, beta):
    """Largest weight over ``[p0, p1] x [n0, n1]``: a corner or the diagonal."""
    best = max(
        max(subgroup_weight(p0, n0, alpha, beta), subgroup_weight(p0, n1, alpha, beta)),
        max(subgroup_weight(p1, n0, alpha, beta), subgroup_weight(p1, n1, alpha, beta)),
    )
    k = min(p1, n1)
    if max(p0, n0) <= k:
        best = max(best, subgroup_weight(k, k, alpha, beta))
    return best


@njit(cache=True)
def roc_auc_joint_bound(below_start, below_end, negatives, reference, offset, downward, upward,
                        alpha, beta, min_support, exact_up_to, divisor, floor, stop_at):  # fmt: skip
    """``J``: an upper bound of ``w(T) * (q(T) - offset)`` over the subsets ``T``
    of a cover with both classes and at least ``min_support`` rows (compiled;
    the module docstring derives it).

    Parameters
    ----------
    below_start, below_end, negatives
        :func:`roc_auc_profile` of the cover.
    reference : float
        ROC AUC on the whole data.
    offset : float
        Subtracted from the raw quality (0, or ``max(q, g)`` of the pattern).
    downward, upward : bool
        Whether the mode's signs hold -1 (worse) and +1 (better).
    alpha, beta : float
        The weight's exponents.
    min_support : int
        Fewest rows of a subset.
    exact_up_to, divisor : int
        The block grid (:data:`EXACT_UP_TO`, :data:`GRID_DIVISOR`).
    floor : float
        Blocks whose bound is at most ``floor`` may be skipped (the result is
        then at least ``floor``): a search passes the quality a pattern must
        exceed, ``-inf`` gives the bound itself.
    stop_at : float
        Return as soon as the bound reaches this (a known estimate it cannot
        improve on); ``inf`` computes it fully.

    Returns
    -------
    float
        ``-inf`` when no subset qualifies; exact when both classes have at
        most ``exact_up_to`` rows and ``floor`` and ``stop_at`` are infinite.

    Notes
    -----
    The raw part ``v`` of a block's bound falls as the block's ``n`` grows
    (step 2 of the derivation) while the minimum support does not move its
    corner, so once the largest weight of the whole cover times ``v`` (0 when
    ``v < 0``) is at most the bound found so far (or ``floor``), the later
    blocks of that row are skipped.
    """
    positives = len(below_start)
    if positives == 0 or negatives == 0 or positives + negatives < min_support:
        return -np.inf
    prefix_start, prefix_end = _prefix_sums(below_start), _prefix_sums(below_end)
    p_starts = _block_starts(positives, exact_up_to, divisor)
    n_starts = _block_starts(negatives, exact_up_to, divisor)
    heaviest = _largest_weight(1, positives, 1, negatives, alpha, beta)
    best = -np.inf
    for direction in range(2):
        if not (downward if direction == 0 else upward):
            continue
        for a in range(len(p_starts) - 1):
            p1 = p_starts[a + 1] - 1
            for b in range(len(n_starts) - 1):
                n1 = n_starts[b + 1] - 1
                p0 = max(p_starts[a], min_support - n1)
                n0 = max(n_starts[b], min_support - p1)
                if p0 > p1 or n0 > n1:
                    continue
                value = _extreme_gain(
                    below_start, below_end, prefix_start, prefix_end, negatives, p0, n0, direction,
                    reference, offset,
                )  # fmt: skip
                cut = max(best, floor)
                if p0 == p_starts[a] and n0 == n_starts[b] and (
                    heaviest * value <= cut if value >= 0 else cut >= 0
                ):
                    break  # v only falls along the rest of the row: no bound above cut
                if value >= 0:
                    bound = _largest_weight(p0, p1, n0, n1, alpha, beta) * value
                elif p0 == p1 and n0 == n1:
                    bound = subgroup_weight(p0, n0, alpha, beta) * value
                elif beta == 0:
                    bound = power(float(max(min_support, p0 + n0)), alpha) * value
                else:
                    bound = 0.0
                best = max(best, bound)
                if best >= stop_at:
                    return best
    return max(best, floor)


@njit(cache=True, inline="always")
def roc_auc_joint_of_words(cover, positive_words, negative_words, group_start, group_end, reference, offset,
                           downward, upward, alpha, beta, min_support, floor, stop_at, cpos, cneg):  # fmt: skip
    """:func:`roc_auc_joint_bound` of the cover ``cover`` (uint64[W]; ``cpos``
    and ``cneg`` are scratch words of its length, the other arguments as in
    :func:`roc_auc_joint_children`), compiled."""
    for w in range(len(cover)):
        cpos[w] = cover[w] & positive_words[w]
        cneg[w] = cover[w] & negative_words[w]
    below_start, below_end, negatives = roc_auc_profile(cpos, cneg, group_start, group_end)
    return roc_auc_joint_bound(
        below_start, below_end, negatives, reference, offset, downward, upward, alpha, beta,
        min_support, EXACT_UP_TO, GRID_DIVISOR, floor, stop_at,
    )  # fmt: skip


@njit(cache=True, nogil=True)
def roc_auc_joint_children(parent, selector_words, candidates, positive_words, negative_words,
                           group_start, group_end, reference, offsets, downward, upward, alpha, beta,
                           min_support, floor, stop_at, out):  # fmt: skip
    """:func:`roc_auc_joint_bound` of ``parent AND selector`` for each
    candidate selector, with its own ``offsets[i]`` and ``stop_at[i]``, into
    ``out`` (compiled; the arguments as in
    :func:`subroc_ext.scoring.cover_kernels.count_children`)."""
    n_words = len(parent)
    child = np.empty(n_words, dtype=np.uint64)
    cpos = np.empty(n_words, dtype=np.uint64)
    cneg = np.empty(n_words, dtype=np.uint64)
    for i in range(len(candidates)):
        selector = selector_words[candidates[i]]
        for w in range(n_words):
            child[w] = parent[w] & selector[w]
        out[i] = roc_auc_joint_of_words(
            child, positive_words, negative_words, group_start, group_end, reference, offsets[i], downward,
            upward, alpha, beta, min_support, floor, stop_at[i], cpos, cneg,
        )  # fmt: skip


def roc_auc_joint_bound_of_cover(cover, reference, offset, directions, size_weight, balance_weight,
                                 min_support):  # fmt: skip
    """:func:`roc_auc_joint_bound` of a :class:`~subroc_ext.scoring.measures.Cover`
    (the profile from its scores with :func:`numpy.searchsorted`).

    Parameters
    ----------
    cover : subroc_ext.scoring.measures.Cover
    reference, offset : float
        ROC AUC on the whole data, and what is subtracted from the raw quality.
    directions : tuple of int
        :func:`subroc_ext.scoring.bounds.signs` of the quality function.
    size_weight, balance_weight : float
    min_support : int

    Examples
    --------
    >>> from subroc_ext.scoring.measures import Cover
    >>> cover = Cover.from_arrays([True, False, True, False], [0.1, 0.2, 0.3, 0.4])
    >>> float(roc_auc_joint_bound_of_cover(cover, 0.75, 0.0, (-1,), 0.0, 0.0, 1))  # {0.1+, 0.4-}: AUC 0
    0.75
    >>> float(roc_auc_joint_bound_of_cover(cover, 0.75, 0.0, (-1,), 0.0, 0.0, 4))  # all 4 rows: AUC 1/4
    0.5
    >>> float(roc_auc_joint_bound_of_cover(cover, 0.75, 0.0, (-1,), 1.0, 1.0, 1))  # the whole cover
    2.0
    """
    scores = cover.scores
    ranked, others = scores[cover.is_positive], scores[~cover.is_positive]
    if len(others) < len(ranked):  # the smaller class, on negated scores (roc_auc_profile)
        ranked, others = -others[::-1], -ranked[::-1]
    return float(roc_auc_joint_bound(
        np.searchsorted(others, ranked, side="left").astype(np.int64),
        np.searchsorted(others, ranked, side="right").astype(np.int64),
        len(others), float(reference), float(offset), -1 in directions, 1 in directions,
        float(size_weight), float(balance_weight), int(min_support), EXACT_UP_TO, GRID_DIVISOR,
        -np.inf, np.inf,
    ))  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def count_bounds(kind, parent, positive_words, negative_words, group_start, group_end, positives,
                 negatives, reference, offset, downward, upward, alpha, beta, out):  # fmt: skip
    """A bound of ``w(C) * (q(C) - offset)`` for each child ``C`` of ``parent``
    from the child's class counts alone, into ``out`` (compiled).

    A child with ``p`` positives and ``n`` negatives is a subset of the
    parent, so its AUC lies in ``[A_low(p, n), A_high(p, n)]`` of the parent
    and its ARL in ``[n (1 - A_high(p, n)), n (1 - A_low(p, n))]`` (steps 1
    and 5 of the module's derivation): the bound is ``w(p, n)`` times the
    larger gain of the mode at those extremes, each computed from its
    Mann-Whitney count by the measure's own expression
    (:func:`~subroc_ext.scoring.cover_kernels.rank_measure`), so no child's
    quality exceeds it. One profile of the parent (:func:`roc_auc_profile`),
    then ``O(log min(P, N))`` per child; ``-inf`` for a child on which the
    measure is undefined (no positive, or for ROC AUC no negative).

    Parameters
    ----------
    kind : int
        One of :data:`COUNT_BOUND_KINDS`.
    parent, positive_words, negative_words, group_start, group_end
        As in :func:`roc_auc_joint_children`.
    positives, negatives : int64[K]
        Class counts of the children.
    reference : float
        The measure on the whole data.
    offset, downward, upward, alpha, beta
        As in :func:`roc_auc_joint_bound`.
    out : float64[K]

    Examples
    --------
    Rows in ascending score order, labels ``+ - + -``; children with one
    positive and one negative, and with one positive alone (ARL 0):

    >>> from subroc_ext.scoring.bitset import pack
    >>> from subroc_ext.scoring.cover_kernels import ARL
    >>> labels = np.array([True, False, True, False])
    >>> out = np.empty(2)
    >>> count_bounds(ARL, pack(np.ones(4, bool)), pack(labels), pack(~labels), np.arange(4),
    ...              np.arange(1, 5), np.array([1, 1]), np.array([1, 0]), 0.75, 0.0, False, True,
    ...              0.0, 0.0, out)
    >>> out.tolist()  # the lowest positive with the highest negative: ARL 1
    [0.25, -0.75]
    """
    cpos = parent & positive_words
    cneg = parent & negative_words
    below_start, below_end, others = roc_auc_profile(cpos, cneg, group_start, group_end)
    parent_positives = 0
    for w in range(len(cpos)):
        parent_positives += popcount(cpos[w])
    swapped = len(below_start) != parent_positives  # the profile holds the negatives
    prefix_start, prefix_end = _prefix_sums(below_start), _prefix_sums(below_end)
    lowest = 0 if kind == ROC_AUC else 1  # the extreme (A_low 0, A_high 1) of the lowest value
    for i in range(len(positives)):
        p, n = positives[i], negatives[i]
        if p == 0 or (n == 0 and kind == ROC_AUC):
            out[i] = -np.inf
            continue
        a, b = (n, p) if swapped else (p, n)
        gain = -np.inf
        for sign in range(2):  # -1, then +1
            if not (downward if sign == 0 else upward):
                continue
            twice = 0  # ARL without negatives: 0
            if n > 0:
                extreme = lowest if sign == 0 else 1 - lowest
                twice = _extreme_twice(below_start, below_end, prefix_start, prefix_end, others, a, b,
                                       extreme)  # fmt: skip
            difference = rank_measure(kind, twice, p, n) - reference
            gain = max(gain, (-difference if sign == 0 else difference) - offset)
        out[i] = subgroup_weight(p, n, alpha, beta) * gain
