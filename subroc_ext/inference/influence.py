"""Exact delete-one changes of the ranking measures: the jackknife's terms.

For a set of rows (a mask over a dataset sorted by ascending score) each
function returns the measure on the set and, for every row, how much the
measure changes when that row alone is left out (zero outside the set). The
class-stratified jackknife turns these changes into standard errors and
correlations (:func:`subroc_ext.inference.jackknife.stratified_jackknife_covariance`)
without recomputing the measure ``n`` times: each function takes ``O(n)``.

* ROC AUC: DeLong's structural components [1]_ (a row's placement value).
  The ARL's effect, ``N(S) (AUC(V) - AUC(S))`` with the class counts held
  as the test holds them, is the ROC AUC's times ``-N(S)``
  (:mod:`subroc_ext.inference.effects`).
* PR AUC (the trapezoidal area under the precision-recall curve from
  ``(recall 0, precision 1)``, as :func:`subroc_ext.metrics.kernels.pr_auc_from_counts`):
  leaving out a row lowers the cumulative counts of every threshold at and
  below its score, so the area splits into the unchanged terms above the
  row's tie group (a prefix sum), the group's own term, and the terms below
  with one row fewer (a suffix sum that depends only on the row's class).
* The expected ROC AUC (:mod:`subroc_ext.metrics.expected_auc`): a ratio of
  sums over pairs, so leaving out a row removes its pairs from both sums; a
  row's share of each is a few prefix sums over the probabilities.

References
----------
.. [1] E. R. DeLong, D. M. DeLong and D. L. Clarke-Pearson, "Comparing the
   areas under two or more correlated receiver operating characteristic
   curves: a nonparametric approach", Biometrics 44(3), 837-845, 1988.
.. [2] B. Efron and C. Stein, "The jackknife estimate of variance", Annals
   of Statistics 9(3), 586-596, 1981.
"""

import numpy as np

__all__ = ["auc_influence", "expected_auc_influence", "pr_auc_influence"]


def auc_influence(is_positive, group_ids, mask):
    """The ROC AUC of the rows in ``mask`` and how much it changes when each
    row is left out (exactly; zero outside the mask): the jackknife's terms.

    Parameters
    ----------
    is_positive : numpy.ndarray of bool
        The labels of a dataset sorted by ascending score.
    group_ids : numpy.ndarray of int
        Its tie groups (non-decreasing, equal for equal scores).
    mask : numpy.ndarray of bool
        The set (at least one row of each class).

    Returns
    -------
    (float, numpy.ndarray)

    Examples
    --------
    >>> auc, terms = auc_influence(np.array([False, True, False, True]), np.arange(4), np.ones(4, bool))
    >>> auc, terms.tolist()  # leaving out the negative at 0.4 makes the ranking perfect
    (0.75, [-0.25, 0.25, 0.25, -0.25])
    """
    n_groups = int(group_ids[-1]) + 1
    positive, negative = is_positive & mask, ~is_positive & mask
    m, n = positive.sum(), negative.sum()
    positive_counts = np.bincount(group_ids[positive], minlength=n_groups)
    negative_counts = np.bincount(group_ids[negative], minlength=n_groups)
    # share of the negatives a positive outscores, and of the positives outscoring a negative
    outscored = (np.cumsum(negative_counts) - 0.5 * negative_counts) / n
    outscoring = (positive_counts[::-1].cumsum()[::-1] - 0.5 * positive_counts) / m
    auc = positive_counts @ outscored / m
    terms = np.zeros(len(mask))
    terms[positive] = (auc - outscored[group_ids[positive]]) / (m - 1)
    terms[negative] = (auc - outscoring[group_ids[negative]]) / (n - 1)
    return auc, terms


def pr_auc_influence(is_positive, group_ids, mask):
    """The PR AUC of the rows in ``mask`` and its exact delete-one changes
    (as :func:`auc_influence`; at least two positives).

    Examples
    --------
    >>> pr_auc, terms = pr_auc_influence(np.array([False, True, False, True]), np.arange(4),
    ...                                  np.ones(4, bool))
    >>> round(pr_auc, 4), terms.round(4).tolist()  # the lowest row, a negative, changes nothing
    (0.7917, [0.0, 0.2083, 0.2083, -0.5417])
    """
    n_groups = int(group_ids[-1]) + 1
    positive, negative = is_positive & mask, ~is_positive & mask
    # the tie groups holding rows of the set, from the highest score down
    positives = np.bincount(group_ids[positive], minlength=n_groups)[::-1]
    negatives = np.bincount(group_ids[negative], minlength=n_groups)[::-1]
    present = positives + negatives > 0
    positives, sizes = positives[present], (positives + negatives)[present]
    true_positives, counts = np.cumsum(positives), np.cumsum(sizes)
    m = true_positives[-1]
    precision = np.concatenate(([1.0], true_positives / counts))  # from recall 0
    area = positives * (precision[1:] + precision[:-1])  # twice m times each trapezoid
    value = area.sum() / (2 * m)
    above = np.cumsum(area) - area  # the unchanged trapezoids above each group
    changes = []
    for left_out in (1, 0):  # a positive, a negative
        # the precisions one row fewer at and below each group (a lone top row: the start's 1)
        fewer = (true_positives - left_out) / np.maximum(counts - 1, 1)
        fewer[counts == 1] = 1.0
        below = positives[1:] * (fewer[1:] + fewer[:-1])
        below = np.append(np.cumsum(below[::-1])[::-1], 0.0)  # the trapezoids below each group
        own = (positives - left_out) * (fewer + precision[:-1])
        changes.append((above + own + below) / (2 * (m - left_out)) - value)
    # each row's group among the present ones, counted from the top
    index = np.zeros(n_groups, dtype=int)
    index[::-1][present] = np.arange(present.sum())
    terms = np.zeros(len(mask))
    terms[positive] = changes[0][index[group_ids[positive]]]
    terms[negative] = changes[1][index[group_ids[negative]]]
    return value, terms


def expected_auc_influence(probabilities, mask):
    """The expected ROC AUC of the rows in ``mask`` and its exact delete-one
    changes (as :func:`auc_influence`; at least three rows).

    Parameters
    ----------
    probabilities : numpy.ndarray of float
        The probabilities of a dataset, ascending.
    mask : numpy.ndarray of bool
        The set.

    Returns
    -------
    (float, numpy.ndarray)

    Notes
    -----
    A row ``k`` of probability ``v``, with ``c`` rows of the set at ``v``
    (itself included), takes ``v Q_below + (1 - v) P_above + (c - 1) v (1 -
    v)`` from the numerator (``Q_below``: the sum of ``1 - p`` of the rows
    below ``v``, ``P_above``: the sum of ``p`` above) and ``v (Q - 1 + v) +
    (1 - v) (P - v)`` from the denominator (``P``, ``Q``: the set's sums of
    ``p`` and ``1 - p``). A zero denominator left gives 1/2, as
    :func:`~subroc_ext.metrics.expected_auc.expected_auc_of_sorted` does.

    Examples
    --------
    >>> value, terms = expected_auc_influence(np.array([0.1, 0.5, 0.9]), np.ones(3, bool))
    >>> round(value, 4), terms.round(4).tolist()  # leaving out the middle row widens the spread
    (0.9396, [-0.0396, 0.0482, -0.0396])
    """
    p = probabilities[mask]
    values, counts = np.unique(p, return_counts=True)
    q_groups, p_groups = counts * (1 - values), counts * values
    total_p, total_q = p_groups.sum(), q_groups.sum()
    q_below, p_below = np.cumsum(q_groups) - q_groups, np.cumsum(p_groups) - p_groups
    p_above = total_p - p_below - p_groups
    tied = counts * (counts - 1.0) * values * (1 - values)
    numerator = (p_groups * q_below + 0.5 * tied).sum()
    denominator = (p_groups * q_below + q_groups * p_below + tied).sum()
    value = numerator / denominator if denominator > 0 else 0.5
    row_numerator = values * q_below + (1 - values) * p_above + (counts - 1) * values * (1 - values)
    row_denominator = values * (total_q - 1 + values) + (1 - values) * (total_p - values)
    left_numerator, left_denominator = numerator - row_numerator, denominator - row_denominator
    with np.errstate(invalid="ignore", divide="ignore"):
        left = np.where(left_denominator > 1e-12 * denominator, left_numerator / left_denominator, 0.5)
    group = np.searchsorted(values, p)
    terms = np.zeros(len(mask))
    terms[mask] = left[group] - value
    return float(value), terms
