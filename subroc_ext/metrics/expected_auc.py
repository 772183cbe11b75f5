"""The expected ROC AUC: the AUC a set of rows would have if its scores were
the true probabilities (the model-based concordance of van Klaveren et al.).

A row with probability ``p_i`` is a positive with weight ``p_i`` and a
negative with weight ``1 - p_i``, so the AUC the scores themselves promise is

    mbc(S) = sum over i != j of p_i (1 - p_j) h(i, j) / sum over i != j of p_i (1 - p_j),

with ``h(i, j) = [p_i > p_j] + 1/2 [p_i = p_j]`` (self-pairs left out). It
needs no labels. A subgroup with a narrow spread of probabilities (a slice
of the strongest predictor) has a low ``mbc``: every model, the true
probabilities included, ranks worse there.

:func:`expected_auc_of_sorted` computes it in one pass over the
probabilities sorted once (``O(n)`` after the sort), tied probabilities
handled exactly: a group of ``c`` rows tied at ``v`` adds ``c (c - 1) v (1 -
v) / 2`` to the numerator and twice that to the denominator; every term is
non-negative, so nothing cancels. It is undefined (NaN) for fewer than two
rows. Where the denominator is 0 (every probability 0, or every one 1) it is
1/2: such rows are all tied, and every other all-tied set has 1/2 (its limit;
SPEC leaves this case undefined, which would make the measure depend on the
values and not only on the class counts). :func:`expected_auc_extremes` gives
the lowest and highest ``mbc`` over the subsets of a set of rows (both
reached by two rows; a ratio of sums over pairs lies between the smallest
and the largest ratio of one pair, the mediant inequality). The compiled
kernels of the search (:mod:`subroc_ext.scoring.cover_kernels`) call the
same two functions, so every caller gets the same floating-point number.

References
----------
.. [1] D. van Klaveren, M. Gönen, E. W. Steyerberg and Y. Vergouwe, "A new
   concordance measure for risk prediction models in external validation
   settings", Statistics in Medicine 35(23), 4136-4152, 2016.
"""

import numpy as np
from numba import njit

__all__ = [
    "expected_auc_of_sorted",
    "expected_auc_extremes",
    "expected_pr_auc_of_sorted",
    "pair_ratio",
    "check_probabilities",
    "expected_roc_auc",
]


@njit(cache=True, nogil=True)
def expected_auc_of_sorted(probabilities):
    """The expected ROC AUC of probabilities sorted in ascending order (compiled).

    Parameters
    ----------
    probabilities : numpy.ndarray of float
        Values in [0, 1], ascending.

    Returns
    -------
    float
        ``mbc``; NaN for fewer than two rows, 1/2 for a zero denominator
        (all 0 or all 1: all tied).

    Examples
    --------
    >>> round(expected_auc_of_sorted(np.array([0.2, 0.8])), 4)  # 0.64 / (0.64 + 0.04)
    0.9412
    >>> expected_auc_of_sorted(np.array([0.3, 0.3, 0.3]))
    0.5
    """
    n = len(probabilities)
    if n < 2:
        return np.nan
    numerator = denominator = 0.0
    below_q = 0.0  # sum of 1 - p over the rows of lower probability
    below_p = 0.0  # sum of p over them
    start = 0
    while start < n:
        value = probabilities[start]
        end = start + 1
        while end < n and probabilities[end] == value:
            end += 1
        count = float(end - start)
        above = count * value * below_q  # this group as the positive of a pair with a lower row
        tied = count * (count - 1.0) * value * (1.0 - value)
        numerator += above + 0.5 * tied
        denominator += above + count * (1.0 - value) * below_p + tied
        below_q += count * (1.0 - value)
        below_p += count * value
        start = end
    if not denominator > 0.0:
        return 0.5
    return numerator / denominator


@njit(cache=True, nogil=True)
def pair_ratio(high, low):
    """``mbc`` of two rows with probabilities ``high > low`` (compiled):
    ``high (1 - low) / (high (1 - low) + low (1 - high))``."""
    upper = high * (1.0 - low)
    return upper / (upper + low * (1.0 - high))


@njit(cache=True, nogil=True)
def expected_auc_extremes(probabilities):
    """Lowest and highest expected ROC AUC of any subset of at least two rows
    (compiled).

    Parameters
    ----------
    probabilities : numpy.ndarray of float
        At least two values in [0, 1], ascending.

    Returns
    -------
    (float, float)
        Highest: :func:`pair_ratio` of the highest and the lowest value (1/2
        when all are equal). Lowest: 1/2 if two rows tie, else the smallest :func:`pair_ratio` of neighbouring distinct
        values. Both are reached by a pair of rows, so they are exact.

    Notes
    -----
    ``mbc(T)`` is a ratio of sums over the pairs of ``T`` (a tied pair adds
    ``v (1 - v)`` above and ``2 v (1 - v)`` below; a pair tied at 0 or 1 adds
    nothing, and a set of such pairs alone has 1/2), so it lies between the smallest and the largest ratio of one
    pair (the mediant inequality). A pair's ratio grows with the odds ratio
    ``odds(high) / odds(low)``: largest for the two extreme values, smallest
    for neighbours, and 1/2 for a tie.

    Examples
    --------
    >>> expected_auc_extremes(np.array([0.2, 0.5, 0.8]))
    (0.8, 0.9411764705882353)
    """
    n = len(probabilities)
    lowest_value, highest_value = probabilities[0], probabilities[n - 1]
    if highest_value == lowest_value:
        return 0.5, 0.5
    highest = pair_ratio(highest_value, lowest_value)
    lowest = np.inf
    for i in range(1, n):
        previous, value = probabilities[i - 1], probabilities[i]
        if value == previous:
            return 0.5, highest
        else:
            lowest = min(lowest, pair_ratio(value, previous))
    return lowest, highest


@njit(cache=True, nogil=True)
def expected_pr_auc_of_sorted(probabilities):
    """The PR AUC rows promise if these, in ascending order, are their true
    probabilities and rank them (compiled): the case-mix measure of the PR
    AUC, as ``mbc`` is the ROC AUC's.

    The package's PR AUC (:func:`~subroc_ext.metrics.kernels.pr_auc_from_counts`)
    is a ratio ``A / P``: with tie groups ``g`` from the highest value down,
    ``TP_g`` the positives and ``K_g`` the rows down to the end of ``g``,
    ``A = sum_g (TP_g - TP_{g-1}) (TP_g / K_g + TP_{g-1} / K_{g-1})`` (the
    first group's previous precision 1) and ``P`` the positives, times 2.
    With the labels drawn ``y_i ~ Bernoulli(p_i)`` independently, ``E[A]`` is
    exact in one pass (``mu_g`` and ``v_g`` the sums of ``p`` and ``p (1 - p)``
    over group ``g``, ``M_g`` the sum of ``mu`` down to ``g``):
    ``E[(TP_g - TP_{g-1}) TP_g] = v_g + mu_g M_g`` and
    ``E[(TP_g - TP_{g-1}) TP_{g-1}] = mu_g M_{g-1}``. The promise
    ``E[A / P]`` has no closed form; this is the ratio of expectations
    ``E[A] / (2 E[P])``, van Klaveren's construction of ``mbc`` (a ratio of
    expected pair counts). Both ``A / n`` and ``P / n`` are means of bounded
    terms (a label changes ``A`` by at most 3, ``P`` by 1), so as the rows
    grow at a prevalence bounded away from 0 they concentrate at their
    expectations, ``A / P`` at ``E[A] / E[P]``, and the ratio (in [0, 1])
    converges to ``E[A / P]``: a consistent deterministic approximation of the
    promise, which the label-draw test
    (:class:`~subroc_ext.inference.promise.Promise`) estimates instead.

    Returns
    -------
    float
        In [0, 1]; 0 where every probability is 0 (no positive is promised).

    Examples
    --------
    >>> expected_pr_auc_of_sorted(np.array([0.0, 1.0]))  # a sure positive on top
    1.0
    >>> round(expected_pr_auc_of_sorted(np.array([0.5])), 4)  # (0.25 + 0.25 + 0.5) / (2 * 0.5)
    1.0
    """
    n = len(probabilities)
    numerator = 0.0
    cumulative = 0.0  # M_{g-1}
    previous_precision = 1.0  # E[TP_{g-1}] / K_{g-1} enters through M_{g-1} / K_{g-1}
    rows = 0
    end = n
    while end > 0:
        value = probabilities[end - 1]
        start = end - 1
        while start > 0 and probabilities[start - 1] == value:
            start -= 1
        count = end - start
        mu = count * value
        variance = count * value * (1.0 - value)
        rows += count
        numerator += (variance + mu * (cumulative + mu)) / rows + mu * previous_precision
        cumulative += mu
        previous_precision = cumulative / rows
        end = start
    if not cumulative > 0.0:
        return 0.0
    return numerator / (2.0 * cumulative)


def check_probabilities(probability, name="probability"):
    """``probability`` as a float array, or a one-line ``ValueError`` naming
    ``name`` unless every value is a finite number in [0, 1]."""
    values = np.asarray(probability, dtype=float)
    if values.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional")
    outside = ~((values >= 0) & (values <= 1))
    if outside.any():
        raise ValueError(
            f"{name} must be probabilities in [0, 1]; {int(outside.sum())} value(s) are not, "
            f"e.g. {values[np.flatnonzero(outside)[0]]!r}"
        )
    return values


def expected_roc_auc(probability):
    """The ROC AUC that rows with these true probabilities would have on average.

    Parameters
    ----------
    probability : array-like of shape (n_samples,)
        Probabilities in [0, 1] (a model's calibrated scores).

    Returns
    -------
    float
        The model-based concordance ``mbc``; NaN for fewer than two rows,
        1/2 when every probability is 0 or every one is 1.

    References
    ----------
    .. [1] D. van Klaveren, M. Gönen, E. W. Steyerberg and Y. Vergouwe, "A new
       concordance measure for risk prediction models in external validation
       settings", Statistics in Medicine 35(23), 4136-4152, 2016.

    Examples
    --------
    >>> round(expected_roc_auc([0.1, 0.9, 0.5]), 4)  # (0.81 + 0.45 + 0.45) / (0.82 + 0.5 + 0.5)
    0.9396
    >>> round(expected_roc_auc([0.45, 0.55, 0.5]), 4)  # a narrow spread promises little
    0.5664
    """
    return float(expected_auc_of_sorted(np.sort(check_probabilities(probability))))
