"""Bounds of a row mean's quality from a child's class counts (compiled).

A child ``C`` of a pattern with ``p`` positives and ``n`` negatives is one of
the parent's subsets with those counts, and among them the largest mean of
the per-row values ``v`` is that of the ``p`` largest positives' and the
``n`` largest negatives' values (the smallest mean likewise from the
smallest): so ``mean(C) <= (top_P(p) + top_N(n)) / (p + n)`` with ``top``
the sums of the largest values of each class of the parent. The quality
``w(p, n) * (s * (mean(C) - reference) - offset)`` of each sign ``s`` of the
mode is then at most ``w(p, n)`` times that extreme's gain: the bound from
class counts of :func:`subroc_ext.scoring.joint_bounds.count_bounds`, for a
row mean (``calibration_gap``, Brier score, log loss), where each class's
values spread (a calibration gap's positives hold ``1 - p_i``, its
negatives ``-p_i``) and a child's mean lies far inside the parent's extremes.

The sums of sorted values are not the sums the kernels add in row order, so
each extreme is widened by a relative margin (:data:`MARGIN` of the largest
magnitude involved) before the difference to the reference goes through the
quality's own rounding map (:func:`~subroc_ext.scoring.bounds.beyond_rounding`,
monotone): no child's computed quality exceeds its bound.
``tests/test_row_mean_bounds.py`` checks this by enumerating every subset of
small covers. Both bounds read one profile of the node, its classes' values
in ascending order (:func:`class_profile`, no sort: ``O(rows + n / 64)``),
then cost ``O(1)`` per child.
"""

import numpy as np
from numba import njit

from .bitset import lowest_bit, permute, popcount
from .bounds import beyond_rounding
from .weights import power, subgroup_weight

__all__ = ["MARGIN", "class_profile", "row_mean_count_bounds", "row_mean_joint_bound", "word_extremes",
           "row_mean_word_bounds"]

#: Relative widening of each extreme mean (sorted sums against the kernels' sums in row order).
MARGIN = 1e-12


@njit(cache=True, nogil=True)
def _ascending_sums(words, value_rank, ascending_values):
    """``0, v_1, v_1 + v_2, ...``: prefix sums of the values of the rows of
    bitset ``words`` in ascending order (length ``count + 1``), and the
    largest magnitude among them.

    No sort: each row's rank in the whole data's value order marks a bitset
    of ranks, whose set bits, read in order, are the rows' values in
    ascending order (``O(rows + n / 64)``)."""
    ranks = np.empty(len(words), dtype=np.uint64)  # ranks < n: as many words as the rows' bitset
    permute(words, value_rank, ranks)
    count = 0
    for w in range(len(words)):
        count += popcount(words[w])
    sums = np.zeros(count + 1)
    smallest = largest = 0.0
    i = 0
    for w in range(len(ranks)):
        x = ranks[w]
        while x:
            value = ascending_values[w * 64 + lowest_bit(x)]
            sums[i + 1] = sums[i] + value
            if i == 0:
                smallest = value
            largest = value
            x &= x - np.uint64(1)
            i += 1
    return sums, max(abs(smallest), abs(largest))


@njit(cache=True, nogil=True)
def class_profile(words, positive_words, negative_words, value_rank, ascending_values):
    """What both bounds of a node read: the prefix sums of each class's values
    over the rows of bitset ``words`` in ascending order, and the largest
    magnitude among them.

    Parameters
    ----------
    words, positive_words, negative_words : uint64[W]
        Bitsets of the node's rows and of each class.
    value_rank : int64[n]
        Each row's position in the whole data's ascending value order.
    ascending_values : float64[n]
        The per-row values in that order.

    Returns
    -------
    positive_sums, negative_sums : float64
        ``0, v_1, v_1 + v_2, ...`` of each class's values in ascending order.
    largest : float
        The largest magnitude of a value of the node.

    Examples
    --------
    >>> from subroc_ext.scoring.bitset import pack
    >>> values = np.array([0.9, 0.1, -0.2, -0.6])
    >>> order = np.argsort(values, kind="stable")
    >>> rank = np.empty(4, np.int64); rank[order] = np.arange(4)
    >>> labels = np.array([True, True, False, False])
    >>> pos, neg, largest = class_profile(pack(np.ones(4, bool)), pack(labels), pack(~labels), rank, values[order])
    >>> pos.round(6).tolist(), neg.round(6).tolist(), largest
    ([0.0, 0.1, 1.0], [0.0, -0.6, -0.8], 0.9)
    """
    positive_sums, positive_largest = _ascending_sums(words & positive_words, value_rank, ascending_values)
    negative_sums, negative_largest = _ascending_sums(words & negative_words, value_rank, ascending_values)
    return positive_sums, negative_sums, max(positive_largest, negative_largest)


@njit(cache=True, nogil=True)
def row_mean_count_bounds(positive_sums, negative_sums, largest, positives, negatives, reference, offset,
                          downward, upward, alpha, beta, out):  # fmt: skip
    """A bound of ``w(C) * (q(C) - offset)`` for each child ``C`` of a parent
    from its class counts alone, into ``out`` (see the module).

    Parameters
    ----------
    positive_sums, negative_sums, largest
        The parent's :func:`class_profile`.
    positives, negatives : int64[K]
        Class counts of the children.
    reference : float
        The measure on the whole data.
    offset : float
        What each child's quality subtracts at least (0, or the parent's
        ``max(q, g)`` with generalization awareness).
    downward, upward : bool
        The signs of the mode (-1, +1).
    alpha, beta : float
        The weight exponents.
    out : float64[K]
        ``-inf`` for an empty child.

    Examples
    --------
    >>> positive_sums = np.array([0.0, 0.1, 1.0])  # the positives 0.1 and 0.9
    >>> negative_sums = np.array([0.0, -0.6, -0.8])  # the negatives -0.6 and -0.2
    >>> out = np.empty(2)
    >>> row_mean_count_bounds(positive_sums, negative_sums, 0.9, np.array([1, 2]), np.array([1, 0]), 0.0, 0.0,
    ...                       False, True, 0.0, 0.0, out)
    >>> out.round(6).tolist()  # (0.9 - 0.2) / 2; (0.9 + 0.1) / 2
    [0.35, 0.5]
    """
    total_p, total_n = len(positive_sums) - 1, len(negative_sums) - 1
    slack = MARGIN * max(largest, abs(reference))
    for i in range(len(positives)):
        p, n = positives[i], negatives[i]
        if p + n == 0:
            out[i] = -np.inf
            continue
        size = float(p + n)
        # the largest mean: the p largest positives, the n largest negatives; the smallest likewise
        highest = (positive_sums[total_p] - positive_sums[total_p - p]
                   + negative_sums[total_n] - negative_sums[total_n - n]) / size
        lowest = (positive_sums[p] + negative_sums[n]) / size
        out[i] = _weighted_gain(highest + slack, lowest - slack, p, n, reference, offset, downward, upward, alpha,
                                beta)  # fmt: skip


@njit(cache=True, nogil=True, inline="always")
def _weighted_gain(highest, lowest, p, n, reference, offset, downward, upward, alpha, beta):
    """``w(p, n)`` times the largest gain ``s * (mean - reference) - offset``
    of a child whose mean lies in ``[lowest, highest]`` (already widened),
    each difference through the quality's rounding map."""
    gain = -np.inf
    if upward:
        gain = max(gain, beyond_rounding(highest - reference, abs(reference)) - offset)
    if downward:
        gain = max(gain, -beyond_rounding(lowest - reference, abs(reference)) - offset)
    return subgroup_weight(float(p), float(n), alpha, beta) * gain


@njit(cache=True, nogil=True)
def word_extremes(row_values, positive_words, negative_words):
    """The largest and smallest value of each word's positive rows and of its
    negative rows (for :func:`row_mean_word_bounds`), once per search.

    Parameters
    ----------
    row_values : float64[n]
        The per-row values, in row order.
    positive_words, negative_words : uint64[W]
        Bitsets of each class.

    Returns
    -------
    extremes : float64[4, W]
        Per word: the positives' largest and smallest value, the negatives'
        largest and smallest (0 where the word has no row of the class: no
        child counts it).
    largest : float
        The largest magnitude of a value of either class.

    Examples
    --------
    >>> from subroc_ext.scoring.bitset import pack
    >>> labels = np.array([True, False, True, False])
    >>> extremes, largest = word_extremes(np.array([0.9, -0.2, 0.4, -0.6]), pack(labels), pack(~labels))
    >>> extremes[:, 0].tolist(), largest
    ([0.9, 0.4, -0.2, -0.6], 0.9)
    """
    extremes = np.zeros((4, len(positive_words)))
    largest = 0.0
    for w in range(len(positive_words)):
        for c, words in ((0, positive_words), (2, negative_words)):
            x = words[w]
            if not x:
                continue
            high, low = -np.inf, np.inf
            while x:
                value = row_values[w * 64 + lowest_bit(x)]
                high, low = max(high, value), min(low, value)
                x &= x - np.uint64(1)
            extremes[c, w], extremes[c + 1, w] = high, low
            largest = max(largest, abs(high), abs(low))
    return extremes, largest


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def row_mean_word_bounds(parent, selector_words, candidates, positive_words, negative_words, extremes, largest,
                         positives, negatives, reference, offset, downward, upward, alpha, beta, out):  # fmt: skip
    """A bound of ``w(C) * (q(C) - offset)`` for each child ``C = parent AND
    selector`` from its class counts in each word, into ``out``.

    A child's sum is at most the sum over the words of its positives' count
    times the word's largest positive value plus the same for its negatives
    (at least, with the smallest): where rows are in score order and a row's
    value is monotone in the score within its class (calibration gap, Brier
    score, log loss), the values of a word's 64 neighbouring rows differ
    little, and the bound is close to the child's own mean. ``O(W)`` per
    child, every word in order, in any order of the additions (a loop the
    compiler vectorizes): far less than the sum over a child's rows that it
    spares. The bound (its terms added in any order) and the kernels' sum in
    row order each differ from the exact sum by at most ``2 W u`` and
    ``size * u`` times the largest magnitude per row (Higham 2002, eq. 4.4,
    ``u = 2^-53``): each extreme mean is widened by ``(size + 2 W) * 2^-52``
    times that magnitude.

    Parameters
    ----------
    parent, selector_words, candidates, positive_words, negative_words
        As in :func:`subroc_ext.scoring.cover_kernels.count_children`.
    extremes, largest
        :func:`word_extremes` of the search.
    positives, negatives : int64[K]
        Class counts of the children.
    reference, offset, downward, upward, alpha, beta, out
        As in :func:`row_mean_count_bounds`.

    References
    ----------
    .. [1] N. J. Higham, "Accuracy and Stability of Numerical Algorithms",
       2nd ed., SIAM, 2002 (Section 4.2, summation).

    Examples
    --------
    >>> from subroc_ext.scoring.bitset import pack
    >>> labels = np.array([True, False, True, False])
    >>> extremes, largest = word_extremes(np.array([0.9, -0.2, 0.4, -0.6]), pack(labels), pack(~labels))
    >>> out = np.empty(1)
    >>> row_mean_word_bounds(pack(np.ones(4, bool)), pack(np.array([[True, True, False, False]])), np.array([0]),
    ...                      pack(labels), pack(~labels), extremes, largest, np.array([1]), np.array([1]), 0.0, 0.0,
    ...                      False, True, 0.0, 0.0, out)
    >>> round(out[0], 6)  # (0.9 - 0.2) / 2
    0.35
    """
    parent_positives = parent & positive_words
    parent_negatives = parent & negative_words
    positive_high, positive_low, negative_high, negative_low = extremes[0], extremes[1], extremes[2], extremes[3]
    scale = max(largest, abs(reference))
    for i in range(len(candidates)):
        p, n = positives[i], negatives[i]
        if p + n == 0:
            out[i] = -np.inf
            continue
        selector = selector_words[candidates[i]]
        high = low = 0.0
        for j in range(len(parent)):
            word = selector[j]
            in_positives = float(popcount(parent_positives[j] & word))
            in_negatives = float(popcount(parent_negatives[j] & word))
            high += in_positives * positive_high[j] + in_negatives * negative_high[j]
            low += in_positives * positive_low[j] + in_negatives * negative_low[j]
        size = float(p + n)
        slack = (size + 2.0 * len(parent)) * 2.0**-52 * scale
        out[i] = _weighted_gain(high / size + slack, low / size - slack, p, n, reference, offset, downward, upward,
                                alpha, beta)  # fmt: skip


@njit(cache=True)
def _gains(sums, sign, shift):
    """``A(k) = sum of the k most extreme values (the largest for sign +1, the
    smallest negated for -1) - shift * k``, k = 0..count: concave in k."""
    count = len(sums) - 1
    gains = np.empty(count + 1)
    for k in range(count + 1):
        extreme = sums[count] - sums[count - k] if sign > 0 else -sums[k]
        gains[k] = extreme - shift * k
    return gains


@njit(cache=True)
def _edges(count):
    """Block starts 0, 1, ..., 8, then growing by half, and ``count + 1``."""
    edges = [0]
    while edges[-1] <= count:
        edges.append(edges[-1] + 1 if edges[-1] < 8 else edges[-1] + edges[-1] // 2)
    edges[-1] = count + 1
    return edges


@njit(cache=True, nogil=True)
def row_mean_joint_bound(positive_sums, negative_sums, largest, reference, offset, downward, upward, alpha, beta,
                         min_support):  # fmt: skip
    """A bound of ``w(T) * (s * (mean(T) - reference) - offset)`` over every
    subset ``T`` of a node (its :func:`class_profile`) with at least ``min_support`` rows and every
    sign ``s`` of the mode (0 when none is positive): the joint optimistic
    estimate of a row mean, as
    :func:`subroc_ext.scoring.joint_bounds.roc_auc_joint_of_words` is ROC AUC's.

    With ``c = s * reference + offset`` and ``A(p)``, ``B(n)`` the sums of
    each class's ``p`` (``n``) most extreme values minus ``c`` per row (the
    best subset of those counts, see the module), a subset's quality is at
    most ``(p + n)^(alpha - 1) * cb^beta * (A(p) + B(n))``. The counts are
    cut into blocks (every count up to 8, then widths growing by half); in a
    block, ``A`` and ``B`` are concave, so each is at most its value at the
    count nearest its peak, and the weight factor at most its largest value
    over the block (``(p + n)^(alpha - 1)`` at the smallest or largest size,
    the class balance 1 where the block meets the diagonal, else at the
    corner nearest it). The sums are widened by :data:`MARGIN` per row
    against the kernels' rounding.
    """
    total_p, total_n = len(positive_sums) - 1, len(negative_sums) - 1
    slack = MARGIN * max(largest, abs(reference))
    smallest = max(min_support, 1)
    p_edges, n_edges = _edges(total_p), _edges(total_n)
    best = 0.0
    for sign, wanted in ((1.0, upward), (-1.0, downward)):
        if not wanted or total_p + total_n < smallest:
            continue
        shift = sign * reference + offset
        a, b = _gains(positive_sums, sign, shift), _gains(negative_sums, sign, shift)
        a_peak, b_peak = np.argmax(a), np.argmax(b)
        for i in range(len(p_edges) - 1):
            p0, p1 = p_edges[i], p_edges[i + 1] - 1
            top_a = a[min(max(a_peak, p0), p1)]
            for j in range(len(n_edges) - 1):
                n0, n1 = n_edges[j], n_edges[j + 1] - 1
                if p1 + n1 < smallest:
                    continue
                total = top_a + b[min(max(b_peak, n0), n1)] + (p1 + n1) * slack
                if total <= 0:
                    continue
                low = max(p0 + n0, smallest)
                size = power(float(low if alpha <= 1 else p1 + n1), alpha - 1.0)
                if p0 <= n1 and n0 <= p1:
                    balance = 1.0
                elif p1 < n0:
                    balance = p1 / n0
                else:
                    balance = n1 / p0
                best = max(best, size * power(balance, beta) * total)
    return best
