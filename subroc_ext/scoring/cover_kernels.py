"""Compiled measure kernels on bitset covers (see :mod:`subroc_ext.scoring.bitset`).

Rows are presorted by ascending score; ``group_start[r]`` and
``group_end[r]`` are the first row and one past the last row of row ``r``'s
tie group. For a cover ``C`` split into its positive and negative words,
every quantity the built-in measures need is a count of cover rows below a
position, read in O(1) from per-word prefix counts:

* ROC AUC and ARL need ``2U``, twice the Mann-Whitney statistic (a tied
  positive-negative pair counts one half). Each row of the smaller class
  contributes the rows of the other class below its tie group's start plus
  those below its end, so the work is O(words + min(P, N)).
* PR AUC visits the tie groups holding positives from the highest score
  down: each adds one trapezoid ``(recall - previous recall) * (precision +
  previous precision)``, where the previous point is the cover's next higher
  distinct score. The terms and their order are those of
  :func:`subroc_ext.metrics.kernels.pr_auc_from_counts` (groups without positives
  add exactly 0), so both give the same floating-point number.
* Row means sum per-row values over the set bits in ascending row order, as
  :class:`subroc_ext.scoring.measures.RowMeanMeasure` does.
* The expected ROC AUC gathers the cover's probabilities (the per-row values,
  ascending) and runs :func:`subroc_ext.metrics.expected_auc.expected_auc_of_sorted`
  and :func:`~subroc_ext.metrics.expected_auc.expected_auc_extremes` on them, as
  :class:`subroc_ext.scoring.case_mix.ExpectedROCAUC` does.

The extreme values over subsets follow SPEC.md and are those of
:mod:`subroc_ext.scoring.measures`, which the tests prove by enumeration.

The randomization test's null distributions come from the same kernels
(:func:`null_values`): each random subset is drawn class by class as a bitset
(a partial Fisher-Yates shuffle of the class's rows, or of the rows left out
when they are fewer) and evaluated like a cover, so a random subset equal to
a pattern's cover gets exactly the pattern's value.

* The normalized PR AUC is the PR AUC above the floor of the cover's class
  counts (:func:`subroc_ext.metrics.normalized_pr_auc.normalized_pr_auc`, the
  same compiled function as its Python value).

Measure codes: :data:`ROC_AUC`, :data:`ARL`, :data:`PR_AUC`, :data:`ROW_MEAN`,
:data:`EXPECTED_ROC_AUC`, :data:`PR_AUC_NORMALIZED`.
"""

import numpy as np
from numba import njit

from ..metrics.expected_auc import expected_auc_extremes, expected_auc_of_sorted
from ..metrics.normalized_pr_auc import normalized_pr_auc
from .bitset import count_below, highest_bit, lowest_bit, popcount, prefix_counts
from .rank_null import random_below
from .weights import power

__all__ = [
    "ROC_AUC",
    "ARL",
    "PR_AUC",
    "ROW_MEAN",
    "EXPECTED_ROC_AUC",
    "PR_AUC_NORMALIZED",
    "TRUE",
    "FALSE",
    "count_children",
    "measure_children",
    "rank_measure",
    "rank_measures",
    "row_mean_size_aware_bound",
    "null_values",
    "position_dtype",
    "tie_group_bounds",
]

ROC_AUC, ARL, PR_AUC, ROW_MEAN, EXPECTED_ROC_AUC, PR_AUC_NORMALIZED = 0, 1, 2, 3, 4, 5

#: The flags compiled code passes to a kernel: numba types a literal ``True``
#: or ``False`` as a type of its own and compiles the kernel (and each kernel
#: it passes the flag on to) once more for it, besides the version for the
#: ``bool`` of Python's calls; NumPy's booleans are that ``bool``.
TRUE, FALSE = np.True_, np.False_


def position_dtype(n):
    """The dtype of row positions among ``n`` rows (:func:`tie_group_bounds`):
    int32 below 2**31 rows, else int64.

    Examples
    --------
    >>> position_dtype(1000), position_dtype(2**31)
    (<class 'numpy.int32'>, <class 'numpy.int64'>)
    """
    return np.int32 if n < np.iinfo(np.int32).max else np.int64


def tie_group_bounds(group_ids):
    """First row and one past the last row of each row's tie group.

    Parameters
    ----------
    group_ids : numpy.ndarray of int
        Non-decreasing tie-group ids of the score-sorted rows.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        Of int32 below 2**31 rows (half the memory, and the measures' kernels,
        which read them at random, find them in cache more often), else of
        int64.

    Examples
    --------
    Scores 0.1, 0.4, 0.4, 0.4, 0.9 (sorted): rows 1-3 are one tie group.

    >>> starts, ends = tie_group_bounds(np.array([0, 1, 1, 1, 2]))
    >>> starts.tolist(), ends.tolist()
    ([0, 1, 1, 1, 4], [1, 4, 4, 4, 5])
    """
    n = len(group_ids)
    position = position_dtype(n)
    changes = np.flatnonzero(np.diff(group_ids)) + 1
    starts = np.concatenate(([0], changes)).astype(position)
    ends = np.concatenate((changes, [n])).astype(position)
    sizes = ends - starts
    return np.repeat(starts, sizes), np.repeat(ends, sizes)


@njit(cache=True, nogil=True)
def count_children(parent, selector_words, candidates, positive_words, negative_words, positives, negatives):
    """Class counts of ``parent AND selector`` for each candidate selector.

    Parameters
    ----------
    parent : uint64[W]
        The parent's cover.
    selector_words : uint64[S, W]
        Covers of all selectors.
    candidates : int64[K]
        Selector indices to combine with the parent.
    positive_words, negative_words : uint64[W]
        The two classes.
    positives, negatives : int64[K]
        Output: class counts of each child.

    Notes
    -----
    The parent's rows of each class are formed once; each child then costs
    two ANDs and two popcounts per word. A parent with rows in at least
    three quarters of its words reads every word in order (a loop the
    compiler vectorizes); a sparser one only the words holding rows, gathered
    once. On 780 words (Census) this counts a child in about 0.2 µs, five
    times faster than one pass over the nonzero words with the parent ANDed
    in each time.

    Examples
    --------
    >>> from subroc_ext.scoring.bitset import pack
    >>> is_positive = np.array([True, False, True, False, True])
    >>> selectors = pack(np.array([[True, True, True, False, False],
    ...                            [False, False, True, True, True]]))
    >>> positives, negatives = np.empty(2, np.int64), np.empty(2, np.int64)
    >>> count_children(pack(np.ones(5, bool)), selectors, np.array([0, 1]),
    ...                pack(is_positive), pack(~is_positive), positives, negatives)
    >>> positives.tolist(), negatives.tolist()
    ([2, 2], [1, 1])
    """
    words = np.flatnonzero(parent)
    gathered = 4 * len(words) < 3 * len(parent)
    if gathered:
        parent, positive_words, negative_words = parent[words], positive_words[words], negative_words[words]
    parent_positives = parent & positive_words
    parent_negatives = parent & negative_words
    for i in range(len(candidates)):
        selector = selector_words[candidates[i]]
        p = np.int64(0)
        n = np.int64(0)
        if gathered:
            for j in range(len(words)):
                word = selector[words[j]]
                p += np.int64(popcount(parent_positives[j] & word))
                n += np.int64(popcount(parent_negatives[j] & word))
        else:
            for w in range(len(parent)):
                p += np.int64(popcount(parent_positives[w] & selector[w]))
                n += np.int64(popcount(parent_negatives[w] & selector[w]))
        positives[i] = p
        negatives[i] = n


@njit(cache=True, inline="always")
def _first_row(words):
    for w in range(len(words)):
        if words[w]:
            return w * 64 + lowest_bit(words[w])
    return -1


@njit(cache=True, inline="always")
def _last_row(words):
    for w in range(len(words) - 1, -1, -1):
        if words[w]:
            return w * 64 + highest_bit(words[w])
    return -1


@njit(cache=True)
def _twice_wins(cpos, cneg, pre_pos, pre_neg, p, n, group_start, group_end):
    """``2U`` and whether some positive ties a negative, iterating the smaller
    class (``p`` positives and ``n`` negatives)."""
    total = np.int64(0)
    has_tie = False
    if p <= n:
        words, other, prefix, size = cpos, cneg, pre_neg, p
    else:
        words, other, prefix, size = cneg, cpos, pre_pos, n
    seen = 0
    w = -1
    while seen < size:  # up to the last word holding rows of the class
        w += 1
        x = words[w]
        seen += popcount(x)
        while x:
            row = w * 64 + lowest_bit(x)
            x &= x - np.uint64(1)
            below_start = count_below(other, prefix, group_start[row])
            below_end = count_below(other, prefix, group_end[row])
            total += below_start + below_end
            if below_end > below_start:
                has_tie = True
    if p > n:  # summed over negatives: positives below instead of negatives below
        total = 2 * p * n - total
    return total, has_tie


@njit(cache=True, inline="always")
def rank_measure(kind, twice, p, n):
    """ROC AUC ``U / (p n)`` or ARL ``(p n - U) / p`` from ``twice = 2U``
    (compiled): the one expression of both, so that every kernel (the
    measure, the null distribution, the bounds from counts of
    :mod:`subroc_ext.scoring.joint_bounds`) gets the same floating-point number
    from the same counts.

    Parameters
    ----------
    kind : int
        :data:`ROC_AUC` or :data:`ARL`.
    twice : int
        Twice the Mann-Whitney count ``U`` (a tied pair counts one half).
    p, n : int
        Positives (at least 1) and negatives (at least 1 for ROC AUC).

    Returns
    -------
    float
    """
    if kind == ROC_AUC:
        return (twice / 2) / (p * n)
    return (p * n - twice / 2) / p


@njit(cache=True)
def rank_measures(kind, twice, p, n):
    """:func:`rank_measure` of each ``2U`` in ``twice`` (int64 array), the
    same floating-point numbers as every kernel's."""
    out = np.empty(len(twice))
    for i in range(len(twice)):
        out[i] = rank_measure(kind, twice[i], p, n)
    return out


@njit(cache=True)
def _pr_auc(cpos, cneg, pre_pos, pre_neg, p, n, group_start, group_end):
    """Trapezoidal PR AUC, one term per tie group holding positives, highest first."""
    total = 0.0
    last_start = -1
    for w in range(len(cpos) - 1, -1, -1):
        x = cpos[w]
        while x:
            bit = highest_bit(x)
            x &= ~(np.uint64(1) << np.uint64(bit))
            row = w * 64 + bit
            start = group_start[row]
            if start == last_start:
                continue
            last_start = start
            end = group_end[row]
            pos_below = count_below(cpos, pre_pos, start)
            neg_below = count_below(cneg, pre_neg, start)
            true_pos = p - pos_below
            false_pos = n - neg_below
            prev_true_pos = true_pos - (count_below(cpos, pre_pos, end) - pos_below)
            prev_false_pos = false_pos - (count_below(cneg, pre_neg, end) - neg_below)
            precision = true_pos / (true_pos + false_pos)
            if prev_true_pos + prev_false_pos == 0:
                prev_precision = 1.0
            else:
                prev_precision = prev_true_pos / (prev_true_pos + prev_false_pos)
            total += (true_pos / p - prev_true_pos / p) * (precision + prev_precision)
    return total / 2


@njit(cache=True, nogil=True)
def measure_children(
    parent, selector_words, candidates, positive_words, negative_words, group_start, group_end,
    kind, row_values, with_extremes, values, lowest, highest,
):  # fmt: skip
    """The measure and its extremes over subsets on ``parent AND selector``.

    Parameters
    ----------
    parent, selector_words, candidates, positive_words, negative_words
        As in :func:`count_children`.
    group_start, group_end : int64[n]
        Tie group bounds of every row.
    kind : int
        :data:`ROC_AUC`, :data:`ARL`, :data:`PR_AUC`, :data:`ROW_MEAN`,
        :data:`EXPECTED_ROC_AUC` or :data:`PR_AUC_NORMALIZED`.
    row_values : float64[n] or None
        Per-row values for :data:`ROW_MEAN`, the probabilities (ascending) for
        :data:`EXPECTED_ROC_AUC`; None for the other measures, which have
        none: numba then drops the code of those two before it compiles the
        kernel, so a search by ROC AUC, ARL or PR AUC compiles none of it.
    with_extremes : bool
        Whether to compute the extremes; without them ``lowest`` and
        ``highest`` stay NaN and no work is spent on them (a search without
        pruning).
    values, lowest, highest : float64[K]
        Output: the measure and its lowest and highest value over the
        defined subsets of each child (the caller skips undefined children,
        whose entries are NaN).
    """
    n_words = len(parent)
    cpos = np.empty(n_words, dtype=np.uint64)
    cneg = np.empty(n_words, dtype=np.uint64)
    pre_pos = np.empty(n_words + 1, dtype=np.int64)
    pre_neg = np.empty(n_words + 1, dtype=np.int64)
    gathered = np.empty(0 if row_values is None or kind != EXPECTED_ROC_AUC else len(row_values))
    for i in range(len(candidates)):
        selector = selector_words[candidates[i]]
        values[i] = np.nan
        lowest[i] = np.nan
        highest[i] = np.nan
        if row_values is not None:  # a per-row measure (None: this code is not compiled)
            if kind == ROW_MEAN:  # the rows' values added in row order, no class counts needed
                size = 0
                total = 0.0
                low = np.inf
                high = -np.inf
                for w in range(n_words):  # the class words: a drift's side holds only its period's rows
                    x = parent[w] & selector[w] & (positive_words[w] | negative_words[w])
                    while x:
                        value = row_values[w * 64 + lowest_bit(x)]
                        x &= x - np.uint64(1)
                        size += 1
                        total += value
                        if with_extremes:
                            low = min(low, value)
                            high = max(high, value)
                if size:
                    values[i] = total / size
                    if with_extremes:
                        lowest[i] = low
                        highest[i] = high
                continue
        for w in range(n_words):
            child = parent[w] & selector[w]
            cpos[w] = child & positive_words[w]
            cneg[w] = child & negative_words[w]
        p = prefix_counts(cpos, pre_pos)
        n = prefix_counts(cneg, pre_neg)
        if row_values is not None:
            if kind == EXPECTED_ROC_AUC:
                if p == 0 or n == 0:
                    continue
                covered = _gather(cpos, cneg, row_values, gathered)
                values[i] = expected_auc_of_sorted(covered)
                if with_extremes:
                    lowest[i], highest[i] = expected_auc_extremes(covered)
                continue
        if p == 0 or ((kind == ROC_AUC or kind == PR_AUC_NORMALIZED) and n == 0):
            continue
        if kind == PR_AUC:
            values[i] = _pr_auc(cpos, cneg, pre_pos, pre_neg, p, n, group_start, group_end)
        elif kind == PR_AUC_NORMALIZED:
            values[i] = normalized_pr_auc(_pr_auc(cpos, cneg, pre_pos, pre_neg, p, n, group_start, group_end), p, n)
        else:
            twice, has_tie = _twice_wins(cpos, cneg, pre_pos, pre_neg, p, n, group_start, group_end)
            values[i] = rank_measure(kind, twice, p, n)
        if not with_extremes:
            continue
        first_pos = _first_row(cpos)
        if kind == ROC_AUC:
            last_neg = _last_row(cneg)
            last_pos = _last_row(cpos)
            first_neg = _first_row(cneg)
            if group_end[first_pos] <= last_neg:
                lowest[i] = 0.0
            else:
                lowest[i] = 0.5 if has_tie else 1.0
            if group_start[last_pos] > first_neg:
                highest[i] = 1.0
            else:
                highest[i] = 0.5 if has_tie else 0.0
            continue
        if kind == PR_AUC_NORMALIZED:
            # 0 from a negative at or above a positive (a pair reversed reaches it; a tied pair is bounded
            # by it), 1 from a positive at or above a negative; else every subset is as perfect (1) or as
            # reversed (0) as the cover
            lowest[i] = 0.0 if group_start[first_pos] <= _last_row(cneg) else 1.0
            highest[i] = 1.0 if group_end[_last_row(cpos)] > _first_row(cneg) else 0.0
            continue
        # ARL and PR AUC: the lowest-scored positive with the negatives at or above it
        tied_and_above = n - count_below(cneg, pre_neg, group_start[first_pos])
        above = n - count_below(cneg, pre_neg, group_end[first_pos])
        tied = tied_and_above - above
        if kind == ARL:
            lowest[i] = 0.0
            highest[i] = above + 0.5 * tied
        else:
            precision = 1.0 / (1.0 + tied + above)
            start = 0.0 if above > 0 else 1.0
            lowest[i] = (start + precision) / 2.0
            highest[i] = 1.0


@njit(cache=True, inline="always")
def _gather(cpos, cneg, row_values, out):
    """The values of the rows of either class, in ascending row order: a view of ``out``."""
    count = 0
    for w in range(len(cpos)):
        x = cpos[w] | cneg[w]
        while x:
            out[count] = row_values[w * 64 + lowest_bit(x)]
            x &= x - np.uint64(1)
            count += 1
    return out[:count]


@njit(cache=True, nogil=True)
def row_mean_size_aware_bound(cover, value_order, ascending_values, reference, sign, size_weight):
    """``max_k k^alpha * (mean of the k largest sign*values - sign*reference)``
    over the rows of bitset ``cover`` (see
    :meth:`subroc_ext.scoring.measures.RowMeanMeasure.size_aware_bound`).

    Parameters
    ----------
    cover : uint64[W]
    value_order : int64[n]
        Rows in ascending order of their value.
    ascending_values : float64[n]
        The values in that order.
    reference : float
        The measure on the whole data.
    sign : float
        +1 (largest values first) or -1 (smallest first, negated).
    size_weight : float
        The exponent alpha.
    """
    n = len(value_order)
    best = -np.inf
    total = 0.0
    k = 0
    shift = sign * reference
    for j in range(n):
        i = n - 1 - j if sign > 0 else j
        row = value_order[i]
        if (cover[row >> 6] >> np.uint64(row & 63)) & np.uint64(1):
            total += ascending_values[i] if sign > 0 else -ascending_values[i]
            k += 1
            size = float(k)
            best = max(best, power(size, size_weight) * (total / size - shift))
    return best


@njit(cache=True)
def _draw(state, pool, pool_words, count, words):
    """Set in ``words`` the bits of ``count`` rows of ``pool`` drawn uniformly
    without replacement (partial Fisher-Yates: uniform whatever the pool's
    current order); draws the left-out rows instead when they are fewer."""
    size = len(pool)
    complement = 2 * count > size
    draws = size - count if complement else count
    if complement:
        words[:] = pool_words
    else:
        words[:] = 0
    for i in range(draws):
        j = i + random_below(state, size - i)
        pool[i], pool[j] = pool[j], pool[i]
        row = pool[i]
        bit = np.uint64(1) << np.uint64(row & 63)
        if complement:
            words[row >> 6] &= ~bit
        else:
            words[row >> 6] |= bit


@njit(cache=True, nogil=True)
def null_values(kind, seed, positive_rows, negative_rows, positives, negatives, group_start, group_end,
                row_values, out):  # fmt: skip
    """The measure on ``len(out)`` uniformly random subsets with ``positives``
    rows drawn from ``positive_rows`` and ``negatives`` from ``negative_rows``.

    The null distribution of the randomization test. Each value is computed
    by the same operations as the measure on a cover, so a random subset
    equal to a pattern's cover gets exactly the pattern's value.

    Parameters
    ----------
    kind : int
        :data:`ROC_AUC`, :data:`ARL`, :data:`PR_AUC`, :data:`ROW_MEAN`,
        :data:`EXPECTED_ROC_AUC` or :data:`PR_AUC_NORMALIZED`.
    seed : int
        Seeds the generator (SplitMix64; the values are a function of the seed).
    positive_rows, negative_rows : int64[:]
        Rows (of the score-sorted dataset) of each class.
    positives, negatives : int
        Class counts of every subset.
    group_start, group_end : int64[n]
        Tie group bounds of every row.
    row_values : float64[n] or None
        Per-row values for :data:`ROW_MEAN`, the probabilities for
        :data:`EXPECTED_ROC_AUC`; None for the others (as in
        :func:`measure_children`).
    out : float64[B]
        Output.
    """
    state = np.full(1, np.uint64(seed), dtype=np.uint64)
    n_words = (len(group_start) + 63) // 64
    pools = (positive_rows.copy(), negative_rows.copy())
    pool_words = (np.zeros(n_words, dtype=np.uint64), np.zeros(n_words, dtype=np.uint64))
    for c in range(2):
        for row in pools[c]:
            pool_words[c][row >> 6] |= np.uint64(1) << np.uint64(row & 63)
    cpos = np.zeros(n_words, dtype=np.uint64)
    cneg = np.zeros(n_words, dtype=np.uint64)
    pre_pos = np.empty(n_words + 1, dtype=np.int64)
    pre_neg = np.empty(n_words + 1, dtype=np.int64)
    p, n = np.int64(positives), np.int64(negatives)
    gathered = np.empty(0 if row_values is None or kind != EXPECTED_ROC_AUC else len(row_values))
    for b in range(len(out)):
        _draw(state, pools[0], pool_words[0], positives, cpos)
        _draw(state, pools[1], pool_words[1], negatives, cneg)
        if row_values is not None:  # a per-row measure (None: this code is not compiled)
            if kind == ROW_MEAN:
                total = 0.0
                for w in range(n_words):
                    x = cpos[w] | cneg[w]
                    while x:
                        total += row_values[w * 64 + lowest_bit(x)]
                        x &= x - np.uint64(1)
                out[b] = total / (p + n)
                continue
            if kind == EXPECTED_ROC_AUC:
                out[b] = expected_auc_of_sorted(_gather(cpos, cneg, row_values, gathered))
                continue
        prefix_counts(cpos, pre_pos)
        prefix_counts(cneg, pre_neg)
        if kind == PR_AUC:
            out[b] = _pr_auc(cpos, cneg, pre_pos, pre_neg, p, n, group_start, group_end)
            continue
        if kind == PR_AUC_NORMALIZED:
            out[b] = normalized_pr_auc(_pr_auc(cpos, cneg, pre_pos, pre_neg, p, n, group_start, group_end), p, n)
            continue
        twice, _ = _twice_wins(cpos, cneg, pre_pos, pre_neg, p, n, group_start, group_end)
        out[b] = rank_measure(kind, twice, p, n)
