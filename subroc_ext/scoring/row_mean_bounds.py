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
small covers. The cost is one sort of the parent's values per node, then
``O(1)`` per child.
"""

import numpy as np
from numba import njit

from .bitset import lowest_bit
from .bounds import beyond_rounding
from .weights import power, subgroup_weight

__all__ = ["MARGIN", "class_prefix_sums", "row_mean_count_bounds", "row_mean_joint_of_words"]

#: Relative widening of each extreme mean (sorted sums against the kernels' sums in row order).
MARGIN = 1e-12


@njit(cache=True)
def class_prefix_sums(words, row_values):
    """``0, v_1, v_1 + v_2, ...``: prefix sums of the values of the rows of
    bitset ``words`` in ascending order (length ``count + 1``) and the largest
    magnitude among them."""
    count = 0
    for w in range(len(words)):
        x = words[w]
        while x:
            x &= x - np.uint64(1)
            count += 1
    values = np.empty(count)
    i = 0
    for w in range(len(words)):
        x = words[w]
        while x:
            values[i] = row_values[w * 64 + lowest_bit(x)]
            x &= x - np.uint64(1)
            i += 1
    values.sort()
    sums = np.zeros(count + 1)
    largest = 0.0
    for j in range(count):
        sums[j + 1] = sums[j] + values[j]
        largest = max(largest, abs(values[j]))
    return sums, largest


@njit(cache=True, nogil=True)
def row_mean_count_bounds(parent, positive_words, negative_words, row_values, positives, negatives, reference,
                          offset, downward, upward, alpha, beta, out):  # fmt: skip
    """A bound of ``w(C) * (q(C) - offset)`` for each child ``C`` of ``parent``
    from its class counts alone, into ``out`` (see the module).

    Parameters
    ----------
    parent, positive_words, negative_words : uint64[W]
        Bitsets of the parent's rows and of each class.
    row_values : float64[n]
        The per-row values, by row.
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
    >>> from subroc_ext.scoring.bitset import pack
    >>> labels = np.array([True, True, False, False])
    >>> values = np.array([0.9, 0.1, -0.2, -0.6])
    >>> out = np.empty(2)
    >>> row_mean_count_bounds(pack(np.ones(4, bool)), pack(labels), pack(~labels), values,
    ...                       np.array([1, 2]), np.array([1, 0]), 0.0, 0.0, False, True, 0.0, 0.0, out)
    >>> out.round(6).tolist()  # (0.9 - 0.2) / 2; (0.9 + 0.1) / 2
    [0.35, 0.5]
    """
    pos_sums, pos_largest = class_prefix_sums(parent & positive_words, row_values)
    neg_sums, neg_largest = class_prefix_sums(parent & negative_words, row_values)
    total_p, total_n = len(pos_sums) - 1, len(neg_sums) - 1
    scale = max(pos_largest, neg_largest, abs(reference))
    for i in range(len(positives)):
        p, n = positives[i], negatives[i]
        if p + n == 0:
            out[i] = -np.inf
            continue
        size = float(p + n)
        gain = -np.inf
        if upward:  # the largest mean: the p largest positives, the n largest negatives
            highest = (pos_sums[total_p] - pos_sums[total_p - p] + neg_sums[total_n] - neg_sums[total_n - n]) / size
            gain = max(gain, beyond_rounding(highest + MARGIN * scale - reference, abs(reference)) - offset)
        if downward:
            lowest = (pos_sums[p] + neg_sums[n]) / size
            gain = max(gain, -beyond_rounding(lowest - MARGIN * scale - reference, abs(reference)) - offset)
        out[i] = subgroup_weight(float(p), float(n), alpha, beta) * gain


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
def row_mean_joint_of_words(parent, positive_words, negative_words, row_values, reference, offset, downward,
                            upward, alpha, beta, min_support):  # fmt: skip
    """A bound of ``w(T) * (s * (mean(T) - reference) - offset)`` over every
    subset ``T`` of ``parent`` with at least ``min_support`` rows and every
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
    pos_sums, pos_largest = class_prefix_sums(parent & positive_words, row_values)
    neg_sums, neg_largest = class_prefix_sums(parent & negative_words, row_values)
    total_p, total_n = len(pos_sums) - 1, len(neg_sums) - 1
    slack = MARGIN * max(pos_largest, neg_largest, abs(reference))
    smallest = max(min_support, 1)
    p_edges, n_edges = _edges(total_p), _edges(total_n)
    best = 0.0
    for sign, wanted in ((1.0, upward), (-1.0, downward)):
        if not wanted or total_p + total_n < smallest:
            continue
        shift = sign * reference + offset
        a, b = _gains(pos_sums, sign, shift), _gains(neg_sums, sign, shift)
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
