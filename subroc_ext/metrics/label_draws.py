"""Ranking measures of one set of scored rows under many draws of their labels at once.

The promise of a measure (SPEC, "The promise of every measure") is its value
on a subgroup's rows when their labels are drawn from the rows'
probabilities, the scores fixed. A test of it evaluates the measure on
thousands of such draws of the same rows: each row of a boolean matrix
``labels`` (draws x rows) is one draw, and every function here returns one
value per draw, NaN where the measure is undefined (a draw of one class).

The scores are ranked once per call, and each measure is a matrix product
or a cumulative sum over the columns, tie groups handled exactly as in
:mod:`~subroc_ext.metrics.kernels` (ties count one half).

A measure that is a function of a draw's positives and one weighted sum of
its labels (the ROC AUC and the ARL of the positives' mid-rank sum,
:func:`roc_auc_of_rank_sums`; a row mean of its class values) needs no
matrix: :func:`drawn_sums` draws each row's label from a NumPy generator's
stream (:mod:`~subroc_ext.metrics.pcg64`) and adds it up in one compiled
pass, the values drawn and the generator advanced exactly as
``rng.random((draws, rows)) < probabilities`` does.

Examples
--------
>>> labels = np.array([[True, False, True], [False, False, True], [False, False, False]])
>>> roc_auc_of_draws(labels, np.array([0.9, 0.5, 0.1])).round(3).tolist()
[0.5, 0.0, nan]
"""

import numpy as np
from numba import njit
from scipy.stats import rankdata

from ..utils.parts import cores, run_parts
from .normalized_pr_auc import normalized_pr_auc
from .pcg64 import next_word, set_state_words, state_words, uniform_thresholds

__all__ = ["arl_of_draws", "arl_of_rank_sums", "attribution_class_values", "drawn_sums", "pr_auc_of_draws",
           "pr_auc_normalized_of_draws", "roc_auc_of_draws", "roc_auc_of_rank_sums"]  # fmt: skip

#: Labels (rows times draws) one thread of :func:`drawn_sums` draws at least.
PART_LABELS = 1 << 20


def _class_counts(labels):
    positives = labels.sum(axis=1, dtype=np.int64)
    return positives, labels.shape[1] - positives


def roc_auc_of_draws(labels, scores):
    """The ROC AUC of each draw (the Mann-Whitney statistic from the scores'
    mid-ranks: a tie counts one half).

    Examples
    --------
    >>> roc_auc_of_draws(np.array([[True, False, False, True]]), np.array([0.8, 0.4, 0.4, 0.4])).tolist()
    [0.75]
    """
    labels = np.asarray(labels, dtype=bool)
    positives, negatives = _class_counts(labels)
    return roc_auc_of_rank_sums(labels.astype(float) @ rankdata(scores), positives, negatives)


def roc_auc_of_rank_sums(rank_sums, positives, negatives):
    """The ROC AUC of draws from the sum of their positives' mid-ranks among
    the rows (``U = R - P (P + 1) / 2``); NaN where a class is missing.

    Examples
    --------
    >>> roc_auc_of_rank_sums(np.array([5.0, 3.0]), np.array([2, 2]), np.array([2, 2])).tolist()  # ranks 1-4
    [0.5, 0.0]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return (rank_sums - positives * (positives + 1) / 2) / (positives * negatives)


def arl_of_draws(labels, scores):
    """The SCaPE average ranking loss of each draw: ``N (1 - AUC)``, the mean over
    positives of the negatives ranked above them (a tie counts one half); 0
    for a draw without negatives, NaN without positives.

    Examples
    --------
    >>> arl_of_draws(np.array([[True, False, True, False], [True, True, True, True]]),
    ...              np.array([0.1, 0.35, 0.4, 0.8])).tolist()
    [1.5, 0.0]
    """
    labels = np.asarray(labels, dtype=bool)
    positives, negatives = _class_counts(labels)
    return arl_of_rank_sums(labels.astype(float) @ rankdata(scores), positives, negatives)


def arl_of_rank_sums(rank_sums, positives, negatives):
    """:func:`arl_of_draws` from the draws' positives' mid-rank sums.

    Examples
    --------
    >>> arl_of_rank_sums(np.array([4.0, 10.0]), np.array([2, 4]), np.array([2, 0])).tolist()  # ranks 1-4
    [1.5, 0.0]
    """
    auc = roc_auc_of_rank_sums(rank_sums, positives, negatives)
    return np.where(positives == 0, np.nan, np.where(negatives == 0, 0.0, negatives * (1 - auc)))


def pr_auc_of_draws(labels, scores):
    """The PR AUC of each draw: the trapezoidal area under the precision-recall
    curve through (recall 0, precision 1) and the point of each distinct
    score, highest first (:func:`~subroc_ext.metrics.kernels.pr_auc_from_counts`);
    NaN without positives.

    Examples
    --------
    >>> pr_auc_of_draws(np.array([[False, True, False, True]]), np.array([0.1, 0.35, 0.4, 0.8])).round(4).tolist()
    [0.7917]
    """
    labels = np.asarray(labels, dtype=bool)
    scores = np.asarray(scores, dtype=float)
    order = np.argsort(-scores, kind="stable")
    descending = scores[order]
    ends = np.append(np.flatnonzero(descending[1:] != descending[:-1]), len(scores) - 1)  # last row of each tie group
    true_positives = np.cumsum(labels[:, order], axis=1, dtype=np.int64)[:, ends].astype(float)
    positives = true_positives[:, -1:]
    with np.errstate(divide="ignore", invalid="ignore"):
        recall = true_positives / positives
        precision = true_positives / (ends + 1)
    recall = np.concatenate([np.zeros((len(labels), 1)), recall], axis=1)
    precision = np.concatenate([np.ones((len(labels), 1)), precision], axis=1)
    return (np.diff(recall, axis=1) * (precision[:, 1:] + precision[:, :-1])).sum(axis=1) / 2


def pr_auc_normalized_of_draws(labels, scores):
    """The normalized PR AUC of each draw (:mod:`~subroc_ext.metrics.normalized_pr_auc`):
    :func:`pr_auc_of_draws` above the floor of the draw's class counts; NaN
    without a positive or a negative.

    Examples
    --------
    >>> pr_auc_normalized_of_draws(np.array([[True, False], [False, True], [True, True]]),
    ...                            np.array([0.1, 0.9])).tolist()
    [0.0, 1.0, nan]
    """
    labels = np.asarray(labels, dtype=bool)
    positives, negatives = _class_counts(labels)
    values = pr_auc_of_draws(labels, scores)
    return np.array([normalized_pr_auc(v, p, n) for v, p, n in zip(values, positives, negatives)], dtype=float)


def attribution_class_values(is_positive, scores):
    """Each row's normalized ROC AUC attribution were it positive, and were it
    negative, the other rows' labels as given.

    A positive ``i`` is credited ``1/2 * (negatives below it + 1/2 tied) / N``
    and a negative ``j`` ``1/2 * (positives above it + 1/2 tied) / P`` (SPEC,
    "Performance measures"); a row counted in the other class leaves that
    class's counts (its own tie and ``N`` or ``P``), so the value of its
    observed class is its attribution exactly. 0 where the other class would
    be empty.

    Examples
    --------
    >>> positive, negative = attribution_class_values(np.array([True, False, True, False]),
    ...                                               np.array([0.1, 0.35, 0.4, 0.8]))
    >>> positive.tolist(), negative.tolist()
    ([0.0, 0.0, 0.25, 0.5], [0.5, 0.25, 0.0, 0.0])
    """
    is_positive, scores = np.asarray(is_positive, dtype=bool), np.asarray(scores, dtype=float)
    values, group = np.unique(scores, return_inverse=True)
    positives_at = np.bincount(group, is_positive, minlength=len(values))
    negatives_at = np.bincount(group, ~is_positive, minlength=len(values))
    negatives_below = np.cumsum(negatives_at) - negatives_at
    positives_above = positives_at[::-1].cumsum()[::-1] - positives_at
    negatives = (~is_positive).sum() - ~is_positive  # were the row positive
    positives = is_positive.sum() - is_positive  # were it negative
    with np.errstate(divide="ignore", invalid="ignore"):
        if_positive = (negatives_below[group] + (negatives_at[group] - ~is_positive) / 2) / (2 * negatives)
        if_negative = (positives_above[group] + (positives_at[group] - is_positive) / 2) / (2 * positives)
    return np.where(negatives > 0, if_positive, 0.0), np.where(positives > 0, if_negative, 0.0)


def drawn_sums(rng, probabilities, weights, draws):
    """The positives and the weighted sum of the positives of ``draws`` label
    draws, a row positive when its uniform number is below its probability.

    The same draws as ``labels = rng.random((draws, rows)) < probabilities``,
    ``rng`` left in the same state, without the matrix: ``labels.sum(axis=1)``
    and ``labels @ weights`` (equal where the sums are exact, as sums of
    mid-ranks are below ``2**52``; up to rounding otherwise). On every core
    (as NumPy's matrix product is), at least :data:`PART_LABELS` labels a
    thread: each takes a run of draws from the stream advanced to its start
    (``PCG64.advance``), so the draws are the same on any number of cores.

    Parameters
    ----------
    rng : numpy.random.Generator
        Of a ``numpy.random.PCG64`` (``numpy.random.default_rng``'s).
    probabilities, weights : numpy.ndarray of float
        Each row's probability of a positive label, and its weight.
    draws : int

    Returns
    -------
    positives : numpy.ndarray of int64
    sums : numpy.ndarray of float

    Examples
    --------
    >>> p, w = np.array([0.2, 0.5, 0.9]), np.array([1.0, 2.0, 3.0])
    >>> labels = np.random.default_rng(0).random((4, 3)) < p
    >>> positives, sums = drawn_sums(np.random.default_rng(0), p, w, 4)
    >>> positives.tolist() == labels.sum(axis=1).tolist(), sums.tolist() == (labels @ w).tolist()
    (True, True)
    """
    positives, sums = np.empty(draws, dtype=np.int64), np.empty(draws)
    thresholds, weights = uniform_thresholds(probabilities), np.ascontiguousarray(weights, dtype=float)
    rows = len(thresholds)
    parts = max(1, min(cores(), draws * rows // PART_LABELS))
    starts = [draws * part // parts for part in range(parts + 1)]
    words = [state_words(rng.bit_generator)]
    for start in starts[1:]:  # each run's stream: the same, advanced past the runs before it
        advanced = np.random.PCG64()
        advanced.state = rng.bit_generator.state
        words.append(state_words(advanced.advance(start * rows)))

    def part(number):
        run = slice(starts[number], starts[number + 1])
        _drawn_sums(words[number], thresholds, weights, positives[run], sums[run])

    run_parts(part, parts)
    set_state_words(rng.bit_generator, words[-1])  # the end of the last run
    return positives, sums


@njit(cache=True, nogil=True)
def _drawn_sums(words, thresholds, weights, positives, sums):
    """:func:`drawn_sums` compiled: one word of the stream ``words``
    (:func:`~subroc_ext.metrics.pcg64.state_words`, left advanced) per row and
    draw, in the order of ``rng.random((draws, rows))``, a row positive when
    its top 53 bits are below its threshold
    (:func:`~subroc_ext.metrics.pcg64.uniform_thresholds`); the label added
    without a branch."""
    high, low, increment_high, increment_low = words[0], words[1], words[2], words[3]
    for draw in range(len(positives)):
        count, total = 0, 0.0
        for row in range(len(thresholds)):
            high, low, word = next_word(high, low, increment_high, increment_low)
            positive = (word >> np.uint64(11)) < thresholds[row]
            count += positive
            total += positive * weights[row]
        positives[draw], sums[draw] = count, total
    words[0], words[1] = high, low
